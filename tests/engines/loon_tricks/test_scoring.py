"""Capture and treasure cards, dense ranks, and paying what one owes down to zero."""

from __future__ import annotations

import msgspec
import pytest

from engines.loon_tricks.score_cards import CARDS
from engines.loon_tricks.score_cards import INDEX as SCORE
from engines.loon_tricks.scoring import capture, dense_prizes, treasure
from engines.loon_tricks.state import State

from .helpers import GAME, cards, scores, trick_table

NONE = (-1, -1, -1, -1)


def pay_treasure(card_id: str, tricks: list[int], predictions: tuple[int, ...] = NONE) -> list[int]:
    takers = [seat for seat, t in enumerate(tricks) for _ in range(t)]
    return treasure(CARDS[SCORE[card_id]], tricks, takers, predictions[: len(tricks)])


def finished_round(
    tricks: list[int], treasure_id: str, capture_id: str, won: list[list[str]], loon: list[int]
) -> State:
    """The state right after the last trick of round 1 (``_end_round`` applied)."""
    state = trick_table([[] for _ in tricks], treasure=treasure_id, capture=capture_id, loon=loon)
    takers = tuple(seat for seat, t in enumerate(tricks) for _ in range(t))
    state = msgspec.structs.replace(
        state,
        takers=takers,
        won=tuple(cards(*w) for w in won),
        ditched=tuple(() for _ in tricks),
    )
    return GAME._end_round(state)


def test_bountiful_booty_seed_example() -> None:
    """Seed: "In a four-player game, players Troy and Luke each took 3 tricks. Players Faith
    and Drake each took 2 tricks. Troy and Luke tied for first place, so they each collect 6
    loon. Faith and Drake tied for second, so they each collect 4 loon. No one came in
    third, so no one collects 2 loon." """
    troy, luke, faith, drake = pay_treasure("bountiful-booty", [3, 3, 2, 2])
    assert (troy, luke, faith, drake) == (6, 6, 4, 4)


def test_bountiful_booty_seed_example_paid_at_the_table() -> None:
    """The same example at the end of a round: the loon is collected, publicly."""
    state = finished_round([3, 3, 2, 2], "bountiful-booty", "mustel-bounty", [[]] * 4, [12] * 4)
    paid = [(e.seat, e.amount, e.what) for e in state.ledger if e.round == 1]
    assert paid == [
        (0, 6, "bountiful-booty"),
        (1, 6, "bountiful-booty"),
        (2, 4, "bountiful-booty"),
        (3, 4, "bountiful-booty"),
    ]
    assert state.loon == (18, 18, 16, 16) and state.round == 2


def test_ranks_are_dense_and_ties_all_collect() -> None:
    """ "Ties all collect; ranks are dense (two tied for most both take 'most'; the next
    take '2nd')." """
    assert dense_prizes([5, 5, 3, 1, 1], (6, 4, 2)) == [6, 6, 4, 2, 2]
    assert dense_prizes([4, 3, 2, 1, 0], (6, 4, 2)) == [6, 4, 2, 0, 0]


def test_zero_places_like_any_count() -> None:
    """Seed: "Bountiful Booty (Most Tricks = 6 Loon, 2nd Most Tricks = 4 Loon, 3rd Most
    Tricks = 2 Loon)" and "If there is a tie on a score card, all tied players collect the
    amount of loon shown"; the page: "ranks are dense". The seed excludes no count: with 6
    and 4 tricks taken, a player who took none has the 3rd most tricks and collects 2; two
    who took none tie for 2nd behind 10. Most Wanted (most cards taken) ranks the same."""
    assert pay_treasure("bountiful-booty", [6, 4, 0]) == [6, 4, 2]
    assert pay_treasure("bountiful-booty", [10, 0, 0]) == [6, 4, 4]
    assert pay_treasure("bountiful-booty", [5, 5, 0, 0, 0]) == [6, 6, 4, 4, 4]
    most_wanted = CARDS[SCORE["most-wanted"]]
    assert capture(most_wanted, [cards("red-1", "red-2", "red-3"), (), ()]) == [5, 2, 2]
    state = finished_round([6, 4, 0], "bountiful-booty", "mustel-bounty", [[]] * 3, [12] * 3)
    assert (2, 2, "bountiful-booty") in [(e.seat, e.amount, e.what) for e in state.ledger]


def test_edition_one_a_count_of_zero_placed_nowhere_on_a_most_card() -> None:
    """Edition 1 (games begun under it, **house**): taking nothing was not "most" (or 2nd,
    3rd most) of anything."""
    booty = CARDS[SCORE["bountiful-booty"]]
    assert treasure(booty, [10, 0, 0], [0] * 10, (-1, -1, -1), rules=1) == [6, 0, 0]
    most_wanted = CARDS[SCORE["most-wanted"]]
    assert capture(most_wanted, [cards("red-1", "red-2", "red-3"), (), ()], rules=1) == [5, 0, 0]
    state = GAME.start(GAME.recorded_options({"rounds": 3}), 3, b"old")
    assert state.rules == 1 and GAME.start(GAME.options({"rounds": 3}), 3, b"new").rules == 2


def test_lie_low_fewest_tricks_counts_zero() -> None:
    """Lie Low*: "fewest tricks +6, 2nd fewest +4, 3rd fewest +2"."""
    assert pay_treasure("lie-low", [0, 0, 4, 6]) == [6, 6, 4, 2]
    assert pay_treasure("lie-low", [1, 2, 3, 4]) == [6, 4, 2, 0]


