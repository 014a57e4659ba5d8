"""Admin accounts and their sessions; the audit keeps a reason and refuses to be edited.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The audit is append-only: an UPDATE or DELETE of a row is an error in the database itself,
# whatever code (or psql session) tries it.
_APPEND_ONLY = (
    """CREATE FUNCTION admin_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'admin_audit is append-only';
END $$""",
    """CREATE TRIGGER admin_audit_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON admin_audit
    FOR EACH STATEMENT EXECUTE FUNCTION admin_audit_append_only()""",
)


def upgrade() -> None:
    op.create_table(
        "admins",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("password_hash", sa.String(length=200), nullable=False),
        sa.Column("disabled", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column(
            "password_changed_at",
            sa.DateTime(timezone=True),
            server_default=sa.func.now(),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_admins")),
    )
    op.create_table(
        "admin_sessions",
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("admin", sa.String(length=64), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("address", sa.String(length=64), nullable=True),
        sa.ForeignKeyConstraint(
            ["admin"],
            ["admins.name"],
            name=op.f("fk_admin_sessions_admin_admins"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("digest", name=op.f("pk_admin_sessions")),
    )
    op.create_index(op.f("ix_admin_sessions_admin"), "admin_sessions", ["admin"], unique=False)
    op.add_column("admin_audit", sa.Column("reason", sa.String(length=500), nullable=True))
    for statement in _APPEND_ONLY:
        op.execute(statement)


def downgrade() -> None:
    op.execute("DROP TRIGGER admin_audit_append_only ON admin_audit")
    op.execute("DROP FUNCTION admin_audit_append_only()")
    op.drop_column("admin_audit", "reason")
    op.drop_index(op.f("ix_admin_sessions_admin"), table_name="admin_sessions")
    op.drop_table("admin_sessions")
    op.drop_table("admins")
