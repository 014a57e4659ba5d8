"""Scores per round and every bonus, in both editions, with the seed's worked examples.

Most tests set up the last trick of a round (tricks already won, bids revealed), play it
through the engine and read the score sheet row the engine wrote.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from engines.skull_king import BID_TRICKS, SKULL_KING, SkullKing
from engines.skull_king.state import Round
from engines.skull_king.trick import bonus, winner

from .helpers import plays, step_bids, step_play, table

SK = SKULL_KING
BT = BID_TRICKS


def trick_bonus(game: SkullKing, *specs: str) -> tuple[int, int]:
    """(winner index, bonus its taker earns) of one trick."""
    p = plays(game, *specs)
    w = winner(game.cards, p)
    return w, bonus(game.cards, p, w)


def last_trick(
    game: SkullKing,
    cards: Sequence[str],
    *,
    round_: int,
    bids: Sequence[int],
    tricks: Sequence[int],
    bonus_: Sequence[int] | None = None,
) -> Round:
    """Play the last trick of round ``round_`` (hand i plays ``cards[i]``, hand 0 leads)
    and return the sheet row the engine wrote."""
    state = table(
        game,
        [[c.split(" as ")[0]] for c in cards],
        round_=round_,
        rounds=round_,
        bids=bids,
        tricks=tricks,
        bonus=bonus_,
    )
    state = step_play(game, state, *cards)
    assert game.outcome(state) is not None
    assert state.sheet[-1].round == round_
    return state.sheet[-1]


# -- classic scoring -------------------------------------------------------------------


def test_david_bids_three_wins_three() -> None:
    """Seed 003: "A player who bids their number of tricks correctly receives 20 points per
    trick that they have won." and "Example: David bids 3 tricks which he indeed gets. He
    receives a total of 60 points." (page: "David bids 3, wins 3: 60"). Seed 003: "When all
    the cards have been played, the hand comes to an end and the scores are noted down." and
    "The number of tricks bid and the points scored are noted on the notepad." (the sheet row
    holds bids, tricks and points) and "Trong mỗi ván bài, người chơi phải đấu giá số "mánh"
    (trick - sẽ được giải thích ở dưới) mình sẽ thắng trong ván bài đó. Sau đó, mục tiêu sẽ là
    hoàn thành số mà mình đặt ra." (each round players bid the tricks they will win, then aim
    to make exactly that)."""
    david = ["black-11", "black-12", "black-13"]
    state = table(
        SK,
        [david, ["yellow-1", "yellow-2", "yellow-3"], ["red-1", "red-2", "red-3"]],
        round_=3,
        rounds=3,
        bids=[3, 0, 1],
    )
    state = step_play(SK, state, "black-11", "yellow-1", "red-1")
    state = step_play(SK, state, "black-12", "yellow-2", "red-2")
    state = step_play(SK, state, "black-13", "yellow-3", "red-3")
    row = state.sheet[-1]
    assert row.bids == (3, 0, 1)
    assert row.tricks == (3, 0, 0)
    assert row.points[0] == 60
    assert row.points == (60, 30, -10)
    assert SK.totals(state) == [60, 30, -10]


def test_simon_bids_five_wins_one() -> None:
    """Seed 003: "A player who wins more or fewer tricks than bid, receives no plus points and
    no bonus points. They receive 10 minus points for each trick more or less than their
    bid." and "Example: Simon bids 5 tricks but only wins 1 trick. The difference is 4 tricks.
    So he gets 40 minus" (page: "Simon bids 5, wins 1: −40")."""
    row = last_trick(
        SK, ["yellow-2", "yellow-9", "red-1"], round_=5, bids=[5, 4, 0], tricks=[1, 3, 0]
    )
    assert row.tricks == (1, 4, 0)
    assert row.points[0] == -40


