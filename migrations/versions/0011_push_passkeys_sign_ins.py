"""Slow games that reach their players: Web Push subscriptions per user and device
(``push_subscriptions``: endpoint, keys, what the device receives, quiet hours, the token
generation it was made under), players' passkeys (``passkeys``: WebAuthn credentials) and
the devices that signed in by a one-time link or a passkey (``sign_ins``).

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_NOW = sa.func.now()


def upgrade() -> None:
    op.create_table(
        "push_subscriptions",
        sa.Column("id", sa.BigInteger(), primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("endpoint", sa.String(1024), nullable=False),
        sa.Column("p256dh", sa.String(128), nullable=False),
        sa.Column("auth", sa.String(64), nullable=False),
        sa.Column("kinds", postgresql.JSONB(), nullable=False),
        sa.Column("quiet_from", sa.Integer(), nullable=True),
        sa.Column("quiet_to", sa.Integer(), nullable=True),
        sa.Column("tz", sa.String(64), server_default=sa.text("'UTC'"), nullable=False),
        sa.Column("lang", sa.String(8), server_default=sa.text("'en'"), nullable=False),
        sa.Column("gen", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("device", sa.String(100), server_default=sa.text("''"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=_NOW, nullable=False),
        sa.Column("last_sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_push_subscriptions"),
        sa.UniqueConstraint("endpoint", name="uq_push_subscriptions_endpoint"),
    )
    op.create_index("ix_push_subscriptions_user_id", "push_subscriptions", ["user_id"])
    op.create_table(
        "passkeys",
        sa.Column("id", sa.String(512), nullable=False),
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("public_key", sa.LargeBinary(), nullable=False),
        sa.Column("sign_count", sa.BigInteger(), server_default=sa.text("0"), nullable=False),
        sa.Column("device", sa.String(100), server_default=sa.text("''"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=_NOW, nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_passkeys"),
    )
    op.create_index("ix_passkeys_user_id", "passkeys", ["user_id"])
    op.create_table(
        "sign_ins",
        sa.Column("id", sa.BigInteger(), primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("how", sa.String(16), nullable=False),
        sa.Column("device", sa.String(100), server_default=sa.text("''"), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), server_default=_NOW, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_sign_ins"),
        sa.CheckConstraint("how IN ('link', 'passkey')", name=op.f("ck_sign_ins_how")),
    )
    op.create_index("ix_sign_ins_user_id", "sign_ins", ["user_id"])


def downgrade() -> None:
    op.drop_table("sign_ins")
    op.drop_table("passkeys")
    op.drop_table("push_subscriptions")
