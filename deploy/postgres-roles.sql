-- Tortuga's two Postgres roles: the owner (runs `tortuga migrate`: owns the schema and every
-- table) and the node (what `tortuga serve` connects as: reads and writes the tables, but
-- is neither their owner nor a superuser, so it cannot ALTER a table or disable a trigger;
-- migration 0006 takes UPDATE, DELETE and TRUNCATE of the admin audit from every role but
-- the owner). Run once by a superuser, on a new database or one already migrated:
--
--   psql -v ON_ERROR_STOP=1 -d tortuga -v database=tortuga \
--        -v owner=tortuga_owner -v owner_password=... \
--        -v node=tortuga_node -v node_password=... -f deploy/postgres-roles.sql
--
-- docker-compose.yml runs it when Postgres first creates its data (deploy/postgres-roles.sh).
-- Connect with psql to the database named by :database.

CREATE ROLE :"owner" LOGIN PASSWORD :'owner_password';
CREATE ROLE :"node" LOGIN PASSWORD :'node_password';
ALTER DATABASE :"database" OWNER TO :"owner";
ALTER SCHEMA public OWNER TO :"owner";
-- Nobody else creates objects in the schema (the default from Postgres 15 on).
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO :"node";

-- What the owner creates from now on (every later migration) the node may use.
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner" IN SCHEMA public
    GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO :"node";
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner" IN SCHEMA public
    GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO :"node";

-- A database migrated before (by another role): the owner takes its tables, sequences and
-- functions, and the node gets on them what it would have got by default...
SELECT format('ALTER TABLE public.%I OWNER TO %I', tablename, :'owner')
    FROM pg_tables WHERE schemaname = 'public' AND tableowner <> :'owner' \gexec
SELECT format('ALTER SEQUENCE public.%I OWNER TO %I', c.relname, :'owner')
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind = 'S' AND pg_get_userbyid(c.relowner) <> :'owner'
    AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.objid = c.oid AND d.deptype IN ('a', 'i'))
    \gexec
SELECT format('ALTER FUNCTION public.%I(%s) OWNER TO %I', p.proname,
              pg_get_function_identity_arguments(p.oid), :'owner')
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = 'public' AND pg_get_userbyid(p.proowner) <> :'owner' \gexec
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO :"node";
GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO :"node";
-- ... except the audit's edits, as migration 0006 has it (it adds entries and reads them).
SELECT format('REVOKE UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON public.%I FROM %I',
              relname, :'node')
    FROM pg_class WHERE oid IN (to_regclass('public.admin_audit')) \gexec
SELECT format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON public.%I FROM %I',
              relname, :'node')
    FROM pg_class WHERE oid IN (to_regclass('public.admin_audit_head')) \gexec