def test_eloise_bids_zero_in_round_four() -> None:
    """Seed 003: "If a player bids for "no tricks" and manages not to make a trick, they
    receive points corresponding to the current round, multiplied by 10." and "Example: In
    round 4 Eloise makes a bid to win no tricks. At the end of the round she has actually
    managed not to win any tricks. She receives 40 points for this (round 4 times 10
    points)." (page: "Eloise, round 4, bid 0 made: +40")."""
    row = last_trick(
        SK, ["yellow-2", "yellow-9", "red-1"], round_=4, bids=[0, 4, 0], tricks=[0, 3, 0]
    )
    assert row.tricks == (0, 4, 0)
    assert row.points[0] == 40
    assert row.points[2] == 40


@pytest.mark.parametrize("took", [1, 2, 3])
def test_david_bids_zero_in_round_nine(took: int) -> None:
    """Seed 003: "However, if a player does not manage to do this, and is forced to take one
    or more tricks, they receive the same number of points, but as minus points. If a player
    bids "no tricks" and proves to be wrong, it is irrelevant if they get one or, for example,
    three tricks." and "Example: In round 9 David makes a bid to win no tricks. But in the
    course of the round he had to take two tricks. He receives -90 points for this (round 9
    times 10 points)." (page: "David, round 9, bid 0, took 2: −90"). Seed 003: "So a no-trick
    bid is also risky! It can mean that a player wins lots of points, but they can also lose a
    lot." and "Đấu thầu với 0 "mánh" nghe có vẻ thơm, nhưng nó cũng chứa đầy rủi ro..." (a
    zero bid sounds tempting but is full of risk)."""
    row = last_trick(
        SK,
        ["black-9", "yellow-9", "red-1"],
        round_=9,
        bids=[0, 8, 0],
        tricks=[took - 1, 9 - took, 0],
    )
    assert row.tricks[0] == took
    assert row.points[0] == -90


def test_missed_bid_by_too_many() -> None:
    """Page: "Score per round: bid ≥ 1 made exactly: +20 per trick, plus bonuses; bid missed:
    −10 per trick off, no bonuses. Bid 0 made: +10 × round number; bid 0 missed (however many
    tricks): −10 × round number." (more tricks than bid is off too). Seed 003: "Bất kì người
    nào không thể hoàn thành được vì họ thắng quá nhiều hoặc quá ít, họ sẽ phải trả giá bằng
    vinh quang và danh vọng của mình." (whoever misses because they win too many or too few
    pays for it)."""
    row = last_trick(
        SK, ["black-9", "yellow-9", "red-1"], round_=4, bids=[1, 3, 0], tricks=[2, 1, 0]
    )
    assert row.tricks == (3, 1, 0)
    assert row.points[:2] == (-20, -20)


def test_classic_round_one_with_the_skull_king() -> None:
    """Seed 003: "Th Bonus points can be won UK with cards bearing gold coins in the symbols."
    (the Skull King, Pirates, Scary Mary and Mermaids). Page: "bid ≥ 1 made exactly: +20 per
    trick, plus bonuses" and "+30 for each Pirate in
    a trick the player won with the Skull King" -- round 1, played out from the bids."""
    state = table(SK, [["skull-king"], ["pirate-1"], ["pirate-2"]], round_=1, rounds=1)
    state = step_bids(SK, state, 1, 1, 0)
    state = step_play(SK, state, "skull-king", "pirate-1", "pirate-2")
    row = state.sheet[-1]
    assert row.bonus == (60, 0, 0)
    assert row.points == (20 + 60, -10, 10)
    outcome = SK.outcome(state)
    assert outcome is not None
    assert outcome.scores == (80, -10, 10)
    assert outcome.ranks == (1, 3, 2)


@pytest.mark.parametrize(
    ("specs", "expected"),
    [
        (("skull-king", "pirate-1"), 30),
        (("pirate-1", "skull-king", "pirate-2", "pirate-3"), 90),
        (("skull-king", "scary-mary as pirate"), 30),
        (("skull-king", "scary-mary as escape"), 30),
        (("pirate-1", "scary-mary as escape", "skull-king"), 60),
        (("skull-king", "black-13", "escape-1"), 0),
    ],
)
def test_classic_skull_king_takes_pirates(specs: tuple[str, ...], expected: int) -> None:
    """Seed 003: "If a player catches one or more Pirate cards in a trick with the Skull
    King, that player receives a bonus of 30 points for each Pirate card in the trick. The
    Scary Mary always counts as a pirate even though she was played as the "Escape"." and
    "If there is a Pirate card in the trick which is won with the Skull King the (one of them
    is also the Scary Mary, no matter how it is used), the player gets a bonus." Page: "+30
    for each Pirate in a trick the player won with the Skull King (Scary Mary always counts
    as a Pirate, even played as an Escape);" """
    w, points = trick_bonus(SK, *specs)
    assert specs[w] == "skull-king"
    assert points == expected


