"""What each score card pays, from its kind and parameters (score_cards.py).

Recruitment is scored optimally: the sets returned are a largest collection of disjoint
sets (a crew card is used at most once per recruitment card), and every set pays the same,
so the largest collection pays the most. For runs, the best is ``len // k`` runs in every
maximal stretch of consecutive numbers of one suit (numbers are unique within a suit); for
equal numbers, ``count // k`` sets per number; for Motley Crew, the smallest suit count.
``tests/engines/loon_tricks/test_recruitment.py`` checks this against brute force.
"""

from __future__ import annotations

from collections.abc import Sequence

from engines.loon_tricks.cards import number
from engines.loon_tricks.cards import suit as suit_of
from engines.loon_tricks.score_cards import CARDS, ScoreCard

Set = tuple[int, ...]


def recruit(card: ScoreCard, hand: Sequence[int]) -> tuple[list[Set], int]:
    """The sets a hand makes for a recruitment card, and the loon they pay."""
    cards = sorted(hand, key=lambda c: (suit_of(c), number(c)))
    sets: list[Set] = []
    kind, p = card.kind, card.params
    if kind == "odd":
        sets = [(c,) for c in cards if suit_of(c) == p[0] and number(c) % 2 == 1]
        return sets, p[1] * len(sets)
    if kind == "run":
        size, value = p
        for suit in range(3):
            stretch: list[int] = []
            for c in (c for c in cards if suit_of(c) == suit):
                if stretch and number(c) != number(stretch[-1]) + 1:
                    sets += _chunks(stretch, size)
                    stretch = []
                stretch.append(c)
            sets += _chunks(stretch, size)
        return sets, value * len(sets)
    if kind == "same":
        size, value = p
        by_number: dict[int, list[int]] = {}
        for c in cards:
            by_number.setdefault(number(c), []).append(c)
        for n in sorted(by_number):
            sets += _chunks(by_number[n], size)
        return sets, value * len(sets)
    if kind == "motley":
        suits = [[c for c in cards if suit_of(c) == s] for s in range(3)]
        sets = [tuple(group) for group in zip(*suits, strict=False)]
        return sets, p[0] * len(sets)
    if kind == "high":
        sets = [(c,) for c in cards if number(c) >= p[0]]
        return sets, p[1] * len(sets)
    if kind == "lone":
        for s in range(3):
            held = [c for c in cards if suit_of(c) == s]
            if len(held) == 1:
                sets.append((held[0],))
        return sets, p[0] * len(sets)
    raise ValueError(f"{card.id} is not a recruitment card")


def _chunks(stretch: list[int], size: int) -> list[Set]:
    return [tuple(stretch[i : i + size]) for i in range(0, len(stretch) - size + 1, size)]


def dense_prizes(
    counts: Sequence[int], prizes: Sequence[int], *, fewest: bool = False, rules: int = 2
) -> list[int]:
    """Prizes by dense rank: "Ties all collect; ranks are dense (two tied for most both take
    'most'; the next take '2nd')" -- a count of 0 places like any other (with 6 and 4
    tricks taken, 0 is the "3rd Most Tricks"). Edition 1 (house): for "most" prizes a
    count of 0 earned nothing."""
    values = sorted({c for c in counts if fewest or rules > 1 or c > 0}, reverse=not fewest)
    out = []
    for c in counts:
        rank = values.index(c) if c in values else len(prizes)
        out.append(prizes[rank] if rank < len(prizes) else 0)
    return out


def capture(card: ScoreCard, won: Sequence[Sequence[int]], rules: int = 2) -> list[int]:
    """Loon per seat (negative: owed) for the crew cards in the tricks each seat took, under
    edition ``rules`` of the rules."""
    kind, p = card.kind, card.params
    if kind == "suit":
        return [p[1] * sum(1 for c in cards if suit_of(c) == p[0]) for cards in won]
    if kind == "numbers":
        return [p[2] * sum(1 for c in cards if p[0] <= number(c) <= p[1]) for cards in won]
    if kind == "most-cards":
        return dense_prizes([len(cards) for cards in won], p, rules=rules)
    raise ValueError(f"{card.id} is not a capture card")


def treasure(
    card: ScoreCard,
    tricks: Sequence[int],
    takers: Sequence[int],
    predictions: Sequence[int],
    rules: int = 2,
) -> list[int]:
    """Loon per seat (negative: owed) for the tricks won. ``takers``: who took each trick,
    in order; ``predictions``: per seat (-1 when nobody predicted); ``rules``: the edition
    of the rules."""
    kind, p = card.kind, card.params
    if kind == "per-trick":
        return [p[0] * t if t else p[1] for t in tricks]
    if kind == "most-tricks":
        return dense_prizes(tricks, p, rules=rules)
    if kind == "fewest-tricks":
        return dense_prizes(tricks, p, fewest=True)
    if kind == "tempt":
        per, zero, missed = p
        return [
            (per * t if t else zero) if t == said else -missed * abs(t - said)
            for t, said in zip(tricks, predictions, strict=True)
        ]
    if kind == "loot":
        exact, near = p
        return [
            exact if t == said else near if abs(t - said) == 1 else 0
            for t, said in zip(tricks, predictions, strict=True)
        ]
    if kind == "first-last":
        out = [0] * len(tricks)
        if takers:
            out[takers[0]] += p[0]
            out[takers[-1]] += p[1]
        return out
    raise ValueError(f"{card.id} is not a treasure card")


def card_of(index: int) -> ScoreCard:
    return CARDS[index]
