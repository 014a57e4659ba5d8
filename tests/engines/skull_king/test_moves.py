"""Follow-suit legality, the errors a refused move carries, and moves as text and JSON."""

from __future__ import annotations

from typing import Any

import pytest

from engines.core import IllegalMove, MalformedMove, MoveError
from engines.skull_king import BID_TRICKS, SKULL_KING, SkullKing
from engines.skull_king.moves import Bid, Play
from engines.skull_king.state import State

from .helpers import GAMES, move, step_bids, step_play, table

SK = SKULL_KING
BT = BID_TRICKS
IDS = ["skull-king", "bid-tricks"]


def legal_names(game: SkullKing, state: State, seat: int) -> set[str]:
    return {str(m).removeprefix("play ") for m in game.legal(state, seat)}


def refused(game: SkullKing, state: State, seat: int, spec: str) -> IllegalMove:
    with pytest.raises(IllegalMove) as info:
        game.validate(state, seat, move(spec))
    with pytest.raises(IllegalMove):
        game.step(state, {seat: move(spec)})
    return info.value


# -- following suit --------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_must_follow_suit_if_you_can(game: SkullKing) -> None:
    """Page: "Follow the suit led if you can". Seed 003: "Clockwise the other players must
    follow the suit already played. This means playing a card from the same suit." and "As a
    matter of principle a player must follow the suit first played." Seed 002: "You must
    follow the suit of the first numbered card if you can; the special cards may always be
    played." """
    colour = game.edition.suits[0]
    other = game.edition.suits[1]
    state = table(
        game,
        [["escape-1", "escape-3"], [f"{colour}-9", f"{other}-13", "black-5"], ["escape-2"]],
        bids=[1, 1, 0],
        trick=[f"{colour}-2"],
    )
    assert legal_names(game, state, 1) == {f"{colour}-9"}
    for card in (f"{other}-13", "black-5"):
        error = refused(game, state, 1, card)
        assert error.code == "must-follow-suit"
        assert colour in error.message
    game.validate(state, 1, move(f"{colour}-9"))


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_special_cards_may_always_be_played(game: SkullKing) -> None:
    """Page: "a special card may always be played, even when you could follow." Seed 003:
    "However, even if he could follow the suit, he can always play one of the following
    special cards" and "Again, as a reminder: Special cards can be played at any time! Even if
    it is possible to follow suit!" Seed 002: "the special cards may always be played." """
    e = game.edition
    colour = e.suits[0]
    specials = ["escape-3", "pirate-2", "mermaid-1", e.king]
    state = table(
        game,
        [[], [f"{colour}-9", *specials, e.choice], ["escape-2"]],
        bids=[1, 1, 0],
        trick=[f"{colour}-2"],
    )
    expected = {f"{colour}-9", *specials, f"{e.choice} as pirate", f"{e.choice} as escape"}
    assert legal_names(game, state, 1) == expected
    for spec in expected:
        game.validate(state, 1, move(spec))
        game.step(state, {1: move(spec)})


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_without_the_suit_any_card(game: SkullKing) -> None:
    """Seed 003: "Any player who can't follow suit plays a different one (and loses the
    trick) or a skull and crossbones flag (to win the trick if possible)." """
    colour, other = game.edition.suits[0], game.edition.suits[1]
    state = table(
        game,
        [[], [f"{other}-13", "black-1"], ["escape-2"]],
        bids=[1, 1, 0],
        trick=[f"{colour}-12"],
    )
    assert legal_names(game, state, 1) == {f"{other}-13", "black-1"}
    loses = step_play(game, state, f"{other}-13", "escape-2")
    assert loses.last_winner == 0
    wins = step_play(game, state, "black-1", "escape-2")
    assert wins.last_winner == 1


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_black_led_without_black_play_anything(game: SkullKing) -> None:
    """Page: "If black is led, a player without black may play any card." Seed 003: "If the
    first card played is a skull and crossbones flag (black) a player who has no skull and
    cross- bones flag in their hand can play a card from another suit. They do not have to
    play a Pirate." """
    a, b = game.edition.suits[0], game.edition.suits[1]
    state = table(
        game,
        [[], [f"{a}-13", f"{b}-2", "pirate-1"], ["black-2", f"{a}-1", "pirate-2"]],
        bids=[1, 1, 0],
        trick=["black-7"],
    )
    assert legal_names(game, state, 1) == {f"{a}-13", f"{b}-2", "pirate-1"}
    # A player with black must play black (or a special card).
    state = step_play(game, state, f"{a}-13")
    assert legal_names(game, state, 2) == {"black-2", "pirate-2"}
    assert refused(game, state, 2, f"{a}-1").code == "must-follow-suit"


