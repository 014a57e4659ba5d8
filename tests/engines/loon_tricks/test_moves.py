"""Moves as text and JSON: exact pairs, malformed input, illegal moves with specific codes."""

from __future__ import annotations

import pytest

from engines.core import IllegalMove, MalformedMove
from engines.loon_tricks.moves import Award, Bid, Ditch, Pick, Play, Predict

from .helpers import GAME, table

PAIRS = [
    ("bid 3", {"bid": 3}, Bid(3)),
    ("bid 0", {"bid": 0}, Bid(0)),
    ("pick red-15", {"pick": "red-15"}, Pick("red-15")),
    ("award 2", {"award": 2}, Award(2)),
    ("ditch red-1 blue-3", {"ditch": ["red-1", "blue-3"]}, Ditch(("red-1", "blue-3"))),
    ("predict 10", {"predict": 10}, Predict(10)),
    ("play green-12", {"play": "green-12"}, Play("green-12")),
]


@pytest.mark.parametrize(("text", "obj", "move"), PAIRS, ids=[p[0] for p in PAIRS])
def test_text_and_json_forms_are_exact_pairs(text: str, obj: dict, move: object) -> None:  # type: ignore[type-arg]
    assert GAME.parse_move(text) == move and str(move) == text
    assert GAME.decode_move(obj) == move and move.to_json() == obj  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "text",
    [
        "ditch blue-3 red-1",  # one spelling: card order
        "ditch red-1 red-1",  # two different cards
        "ditch red-1",
        "predict 11",  # "announces 0-10 tricks"
        "bid -1",
        "bid 01",
        "award 5",
        "pick red-21",
        "play purple-3",
        "play red-15 ",
    ],
)
def test_malformed_text(text: str) -> None:
    with pytest.raises(MalformedMove):
        GAME.parse_move(text)


@pytest.mark.parametrize(
    "obj",
    [
        {"ditch": ["blue-3", "red-1"]},
        {"ditch": "red-1 blue-3"},
        {"ditch": ["red-1"]},
        {"predict": 11},
        {"bid": True},
        {"award": "1"},
        {"play": "red-15", "as": None},
    ],
)
def test_malformed_json(obj: object) -> None:
    with pytest.raises(MalformedMove):
        GAME.decode_move(obj)


@pytest.mark.parametrize(
    ("move", "code"),
    [
        (Pick("red-15"), "not-picking"),
        (Award(1), "not-awarding"),
        (Ditch(("red-9", "red-10")), "not-ditching"),
        (Predict(3), "not-predicting"),
        (Play("red-9"), "not-playing"),
    ],
)
def test_moves_out_of_their_phase_are_refused_with_specific_codes(move: object, code: str) -> None:
    """During the first bid, only bids are moves; each other move names the rule broken."""
    state = table()
    with pytest.raises(IllegalMove) as err:
        GAME.validate(state, 0, move)  # type: ignore[arg-type]
    assert err.value.code == code
    with pytest.raises(IllegalMove) as err:
        GAME.validate(state, 3, Bid(0))
    assert err.value.code == "no-such-seat"


def test_a_refused_step_changes_nothing() -> None:
    state = table()
    blob = GAME.encode(state)
    with pytest.raises(IllegalMove):
        GAME.step(state, {0: Bid(0), 1: Bid(0), 2: Bid(13)})
    assert GAME.encode(state) == blob
