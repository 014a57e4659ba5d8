"""Engine benchmark: random full games on one core, with the cost of storing each state.

Every accepted move is written to Redis as the encoded state, so the figures that matter are
games per second, the encoded state size and the encode+decode time per move. Times are the
process's CPU time (one thread, so one core), not the wall clock: on a shared machine the
wall clock also counts the time other programs had the core.

``--against REV`` compares the working tree's engines with those of a git revision in the
same process run: REV's ``engines/`` is extracted into a temporary folder and imported
under its own module objects, then both play the same seeds in alternating batches, so that
a busy neighbour on a shared machine slows both alike. It also says whether both produced
the same encoded states (they must, unless the rules changed on purpose).
"""

from __future__ import annotations

import hashlib
import io
import platform
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engines.registry import GAMES, AnyGame
from engines.rng import Rng

ROOT = Path(__file__).resolve().parents[2]
KEPT_GAMES = 20
"""The first games whose states are kept: for the state size, the codec time and the
comparison of the two engines' states."""
BATCH = 10
"""Games per turn when two engines alternate."""


@dataclass
class Tally:
    """What one engine did over some games of one game id."""

    label: str
    game: str
    players: int
    rounds: int | None
    games: int = 0
    moves: int = 0
    seconds: float = 0.0
    kept: list[Any] = field(default_factory=list)
    digest: Any = field(default_factory=hashlib.sha256)

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds


@dataclass(frozen=True)
class BenchResult:
    game: str
    players: int
    rounds: int | None
    games: int
    moves: int
    seconds: float
    mean_state_bytes: float
    codec_us_per_move: float
    label: str = ""

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds

    def line(self) -> str:
        who = f" [{self.label}]" if self.label else ""
        return (
            f"{self.game}{who}: {self.players} players, {_rounds(self.rounds)}, "
            f"{self.games} random full games, "
            f"{self.moves / self.games:.0f} moves/game, "
            f"state {self.mean_state_bytes:.0f} B mean, encode+decode "
            f"{self.codec_us_per_move:.1f} us/move "
            f"(Python {platform.python_version()}, one core) -- "
            f"{self.games_per_second:.1f} games/s"
        )


def _options(game: AnyGame, rounds: int | None) -> Any:
    """The game's default options (its full length) unless ``rounds`` is given for a game
    that has that option."""
    if rounds is not None and "rounds" in game.options_schema():
        return game.options({"rounds": rounds})
    return game.options()


def _rounds(rounds: int | None) -> str:
    return "default options" if rounds is None else f"{rounds} rounds"


RngMaker = Callable[[bytes, str], Any]
"""``engines.rng.Rng`` of one engines package (the benchmark draws each side's random moves
with its own generator: it is engine code too)."""


def play(game: AnyGame, tally: Tally, seeds: range, rng: RngMaker = Rng) -> None:
    """Play one random full game per seed index; add the time and moves to ``tally``.

    An open prompt with several seats takes one move per step, as the contract says; a
    sealed one takes every prompted seat's move at once."""
    options = _options(game, tally.rounds)
    players = tally.players
    moves = 0
    kept = tally.kept
    prompt_of, legal, step = game.prompt, game.legal, game.step
    start = time.process_time()
    for g in seeds:
        seed = g.to_bytes(8, "big")
        choice = rng(seed, "bench").choice
        state = game.start(options, players, seed)
        while True:
            prompt = prompt_of(state)
            seats = prompt.seats
            if not seats:  # over
                break
            if len(seats) == 1 or not prompt.sealed:
                seat = seats[0]
                state = step(state, {seat: choice(legal(state, seat))})
            else:
                state = step(state, {seat: choice(legal(state, seat)) for seat in seats})
            moves += 1
            if g < KEPT_GAMES:
                kept.append(state)
    tally.seconds += time.process_time() - start
    tally.moves += moves
    tally.games += len(seeds)


