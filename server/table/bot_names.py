"""The names bots sit under: pirates of history and legend, one per seat of a room.

A bot added to a room takes the first name no seat of that room uses, starting from a place
that depends on the seat (so the first bots of different rooms are not all the same pirate).
Nothing here knows any game.
"""

from __future__ import annotations

from collections.abc import Collection

PIRATES = (
    "Anne Bonny",
    "Calico Jack",
    "Mary Read",
    "Blackbeard",
    "Grace O'Malley",
    "Black Bart",
    "Ching Shih",
    "Henry Morgan",
    "Stede Bonnet",
    "Long Ben",
    "Sadie the Goat",
    "Barbarossa",
)


def bot_name(seat: int, taken: Collection[str]) -> str:
    """A pirate name for a bot in ``seat``, not in ``taken`` (the names already seated)."""
    for i in range(len(PIRATES)):
        name = PIRATES[(seat * 5 + i) % len(PIRATES)]
        if name not in taken:
            return name
    return f"Pirate {seat + 1}"
