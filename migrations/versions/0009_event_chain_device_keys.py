"""The move chain (server/table/chain.py): each event keeps the chain's head after it and
its moves' proofs (``chain``: seat -> {by, c, key, l, open, sig, salt}; the deal's also the
``game`` its first link commits to), and ``device_keys`` keeps every public key a proof
names -- a player's device key with its user, the server's with none -- so that ``tortuga
verify`` checks each signature against the key registered for it. Events stored before
have neither (their games verify as before the chain, reported unchained).

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("events", sa.Column("head", sa.String(64), nullable=True))
    op.add_column("events", sa.Column("chain", postgresql.JSONB(), nullable=True))
    op.create_table(
        "device_keys",
        sa.Column("kid", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.String(64), nullable=True),
        sa.Column("public_key", sa.String(100), nullable=False),
        sa.Column(
            "first_seen", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
    )


def downgrade() -> None:
    op.drop_table("device_keys")
    op.drop_column("events", "chain")
    op.drop_column("events", "head")
