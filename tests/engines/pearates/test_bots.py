"""Bots: ``random`` and a ``heuristic`` that beats it."""

from __future__ import annotations

from engines.core import Outcome
from engines.rng import Rng

from .helpers import G

GAMES = 500
PLAYERS = 2


def play(seed: bytes, levels: list[str]) -> Outcome:
    """One game between bots (a random bot ignores its view, so it is not built)."""
    state = G.start(G.options(), len(levels), seed)
    rng = Rng(seed, "bots")
    bots = [G.bot(level) for level in levels]
    while not (prompt := G.prompt(state)).over:
        seats = prompt.seats if prompt.sealed else prompt.seats[:1]
        moves = {}
        for seat in seats:
            view = G.view(state, seat) if levels[seat] != "random" else {}
            moves[seat] = bots[seat](view, G.legal(state, seat), rng)
        state = G.step(state, moves)
    outcome = G.outcome(state)
    assert outcome is not None
    return outcome


def test_the_heuristic_beats_random() -> None:
    """Over 500 two-player games (the heuristic in either seat), it wins most and scores
    more on average."""
    wins = 0
    margin = 0
    for i in range(GAMES):
        me = i % PLAYERS
        levels = ["random"] * PLAYERS
        levels[me] = "heuristic"
        outcome = play(f"bots-{i}".encode(), levels)
        wins += outcome.ranks[me] == 1
        margin += outcome.scores[me] - outcome.scores[1 - me]
    assert wins / GAMES > 0.7
    assert margin / GAMES > 5


def test_bots_return_legal_moves_and_default_is_deterministic() -> None:
    state = G.start(G.options({"more_actions": True, "special_scoring": True}), 4, b"d")
    for _ in range(200):
        prompt = G.prompt(state)
        if prompt.over:
            break
        seat = prompt.seats[0]
        legal = G.legal(state, seat)
        assert G.default(state, seat) == G.default(state, seat)
        assert G.default(state, seat) in legal
        assert G.bot("heuristic")(G.view(state, seat), legal, Rng(b"x", "y")) in legal
        seats = prompt.seats if prompt.sealed else (seat,)
        state = G.step(state, {s: G.default(state, s) for s in seats})
