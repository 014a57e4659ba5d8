"""What a whole run measures besides the games (``Options``), what it measured (each
``Step``, the ``Campaign``) and its text report."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from server.tools.loadtest.bare import Bare
from server.tools.loadtest.idle import Idle
from server.tools.loadtest.raw import Raw
from server.tools.loadtest.tally import Plan, Report


@dataclass(frozen=True)
class Options:
    """What a whole run measures besides the games of ``Plan``."""

    steps: tuple[int, ...] = ()  # rooms per load step (empty: just ``plan.rooms``)
    raw_seconds: float = 5.0  # how long the raw limit is measured (0: not measured)
    raw_sockets: int = 0  # echo clients (0: as many as the biggest step has, at most 400)
    idle: int = 0  # idle sockets held (memory per socket, and a probe meanwhile)
    probe_rooms: int = 4
    workers: int | None = None  # node processes of a node started here (None: serve's default)
    processes: int | None = None  # client processes (None: the number of cores)
    report: Path | None = None  # the HTML report
    # A git revision (or a folder holding another revision's checkout) whose node is
    # started beside this one and played at every step too, alternately: before/after.
    against: str | None = None
    against_workers: int | None = None  # its node's processes (None: its own default)
    # Idle sockets held on the raw-limit server (one process) with per-message deflate on,
    # then off: what compression costs per socket, apart from everything else of a node.
    idle_deflate: int = 0
    # Each step played against the bare fan-out server too (server/tools/bare.py), as many
    # rooms, seats and moves, at the same pace, with the step's frames per move: the
    # node's CPU per move set against a move's own I/O on the same stack.
    bare: bool = True
    nodes: int = 1  # nodes started here (a room's sockets all on one: ``Plan.by_room``)


@dataclass(frozen=True)
class Step:
    """One load step played against one node, and what the node spent on it."""

    report: Report
    rss: int | None  # the node's memory after the step (None: a node given by URL)
    cpu: float | None  # CPU seconds the node's processes used during the step
    redis_cpu: float | None  # CPU seconds Redis used during the step
    load: float  # the machine's 1-minute load average at the end of the step
    # The node's own view (its /metrics, over the step): name -> (p50 bound, p99 bound, n)
    # for "step" (a move frame's arrival to its answer) and "fan-out" (a step's notice to
    # its frames written to a socket).
    server: dict[str, tuple[float, float, int]] = field(default_factory=dict)
    # The archive records not yet in Postgres when the games were over (None: not known),
    # and the seconds until there were none (waited for before the CPU was read).
    backlog: int | None = None
    drained_in: float = 0.0
    # CPU seconds of the node and of Redis from the step's first game start until the
    # archive had written every record the step caused (the set-up before it not counted).
    play_cpu: float | None = None
    play_redis_cpu: float | None = None
    bare: Bare | None = None  # the same step against the bare fan-out server
    redis_commands: int | None = None  # commands Redis processed over that window
    # Redis CPU seconds by server over that window (a cluster's primaries: the per-shard
    # figures of docs/SCALE.md's model)
    redis_split: dict[str, float] = field(default_factory=dict)
    nodes: int = 1  # nodes (each of its workers) the step was played against

    @property
    def seconds_archived(self) -> float:
        """The games' time and the archive's after it: the window the step's work took."""
        return self.report.seconds + (self.drained_in if self.backlog is not None else 0.0)

    @property
    def moves_per_second(self) -> float:
        """Moves per second over the games' time *and* the time the archive then took to
        write what they left (a step's records written after it are its work)."""
        seconds = self.seconds_archived
        return self.report.tally.moves / seconds if seconds else 0.0

    def against_bare(self) -> float | None:
        """The bare server's CPU per move over the node's (playing and archiving): the
        share of the node's cost that is a move's own I/O (1: the node is as lean)."""
        node = self.per_move_ms(self.play_cpu)
        bare = self.bare.cpu_per_move_ms if self.bare is not None else None
        return bare / node if node and bare else None

    def per_move_ms(self, seconds: float | None) -> float | None:
        moves = self.report.tally.moves
        return None if seconds is None or not moves else seconds * 1000 / moves

    def lines(self) -> list[str]:
        out = self.report.lines()
        sockets = self.report.plan.rooms * self.report.plan.players
        spent = []
        if self.rss is not None:
            spent.append(f"memory after the step {self.rss / 2**20:.0f} MiB ({sockets} sockets)")
        node_ms, redis_ms = self.per_move_ms(self.cpu), self.per_move_ms(self.redis_cpu)
        if node_ms is not None:
            spent.append(f"CPU {node_ms:.2f} ms per move (set-up included)")
        if redis_ms is not None:
            spent.append(f"Redis CPU {redis_ms:.2f} ms per move")
        play_ms, play_redis_ms = (
            self.per_move_ms(self.play_cpu),
            self.per_move_ms(self.play_redis_cpu),
        )
        if play_ms is not None:
            spent.append(
                f"from the first start until the archive was written: CPU {play_ms:.3f} ms"
                + (f", Redis {play_redis_ms:.3f} ms" if play_redis_ms is not None else "")
                + " per move"
                + (
                    f", {self.redis_commands / max(1, self.report.tally.moves):.1f} Redis "
                    f"commands per move"
                    if self.redis_commands is not None
                    else ""
                )
            )
        spent.append(f"load average {self.load:.1f}")
        out.append(("node: " if self.nodes == 1 else f"{self.nodes} nodes: ") + ", ".join(spent))
        total = sum(self.redis_split.values())
        if len(self.redis_split) > 1 and total > 0:
            moves = max(1, self.report.tally.moves)
            out.append(
                "Redis CPU by primary over that window: "
                + ", ".join(
                    f"{server.removeprefix('redis://')} {cpu * 1000 / moves:.3f} ms per move "
                    f"({cpu / total:.0%})"
                    for server, cpu in self.redis_split.items()
                )
            )
        if self.backlog is not None:
            out.append(
                f"archive: {self.backlog} records not yet in Postgres when the games were "
                f"over, the step's all archived {self.drained_in:.1f} s later (node CPU "
                f"includes it): "
                f"{self.moves_per_second:.1f} moves/s over the games and that time"
            )
        if self.bare is not None:
            bare = self.bare
            out.append(bare.line())
            t = self.report.tally
            moves = max(1, t.moves)
            ratio = self.against_bare()
            out.append(
                "against the bare server: "
                + (
                    f"node {self.per_move_ms(self.play_cpu):.3f} ms of CPU per move, bare "
                    f"{bare.cpu_per_move_ms:.3f} ms: {1 / ratio:.1f}x its cost, ratio "
                    f"{ratio:.2f} (target >= 0.4); "
                    if ratio
                    else "no CPU ratio (a node given by URL, or no moves); "
                )
                + f"frames per move: node {t.frames_in / moves:.2f} in, "
                f"{t.frames_out / moves:.2f} out; bare {bare.frames_in / max(1, bare.moves):.2f} "
                f"in, {bare.frames_out / max(1, bare.moves):.2f} out"
            )
        for name, (p50, p99, n) in self.server.items():
            out.append(
                f"node's own {name} latency (its /metrics; bucket bounds): p50 <= "
                f"{p50 * 1000:g} ms, p99 <= {p99 * 1000:g} ms (n={n})"
            )
        return out


