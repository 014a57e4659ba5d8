"""The same (seed, moves) give the same states, byte for byte, release after release.

A game's record is its seed and its moves; ``tortuga verify`` and the replay page recompute
every state from them, and Redis holds the encoded state of every room. So a faster engine
must not change a single byte: this test plays fixed-seed games of both editions and
compares sha256 digests -- over every encoded state, every legal-move list (its order is
behaviour too: bots and the benchmark pick from it by index) and every seat's and the
spectator's view -- with values pinned from the engine as it was before it was optimised
(commit 9afa74c). If one of these changes on purpose (a rule fix, a new view field),
recompute with ``uv run python tests/engines/skull_king/test_pinned_states.py`` and say why
in the commit.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from engines.rng import Rng
from engines.skull_king import BID_TRICKS, SKULL_KING, SkullKing

# (game, players, seed, bots): ``bots`` seats are played by the heuristic bot, the others
# uniformly at random over ``legal`` with Rng(seed, "pinned").
GAMES: list[tuple[SkullKing, int, bytes, tuple[int, ...]]] = [
    (SKULL_KING, 2, b"pinned-sk-2", ()),
    (SKULL_KING, 4, b"pinned-sk-4", (1,)),
    (SKULL_KING, 6, b"pinned-sk-6", ()),
    (BID_TRICKS, 2, b"pinned-bt-2", (0,)),
    (BID_TRICKS, 5, b"pinned-bt-5", ()),
    (BID_TRICKS, 8, b"pinned-bt-8", (3, 7)),
]

PINNED = {
    "states": "b3e9af6f50190e202af01ca9267514160cb48c539377cee8a15a6e60721607f2",
    "legal": "e490f41d85281fecfbcbf77f1b341defb454db446162e66ce64eb6b2d2544aef",
    "views": "ab3f0760f6a9380092300b0d2ee5318229a0e53188345ef5e95ff5e68f7dde3c",
    "moves": 1521,
}


def digests() -> dict[str, str | int]:
    """Play every game of GAMES and digest what it produced."""
    states = hashlib.sha256()
    legal = hashlib.sha256()
    views = hashlib.sha256()
    moves = 0
    for game, players, seed, bot_seats in GAMES:
        rng = Rng(seed, "pinned")
        bot = game.bot("heuristic")
        state = game.start(game.options(), players, seed)
        while True:
            blob = game.encode(state)
            states.update(len(blob).to_bytes(4, "big") + blob)
            for seat in (None, *range(players)):
                views.update(json.dumps(game.view(state, seat), sort_keys=True).encode() + b"\n")
            prompt = game.prompt(state)
            if prompt.over:
                views.update(json.dumps(game.final_view(state), sort_keys=True).encode())
                break
            chosen = {}
            for seat in prompt.seats:
                options = game.legal(state, seat)
                legal.update(" | ".join(map(str, options)).encode() + b"\n")
                if seat in bot_seats:
                    chosen[seat] = bot(game.view(state, seat), options, rng)
                else:
                    chosen[seat] = rng.choice(options)
                game.validate(state, seat, chosen[seat])
            state = game.step(state, chosen)
            moves += 1
    return {
        "states": states.hexdigest(),
        "legal": legal.hexdigest(),
        "views": views.hexdigest(),
        "moves": moves,
    }


@pytest.fixture(scope="module")
def played() -> dict[str, str | int]:
    return digests()


@pytest.mark.parametrize("what", sorted(PINNED))
def test_same_bytes_as_pinned(played: dict[str, str | int], what: str) -> None:
    """Every encoded state (and legal list, view, move count) of the fixed-seed games is
    exactly what the engine produced when the digests were pinned."""
    assert played[what] == PINNED[what]


if __name__ == "__main__":
    print(json.dumps(digests(), indent=4))
