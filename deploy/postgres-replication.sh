#!/bin/sh
# Run by the postgres image when it first creates its data (deploy/docker-compose.scale.yml):
# a `replicator` role that may only stream the WAL, and its password login from the
# network, for the read replica's pg_basebackup and streaming.
set -e
# (psql interpolates :'password' only in what it reads, not in -c: hence stdin.)
echo "CREATE ROLE replicator WITH REPLICATION LOGIN PASSWORD :'password';" |
    psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
        -v password="$TORTUGA_DB_REPLICATION_PASSWORD"
echo "host replication replicator all scram-sha-256" >> "$PGDATA/pg_hba.conf"