def test_classic_special_led_the_next_number_sets_the_suit_to_follow() -> None:
    """Seed 003: "If the first card played is a special card, the next suit card to be played
    determines the suit to be followed for the further round." (a character led, too)"""
    for lead in ("skull-king", "pirate-1", "mermaid-1", "escape-1", "scary-mary as pirate"):
        state = table(
            SK,
            [[], ["red-3"], ["red-9", "blue-13"], ["escape-5"]],
            bids=[1, 1, 0, 0],
            trick=[lead],
        )
        state = step_play(SK, state, "red-3")
        assert legal_names(SK, state, 2) == {"red-9"}, lead
        assert refused(SK, state, 2, "blue-13").code == "must-follow-suit"


def test_bid_tricks_character_led_no_suit_to_follow() -> None:
    """Page: "If a special card is led there is no suit to follow; after an Escape the next
    numbered card sets the suit." The same situation as in the classic test above: after a
    led Pirate, Mermaid, Captain or Rogue-as-Pirate, anything goes."""
    for lead in ("captain", "pirate-1", "mermaid-1", "rogue as pirate"):
        state = table(
            BT,
            [[], ["green-3"], ["green-9", "purple-13"], ["escape-5"]],
            bids=[1, 1, 0, 0],
            trick=[lead],
        )
        state = step_play(BT, state, "green-3")
        assert legal_names(BT, state, 2) == {"green-9", "purple-13"}, lead
    for lead in ("escape-1", "rogue as escape"):
        state = table(
            BT,
            [[], ["green-3"], ["green-9", "purple-13"], ["escape-5"]],
            bids=[1, 1, 0, 0],
            trick=[lead],
        )
        state = step_play(BT, state, "green-3")
        assert legal_names(BT, state, 2) == {"green-9"}, lead
        assert refused(BT, state, 2, "purple-13").code == "must-follow-suit"


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_choice_card_is_played_as_pirate_or_escape(game: SkullKing) -> None:
    """Page: "Scary Mary: the player says "pirate" or "escape" when playing it." and "1 Rogue
    🎭 (played as a Pirate or as an Escape — the player chooses)": both ways are legal moves,
    and the move records the choice."""
    choice = game.edition.choice
    state = table(game, [[choice], ["black-5"], ["escape-2"]], bids=[1, 0, 0])
    legal = game.legal(state, 0)
    assert set(legal) == {Play(choice, "pirate"), Play(choice, "escape")}
    for as_, expected_winner in (("pirate", 0), ("escape", 1)):
        after = step_play(game, state, f"{choice} as {as_}")
        assert game.view(after, 1)["trick"] == [{"seat": 0, "card": choice, "as": as_}]
        after = step_play(game, after, "black-5", "escape-2")
        # As a Pirate she takes the black 5; as an Escape she never wins.
        assert after.last_winner == expected_winner


