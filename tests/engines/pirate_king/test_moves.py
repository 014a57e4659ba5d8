"""Moves: exact text and JSON forms; malformed input is MalformedMove, refused moves are
IllegalMove with a specific code."""

from __future__ import annotations

import pytest

from engines.core import IllegalMove, MalformedMove
from engines.pirate_king.moves import CardMove, Do, Move, Order, Pick, SeatMove, Stack, Take

from .helpers import GAME, arrange, beat

EXAMPLES: list[tuple[Move, str, dict[str, object]]] = [
    (Pick("gary"), "pick gary", {"pick": "gary"}),
    (Do("reveal"), "reveal", {"do": "reveal"}),
    (Do("stop"), "stop", {"do": "stop"}),
    (Do("pass"), "pass", {"do": "pass"}),
    (Stack(("grog-1", "cutlass-1")), "stack grog-1 cutlass-1", {"stack": ["grog-1", "cutlass-1"]}),
    (CardMove("flip", "cutlass-1"), "flip cutlass-1", {"flip": "cutlass-1"}),
    (CardMove("choose", "grog-1"), "choose grog-1", {"choose": "grog-1"}),
    (CardMove("retrieve", "grog-1"), "retrieve grog-1", {"retrieve": "grog-1"}),
    (CardMove("reclaim", "wilson"), "reclaim wilson", {"reclaim": "wilson"}),
    (CardMove("leave", "wilson"), "leave wilson", {"leave": "wilson"}),
    (SeatMove("give", 2), "give 2", {"give": 2}),
    (SeatMove("give", 4), "give 4", {"give": 4}),
    (
        Stack(tuple(f"map-fragment-{i}" for i in range(1, 6))),
        "stack " + " ".join(f"map-fragment-{i}" for i in range(1, 6)),
        {"stack": [f"map-fragment-{i}" for i in range(1, 6)]},
    ),
    (SeatMove("crown", 0), "crown 0", {"crown": 0}),
    (Order((2, 0, 1)), "order 2 0 1", {"order": [2, 0, 1]}),
    (Order((1, 0)), "order 1 0", {"order": [1, 0]}),  # the shortest tie: two seats
    (Order((4, 3, 2, 1, 0)), "order 4 3 2 1 0", {"order": [4, 3, 2, 1, 0]}),  # all five
    (Take("kraken"), "take kraken", {"take": "kraken"}),
    (
        Take("flintlock-1", "parrot-2"),
        "take flintlock-1 drop parrot-2",
        {"take": "flintlock-1", "drop": "parrot-2"},
    ),
]


@pytest.mark.parametrize(("move", "text", "obj"), EXAMPLES, ids=[e[1] for e in EXAMPLES])
def test_every_move_round_trips(move: Move, text: str, obj: dict[str, object]) -> None:
    assert str(move) == text and move.to_json() == obj
    assert GAME.parse_move(text) == move
    assert GAME.decode_move(obj) == move


@pytest.mark.parametrize(
    "text",
    [
        "Reveal",
        "reveal ",
        "give 02",
        "give 5",
        "give -1",
        "order 1",
        "order 1 1",
        "stack grog-1",
        "stack grog-1 grog-1",
        "take kraken drop kraken",
        "take kraken discard parrot-1",
        "pick nobody",
        "flip",
        "order 0 1 2 3 4 0",
        "stack " + " ".join(f"map-fragment-{i}" for i in range(1, 7)),
    ],
)
def test_malformed_text(text: str) -> None:
    with pytest.raises(MalformedMove):
        GAME.parse_move(text)


@pytest.mark.parametrize(
    "obj",
    [
        {"do": "jump"},
        {"give": True},
        {"give": "2"},
        {"order": "2 0"},
        {"stack": ["grog-1"]},
        {"take": "kraken", "drop": None},
        {"take": "kraken", "drop": "kraken"},
        {"flip": "cutlass-1", "choose": "grog-1"},
        {"pick": 3},
        {"order": [0, 1, 2, 3, 4, 5]},
        {"stack": [f"map-fragment-{i}" for i in range(1, 7)]},
        [],
    ],
)
def test_malformed_json(obj: object) -> None:
    with pytest.raises(MalformedMove):
        GAME.decode_move(obj)


def test_refusals_have_specific_codes_and_change_nothing() -> None:
    """A refused move raises IllegalMove with a code naming the rule; the state is a value
    and stays as it was."""
    s = arrange()
    blob = GAME.encode(s)
    cases = [
        (0, Take("kraken"), "wrong-move"),
        (0, Do("pass"), "wrong-move"),
        (7, Do("reveal"), "no-such-seat"),
    ]
    for seat, move, code in cases:
        with pytest.raises(IllegalMove) as err:
            GAME.validate(s, seat, move)
        assert err.value.code == code
    with pytest.raises(IllegalMove) as err:
        GAME.step(s, {0: Do("reveal")})
    assert err.value.code == "sealed"
    assert GAME.encode(s) == blob
    s = arrange(zones={0: ["cutlass-1", "grog-1"]}, piles={0: ["lucky-charm-1"]})
    s = beat(s)
    for move, code in (
        (CardMove("flip", "lucky-charm-1"), "cannot-flip"),
        (CardMove("choose", "grog-1"), "wrong-move"),
    ):
        with pytest.raises(IllegalMove) as err:
            GAME.validate(s, 0, move)
        assert err.value.code == code
    with pytest.raises(IllegalMove) as err:
        GAME.step(s, {0: CardMove("flip", "cutlass-1"), 1: Do("reveal")})
    assert err.value.code == "one-at-a-time"
