"""What a load test plays (``Plan``), what its rooms measured (``Tally``, added up over the
client processes) and how that is said (``Report``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from engines.registry import GAMES

HUMAN_PACE = 2.0  # seconds a person takes to act once their turn comes (about)


@dataclass(frozen=True)
class Plan:
    """What to run."""

    urls: tuple[str, ...]
    rooms: int = 2
    players: int = 4
    game: str = next(iter(GAMES))  # the first registered game
    rounds: int | None = None  # None: the game's default options
    pace: float = 0.0  # seconds each client thinks before each move, commit or reveal
    timeout: float = 300.0  # per room: its set-up, then its game from the start to the end
    # Seconds over which the games start once every room is set up (0: all at once). Tables
    # do not all start in the same instant: at human pace, the first bids of a thousand
    # tables dealt in the same millisecond would be a burst no site sees.
    ramp: float = 0.0
    # Games each room plays one after the other, each in a room of its own (the players
    # sit down in the next once one is over). With ``ramp`` about a game's length, the
    # tables' phases spread out as a site's do, and the report adds what was measured
    # while every room was playing: the steady state, without the start's waves.
    games: int = 1
    # The protocol of older revisions (the baseline of ``--against``): the token in the
    # socket's URL instead of an ``auth`` frame, ``ready`` without deal entropy.
    legacy: bool = False
    # With several nodes: every socket of room ``i`` on node ``i % len(urls)`` (the
    # production shape: nginx hashes the room code to one node), not seat by seat.
    by_room: bool = False

    def url(self, seat: int, room: int = 0) -> str:
        return self.urls[(room if self.by_room else seat) % len(self.urls)]


LAG_EVERY = 0.05  # seconds between two looks at a client process's loop lag


@dataclass
class Tally:
    """What some rooms measured; tallies of several processes add up."""

    rooms: int = 0
    finished: int = 0
    moves: int = 0
    move_ms: list[float] = field(default_factory=list)
    fanout_ms: list[float] = field(default_factory=list)
    # When each of those was measured (wall clock, as ``first_start``): their tail over the
    # run's time, e.g. the bids of tables dealt together.
    move_at: list[float] = field(default_factory=list)
    fanout_at: list[float] = field(default_factory=list)
    # How late each client process's own event loop woke for a timer, every LAG_EVERY s
    # while the games ran: what of the latencies above is the load generator's own wait.
    client_lag_ms: list[float] = field(default_factory=list)
    # Frames the clients sent and received while the games ran (the node's in and out):
    # set beside the raw limit's two frames per echo, what the node carries per frame.
    frames_in: int = 0
    frames_out: int = 0
    bytes_in: int = 0  # their bytes (the bare server's frames are made as big)
    bytes_out: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    first_start: float = float("inf")  # wall clock (time.time), comparable across processes
    last_over: float = 0.0
    games_over: int = 0
    # The time every room that played all its games was playing: from the last such
    # room's first start to the first such room's last game over.
    all_playing: float = 0.0
    one_done: float = float("inf")

    def add(self, other: Tally) -> None:
        self.rooms += other.rooms
        self.finished += other.finished
        self.moves += other.moves
        self.move_ms += other.move_ms
        self.fanout_ms += other.fanout_ms
        self.move_at += other.move_at
        self.fanout_at += other.fanout_at
        self.client_lag_ms += other.client_lag_ms
        self.frames_in += other.frames_in
        self.frames_out += other.frames_out
        self.bytes_in += other.bytes_in
        self.bytes_out += other.bytes_out
        self.errors.update(other.errors)
        self.first_start = min(self.first_start, other.first_start)
        self.last_over = max(self.last_over, other.last_over)
        self.games_over += other.games_over
        self.all_playing = max(self.all_playing, other.all_playing)
        self.one_done = min(self.one_done, other.one_done)


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (``p`` in 0..100) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * p // 100))  # ceil(n * p / 100), at least 1
    return ordered[int(rank) - 1]


def p50_p99(values: Sequence[float]) -> str:
    """``p50 X ms, p99 Y ms (n=N)`` of a non-empty list."""
    return (
        f"p50 {percentile(values, 50):.1f} ms, p99 {percentile(values, 99):.1f} ms "
        f"(n={len(values)})"
    )


TENTHS = 10  # the windows of a run's time its latencies are also told by


def over_time(
    values: Sequence[float], at: Sequence[float], start: float, end: float, p: float
) -> list[float | None]:
    """The ``p`` percentile of ``values`` in each tenth of ``start``..``end`` by when each
    was measured (``at``; None: none in that tenth). A sample at ``end`` is in the last."""
    width = (end - start) / TENTHS
    if width <= 0:
        return [None] * TENTHS
    windows: list[list[float]] = [[] for _ in range(TENTHS)]
    for value, when in zip(values, at, strict=True):
        if start <= when <= end:
            windows[min(TENTHS - 1, int((when - start) / width))].append(value)
    return [percentile(w, p) if w else None for w in windows]


@dataclass(frozen=True)
class Report:
    plan: Plan
    processes: int
    tally: Tally
    started_node: bool

    @property
    def seconds(self) -> float:
        return max(0.0, self.tally.last_over - self.tally.first_start)

    @property
    def moves_per_second(self) -> float:
        return self.tally.moves / self.seconds if self.seconds else 0.0

    @property
    def frames_per_second(self) -> float:
        """Frames in and out of the node per second while the games ran."""
        frames = self.tally.frames_in + self.tally.frames_out
        return frames / self.seconds if self.seconds else 0.0

    @property
    def steady_seconds(self) -> float:
        """How long every room was playing (0: never all at once)."""
        return max(0.0, self.tally.one_done - self.tally.all_playing)

    def steady(self, values: Sequence[float], at: Sequence[float]) -> list[float]:
        """The samples measured while every room was playing."""
        start, end = self.tally.all_playing, self.tally.one_done
        return [v for v, when in zip(values, at, strict=True) if start <= when <= end]

    def _steady(self) -> str:
        t = self.tally
        parts = []
        for name, values in (
            ("move", self.steady(t.move_ms, t.move_at)),
            ("fan-out", self.steady(t.fanout_ms, t.fanout_at)),
        ):
            if values:
                parts.append(f"{name} {p50_p99(values)}")
        return (
            f"while every room played ({self.steady_seconds:.0f} s, from the last room's "
            f"first start to the first room's last game over): " + "; ".join(parts or ["-"])
        )

    def tenths(self, values: Sequence[float], at: Sequence[float]) -> list[float | None]:
        """p99 of ``values`` in each tenth of the games' time (``over_time``)."""
        return over_time(values, at, self.tally.first_start, self.tally.last_over, 99)

    def _tenths(self, values: Sequence[float], at: Sequence[float]) -> str:
        return " ".join("-" if v is None else f"{v:.0f}" for v in self.tenths(values, at))

    def lines(self) -> list[str]:
        t, plan = self.tally, self.plan
        rounds = "default options" if plan.rounds is None else f"{plan.rounds} round(s)"
        where = ", ".join(plan.urls) + (" (started here)" if self.started_node else "")
        out = [
            f"loadtest: {plan.rooms} rooms x {plan.players} clients, {plan.game}, {rounds}, "
            f"pace {plan.pace:g} s, {self.processes} client processes, against {where}",
            f"games finished: {t.finished}/{t.rooms} in {self.seconds:.1f} s"
            if plan.games == 1
            else f"games finished: {t.games_over}/{t.rooms * plan.games} ({t.finished}/"
            f"{t.rooms} rooms played all {plan.games}) in {self.seconds:.1f} s",
            f"moves: {t.moves} ({self.moves_per_second:.1f} moves/s)",
            f"frames: {t.frames_in} in, {t.frames_out} out "
            f"({self.frames_per_second:.0f} frames/s; "
            f"{t.frames_out / max(1, t.frames_in):.1f} out per frame in)",
        ]
        if t.move_ms:
            out.append(
                f"move latency (act -> its event at the mover): p50 "
                f"{percentile(t.move_ms, 50):.1f} ms, p95 {percentile(t.move_ms, 95):.1f} ms, "
                f"p99 {percentile(t.move_ms, 99):.1f} ms (n={len(t.move_ms)})"
            )
        if t.fanout_ms:
            out.append(
                "reveal fan-out (last reveal -> revealed at each socket): " + p50_p99(t.fanout_ms)
            )
        if t.move_at and self.seconds:
            out.append(
                f"p99 by tenth of the games' {self.seconds:.0f} s "
                f"({self.seconds / TENTHS:.1f} s each): move " + self._tenths(t.move_ms, t.move_at)
            )
            if t.fanout_at:
                out[-1] += "; fan-out " + self._tenths(t.fanout_ms, t.fanout_at)
        if plan.games > 1 and self.steady_seconds:
            out.append(self._steady())
        if t.client_lag_ms:
            out.append(
                f"the load generator's own loop lag (a {LAG_EVERY * 1000:.0f} ms timer in each "
                f"client process, counted in the latencies above): p50 "
                f"{percentile(t.client_lag_ms, 50):.1f} ms, p99 "
                f"{percentile(t.client_lag_ms, 99):.1f} ms, max {max(t.client_lag_ms):.1f} ms"
            )
        errors = ", ".join(f"{code} {n}" for code, n in sorted(t.errors.items()))
        out.append(f"errors: {errors or 'none'}")
        return out
