"""The admin audit is a hash chain, written by the database itself, and only its owner may
touch it.

Every row of ``admin_audit`` carries ``prev_hash`` (the ``hash`` of the row before it; 64
zeros for the first row) and ``hash``:

    hash    = lowercase hex of SHA-256(UTF-8(message))
    message = "tortuga-audit-1\\n" + prev_hash + "\\n"
              + F(id) + F(at) + F(admin) + F(action) + F(target) + F(reason) + F(details)
    F(NULL) = "-"
    F(s)    = the number of bytes of UTF-8(s), in decimal, + ":" + s
    id      = decimal; at = UTC as "YYYY-MM-DDTHH:MM:SS.ffffffZ";
    details = the jsonb as Postgres prints it (``details::text``: keys in its order)

A BEFORE INSERT trigger (SECURITY DEFINER: it runs as the table's owner, whoever inserts)
computes them, so no writer can skip or choose them. It takes the chain's head -- the one row
of ``admin_audit_head``: the last id, hash and time -- with ``SELECT ... FOR UPDATE``, so two
concurrent inserts queue on it and never chain onto the same row; the new row's id is the
head's plus one and its time the database's clock (never before the head's): a writer sets
neither. ``tortuga admin audit --verify`` (server/admin/audit.py) recomputes the chain in
Python and names the first row that does not match.

The rows already there are chained here, in id order. Then every role but the owner loses
UPDATE, DELETE, TRUNCATE, REFERENCES and TRIGGER on ``admin_audit`` and everything but SELECT
on its head: a node connected as a role that is neither the owner nor a superuser (README,
"Production shape") can add entries, not edit, remove or re-chain them, nor disable the
triggers (``ALTER TABLE`` is the owner's; ``session_replication_role`` a superuser's).

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

GENESIS = "0" * 64

# The functions name their tables with the schema (and search pg_temp last): a SECURITY
# DEFINER function must not be led to a temporary table of the caller's.
_HASH = """CREATE FUNCTION {s}.admin_audit_hash(
    prev text, id bigint, at timestamptz, admin text, action text, target text, reason text,
    details jsonb
) RETURNS text LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    fields text[] := ARRAY[
        id::text,
        to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
        admin, action, target, reason, details::text];
    message text := 'tortuga-audit-1' || chr(10) || prev || chr(10);
    field text;
BEGIN
    FOREACH field IN ARRAY fields LOOP
        IF field IS NULL THEN
            message := message || '-';
        ELSE
            message := message || octet_length(convert_to(field, 'UTF8'))::text || ':' || field;
        END IF;
    END LOOP;
    RETURN encode(sha256(convert_to(message, 'UTF8')), 'hex');
END $$"""

_CHAIN = """CREATE FUNCTION {s}.admin_audit_chain() RETURNS trigger LANGUAGE plpgsql
SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    head record;
BEGIN
    SELECT h.id, h.hash, h.at INTO STRICT head FROM {s}.admin_audit_head h FOR UPDATE;
    NEW.id := head.id + 1;
    NEW.at := greatest(clock_timestamp(), head.at);
    NEW.prev_hash := head.hash;
    NEW.hash := {s}.admin_audit_hash(NEW.prev_hash, NEW.id, NEW.at, NEW.admin, NEW.action,
                                     NEW.target, NEW.reason, NEW.details);
    UPDATE {s}.admin_audit_head SET id = NEW.id, hash = NEW.hash, at = NEW.at;
    RETURN NEW;
END $$"""

_TRIGGER = """CREATE TRIGGER admin_audit_chain BEFORE INSERT ON {s}.admin_audit
    FOR EACH ROW EXECUTE FUNCTION {s}.admin_audit_chain()"""

# The rows written before this revision, chained in id order (the append-only trigger is
# the owner's to set aside for this one transaction).
_CHAIN_EXISTING = """DO $$
DECLARE
    r record;
    prev text := '{genesis}';
    last_id bigint := 0;
    last_at timestamptz := '-infinity';
BEGIN
    FOR r IN SELECT * FROM {s}.admin_audit ORDER BY id LOOP
        UPDATE {s}.admin_audit SET prev_hash = prev,
            hash = {s}.admin_audit_hash(prev, r.id, r.at, r.admin, r.action, r.target,
                                        r.reason, r.details)
        WHERE id = r.id RETURNING hash INTO prev;
        last_id := r.id;
        last_at := greatest(last_at, r.at);
    END LOOP;
    INSERT INTO {s}.admin_audit_head (one, id, hash, at) VALUES (true, last_id, prev, last_at);
END $$"""

# Every grantee but the owner (and PUBLIC) loses ``privileges`` on ``table``.
_REVOKE = """DO $$
DECLARE
    grantee text;
BEGIN
    EXECUTE 'REVOKE {privileges} ON {s}.{table} FROM PUBLIC';
    FOR grantee IN
        SELECT DISTINCT pg_get_userbyid(a.grantee) FROM pg_class c, aclexplode(c.relacl) a
        WHERE c.oid = '{s}.{table}'::regclass AND a.grantee <> c.relowner AND a.grantee <> 0
    LOOP
        EXECUTE format('REVOKE {privileges} ON {s}.{table} FROM %I', grantee);
    END LOOP;
END $$"""


def _schema() -> str:
    name = op.get_bind().execute(sa.text("SELECT quote_ident(current_schema())")).scalar_one()
    return str(name)


def upgrade() -> None:
    s = _schema()
    op.add_column("admin_audit", sa.Column("prev_hash", sa.String(length=64), nullable=True))
    op.add_column("admin_audit", sa.Column("hash", sa.String(length=64), nullable=True))
    op.create_table(
        "admin_audit_head",
        sa.Column("one", sa.Boolean(), server_default=sa.text("true"), nullable=False),
        sa.Column("id", sa.BigInteger(), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("one", name=op.f("ck_admin_audit_head_one")),
        sa.PrimaryKeyConstraint("one", name=op.f("pk_admin_audit_head")),
    )
    op.execute(_HASH.format(s=s))
    op.execute(f"ALTER TABLE {s}.admin_audit DISABLE TRIGGER admin_audit_append_only")
    op.execute(_CHAIN_EXISTING.format(s=s, genesis=GENESIS))
    op.execute(f"ALTER TABLE {s}.admin_audit ENABLE TRIGGER admin_audit_append_only")
    op.alter_column("admin_audit", "prev_hash", nullable=False)
    op.alter_column("admin_audit", "hash", nullable=False)
    op.execute(_CHAIN.format(s=s))
    op.execute(_TRIGGER.format(s=s))
    op.execute(
        _REVOKE.format(
            s=s, table="admin_audit", privileges="UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER"
        )
    )
    op.execute(
        _REVOKE.format(
            s=s,
            table="admin_audit_head",
            privileges="INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER",
        )
    )


def downgrade() -> None:
    s = _schema()
    op.execute(f"DROP TRIGGER admin_audit_chain ON {s}.admin_audit")
    op.execute(f"DROP FUNCTION {s}.admin_audit_chain()")
    op.execute(
        f"DROP FUNCTION {s}.admin_audit_hash(text, bigint, timestamptz, text, text, text, text, "
        "jsonb)"
    )
    op.drop_table("admin_audit_head")
    op.drop_column("admin_audit", "hash")
    op.drop_column("admin_audit", "prev_hash")
