"""The row auction, as sealed phases: every branch of the rules page's section 3."""

from __future__ import annotations

import pytest

from engines.core import IllegalMove
from engines.loon_tricks.moves import Award, Bid
from engines.loon_tricks.state import AWARD, BID, DITCH, PICK, State

from .helpers import GAME, cards, step, table

ROW0 = (["red-20", "red-19", "green-18", "blue-17", "green-9"], ["blue-9", "blue-10"])
HANDS = {
    0: ["red-15", "green-10", "green-11", "blue-11", "blue-12"],
    1: ["green-15", "red-9", "red-10", "red-11", "blue-13"],
    2: ["blue-15", "green-12", "green-13", "blue-14", "red-12"],
}


def test_a_row_is_offered_to_the_players_without_a_row_as_a_sealed_bid() -> None:
    """ "Rows are offered from the top, one at a time, to the players who have no row yet.
    Each of them secretly chooses a bid from 0 to their loon; all bids appear together." """
    state = table(loon=(12, 3, 0))
    prompt = GAME.prompt(state)
    assert state.offer == 0 and prompt.kind == "bid" and prompt.sealed and not prompt.private
    assert prompt.seats == (0, 1, 2)
    assert GAME.legal(state, 1) == [Bid(n) for n in range(4)]
    assert GAME.legal(state, 2) == [Bid(0)]
    with pytest.raises(IllegalMove) as err:
        GAME.validate(state, 1, Bid(4))
    assert err.value.code == "bid-over-loon"
    with pytest.raises(IllegalMove) as err:
        step(state, {0: "bid 1", 1: "bid 1"})
    assert err.value.code == "sealed"


def test_one_highest_bid_pays_the_bank_takes_the_row_and_the_go_first_marker() -> None:
    """ "One highest bid: that player pays it to the bank and takes the 7 cards ...; the top
    row also brings the Go First marker. Nobody else pays." """
    state = table(hands=HANDS, rows={0: ROW0})
    after = step(state, {0: "bid 1", 1: "bid 3", 2: "bid 0"})
    assert after.loon == (12, 9, 12)
    assert after.hands[1] == cards(*HANDS[1], *ROW0[0], *ROW0[1])
    assert after.row_owner[0] == 1 and after.go_first == 1
    assert after.row_down[0] == ()  # taken: the face-down cards are in seat 1's hand
    assert [(e.seat, e.amount, e.what) for e in after.ledger] == [(1, -3, "bid")]
    # The next row goes to the two seats still without a row.
    assert after.phase == BID and after.offer == 1 and GAME.prompt(after).seats == (0, 2)
    with pytest.raises(IllegalMove) as err:
        GAME.validate(after, 1, Bid(0))
    assert err.value.code == "has-a-row"
    record = after.auction[-1]
    assert (record.row, record.offer, record.bids, record.taker, record.paid) == (
        0,
        1,
        (1, 3, 0),
        1,
        3,
    )


def test_tie_above_zero_card_pick_highest_card_wins_and_pays() -> None:
    """ "A tie for the highest bid above 0: each tied player secretly picks a card from their
    hand (a second sealed phase); the highest card ... wins the row and pays its bid; the
    picked cards go back to hands." """
    state = table(hands=HANDS, rows={0: ROW0})
    tie = step(state, {0: "bid 2", 1: "bid 2", 2: "bid 1"})
    prompt = GAME.prompt(tie)
    assert tie.phase == PICK and prompt.kind == "pick" and prompt.sealed
    assert prompt.seats == (0, 1) and tie.tie_bid == 2
    assert tie.loon == (12, 12, 12)  # nobody has paid yet
    with pytest.raises(IllegalMove) as err:
        step(tie, {0: "pick red-15", 1: "pick red-20"})  # not in seat 1's hand
    assert err.value.code == "not-in-hand"
    done = step(tie, {0: "pick green-10", 1: "pick red-11"})
    assert done.row_owner[0] == 1 and done.loon == (12, 10, 12)
    assert done.auction[-1].picks == (cards("green-10")[0], cards("red-11")[0], -1)
    assert cards("green-10")[0] in done.hands[0]  # back in the hand
    assert cards("red-11")[0] in done.hands[1]
    # Picked cards are seen by all, so they are known to be in those hands.
    assert cards("green-10")[0] in done.known[0]


@pytest.mark.parametrize(
    ("first", "second", "winner"),
    [
        ("red-15", "green-15", 0),  # "red beats green and blue"
        ("blue-15", "green-15", 1),  # "green beats blue"
        ("red-15", "blue-15", 0),
        ("blue-13", "red-12", 0),  # "higher number wins" first
    ],
)
def test_tie_above_zero_card_pick_colour_order_on_equal_numbers(
    first: str, second: str, winner: int
) -> None:
    """ "Card order for tie-breaks: higher number wins; on equal numbers red beats green and
    blue, and green beats blue." """
    hands = {
        0: [first, "green-1", "green-2", "green-3", "green-4"],
        1: [second, "blue-1", "blue-2", "blue-3", "blue-4"],
    }
    state = table(5, hands=hands)
    tie = step(state, {0: "bid 4", 1: "bid 4", 2: "bid 0", 3: "bid 3", 4: "bid 0"})
    done = step(tie, {0: f"pick {first}", 1: f"pick {second}"})
    assert done.row_owner[0] == winner
    assert done.loon[winner] == 8 and done.loon[1 - winner] == 12


