"""Example bots played offline, on the rules library alone: a seat's view, its prompt and its
legal moves as the server would send them, sealed moves collected before the step -- so a
bot's strength can be measured in many games without a server."""

from __future__ import annotations

import hashlib
import random
import sys
from pathlib import Path
from typing import Any

from tortuga_bot.loader import load
from tortuga_bot.turn import Prompt, Turn

from engines.registry import GAMES

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def example(name: str) -> Any:
    bot, _ = load(str(EXAMPLES / name))
    return bot


def random_bot(seed: int) -> Any:
    rng = random.Random(seed)
    return lambda turn: rng.choice(turn.legal)


def play(game_id: str, bots: list[Any], seed: int, options: Any = None) -> list[int]:
    """The ranks of one game of ``bots`` (one per seat)."""
    game = GAMES[game_id]
    state = game.start(
        game.options(options), len(bots), hashlib.sha256(str(seed).encode()).digest()
    )
    version = 1
    while True:
        prompt = game.prompt(state)
        if prompt.over:
            outcome = game.outcome(state)
            assert outcome is not None
            return list(outcome.ranks)
        moves = {}
        for seat in prompt.seats if prompt.sealed else prompt.seats[:1]:
            view = game.view(state, seat)
            turn = Turn(
                game_id, "OFFLINE", seat, version, view, Prompt.of(view["prompt"]), view["legal"]
            )
            move = bots[seat](turn)
            assert move in view["legal"], (move, view["legal"])
            moves[seat] = game.decode_move(move)
        state = game.step(state, moves)
        version += 1


def mean_rank(game_id: str, bot: Any, players: int, games: int, options: Any = None) -> float:
    """Seat 0's mean rank over ``games`` games against random bots (seat 0 rotates no: the
    same seeds for every bot measured, so two bots meet the same deals)."""
    total = 0
    for g in range(games):
        bots = [bot] + [random_bot(g * 10 + s) for s in range(1, players)]
        total += play(game_id, bots, g, options)[0]
    return total / games


if __name__ == "__main__":  # python tests/bots/offline.py skull-king skull_king.py 3 50
    game_id, file, players, games = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    print("random ", mean_rank(game_id, random_bot(12345), players, games))
    print(file, mean_rank(game_id, example(file), players, games))
