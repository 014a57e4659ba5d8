"""The bot ladder (docs/BOTS.md): players' bots and the server's own are rated apart from
people, in ``ladder_ratings`` (an entrant is a bot account's user id, or ``server:<level>``
for the server's bots); ``games.ladder`` marks the games rated there.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "ladder_ratings",
        sa.Column("entrant", sa.String(64), nullable=False),
        sa.Column("engine", sa.String(40), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("owner", sa.String(64), nullable=True),
        sa.Column("owner_name", sa.String(100), nullable=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("ordinal", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), server_default="0", nullable=False),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("entrant", "engine", name=op.f("pk_ladder_ratings")),
    )
    op.create_index(
        "ix_ladder_ratings_engine_ordinal", "ladder_ratings", ["engine", "ordinal"], unique=False
    )
    op.add_column(
        "games", sa.Column("ladder", sa.Boolean(), server_default=sa.false(), nullable=False)
    )


def downgrade() -> None:
    op.drop_column("games", "ladder")
    op.drop_index("ix_ladder_ratings_engine_ordinal", "ladder_ratings")
    op.drop_table("ladder_ratings")