def test_tie_at_zero_puts_two_loon_on_the_row_and_moves_on() -> None:
    """ "A tie at 0: 2 loon from the bank are put on the row, and the auction moves to the
    next row." """
    state = table()
    after = step(state, {0: "bid 0", 1: "bid 0", 2: "bid 0"})
    assert after.row_loon == (2, 0, 0) and after.row_owner == (-1, -1, -1)
    assert after.phase == BID and after.offer == 1 and GAME.prompt(after).seats == (0, 1, 2)
    assert after.auction[-1].taker == -1
    assert after.loon == (12, 12, 12)


def _second_pass() -> State:
    """Row 0 tied at 0, row 1 to seat 0, row 2 tied at 0: row 0 comes back."""
    state = table(hands=HANDS, rows={0: ROW0})
    state = step(state, {0: "bid 0", 1: "bid 0", 2: "bid 0"})
    state = step(state, {0: "bid 1", 1: "bid 0", 2: "bid 0"})
    assert state.row_owner == (-1, 0, -1) and state.offer == 2
    state = step(state, {1: "bid 0", 2: "bid 0"})
    return state


def test_unclaimed_rows_are_offered_again_from_the_top() -> None:
    """ "After every row was offered once, rows still unclaimed are offered again from the
    top. A row may be offered at most twice" """
    state = _second_pass()
    assert state.row_loon == (2, 0, 2)
    assert state.phase == BID and state.offer == 0 and state.row_offers == (2, 1, 1)
    assert GAME.prompt(state).seats == (1, 2)


def test_second_offer_zero_tie_card_pick_then_the_winner_awards_the_row() -> None:
    """ "on its second offer a tie at 0 is broken by the card pick, and the winner of the
    pick chooses which of the tied players takes the row" (house reading); "When one
    player and one row are left, that player takes it for free." """
    state = step(_second_pass(), {1: "bid 0", 2: "bid 0"})
    assert state.phase == PICK and state.tie_bid == 0 and GAME.prompt(state).seats == (1, 2)
    state = step(state, {1: "pick green-15", 2: "pick blue-15"})  # green beats blue
    prompt = GAME.prompt(state)
    assert state.phase == AWARD and prompt.kind == "award" and not prompt.sealed
    assert prompt.seats == (1,) and GAME.legal(state, 1) == [Award(1), Award(2)]
    with pytest.raises(IllegalMove) as err:
        GAME.validate(state, 1, Award(0))
    assert err.value.code == "not-tied-seat"
    with pytest.raises(IllegalMove) as err:
        GAME.validate(state, 2, Award(2))
    assert err.value.code == "not-your-choice"
    state = step(state, {1: "award 2"})
    # Seat 2 takes row 0 for nothing, its 2 loon and the Go First marker ...
    assert state.row_owner[0] == 2 and state.go_first == 2 and state.loon[2] == 14
    assert state.auction[-2].awarded_by == 1 and state.auction[-2].paid == 0
    # ... and seat 1, the last without a row, takes the last row free, with its 2 loon.
    assert state.row_owner == (2, 0, 1) and state.loon == (11, 14, 14)
    assert state.auction[-1].offer == 0 and state.auction[-1].taker == 1
    assert state.phase == DITCH and all(len(h) == 12 for h in state.hands)


def test_second_offer_tie_above_zero_is_a_normal_card_pick() -> None:
    """A tie above 0 on a second offer: "the highest card ... wins the row and pays its
    bid"."""
    state = step(_second_pass(), {1: "bid 5", 2: "bid 5"})
    assert state.phase == PICK and state.tie_bid == 5
    state = step(state, {1: "pick red-11", 2: "pick red-12"})
    assert state.row_owner[0] == 2 and state.loon[2] == 12 - 5 + 2 and state.go_first == 2
    assert state.phase == DITCH


def test_the_last_player_takes_the_last_row_for_free() -> None:
    """ "When one player and one row are left, that player takes it for free." """
    state = table(hands=HANDS)
    state = step(state, {0: "bid 2", 1: "bid 0", 2: "bid 1"})
    state = step(state, {1: "bid 0", 2: "bid 1"})
    assert state.row_owner == (0, 2, 1) and state.loon == (10, 12, 11)
    assert state.auction[-1].offer == 0 and state.auction[-1].paid == 0
    assert state.phase == DITCH


def test_loon_on_a_row_goes_to_its_taker() -> None:
    """ "takes the 7 cards (and any loon lying on the row)" """
    state = table()
    state = step(state, {0: "bid 0", 1: "bid 0", 2: "bid 0"})  # 2 loon on row 0
    state = step(state, {0: "bid 0", 1: "bid 1", 2: "bid 0"})  # row 1 to seat 1
    state = step(state, {0: "bid 0", 2: "bid 0"})  # 2 loon on row 2
    state = step(state, {0: "bid 4", 2: "bid 1"})  # row 0 (second offer) to seat 0
    assert state.row_owner == (0, 1, 2)
    assert state.loon == (12 - 4 + 2, 11, 12 + 2)
    whats = [(e.seat, e.amount, e.what) for e in state.ledger]
    assert whats == [(1, -1, "bid"), (0, -4, "bid"), (0, 2, "row"), (2, 2, "row")]