def best(steps: Sequence[Step]) -> Step | None:
    """The step with the most moves per second (the archive's time after the games
    counted in): the node's saturation."""
    return max(steps, key=lambda s: s.moves_per_second, default=None)


@dataclass
class Campaign:
    """Every step of one run, the raw limit and the idle measurement; with ``against``,
    every step played against the other revision's node too."""

    plan: Plan
    options: Options
    steps: list[Step] = field(default_factory=list)
    raw: Raw | None = None
    idle: Idle | None = None
    started_node: bool = False
    label: str = "working tree"
    against: str | None = None  # the other node's label (its short revision)
    against_steps: list[Step] = field(default_factory=list)
    deflate: dict[bool, Idle] = field(default_factory=dict)  # on / off -> raw idle sockets

    @property
    def finished(self) -> bool:
        reports = [s.report for s in self.steps + self.against_steps]
        reports += [self.idle.probe] if self.idle and self.idle.probe else []
        return all(r.tally.finished == r.tally.rooms for r in reports)

    @property
    def best(self) -> Report | None:
        """The step with the most moves per second."""
        step = best(self.steps)
        return step.report if step is not None else None

    def lines(self) -> list[str]:
        out: list[str] = []
        for k, step in enumerate(self.steps):
            if len(self.steps) > 1 or self.against:
                out.append(f"-- step {k + 1}/{len(self.steps)}: {step.report.plan.rooms} rooms")
            if self.against:
                other = self.against_steps[k]
                out += [f"[{self.against}] {line}" for line in other.lines()]
                out += [f"[{self.label}] {line}" for line in step.lines()]
            else:
                out += step.lines()
        mine, theirs = best(self.steps), best(self.against_steps)
        if self.against and mine is not None and theirs is not None:
            a, b = theirs.moves_per_second, mine.moves_per_second
            out.append(
                f"saturation: [{self.against}] {a:.1f} moves/s ({theirs.report.plan.rooms} "
                f"rooms), [{self.label}] {b:.1f} moves/s ({mine.report.plan.rooms} rooms): "
                + (f"{b / a:.2f}x" if a else "no baseline moves")
            )
            for who, what in (("node", "cpu"), ("Redis", "redis_cpu")):
                cpu_a = _mean_per_move(self.against_steps, what)
                cpu_b = _mean_per_move(self.steps, what)
                if cpu_a and cpu_b:
                    out.append(
                        f"{who} CPU per move over every step: [{self.against}] {cpu_a:.2f} ms, "
                        f"[{self.label}] {cpu_b:.2f} ms: {cpu_a / cpu_b:.2f}x less"
                    )
        if self.raw is not None:
            raw, top = self.raw, self.best
            top_step = best(self.steps)
            out.append(
                f"raw limit (websocket echo + one Redis compare-and-set per message, same "
                f"uvicorn and deflate setting, {self.options.workers or os.cpu_count()} "
                f"worker(s), {raw.sockets} sockets): {raw.per_second:.0f} messages/s"
                + (f" ({raw.errors} sockets failed)" if raw.errors else "")
            )
            if top is not None and top_step is not None and raw.per_second:
                speed = top_step.moves_per_second
                out.append(
                    f"ratio: {speed:.0f} moves/s ({top.plan.rooms} rooms, archive time "
                    f"counted) = {speed / raw.per_second:.2f} of the raw limit"
                )
                out.append(
                    f"per frame: the node carried {top.frames_per_second:.0f} frames/s in and "
                    f"out at that step, {top.frames_per_second / (2 * raw.per_second):.2f} of "
                    f"the raw limit's {2 * raw.per_second:.0f} (two frames per echo)"
                )
            if theirs is not None and raw.per_second:
                speed = theirs.moves_per_second
                out.append(
                    f"ratio [{self.against}]: {speed:.0f} moves/s = "
                    f"{speed / raw.per_second:.2f} of the raw limit"
                )
        top_step = best(self.steps)
        if top_step is not None and top_step.against_bare():
            ratio = top_step.against_bare() or 0.0
            echo = f", echo limit {self.raw.per_second:.0f} messages/s" if self.raw else ""
            out.append(
                f"the limit at saturation ({top_step.report.plan.rooms} rooms, "
                f"{top_step.moves_per_second:.1f} moves/s with the archive's time): node CPU "
                f"per move {top_step.per_move_ms(top_step.play_cpu):.3f} ms against the bare "
                f"server's {top_step.bare.cpu_per_move_ms if top_step.bare else 0:.3f} ms, "
                f"ratio {ratio:.2f} (target >= 0.4){echo}; load average {top_step.load:.1f}"
            )
        if self.idle is not None:
            idle = self.idle
            per = idle.bytes_per_socket
            out.append(
                f"idle sockets: {idle.sockets} open ({idle.failed} failed to open, "
                f"{idle.closed_by_node} closed by the node)"
                + (
                    f"; node memory {idle.rss_before / 2**20:.0f} -> "
                    f"{idle.rss_after / 2**20:.0f} MiB: {per / 1024:.1f} KB per socket"
                    if per is not None and idle.rss_before and idle.rss_after
                    else ""
                )
            )
            if idle.probe is not None:
                out += ["probe while idle: " + line for line in idle.probe.lines()[1:]]
        for on, held in sorted(self.deflate.items(), reverse=True):
            per = held.bytes_per_socket
            out.append(
                f"raw-limit server, per-message deflate {'on' if on else 'off'}: "
                f"{held.sockets} idle sockets ({held.failed} failed)"
                + (f", {per / 1024:.1f} KB per socket" if per is not None else "")
            )
        return out


def _mean_per_move(steps: Sequence[Step], what: str) -> float | None:
    """CPU milliseconds per move over all ``steps`` (``what``: "cpu" or "redis_cpu")."""
    spent: list[float | None] = [getattr(s, what) for s in steps]
    moves = sum(s.report.tally.moves for s in steps)
    if not moves or any(x is None for x in spent):
        return None
    return sum(x or 0.0 for x in spent) * 1000 / moves