@pytest.mark.parametrize(
    "specs",
    [
        ("skull-king", "mermaid-1"),
        ("mermaid-2", "skull-king"),
        ("pirate-1", "skull-king", "mermaid-1", "scary-mary as pirate"),
        ("skull-king", "mermaid-1", "mermaid-2"),
    ],
)
def test_classic_mermaid_takes_the_skull_king(specs: tuple[str, ...]) -> None:
    """Seed 003: "If a player has caught the Skull King with his Mermaid in a trick, he
    receives a bonus of 50 points for it." Page: "+50 for winning a trick with a Mermaid
    that contains the Skull King." (only 50: the Pirates in it bring nothing)"""
    w, points = trick_bonus(SK, *specs)
    assert specs[w].startswith("mermaid")
    assert points == 50


@pytest.mark.parametrize(
    "specs",
    [
        ("mermaid-1", "black-13"),
        ("pirate-1", "mermaid-1", "mermaid-2"),
        ("black-13", "yellow-13"),
        ("escape-1", "escape-2"),
        ("scary-mary as pirate", "mermaid-1"),
    ],
)
def test_classic_no_other_bonus(specs: tuple[str, ...]) -> None:
    """Page: the classic bonuses are only "+30 for each Pirate in a trick the player won with
    the Skull King" and "+50 for winning a trick with a Mermaid that contains the Skull King"
    -- a Pirate taking Mermaids or a 13 is worth nothing extra in this edition."""
    assert trick_bonus(SK, *specs)[1] == 0


def test_classic_bonus_only_on_an_exact_bid() -> None:
    """Seed 003: "However a player can only win bonus points if they manage to get exactly as
    many tricks as their bid. If a player doesn't manage to do so, no bonus points are
    awarded." Page: "Bonuses (exact bid only)"."""
    exact = last_trick(
        SK, ["skull-king", "pirate-1", "mermaid-1"], round_=2, bids=[2, 0, 1], tricks=[0, 1, 0]
    )
    assert exact.tricks == (0, 1, 1)
    assert exact.bonus[2] == 50
    assert exact.points == (-20, -20, 20 + 50)
    missed = last_trick(
        SK,
        ["skull-king", "pirate-1", "pirate-2"],
        round_=3,
        bids=[3, 1, 0],
        tricks=[1, 1, 0],
        bonus_=[90, 0, 0],
    )
    assert missed.bonus[0] == 90 + 60
    assert missed.points[0] == -10


# -- bid-tricks scoring ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("specs", "expected"),
    [
        (("green-14", "green-2"), 10),
        (("yellow-14", "black-14", "purple-3"), 30),
        (("black-14", "green-14", "purple-14", "yellow-14"), 50),
        (("green-13", "black-13"), 0),
        (("black-2", "black-14"), 20),
    ],
)
def test_fourteens_in_tricks_you_won(specs: tuple[str, ...], expected: int) -> None:
    """Page: "each 14 in tricks you won +10 (black 14: +20)". Seed 002: "Bonuses (exact bids
    only): each 14 in tricks you won, 10 (black 14: 20)"."""
    assert trick_bonus(BT, *specs)[1] == expected


@pytest.mark.parametrize(
    ("specs", "expected"),
    [
        (("mermaid-1", "pirate-1"), 20),
        (("mermaid-1", "pirate-1", "mermaid-2"), 40),
        (("mermaid-2", "rogue as pirate"), 20),
        (("pirate-2", "pirate-1", "mermaid-1", "green-14"), 30),
    ],
)
def test_pirate_takes_mermaids(specs: tuple[str, ...], expected: int) -> None:
    """Page: "+20 per Mermaid taken by your Pirate". Seed 002: "20 per Mermaid taken by your
    Pirate"."""
    assert trick_bonus(BT, *specs)[1] == expected


