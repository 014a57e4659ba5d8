"""Majority scoring at the end, with the "special scoring" expansion and the friendly trios.

"for each card value, only the player(s) with the most scored cards of that value score it
(count x value; negative values cost)". A card's value for majorities is its stack (its
printed value; a Banana Sabre's declared value; a card a Confused Compass sent elsewhere
counts on that stack). A card scores its stack's value unless its special rule says what it
is worth (``WORTH``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engines.pearates.cards import kind
from engines.pearates.state import UNSET

TRIO_BONUS = 5
TRIO_BELOW = 4


@dataclass(frozen=True, slots=True)
class Pile:
    """One seat's scored cards with the stack each lies on."""

    cards: tuple[int, ...]
    types: tuple[int, ...]

    def set_types(self) -> list[int]:
        return [t for t in self.types if t != UNSET]

    def count(self, rule: str) -> int:
        return sum(1 for c in self.cards if kind(c).scoring == rule)


Worth = Callable[[Pile, int, Sequence[Pile]], int]


def _fewest(pile: Pile, stack: int, piles: Sequence[Pile]) -> int:
    mine = pile.count("fewest-wins")
    fewest = min(n for n in (p.count("fewest-wins") for p in piles) if n > 0)
    return stack if mine == fewest else 0


WORTH: dict[str, Worth] = {
    # "worth as much as your lowest scored card"
    "as-lowest": lambda pile, stack, piles: min(pile.set_types()),
    # "worth as much as your highest scored card"
    "as-highest": lambda pile, stack, piles: max(pile.set_types()),
    # "worth as much as your number of negative scored cards"
    "count-negatives": lambda pile, stack, piles: sum(1 for t in pile.set_types() if t < 0),
    # "each is worth the number of Chewy Coins you scored"
    "count-coins": lambda pile, stack, piles: pile.count("count-coins"),
    # "scores only if you have the fewest among players who have any"
    "fewest-wins": _fewest,
    # "+6 each if you have at least 3, else -12 each"
    "three-or-more": lambda pile, stack, piles: 6 if pile.count("three-or-more") >= 3 else -12,
}


def stacks(pile: Pile) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for card, stack in zip(pile.cards, pile.types, strict=True):
        if stack != UNSET:
            out.setdefault(stack, []).append(card)
    return out


def totals(piles: Sequence[Pile], friendly: bool, rules: int) -> list[int]:
    """Each seat's score as the piles stand (undeclared Banana Sabres count nowhere), under
    edition ``rules`` of the rules."""
    counts = [Counter({t: len(cs) for t, cs in stacks(p).items()}) for p in piles]
    out = []
    for seat, pile in enumerate(piles):
        points: list[int] = []
        for stack, cards in stacks(pile).items():
            most = max(c[stack] for c in counts)
            if counts[seat][stack] < most:
                points.append(0)
                continue
            worth = 0
            for card in cards:
                rule = WORTH.get(kind(card).scoring)
                worth += stack if rule is None else rule(pile, stack, piles)
            points.append(worth)
        # "Pirate Pearl: flips the sign of one of your scored stacks" (house: each Pearl
        # flips a different stack, the most costly ones, and only stacks that cost points).
        points.sort()
        for i in range(min(pile.count("flip-a-stack"), len(points))):
            if points[i] < 0:
                points[i] = -points[i]
        total = sum(points)
        if friendly:
            total += TRIO_BONUS * trios(counts[seat], rules)
        out.append(total)
    return out


def trios(counts: Counter[int], rules: int) -> int:
    """Friendly: "Every trio of cards with a value below 4 (in your score pile), is worth +5
    points." -- any three scored cards below 4, whatever their values (a card counts as its
    stack). Edition 1 (house) counted only three cards of one value."""
    if rules == 1:
        return sum(n // 3 for t, n in counts.items() if t < TRIO_BELOW)
    return sum(n for t, n in counts.items() if t < TRIO_BELOW) // 3


def ranks(scores: Sequence[int], hand_sizes: Sequence[int]) -> tuple[int, ...]:
    """ "Highest score wins. If tied, the player with the most hand cards wins." Equal on
    both: the same place."""
    keys = list(zip(scores, hand_sizes, strict=True))
    return tuple(1 + sum(1 for other in keys if other > mine) for mine in keys)
