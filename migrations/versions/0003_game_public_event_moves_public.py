"""Games know whether their room was public; events whether their moves are public (a
sealed phase's, once revealed) -- so the history shows a private game only to its players
and nobody another seat's hidden moves before the game is over.

Rows from before: a room's code tells (a public room's has 8 characters, a private one's
16); events are taken as not public (shown to everybody once the game is over, as before).

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "games", sa.Column("public", sa.Boolean(), server_default=sa.false(), nullable=False)
    )
    op.execute("UPDATE games SET public = length(room) < 16")
    op.add_column(
        "events",
        sa.Column("moves_public", sa.Boolean(), server_default=sa.false(), nullable=False),
    )


def downgrade() -> None:
    op.drop_column("events", "moves_public")
    op.drop_column("games", "public")
