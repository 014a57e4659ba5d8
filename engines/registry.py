"""Every game the server can host, by id."""

from __future__ import annotations

from typing import Any

from engines.core import Game
from engines.loon_tricks import LOON_TRICKS
from engines.pearates import PEARATES
from engines.pirate_king import PIRATE_KING
from engines.skull_king import BID_TRICKS, SKULL_KING

AnyGame = Game[Any, Any, Any]

GAMES: dict[str, AnyGame] = {
    game.id: game for game in (SKULL_KING, BID_TRICKS, LOON_TRICKS, PEARATES, PIRATE_KING)
}


def get(game_id: str) -> AnyGame:
    """The game registered as ``game_id``; KeyError names the known ids."""
    try:
        return GAMES[game_id]
    except KeyError:
        raise KeyError(f"no game {game_id!r}; known: {', '.join(sorted(GAMES))}") from None