@pytest.mark.parametrize(
    ("card_id", "tricks", "predictions", "paid"),
    [
        ("rich-rewards", [5, 3, 2], NONE, [10, 6, 4]),  # "+2 per trick"
        ("steady-hand", [7, 3, 0], NONE, [7, 3, 5]),  # "+1 per trick; +5 for taking none"
        # Tempt Fortune: "exact: +3 per predicted trick (exact 0: +5); missed: pay 2 per
        # trick off"
        ("tempt-fortune", [3, 0, 7], (3, 0, 5, -1), [9, 5, -4]),
        ("tempt-fortune", [1, 4, 5], (0, 6, 5, -1), [-2, -4, 15]),
        # Extra Loot: "exact: +8; off by one: +2; else 0"
        ("extra-loot", [3, 0, 7], (3, 1, 5, -1), [8, 2, 0]),
    ],
)
def test_treasure_cards(
    card_id: str, tricks: list[int], predictions: tuple[int, ...], paid: list[int]
) -> None:
    assert pay_treasure(card_id, tricks, predictions) == paid


def test_first_and_last() -> None:
    """First and Last*: "+3 for taking trick 1, +3 for taking trick 10"."""
    takers = [2, 0, 0, 1, 1, 1, 0, 0, 1, 2]
    assert treasure(CARDS[SCORE["first-and-last"]], [4, 4, 2], takers, NONE[:3]) == [0, 0, 6]
    takers[-1] = 1
    assert treasure(CARDS[SCORE["first-and-last"]], [4, 5, 1], takers, NONE[:3]) == [0, 3, 3]


@pytest.mark.parametrize(
    ("card_id", "paid"),
    [
        ("mustel-bounty", [2, 0]),  # "+1 per blue card taken"
        ("beringa-bounty", [1, 2]),
        ("crimson-bounty", [1, 2]),
        ("big-fish", [2, 1]),  # "+1 per card numbered 16-20 taken"
        ("twenty-guns", [3, 0]),  # "+3 per 20 taken"
        ("small-fry", [2, 2]),  # "+1 per card numbered 12 or lower taken"
        ("most-wanted", [5, 5]),  # "most cards taken +5, 2nd +2" -- a tie
        ("blood-money", [-1, -2]),  # "pay 1 per red card taken"
        ("unlucky-thirteen", [0, -2]),  # "pay 2 per 13 taken"
    ],
)
def test_capture_cards(card_id: str, paid: list[int]) -> None:
    """Capture: "scored on the crew cards inside the tricks you took"."""
    won = [
        cards("blue-20", "blue-3", "green-16", "red-7"),
        cards("red-13", "red-2", "green-1", "green-17"),
    ]
    assert capture(CARDS[SCORE[card_id]], won) == paid


def test_paying_what_one_owes_down_to_zero() -> None:
    """ "A player who owes more than they have pays all they have." **house**: a seat first
    collects, then pays (the capture and treasure cards net)."""
    won = [["red-1", "red-2", "red-3", "red-4"], [], ["red-5"]]
    # Blood Money: seat 0 owes 4 with 1 loon; seat 2 owes 1 and collects 2 for its trick.
    state = finished_round([0, 0, 1], "rich-rewards", "blood-money", won, [1, 0, 0])
    entries = [(e.seat, e.amount, e.what) for e in state.ledger if e.round == 1]
    assert entries == [(0, -1, "blood-money"), (2, 2, "rich-rewards"), (2, -1, "blood-money")]
    # Round 2 starts with the top-up to 5 (public).
    tops = [(e.seat, e.amount) for e in state.ledger if e.what == "top-up"]
    assert tops == [(0, 5), (1, 5), (2, 4)]
    assert state.loon == (5, 5, 5)


def test_the_game_ends_after_its_rounds_and_the_most_loon_wins() -> None:
    """ "3 rounds ... the most loon at the end wins; ties share the win." """
    state = trick_table([[], [], []], rounds=3)
    state = msgspec.structs.replace(state, round=3, takers=(0,) * 10, loon=(20, 30, 30))
    over = GAME._end_round(state)
    assert GAME.prompt(over).over
    outcome = GAME.outcome(over)
    assert outcome is not None
    assert outcome.scores == (40, 30, 30) and outcome.ranks == (1, 2, 2)
    state = msgspec.structs.replace(state, takers=(1,) * 10, loon=(20, 10, 30))
    outcome = GAME.outcome(GAME._end_round(state))
    assert outcome is not None and outcome.scores == (20, 30, 30) and outcome.ranks == (3, 1, 1)


def test_score_card_table_is_the_rules_page() -> None:
    """ "Score decks: 10 recruitment, 9 capture, 7 treasure"; the seed names 9 of them."""
    decks = [card.deck for card in CARDS]
    assert (decks.count("recruitment"), decks.count("capture"), decks.count("treasure")) == (
        10,
        9,
        7,
    )
    seed = {card.id for card in CARDS if not card.house}
    assert seed == {
        "beringa-backing",
        "gang-of-two",
        "gang-of-three",
        "partners-in-crime",
        "mustel-bounty",
        "rich-rewards",
        "bountiful-booty",
        "tempt-fortune",
        "extra-loot",
    }
    assert scores(("gang-of-two", "old-salts"), "big-fish", "lie-low")[2] == SCORE["big-fish"]
