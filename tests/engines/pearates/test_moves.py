"""Moves as text and JSON: exact pairs; anything else is MalformedMove."""

from __future__ import annotations

import pytest

from engines.core import MalformedMove

from .helpers import G

PAIRS = [
    ("pass", {"move": "pass"}),
    ("stop", {"move": "stop"}),
    ("hide", {"move": "hide"}),
    ("keep", {"move": "keep"}),
    ("score", {"move": "score"}),
    ("keep goldfish-3", {"move": "keep", "card": "goldfish-3"}),
    ("bid goldfish-3", {"move": "bid", "card": "goldfish-3"}),
    ("play egg-bag-1", {"move": "play", "card": "egg-bag-1"}),
    ("arrange filled-chest", {"move": "arrange", "card": "filled-chest"}),
    ("put top", {"move": "put", "end": "top"}),
    ("steal bottom", {"move": "steal", "end": "bottom"}),
    ("take top", {"move": "take", "end": "top"}),
    ("add bread-booty-2 top", {"move": "add", "card": "bread-booty-2", "end": "top"}),
    ("add deck bottom", {"move": "add", "card": "deck", "end": "bottom"}),
    ("give 2 goldfish-1", {"move": "give", "seat": 2, "card": "goldfish-1"}),
    ("give 0 deck", {"move": "give", "seat": 0, "card": "deck"}),
    ("discard 1", {"move": "discard", "seat": 1}),
    ("target 3", {"move": "target", "seat": 3}),
    ("winner 6", {"move": "winner", "seat": 6}),
    ("sabre -4", {"move": "sabre", "value": -4}),
    ("sabre 8", {"move": "sabre", "value": 8}),
]


@pytest.mark.parametrize(("text", "obj"), PAIRS)
def test_text_and_json_are_exact_pairs(text: str, obj: dict[str, object]) -> None:
    move = G.parse_move(text)
    assert str(move) == text and move.to_json() == obj and G.decode_move(obj) == move


@pytest.mark.parametrize(
    "text",
    [
        "bid deck",  # the deck is a source only for add and give
        "play nope",
        "put middle",
        "give 7 deck",
        "give -1 deck",
        "give 01 deck",
        "sabre 9",
        "sabre -0",
        "sabre +3",
        "keep goldfish-1 goldfish-2",
        "Pass",
        "pass ",
        "add goldfish-1",
    ],
)
def test_malformed_text(text: str) -> None:
    with pytest.raises(MalformedMove):
        G.parse_move(text)


@pytest.mark.parametrize(
    "obj",
    [
        {"move": "pass", "card": None},
        {"move": "bid"},
        {"move": "give", "seat": True, "card": "deck"},
        {"move": "sabre", "value": 3.0},
        {"verb": "pass"},
        ["pass"],
    ],
)
def test_malformed_json(obj: object) -> None:
    with pytest.raises(MalformedMove):
        G.decode_move(obj)