# -- refusals --------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_out_of_turn_is_refused(game: SkullKing) -> None:
    """Page: "the player after the dealer leads the first trick" -- nobody else may play."""
    state = table(game, [["black-1"], ["black-2"], ["black-3"]], bids=[0, 0, 0], order=[1, 2, 0])
    assert game.legal(state, 0) == []
    assert refused(game, state, 0, "black-1").code == "not-your-turn"
    assert refused(game, state, 2, "black-3").code == "not-your-turn"
    game.validate(state, 1, move("black-2"))


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_card_not_in_hand_is_refused(game: SkullKing) -> None:
    state = table(game, [["black-1"], ["black-2"], ["black-3"]], bids=[0, 0, 0])
    assert refused(game, state, 0, "black-2").code == "not-in-hand"
    assert refused(game, state, 0, "pirate-1").code == "not-in-hand"


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_bids_from_zero_to_the_cards_in_hand(game: SkullKing) -> None:
    """Page: "Everyone chooses a bid from 0 to the number of cards in hand". Seed 002: "Look
    at your hand and bid how many tricks you will win this round, from 0 to the number of
    cards you hold." Seed
    003: "Ví dụ: bạn sẽ không thể thắng 5 trick khi bạn đang giữ bài cho 4 vòng." (you cannot
    win 5 tricks holding cards for 4 rounds)."""
    state = game.start(game.options(), 3, b"bids")
    for r in range(1, 4):
        assert len(state.hands[0]) == r
        assert game.legal(state, 0) == [Bid(n) for n in range(r + 1)]
        with pytest.raises(IllegalMove) as info:
            game.validate(state, 0, Bid(r + 1))
        assert info.value.code == "bid-out-of-range"
        with pytest.raises(IllegalMove):
            step_bids(game, state, r + 1, 0, 0)
        state = step_bids(game, state, r, 0, 0)
        while state.round == r:
            seat = game.turn(state)
            assert seat is not None
            state = game.step(state, {seat: game.legal(state, seat)[0]})


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_a_negative_bid_is_refused(game: SkullKing) -> None:
    """A Bid built by hand (not parsed) below 0 is outside "from 0 to the number of cards in
    hand" too."""
    state = game.start(game.options(), 3, b"bids")
    with pytest.raises(IllegalMove) as info:
        game.validate(state, 0, Bid(-1))
    assert info.value.code == "bid-out-of-range"


def test_high_bids_are_allowed() -> None:
    """Seed 003: "Note: Anyone who thinks they are capable of winning more than five tricks
    stretches out five fingers, at the same time naming the number loud and clear." -- bids
    above five are ordinary bids."""
    ten = [[f"{suit}-{i}" for i in range(1, 11)] for suit in ("yellow", "red", "blue")]
    state = table(SK, ten, players=2)
    assert Bid(10) in SK.legal(state, 0)
    assert step_bids(SK, state, 7, 10).bids == (7, 10)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_phase_and_shape_refusals(game: SkullKing) -> None:
    bidding = game.start(game.options({"rounds": 1}), 3, b"phase")
    hand0 = game.cards.names[bidding.hands[0][0]]
    with pytest.raises(IllegalMove) as info:
        game.validate(bidding, 0, Play(hand0) if "-" in hand0 else Play(hand0, "pirate"))
    assert info.value.code == "bidding"
    with pytest.raises(IllegalMove) as info:
        game.validate(bidding, 3, Bid(0))
    assert info.value.code == "no-such-seat"
    playing = step_bids(game, bidding, 0, 0, 0)
    with pytest.raises(IllegalMove) as info:
        game.validate(playing, 0, Bid(0))
    assert info.value.code == "not-bidding"
    seat = game.turn(playing)
    assert seat is not None
    with pytest.raises(IllegalMove) as info:
        game.step(playing, {})
    assert info.value.code == "one-at-a-time"
    over = game.step(playing, {seat: game.legal(playing, seat)[0]})
    while not game.prompt(over).over:
        s = game.turn(over)
        assert s is not None
        over = game.step(over, {s: game.legal(over, s)[0]})
    with pytest.raises(IllegalMove) as info:
        game.validate(over, 0, Bid(0))
    assert info.value.code == "game-over"
    with pytest.raises(IllegalMove):
        game.step(over, {0: Bid(0)})


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_choice_card_without_a_choice_is_refused(game: SkullKing) -> None:
    """Scary Mary / the Rogue is always played "as pirate" or "as escape": a Play built by hand
    without the choice (or a number with one) is not a move of this game."""
    choice = game.edition.choice
    state = table(game, [[choice, "black-2"], ["escape-1"], ["escape-2"]], bids=[1, 0, 0])
    for bad in (Play(choice), Play(choice, "mermaid"), Play("black-2", "pirate")):
        with pytest.raises(MalformedMove):
            game.validate(state, 0, bad)
        with pytest.raises(MalformedMove):
            game.step(state, {0: bad})


