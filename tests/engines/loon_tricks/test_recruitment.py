"""Recruitment: "scored automatically and optimally -- a card is used at most once per
recruitment card, but may serve both". Optimality is checked against brute force."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import msgspec
import pytest

from engines.loon_tricks.cards import INDEX, number, suit
from engines.loon_tricks.score_cards import CARDS, DECKS, RECRUITMENT, ScoreCard
from engines.loon_tricks.score_cards import INDEX as SCORE
from engines.loon_tricks.scoring import recruit
from engines.loon_tricks.state import PLAY
from engines.rng import Rng

from .helpers import GAME, cards, names, step, table

RECRUITMENT_CARDS = [CARDS[i] for i in DECKS[RECRUITMENT]]


def pays(card_id: str, *hand: str) -> int:
    return recruit(CARDS[SCORE[card_id]], cards(*hand))[1]


def test_seed_gang_of_three_red_15_to_18_pays_one_run() -> None:
    """Seed: "If Gang of Three is in play and you have these cards (red 15, 16, 17, 18), you
    can collect only 3 loon for one run of 3." """
    assert pays("gang-of-three", "red-15", "red-16", "red-17", "red-18") == 3
    assert pays("gang-of-three", *(f"red-{n}" for n in range(13, 19))) == 6


def test_seed_red_13_to_15_and_green_13_pay_gang_of_three_and_partners_in_crime() -> None:
    """Seed: "if the recruitment cards are Gang of Three and Partners in Crime, and you have
    13 red, 14 red, 15 red and 13 green, you can collect loon for both cards" (red 13 serves
    both)."""
    hand = ("red-13", "red-14", "red-15", "green-13")
    three = recruit(CARDS[SCORE["gang-of-three"]], cards(*hand))
    pair = recruit(CARDS[SCORE["partners-in-crime"]], cards(*hand))
    assert three == ([cards("red-13", "red-14", "red-15")], 3)
    assert pair == ([cards("red-13", "green-13")], 2)


def test_seed_example_scored_at_the_table() -> None:
    """The same hand in a game: after the ditch both cards pay, automatically, and the sets
    are shown to everyone."""
    hand = ["red-13", "red-14", "red-15", "green-13", "blue-2"]
    state = table(
        5,
        hands={0: hand},
        rows={0: (["blue-3", "blue-5", "blue-7", "blue-9", "green-1"], ["green-19", "blue-17"])},
        score_cards=(("gang-of-three", "partners-in-crime"), "mustel-bounty", "rich-rewards"),
    )
    state = step(state, {0: "bid 3", 1: "bid 0", 2: "bid 0", 3: "bid 0", 4: "bid 0"})
    while GAME.prompt(state).kind == "bid":
        seats = GAME.prompt(state).seats
        state = step(state, {s: ("bid 1" if s == seats[0] else "bid 0") for s in seats})
    ditch = {s: str(GAME.legal(state, s)[-1]) for s in range(5)}
    ditch[0] = "ditch green-1 blue-9"
    state = step(state, ditch)
    assert state.phase == PLAY
    mine = [(r.card, r.sets, r.loon) for r in state.recruited if r.seat == 0]
    assert mine == [
        (SCORE["gang-of-three"], (cards("red-13", "red-14", "red-15"),), 3),
        (SCORE["partners-in-crime"], (cards("red-13", "green-13"),), 2),
    ]
    assert state.loon[0] == 12 - 3 + 5
    assert [(e.amount, e.what) for e in state.ledger if e.seat == 0 and e.what != "bid"] == [
        (3, "gang-of-three"),
        (2, "partners-in-crime"),
    ]
    # The sets were laid face up: every viewer sees them; the cards are known in the hand.
    view = GAME.view(state, None)
    shown = [r["sets"] for r in view["recruited"] if r["seat"] == 0]
    assert shown == [[["red-13", "red-14", "red-15"]], [["red-13", "green-13"]]]
    assert set(cards("red-13", "red-14", "red-15", "green-13")) <= set(state.known[0])


def test_gang_of_two_three_equal_numbers_pay_nothing_house_reading() -> None:
    """Page: "Gang of Two: +1 per run of 2 consecutive numbers in one suit (house reading: the
    seed's example of three 14s contradicts its own rule)"."""
    assert pays("gang-of-two", "green-14", "red-14", "blue-14") == 0
    assert pays("gang-of-two", "green-14", "green-15", "green-16") == 1
    assert pays("gang-of-two", "green-14", "green-15", "green-16", "green-17") == 2


def test_partners_in_crime_never_uses_a_card_twice() -> None:
    """Seed: "Partners in Crime is in play ... you can collect only 2 loon. You cannot use any
    card twice to make an additional two of a kind." """
    assert pays("partners-in-crime", "red-7", "green-7", "blue-7") == 2
    assert pays("terrible-trio", "red-7", "green-7", "blue-7") == 5
    assert pays("terrible-trio", "red-7", "green-7") == 0


