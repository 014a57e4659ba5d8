"""Loon Tricks: the game's own heuristic through the rules library (`with_engines.py`), which
plays better than random moves (tests/bots/test_examples.py measures it).

    ./tortuga bot run examples/loon_tricks.py --games 3
"""

from __future__ import annotations

from with_engines import engine_bot

GAME = "loon-tricks"

bot = engine_bot("heuristic")