def result(game: AnyGame, tally: Tally) -> BenchResult:
    """The figures of a tally; times the codec over the kept states (outside the games)."""
    blobs = [game.encode(s) for s in tally.kept]
    t0 = time.process_time()
    for s in tally.kept:
        game.decode(game.encode(s))
    codec = (time.process_time() - t0) / max(1, len(tally.kept))
    for blob in blobs:
        tally.digest.update(len(blob).to_bytes(4, "big") + blob)
    return BenchResult(
        game=tally.game,
        players=tally.players,
        rounds=tally.rounds,
        games=tally.games,
        moves=tally.moves,
        seconds=tally.seconds,
        mean_state_bytes=sum(map(len, blobs)) / max(1, len(blobs)),
        codec_us_per_move=codec * 1e6,
        label=tally.label,
    )


def run(game_id: str, players: int = 4, games: int = 200, rounds: int | None = None) -> BenchResult:
    """Play ``games`` random full games; time the engine alone, then the codec alone."""
    game = GAMES[game_id]
    tally = Tally("", game_id, players, rounds)
    play(game, tally, range(games))
    return result(game, tally)


@dataclass(frozen=True)
class Comparison:
    before: BenchResult
    after: BenchResult
    same_states: bool

    @property
    def speedup(self) -> float:
        return self.after.games_per_second / self.before.games_per_second

    def lines(self) -> list[str]:
        kept = min(KEPT_GAMES, self.after.games)
        same = "yes" if self.same_states else "NO"
        return [
            self.before.line(),
            self.after.line(),
            f"{self.after.game}: {self.speedup:.2f}x; "
            f"identical encoded states over the first {kept} games: {same}",
        ]


@dataclass(frozen=True)
class Engines:
    """One ``engines`` package: its label, its registered games and its generator."""

    label: str
    games: dict[str, AnyGame]
    rng: RngMaker


def compare(
    game_id: str,
    theirs: Engines,
    *,
    players: int = 4,
    games: int = 50,
    rounds: int | None = None,
    game: AnyGame | None = None,
) -> Comparison:
    """The working tree's ``game_id`` (or ``game``) against ``theirs``: both play the same
    seeds, alternating batches of BATCH games (and which goes first), in this process, each
    side drawing its random moves with its own generator."""
    sides = (
        (theirs.games[game_id], theirs.rng),
        (game if game is not None else GAMES[game_id], Rng),
    )
    tallies = (
        Tally(theirs.label, game_id, players, rounds),
        Tally("working tree", game_id, players, rounds),
    )
    engines = tuple(engine for engine, _ in sides)
    for engine, rng in sides:  # warm up both (allocator, caches) before anything is timed
        warm = Tally("warm-up", game_id, players, rounds)
        play(engine, warm, range(KEPT_GAMES, KEPT_GAMES + 2), rng)
    for turn, start in enumerate(range(0, games, BATCH)):
        seeds = range(start, min(games, start + BATCH))
        order = (0, 1) if turn % 2 == 0 else (1, 0)
        for i in order:
            play(sides[i][0], tallies[i], seeds, sides[i][1])
    results = [result(engines[i], tallies[i]) for i in (0, 1)]
    same = tallies[0].digest.digest() == tallies[1].digest.digest()
    return Comparison(results[0], results[1], same)


def revision_name(rev: str) -> str:
    """``rev`` as a short commit hash; ValueError when git does not know it."""
    done = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", f"{rev}^{{commit}}"],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise ValueError(f"git does not know the revision {rev!r}: {done.stderr.strip()}")
    return done.stdout.strip()


@contextmanager
def engines_at(rev: str) -> Iterator[Engines]:
    """The registered games of ``rev``'s ``engines/`` package, imported beside the current
    one: the current ``engines`` modules are set aside in ``sys.modules`` while REV's are
    imported from a temporary folder, then put back. REV's games keep working afterwards
    (their functions hold their own modules)."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", rev, "engines"],
        capture_output=True,
        check=True,
    ).stdout
    with tempfile.TemporaryDirectory(prefix="tortuga-bench-") as folder:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        current = {
            name: sys.modules.pop(name)
            for name in list(sys.modules)
            if name == "engines" or name.startswith("engines.")
        }
        sys.path.insert(0, folder)
        try:
            import engines.registry as their_registry
            import engines.rng as their_rng

            found = Engines(rev, dict(their_registry.GAMES), their_rng.Rng)
        finally:
            sys.path.remove(folder)
            for name in [n for n in sys.modules if n == "engines" or n.startswith("engines.")]:
                del sys.modules[name]
            sys.modules.update(current)
        yield found
