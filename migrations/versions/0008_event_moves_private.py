"""Events know whether their moves answer a private prompt (``Prompt.private``: a private
sealed phase, e.g. the cards each player puts aside): such a move is its mover's alone for
good, so the history shows it to nobody else, also once the game is over.

Rows from before: an event whose moves are not public yet were made by several seats at
once can only be a sealed phase that was not revealed to all -- a private one (an open
prompt takes one seat's move at a time; a public sealed phase is flagged ``moves_public``).
Events stored before migration 0003 flagged no sealed phase public: theirs are taken as
private too (hidden from others rather than shown: the safe side).

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
    op.execute(
        "UPDATE events SET moves_private = true WHERE NOT moves_public "
        "AND (SELECT count(*) FROM jsonb_object_keys(moves)) > 1"
    )


def downgrade() -> None:
    op.drop_column("events", "moves_private")
