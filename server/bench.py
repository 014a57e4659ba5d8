"""Engine benchmark: random full games on one core, with the cost of storing each state.

Every accepted move is written to Redis as the encoded state, so the figures that matter are
games per second, the encoded state size and the encode+decode time per move.
"""

from __future__ import annotations

import platform
import time
from dataclasses import dataclass

from engines.registry import get
from engines.rng import Rng


@dataclass(frozen=True)
class BenchResult:
    game: str
    players: int
    games: int
    moves: int
    seconds: float
    mean_state_bytes: float
    codec_us_per_move: float

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds

    def line(self) -> str:
        return (
            f"{self.game}: {self.players} players, {self.games} random full games, "
            f"{self.moves / self.games:.0f} moves/game, "
            f"state {self.mean_state_bytes:.0f} B mean, encode+decode "
            f"{self.codec_us_per_move:.1f} us/move "
            f"(Python {platform.python_version()}, one core) -- "
            f"{self.games_per_second:.1f} games/s"
        )


def run(game_id: str, players: int = 4, games: int = 200, rounds: int | None = None) -> BenchResult:
    """Play ``games`` random full games; time the engine alone, then the codec alone.

    The game's default options (its full length) unless ``rounds`` is given for a game that
    has that option. An open prompt with several seats takes one move per step, as the
    contract says; a sealed one takes every prompted seat's move at once."""
    game = get(game_id)
    options = (
        game.options({"rounds": rounds})
        if rounds is not None and "rounds" in game.options_schema()
        else game.options()
    )
    moves = 0
    states = []
    start = time.perf_counter()
    for g in range(games):
        seed = g.to_bytes(8, "big")
        rng = Rng(seed, "bench")
        state = game.start(options, players, seed)
        while True:
            prompt = game.prompt(state)
            if prompt.over:
                break
            seats = prompt.seats if prompt.sealed else prompt.seats[:1]
            chosen = {seat: rng.choice(game.legal(state, seat)) for seat in seats}
            state = game.step(state, chosen)
            moves += 1
            if g < 20:
                states.append(state)
    seconds = time.perf_counter() - start
    blobs = [game.encode(s) for s in states]
    t0 = time.perf_counter()
    for s in states:
        game.decode(game.encode(s))
    codec = (time.perf_counter() - t0) / len(states)
    return BenchResult(
        game=game_id,
        players=players,
        games=games,
        moves=moves,
        seconds=seconds,
        mean_state_bytes=sum(map(len, blobs)) / len(blobs),
        codec_us_per_move=codec * 1e6,
    )