@pytest.mark.parametrize(
    ("specs", "expected"),
    [
        (("pirate-1", "captain"), 30),
        (("pirate-1", "captain", "pirate-2", "rogue as pirate"), 90),
        (("captain", "rogue as escape"), 0),
        (("pirate-1", "rogue as escape", "captain"), 30),
        (("captain", "black-14"), 20),
    ],
)
def test_captain_takes_pirates(specs: tuple[str, ...], expected: int) -> None:
    """Page: "+30 per Pirate taken by your Captain" and "The Rogue played as an Escape is not a
    Pirate for the bonus." Seed 002: "30 per Pirate taken by your Captain"."""
    w, points = trick_bonus(BT, *specs)
    assert specs[w] == "captain"
    assert points == expected


@pytest.mark.parametrize(
    ("specs", "expected"),
    [
        (("captain", "mermaid-1"), 40),
        (("pirate-1", "captain", "mermaid-2", "pirate-2"), 40),
        (("mermaid-1", "captain", "black-14"), 60),
        (("mermaid-1", "black-13"), 0),
    ],
)
def test_mermaid_takes_the_captain(specs: tuple[str, ...], expected: int) -> None:
    """Page: "+40 for taking the Captain with your Mermaid". Seed 002: "40 for taking the Captain
    with your Mermaid." """
    w, points = trick_bonus(BT, *specs)
    assert specs[w].startswith("mermaid")
    assert points == expected


def test_bid_tricks_bonus_only_on_an_exact_bid() -> None:
    """Page: "bid ≥ 1 made: +20 per trick plus bonuses; missed: −10 per trick off, no
    bonuses." Seed 002: "Bid 1 or more and win exactly that many: 20 per trick, plus bonuses.
    Miss: −10 per trick you were off, no bonuses." """
    row = last_trick(
        BT, ["captain", "pirate-1", "mermaid-1"], round_=2, bids=[1, 1, 1], tricks=[0, 1, 0]
    )
    assert row.tricks == (0, 1, 1)
    assert row.bonus == (0, 0, 40)
    assert row.points == (-10, 20, 20 + 40)
    row = last_trick(
        BT, ["black-14", "green-14", "purple-3"], round_=2, bids=[1, 2, 0], tricks=[1, 0, 0]
    )
    assert row.bonus[0] == 30
    assert row.points[0] == -10


def test_bid_tricks_zero_bid_by_cards_dealt() -> None:
    """Page: "Bid 0 (not stated in the seed; house, following the published 2021 edition):
    made +10 × cards dealt this round, missed −10 × cards dealt." With 8 players round 10
    deals 8 cards: ±80, not ±100."""
    cards = [
        "black-14",
        "green-1",
        "green-2",
        "green-3",
        "green-4",
        "green-5",
        "green-6",
        "green-7",
    ]
    row = last_trick(
        BT, cards, round_=10, bids=[0, 0, 1, 1, 1, 1, 1, 1], tricks=[0, 0, 1, 1, 1, 1, 1, 2]
    )
    assert row.cards == 8
    assert row.points[0] == -80
    assert row.points[1] == 80
    assert row.points[7] == -10
    row = last_trick(
        BT, ["green-3", "green-4", "green-5"], round_=4, bids=[0, 0, 4], tricks=[0, 0, 3]
    )
    assert row.cards == 4
    assert row.points == (40, 40, 80)


def test_bid_tricks_round_one_played_out() -> None:
    """Seed 002: "Bonuses (exact bids only): ... 40 for taking the Captain with your
    Mermaid." -- from the bids to the score sheet."""
    state = table(BT, [["captain"], ["mermaid-2"], ["pirate-4"]], round_=1, rounds=1)
    state = step_bids(BT, state, 1, 1, 0)
    state = step_play(BT, state, "captain", "mermaid-2", "pirate-4")
    assert state.sheet[-1].points == (-10, 60, 10)
