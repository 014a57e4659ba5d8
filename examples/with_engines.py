"""A bot for any game that leans on the repository's rules library (``engines/``, pure
functions, no server): the game's own ``heuristic`` policy, given exactly what the seat sees
(its view and legal moves). A bot written from scratch starts here and changes ``choose``.

Only in a clone of the repository (``./tortuga bot run ...``): ``engines`` comes with it.
"""

from __future__ import annotations

import hashlib
from typing import Any

from tortuga_bot import Turn

from engines.registry import GAMES
from engines.rng import Rng


def engine_bot(level: str = "heuristic") -> Any:
    def bot(turn: Turn) -> Any:
        game = GAMES[turn.game]
        legal = [game.decode_move(m) for m in turn.legal]
        rng = Rng(hashlib.sha256(f"{turn.room}:{turn.version}".encode()).digest(), "example")
        return game.bot(level)(turn.view, legal, rng).to_json()

    return bot


bot = engine_bot()
