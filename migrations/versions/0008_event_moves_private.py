"""Events know whether their moves answer a prompt private for good (``Prompt.for_good``:
e.g. the cards each Loon player ditches): such a move is its mover's alone for good, so
the history shows it to nobody else, also once the game is over. Events stored before are
not marked (nothing tells which of them were).

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "events",
        sa.Column("moves_private", sa.Boolean(), server_default=sa.false(), nullable=False),
    )


def downgrade() -> None:
    op.drop_column("events", "moves_private")