@pytest.mark.parametrize(
    ("card_id", "hand", "loon"),
    [
        ("beringa-backing", ("green-1", "green-2", "green-3", "red-5", "blue-7"), 2),
        ("mustel-backing", ("blue-1", "blue-2", "blue-19", "red-5"), 2),
        ("crimson-backing", ("red-1", "red-3", "red-20", "green-5"), 2),
        ("motley-crew", ("red-1", "red-2", "green-3", "green-4", "blue-5"), 1),
        ("old-salts", ("red-17", "green-20", "blue-16", "red-19"), 3),
        ("lone-wolf", ("red-1", "green-2", "green-3", "blue-4"), 4),
        ("lone-wolf", ("red-1", "red-2"), 0),
    ],
)
def test_house_recruitment_cards(card_id: str, hand: tuple[str, ...], loon: int) -> None:
    """The page's house cards: Mustel/Crimson Backing "+1 per odd blue/red card", Motley
    Crew "+1 per set of one red, one green and one blue card", Old Salts "+1 per card
    numbered 17-20", Lone Wolf "+2 per suit of which you hold exactly one card"."""
    assert pays(card_id, *hand) == loon


# -- brute force ----------------------------------------------------------------------------


def is_set(card: ScoreCard, group: Sequence[int], hand: Sequence[int]) -> bool:
    """Whether ``group`` is one set the card pays for, straight from the card's text."""
    kind, p = card.kind, card.params
    suits = [suit(c) for c in group]
    nums = sorted(number(c) for c in group)
    if kind == "odd":
        return len(group) == 1 and suits[0] == p[0] and nums[0] % 2 == 1
    if kind == "run":
        return (
            len(group) == p[0]
            and len(set(suits)) == 1
            and nums == list(range(nums[0], nums[0] + p[0]))
        )
    if kind == "same":
        return len(group) == p[0] and len(set(nums)) == 1
    if kind == "motley":
        return sorted(suits) == [0, 1, 2]
    if kind == "high":
        return len(group) == 1 and nums[0] >= p[0]
    if kind == "lone":
        return len(group) == 1 and sum(1 for c in hand if suit(c) == suits[0]) == 1
    raise AssertionError(kind)


def best_packing(card: ScoreCard, hand: Sequence[int]) -> int:
    """The most disjoint sets, by exhaustive search."""
    candidates = [
        frozenset(g)
        for size in (1, 2, 3)
        for g in combinations(hand, size)
        if is_set(card, g, hand)
    ]

    def search(free: frozenset[int], start: int) -> int:
        best = 0
        for i in range(start, len(candidates)):
            if candidates[i] <= free:
                best = max(best, 1 + search(free - candidates[i], i + 1))
        return best

    return search(frozenset(hand), 0)


def unit(card: ScoreCard) -> int:
    """The loon one set pays (the last parameter of a card that has two)."""
    return card.params[-1]


@pytest.mark.parametrize("card", RECRUITMENT_CARDS, ids=[c.id for c in RECRUITMENT_CARDS])
def test_recruitment_is_optimal_against_brute_force(card: ScoreCard) -> None:
    """ "scored automatically and optimally (maximum loon, each card used at most once per
    recruitment card)": on 300 random 10-card hands (drawn from a narrow band of numbers,
    so that runs, pairs and trios are common) the engine's sets are valid and disjoint and
    as many as the best packing found by exhaustive search."""
    rng = Rng(b"recruitment-brute-force", card.id)
    pool = [INDEX[f"{s}-{n}"] for s in ("red", "green", "blue") for n in range(9, 17)]
    for _ in range(300):
        hand = sorted(rng.shuffled(pool)[:10])
        sets, loon = recruit(card, hand)
        used = [c for g in sets for c in g]
        assert len(used) == len(set(used)), f"{card.id}: a card used twice in {names(hand)}"
        assert all(is_set(card, g, hand) for g in sets), f"{card.id}: {sets}"
        best = best_packing(card, hand)
        assert len(sets) == best, f"{card.id} on {names(hand)}: {len(sets)} sets, best {best}"
        assert loon == best * unit(card)


def test_one_card_serves_both_recruitment_cards() -> None:
    """ "a card is used at most once per recruitment card, but may serve both": every
    pair of recruitment cards is scored independently on the same hand."""
    hand = cards("red-13", "red-14", "red-15", "green-13", "blue-13", "blue-17")
    state = table(score_cards=(("terrible-trio", "crimson-backing"), "mustel-bounty", "lie-low"))
    state = msgspec.structs.replace(state, hands=(hand, *state.hands[1:]))
    played = GAME._start_tricks(state)
    mine = {r.card: r.loon for r in played.recruited if r.seat == 0}
    assert mine == {SCORE["terrible-trio"]: 5, SCORE["crimson-backing"]: 2}
