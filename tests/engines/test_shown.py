"""The public part of a state's views, built once for all its viewers (engines/shown.py):
whatever order the seats and spectators ask in, and whatever a receiver does with its
view, each view is exactly the one built from nothing for that seat (docs/ENGINES.md,
"Views": a spectator's view holds no hand; a seat sees its own)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engines.registry import GAMES
from engines.rng import Rng
from engines.shown import Shown


def some_states(game_id: str, players: int, seed: bytes) -> list[Any]:
    """Every fourth state of one random playout."""
    game = GAMES[game_id]
    rng = Rng(seed, "shown")
    state = game.start(game.options({}), players, seed)
    out = [state]
    while game.outcome(state) is None and len(out) < 800:
        prompt = game.prompt(state)
        seats = prompt.seats if prompt.sealed else prompt.seats[:1]
        moves = {}
        for seat in seats:
            legal = game.legal(state, seat)
            moves[seat] = legal[rng.below(len(legal))]
        state = game.step(state, moves)
        out.append(state)
    return out[::4]


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_views_asked_seat_after_seat_are_each_seats_own(game_id: str) -> None:
    game = GAMES[game_id]
    players = min(game.seats[-1], 4)
    orders = ([0, None, 1, players - 1, None], [None, players - 1, 0, None])
    for state in some_states(game_id, players, b"seat after seat"):
        for order in orders:
            sent = []
            for seat in order:  # one state's views, one after the other
                view = game.view(state, seat)
                sent.append((seat, json.loads(json.dumps(view))))  # as it was sent
                for key in list(view):  # a receiver that changes its view changes no other
                    view[key] = "changed"
            for seat, view in sent:
                fresh = game.view(game.decode(game.encode(state)), seat)  # another object
                assert view == json.loads(json.dumps(fresh)), (seat, order)


def test_the_public_part_is_built_once_per_state_and_game() -> None:
    shown = Shown()
    built: list[str] = []

    def public(name: str) -> Any:
        return lambda: built.append(name) or {"table": name, "hand": None}

    a, b = object(), object()
    game, other = object(), object()
    first = shown.view(game, a, public("a"))
    first["hand"] = ["mine"]
    assert shown.view(game, a, public("a")) == {"table": "a", "hand": None}
    assert built == ["a"]  # asked twice, built once; the first receiver's change is its own
    assert shown.view(game, b, public("b"))["table"] == "b"
    assert shown.view(other, b, public("b by another game"))["table"] == "b by another game"
    assert shown.view(game, a, public("a again"))["table"] == "a again"
    assert built == ["a", "b", "b by another game", "a again"]
