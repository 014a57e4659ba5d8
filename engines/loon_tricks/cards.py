"""The crew cards: red, green and blue, each numbered 1-20 (60 cards).

Cards are small integers inside states (``suit * 20 + number - 1``); names like ``red-15``
are what moves, views and logs carry. Fewer players use fewer cards: "With 4 players
remove 1-4 of each suit (48); with 3 players remove 1-8 (36)".
"""

from __future__ import annotations

SUITS = ("red", "green", "blue")  # red is always trump
RED = 0  # the index of red in SUITS
TOP = 20
LOWEST = {3: 9, 4: 5, 5: 1}  # players -> the lowest number in play

NAMES: tuple[str, ...] = tuple(f"{suit}-{n}" for suit in SUITS for n in range(1, TOP + 1))
INDEX: dict[str, int] = {name: card for card, name in enumerate(NAMES)}


def suit(card: int) -> int:
    return card // TOP


def number(card: int) -> int:
    return card % TOP + 1


def strength(card: int) -> int:
    """Order for tie-breaks: "higher number wins; on equal numbers red beats green and blue,
    and green beats blue"."""
    return number(card) * 3 + (2 - suit(card))


def deck(players: int) -> tuple[int, ...]:
    """The crew cards in play with this many players, in card order."""
    low = LOWEST[players]
    return tuple(c for c in range(len(NAMES)) if number(c) >= low)