# -- text and JSON ---------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_every_move_round_trips_as_text_and_json(game: SkullKing) -> None:
    """``str(move)`` and ``game.parse_move`` are an exact pair, and so are ``move.to_json()``
    and ``game.decode_move`` -- for every bid and every way of playing every card."""
    moves: list[Bid | Play] = [Bid(n) for n in range(15)]
    for name in game.cards.names:
        if name == game.edition.choice:
            moves += [Play(name, "pirate"), Play(name, "escape")]
        else:
            moves.append(Play(name))
    for m in moves:
        assert game.parse_move(str(m)) == m
        assert game.decode_move(m.to_json()) == m
    assert str(Play(game.edition.choice, "escape")) == f"play {game.edition.choice} as escape"
    assert Play(game.edition.choice, "escape").to_json() == {
        "play": game.edition.choice,
        "as": "escape",
    }
    assert game.decode_move({"play": "black-7"}) == Play("black-7")
    assert game.parse_move("bid 3") == Bid(3)


BAD_TEXT = [
    "",
    "bid",
    "bid -1",
    "bid 15",
    "bid 03",
    "bid 3 ",
    " bid 3",
    "bid three",
    "bid ３",
    "Bid 3",
    "play",
    "play black-99",
    "play Black-7",
    "play black-7 as pirate",
    "play pirate-1 as pirate",
    "play escape",
    "play escape-0",
    "play skull-king captain",
    "play black-7  ",
    "pass",
]


@pytest.mark.parametrize("game", GAMES, ids=IDS)
@pytest.mark.parametrize("text", BAD_TEXT)
def test_malformed_text(game: SkullKing, text: str) -> None:
    with pytest.raises(MalformedMove) as info:
        game.parse_move(text)
    assert not isinstance(info.value, IllegalMove)
    assert info.value.code == "malformed-move"


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_choice_card_text_needs_its_choice(game: SkullKing) -> None:
    choice = game.edition.choice
    for text in (f"play {choice}", f"play {choice} as mermaid", f"play {choice} as"):
        with pytest.raises(MalformedMove):
            game.parse_move(text)


BAD_JSON: list[Any] = [
    None,
    3,
    "bid 3",
    [],
    {},
    {"bid": -1},
    {"bid": 15},
    {"bid": "3"},
    {"bid": 3.0},
    {"bid": True},
    {"bid": 3, "play": "black-1"},
    {"play": 7},
    {"play": "black-99"},
    {"play": "black-7", "as": "pirate"},
    {"play": "black-7", "as": None},
    {"play": "black-7", "as": ["pirate"]},
    {"play": "black-7", "extra": 1},
    {"move": "bid 3"},
]


@pytest.mark.parametrize("game", GAMES, ids=IDS)
@pytest.mark.parametrize("obj", BAD_JSON, ids=repr)
def test_malformed_json(game: SkullKing, obj: Any) -> None:
    with pytest.raises(MalformedMove) as info:
        game.decode_move(obj)
    assert not isinstance(info.value, IllegalMove)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_choice_card_json_needs_its_choice(game: SkullKing) -> None:
    choice = game.edition.choice
    bad: list[Any] = [None, "king", ["escape"], {"as": "pirate"}, 1]
    for obj in [{"play": choice}, *({"play": choice, "as": as_} for as_ in bad)]:
        with pytest.raises(MalformedMove):
            game.decode_move(obj)


def test_error_classes_are_distinct() -> None:
    """MalformedMove (not a move of this game) and IllegalMove (a move the rules forbid now)
    are separate classes under MoveError, each with its stable code."""
    assert not issubclass(MalformedMove, IllegalMove)
    assert not issubclass(IllegalMove, MalformedMove)
    assert issubclass(MalformedMove, MoveError) and issubclass(IllegalMove, MoveError)


def test_card_names_are_edition_specific() -> None:
    """The classic deck has no Captain, Rogue or green; bid-tricks has no Skull King, Scary
    Mary, red, blue or 14s-less suits."""
    for text in ("play captain", "play rogue as pirate", "play green-3", "play black-14"):
        with pytest.raises(MalformedMove):
            SK.parse_move(text)
    for text in ("play skull-king", "play scary-mary as pirate", "play red-3", "play blue-1"):
        with pytest.raises(MalformedMove):
            BT.parse_move(text)
