"""Scoring at the end: majorities by value, negative values, ties, and the "special
scoring" expansion (one test per card) and the friendly trios."""

from __future__ import annotations

from collections.abc import Sequence

from engines.pearates import scoring
from engines.pearates.cards import value
from engines.pearates.scoring import Pile, ranks
from engines.pearates.state import OVER, SABRE, UNSET

from .helpers import G, do, ids, legal, names, sealed, table


def totals(piles: Sequence[Pile], friendly: bool, rules: int = G.rules_edition) -> list[int]:
    return scoring.totals(piles, friendly, rules)


def piles(*seats: Sequence[str], stacks: dict[int, list[int]] | None = None) -> list[Pile]:
    out = []
    for s, cards in enumerate(seats):
        cs = ids(cards)
        types = (stacks or {}).get(s) or [value(c) for c in cs]
        out.append(Pile(cs, tuple(types)))
    return out


def test_only_the_majority_of_a_value_scores_it() -> None:
    """ "for each card value, only the player(s) with the most scored cards of that value
    score it (count × value; negative values cost)". Ties for the majority all score."""
    got = totals(
        piles(
            ["egg-bag-1", "egg-bag-2", "goldfish-1"],  # 2×3 = 6, goldfish tied: 1
            ["egg-bag-3", "goldfish-2", "fish-skeleton-1"],  # egg bag minority, -1
            ["fish-skeleton-2", "fish-skeleton-3"],  # majority of -1: -2
        ),
        friendly=False,
    )
    assert got == [7, 1, -2]


def test_ties_are_broken_by_cards_in_hand() -> None:
    """ "Highest wins; ties broken by most cards in hand." Equal on both: the same place."""
    assert ranks([5, 5, 3], [2, 4, 9]) == (2, 1, 3)
    assert ranks([5, 5, 3], [4, 4, 9]) == (1, 1, 3)


def test_the_outcome_uses_the_hand_tie_break() -> None:
    state = table(
        players=2,
        hands={0: ["goldfish-1", "goldfish-2"]},
        scored={0: ["egg-bag-1"], 1: ["egg-bag-2"]},
    )
    state = state.__class__(
        **{**{f: getattr(state, f) for f in state.__struct_fields__}, "phase": OVER}
    )
    outcome = G.outcome(state)
    assert outcome is not None and outcome.scores == (3, 3) and outcome.ranks == (1, 2)


def test_friendly_trios_below_four_are_worth_five() -> None:
    """Friendly: "Every trio of cards with a value below 4 (in your score pile), is worth +5
    points." Three goldfish are a trio; so are any three cards below 4 of different values
    (two Goldfish, an Egg Bag and a Fish Skeleton with the third Goldfish: five cards below
    4, one trio); a Ruby Rum (4) is in none."""
    pile = piles(["goldfish-1", "goldfish-2", "goldfish-3", "egg-bag-1", "ruby-rum-1"])
    assert totals(pile, friendly=False) == [3 + 3 + 4]
    assert totals(pile, friendly=True) == [3 + 3 + 4 + 5]
    mixed = piles(["goldfish-1", "egg-bag-1", "fish-skeleton-1", "ruby-rum-1"])
    assert totals(mixed, friendly=True) == [1 + 3 - 1 + 4 + 5]
    six = piles(
        ["goldfish-1", "goldfish-2", "egg-bag-1", "egg-bag-2", "empty-chest-1", "pearl-pepper-1"]
    )
    assert totals(six, friendly=True) == [2 + 6 - 4 + 0 + 2 * 5]
    # Edition 1 (house) counted only three cards of one value.
    assert totals(mixed, friendly=True, rules=1) == [1 + 3 - 1 + 4]
    assert totals(six, friendly=True, rules=1) == [2 + 6 - 4 + 0]


SPECIAL = {"special_scoring": True}


def test_banana_sabre_counts_as_the_value_you_choose() -> None:
    """Banana Sabre: "wildcard: counts as any value you choose" -- declared at the end."""
    state = table(
        players=2,
        hands={1: ["banana-sabre-1"]},
        treasure=["egg-bag-1"],
        pile=[],
        pile_rest=False,
        options=SPECIAL,
    )
    state = do(state, 1, "bid banana-sabre-1", "stop")
    state = do(state, 1, "pass", "take top")
    state = sealed(state, {0: "score", 1: "keep"})  # the start player scores the Sabre
    # one seat alone declares in the open
    assert state.phase == SABRE and G.prompt(state).seats == (0,)
    assert state.types[0] == (UNSET,)
    # "counts as any value you choose": any printed value, -4 .. 8
    assert legal(state, 0) == [f"sabre {v}" for v in range(-4, 9)]
    state = do(state, 0, "sabre 8")
    assert state.phase == OVER and G.table.totals(state)[0] == 8
    # the table reads the declaration in the log: who declared which value
    assert G.view(state, None)["log"][-1] == {"seat": 0, "what": "sabre", "kind": None, "n": 8}


