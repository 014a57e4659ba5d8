"""Playouts shared by the conformance harness and its fresh-process determinism check.

``test_conformance.py`` imports this module to drive its playouts; the determinism test also
runs it as a script in fresh Python processes (other ``PYTHONHASHSEED``), feeding a JSON list
of playout specs on stdin and reading one digest per spec on stdout::

    [{"game": "skull-king", "options": {}, "players": 3, "seed": "<hex>",
      "policies": [null, "heuristic", null]}, ...]

Nothing here is specific to one game: it only uses the ``engines.core.Game`` contract.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engines.registry import GAMES, AnyGame
from engines.rng import Rng

MAX_STEPS = 20_000
"""A playout that has not ended after this many steps is a failure (games must end)."""


@dataclass(frozen=True)
class Spec:
    """One playout: everything that determines it."""

    game: str
    players: int
    seed: bytes
    options: Mapping[str, Any] = field(default_factory=dict)
    # Per seat: None plays uniformly at random over ``legal``; else that bot level plays.
    policies: tuple[str | None, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "players": self.players,
            "seed": self.seed.hex(),
            "options": dict(self.options),
            "policies": list(self.policies),
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Spec:
        return cls(
            game=obj["game"],
            players=obj["players"],
            seed=bytes.fromhex(obj["seed"]),
            options=obj["options"],
            policies=tuple(obj["policies"]),
        )


def seed_for(game_id: str, players: int, index: int) -> bytes:
    """A 32-byte seed, like the ones the server draws."""
    return hashlib.sha256(f"conformance/{game_id}/{players}/{index}".encode()).digest()


def options_for(game: AnyGame, rng: Rng) -> dict[str, Any]:
    """Raw options drawn from the game's schema where it has integer ranges
    (``{"type": "int", "min": a, "max": b}``); other options keep their defaults."""
    raw: dict[str, Any] = {}
    for name, spec in game.options_schema().items():
        if isinstance(spec, dict) and spec.get("type") == "int" and "min" in spec and "max" in spec:
            low, high = int(spec["min"]), int(spec["max"])
            raw[name] = low + rng.below(high - low + 1)
    return raw


def spec_for(game: AnyGame, players: int, index: int) -> Spec:
    """The ``index``-th playout of a game at a player count.

    Most play with default options and uniformly random moves; every third has some seats
    played by the game's bots (they reach other states); every fourth draws its options.
    """
    seed = seed_for(game.id, players, index)
    rng = Rng(seed, "conformance:spec")
    options = options_for(game, rng) if index % 4 == 1 else {}
    policies: tuple[str | None, ...] = (None,) * players
    if index % 3 == 2 and game.bot_levels:
        levels = (None, *game.bot_levels)
        policies = tuple(levels[rng.below(len(levels))] for _ in range(players))
    return Spec(game.id, players, seed, options, policies)


def choose(game: AnyGame, state: Any, rng: Rng, policies: Sequence[str | None]) -> dict[int, Any]:
    """The moves of one step: every prompted seat when sealed, else one prompted seat."""
    prompt = game.prompt(state)
    if prompt.sealed:
        seats: Sequence[int] = prompt.seats
    else:
        seats = (prompt.seats[rng.below(len(prompt.seats))],)
    moves = {}
    for seat in seats:
        legal = game.legal(state, seat)
        level = policies[seat] if seat < len(policies) else None
        if level is None:
            moves[seat] = rng.choice(legal)
        else:
            moves[seat] = game.bot(level)(game.view(state, seat), legal, rng)
    return moves


def playout(spec: Spec, game: AnyGame | None = None) -> Iterator[tuple[Any, dict[int, Any] | None]]:
    """(state, the moves applied to it) for every state reached; None after the last.
    ``game``: play this implementation instead of the registered one (harness self-tests)."""
    game = GAMES[spec.game] if game is None else game
    state = game.start(game.options(spec.options), spec.players, spec.seed)
    rng = Rng(spec.seed, "conformance:moves")
    for _ in range(MAX_STEPS):
        if game.prompt(state).over:
            yield state, None
            return
        moves = choose(game, state, rng, spec.policies)
        yield state, moves
        state = game.step(state, moves)
    raise AssertionError(f"{spec}: not over after {MAX_STEPS} steps")


def moves_text(moves: Mapping[int, Any]) -> str:
    """The moves of one step as canonical JSON."""
    return json.dumps({str(s): moves[s].to_json() for s in sorted(moves)}, sort_keys=True)


def digest(spec: Spec) -> dict[str, Any]:
    """sha256 over every encoded state and over every step's moves, and the step count."""
    game = GAMES[spec.game]
    states = hashlib.sha256()
    log = hashlib.sha256()
    steps = 0
    for state, moves in playout(spec):
        blob = game.encode(state)
        states.update(len(blob).to_bytes(8, "big") + blob)
        if moves is not None:
            log.update(moves_text(moves).encode() + b"\n")
            steps += 1
    return {"states": states.hexdigest(), "moves": log.hexdigest(), "steps": steps}


def main() -> None:
    specs = [Spec.from_json(obj) for obj in json.load(sys.stdin)]
    json.dump([digest(spec) for spec in specs], sys.stdout)


if __name__ == "__main__":
    main()
