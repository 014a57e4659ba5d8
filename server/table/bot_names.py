"""The names bots sit under: pirates of history and legend, one per seat of a room.

A bot added to a room takes the first name no seat of that room uses, starting from a place
that depends on the seat (so the first bots of different rooms are not all the same pirate).
A name that is, or holds, the name of one of the game's cards (``Game.card_titles``: a
"Blackbeard" bot at a table where a Blackbeard card is played) is passed over, and so is
a card's name holding it. Nothing here knows any game: each game says what its cards are
called.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

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

# When every pirate is taken or is a card's name: a word and the seat's number.
FALLBACKS = ("Pirate", "Sailor", "Buccaneer", "Corsair", "Bot")


def _words(name: str) -> tuple[str, ...]:
    return tuple(re.findall(r"\w+", name.casefold()))


def _within(inner: tuple[str, ...], outer: tuple[str, ...]) -> bool:
    n = len(inner)
    return n > 0 and any(outer[i : i + n] == inner for i in range(len(outer) - n + 1))


def collides(name: str, card_titles: Iterable[str]) -> bool:
    """Whether ``name`` could be read as a card's: one of them is, word for word and in
    any case, part of the other ("Pirate 3" and the Pirate card; "Blackbeard")."""
    words = _words(name)
    return any(_within(title, words) or _within(words, title) for title in map(_words, card_titles))


def bot_name(seat: int, taken: Collection[str], card_titles: Collection[str] = ()) -> str:
    """A pirate name for a bot in ``seat``, not in ``taken`` (the names already seated) and
    not a card's name of the game played (``card_titles``)."""
    for i in range(len(PIRATES)):
        name = PIRATES[(seat * 5 + i) % len(PIRATES)]
        if name not in taken and not collides(name, card_titles):
            return name
    for word in FALLBACKS:
        name = f"{word} {seat + 1}"
        if name not in taken and not collides(name, card_titles):
            return name
    return f"{FALLBACKS[-1]} {seat + 1}"
