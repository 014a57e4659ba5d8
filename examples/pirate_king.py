"""Pirate King!: the game's own heuristic through the rules library (`with_engines.py`), which
plays better than random moves (tests/bots/test_examples.py measures it).

    ./tortuga bot run examples/pirate_king.py --games 3
"""

from __future__ import annotations

from with_engines import engine_bot

GAME = "pirate-king"

bot = engine_bot("heuristic")
