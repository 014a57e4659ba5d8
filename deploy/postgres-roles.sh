#!/bin/sh
# Run by the postgres image when it first creates its data (/docker-entrypoint-initdb.d/),
# before it listens on the network: the two roles of deploy/postgres-roles.sql, then the
# superuser's password is removed -- it logs in only over the container's own socket, never
# from a node's container.
set -e
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
    -v database="$POSTGRES_DB" \
    -v owner=tortuga_owner -v owner_password="$TORTUGA_DB_OWNER_PASSWORD" \
    -v node=tortuga_node -v node_password="$TORTUGA_DB_NODE_PASSWORD" \
    -f /etc/tortuga/postgres-roles.sql
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
    -c "ALTER ROLE \"$POSTGRES_USER\" PASSWORD NULL"