def test_soupy_spyglass_must_be_scored_when_received() -> None:
    """Soupy Spyglass: "when received, you must score it"."""
    state = table(
        players=2,
        hands={1: ["goldfish-1"]},
        treasure=["soupy-spyglass-1", "egg-bag-1"],
        options=SPECIAL,
    )
    state = do(state, 1, "bid goldfish-1", "stop")
    state = do(state, 1, "pass", "take top")
    assert names(state.scored[1]) == ["soupy-spyglass-1"] and state.received[1] == ()


def test_basic_barrel_is_worth_your_lowest_scored_card() -> None:
    """Basic Barrel: "worth as much as your lowest scored card"."""
    assert totals(piles(["basic-barrel-1", "fish-skeleton-1"]), False) == [-1 + -1]


def test_confused_compass_puts_a_card_on_a_wrong_stack() -> None:
    """Confused Compass: "whenever you score, one card goes on a wrong stack (house: the
    lowest-valued other stack)"."""
    state = table(
        players=2,
        hands={1: ["goldfish-1", "goldfish-2"]},
        treasure=["ruby-rum-1", "egg-bag-1"],
        scored={1: ["confused-compass-1", "goldfish-3"]},
        options=SPECIAL,
    )
    state = do(state, 1, "bid goldfish-1", "bid goldfish-2", "stop")
    state = do(state, 1, "pass", "take top")
    state = sealed(state, {0: "keep", 1: "score"})
    # the Ruby Rum (4), the batch's highest card, lies on the lowest other stack (-1)
    assert list(zip(names(state.scored[1]), state.types[1], strict=True))[2:] == [
        ("egg-bag-1", 3),
        ("ruby-rum-1", -1),
    ]


def test_pirate_pearl_flips_the_sign_of_a_stack() -> None:
    """Pirate Pearl: "flips the sign of one of your scored stacks" (house: the most costly
    one)."""
    assert totals(piles(["pirate-pearl-1", "empty-chest-1", "fish-skeleton-1"]), False) == [
        1 + 4 - 1
    ]


def test_each_pirate_pearl_flips_a_different_costly_stack() -> None:
    """House (README): "each Pearl flips the sign of a different one of your stacks, the
    most costly first, and only stacks that cost points"."""
    pearls = ["pirate-pearl-1", "pirate-pearl-2"]
    costly = ["empty-chest-1", "empty-chest-2", "fish-skeleton-1", "infested-bread-1"]
    # stacks: +1 ×2 (the Pearls) = 2, -4 ×2 = -8, -1, -2: the Pearls flip -8 and -2
    assert totals(piles([*pearls, *costly]), False) == [2 + 8 + 2 - 1]
    # nothing costs points: nothing to flip
    assert totals(piles(["pirate-pearl-1", "egg-bag-1"]), False) == [1 + 3]
    # a stack lost to another seat's majority is worth 0, and a Pearl leaves it so
    got = totals(
        piles(["pirate-pearl-1", "fish-skeleton-1"], ["fish-skeleton-2", "fish-skeleton-3"]),
        False,
    )
    assert got == [1, -2]


def test_ship_in_a_bottle_counts_your_negative_cards() -> None:
    """Ship in a Bottle: "worth as much as your number of negative scored cards"."""
    assert totals(piles(["ship-in-a-bottle-1", "empty-chest-1", "fish-skeleton-1"]), False) == [
        2 - 4 - 1
    ]


def test_dazzling_diamond_is_worth_your_highest_card() -> None:
    """Dazzling Diamond: "worth as much as your highest scored card"."""
    assert totals(piles(["dazzling-diamond-1", "ruby-rum-1"]), False) == [4 + 4]


def test_chewy_coins_are_worth_their_number() -> None:
    """Chewy Coin: "each is worth the number of Chewy Coins you scored"."""
    assert totals(piles(["chewy-coin-1", "chewy-coin-2", "chewy-coin-3"]), False) == [9]


def test_amulet_artefact_scores_only_for_the_fewest() -> None:
    """Amulet Artefact: "scores only if you have the fewest among players who have any"
    (house: it still counts on stack 5 for the majority)."""
    got = totals(
        piles(["amulet-artefact-1", "gold-pancake-1"], ["amulet-artefact-2", "amulet-artefact-3"]),
        False,
    )
    assert got == [5 + 5, 0]


def test_hungry_hooks_need_three() -> None:
    """Hungry Hook: "+6 each if you have at least 3, else −12 each"."""
    three = ["hungry-hook-1", "hungry-hook-2", "hungry-hook-3"]
    assert totals(piles(three), False) == [18]
    assert totals(piles(three[:2]), False) == [-24]


def test_trios_count_only_values_below_four() -> None:
    pile = piles(["ruby-rum-1", "ruby-rum-2", "ruby-rum-3"])
    assert totals(pile, friendly=True) == totals(pile, friendly=False) == [12]
