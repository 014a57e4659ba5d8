"""Ten tricks: "Go First holder leads; follow suit if you can; otherwise any card; highest
red wins if any red was played, else the highest card of the suit led; the winner leads
the next." """

from __future__ import annotations

import pytest

from engines.core import IllegalMove
from engines.loon_tricks.moves import Play
from engines.loon_tricks.state import PLAY
from engines.loon_tricks.trick import winner

from .helpers import GAME, cards, play_out, trick_table


def plays(*names: str) -> list[tuple[int, int]]:
    return [(seat, cards(name)[0]) for seat, name in enumerate(names)]


@pytest.mark.parametrize(
    ("played", "taker"),
    [
        (("green-18", "green-19", "red-9"), 2),  # "Red always trumps green and blue"
        (("green-18", "red-10", "red-9"), 1),  # the highest red
        (("red-9", "green-20", "blue-20"), 0),  # "You can lead with trump"
        (("green-12", "blue-20", "green-14"), 2),  # no red: highest of the suit led
        (("blue-12", "green-20", "green-19"), 0),
    ],
)
def test_trick_winner(played: tuple[str, ...], taker: int) -> None:
    """ "The player who played the highest number card in the suit of the first played card
    in the trick wins, unless one or more red (trump) cards were played ... the player who
    played the highest red card always wins the trick." """
    assert winner(plays(*played)) == taker


HANDS = [
    ["green-18", "green-9", "red-20", "blue-9"],
    ["green-19", "blue-20", "red-9", "blue-10"],
    ["blue-11", "red-10", "red-11", "blue-12"],
]


def test_go_first_holder_leads_the_first_trick() -> None:
    """ "The player with the Go First marker leads the first card." """
    state = trick_table(HANDS, leader=1)
    assert GAME.prompt(state).seats == (1,) and GAME.prompt(state).kind == "play"


def test_must_follow_suit_if_you_can() -> None:
    """ "You must follow suit if you have it." """
    state = play_out(trick_table(HANDS), "play green-9")
    assert GAME.legal(state, 1) == [Play("green-19")]
    with pytest.raises(IllegalMove) as err:
        GAME.validate(state, 1, Play("red-9"))
    assert err.value.code == "must-follow-suit"
    with pytest.raises(IllegalMove) as err:
        GAME.validate(state, 0, Play("green-18"))
    assert err.value.code == "not-your-turn"


def test_without_the_suit_any_card_may_be_played() -> None:
    """ "If you cannot follow suit, you must play any card, including trump." """
    state = play_out(trick_table(HANDS), "play green-9", "play green-19")
    assert {m.card for m in GAME.legal(state, 2)} == set(HANDS[2])  # type: ignore[union-attr]


def test_the_tricks_winner_leads_the_next() -> None:
    """ "The player who wins the trick, plays the first card for the next trick." """
    state = play_out(trick_table(HANDS), "play green-9", "play green-19", "play red-10")
    assert state.takers == (2,) and state.order == (2, 0, 1)
    assert GAME.prompt(state).seats == (2,)
    assert state.won[2] == cards("green-9", "green-19", "red-10")
    assert state.last == tuple(plays("green-9", "green-19", "red-10"))


def test_a_round_has_ten_tricks() -> None:
    """ "There are 10 tricks in each round." After the tenth the round is scored and the
    next one is dealt."""
    deck = [f"{s}-{n}" for s in ("red", "green", "blue") for n in range(11, 21)]
    hands = [deck[0::3], deck[1::3], deck[2::3]]
    state = trick_table(hands)
    assert all(len(h) == 10 for h in state.hands)
    tricks = 0
    while state.phase == PLAY and state.round == 1:
        (seat,) = GAME.prompt(state).seats
        state = GAME.step(state, {seat: GAME.legal(state, seat)[0]})
        tricks += 1
    assert tricks == 30 and state.round == 2
