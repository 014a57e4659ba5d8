"""The smallest bot: any legal move, for any game (docs/BOTS.md, step 1).

./tortuga bot run examples/random_bot.py --room CODE
"""

from __future__ import annotations

import random
from typing import Any

from tortuga_bot import Turn


def bot(turn: Turn) -> Any:
    return random.choice(turn.legal)
