"""What a node measures of itself, for ``/metrics`` (server/http/scrape.py).

Every series carries the label ``node``: the node id of the process that counted it (as in
logs and heartbeats; ``serve --workers N`` names each worker ``<node id>.<pid>``), so two
nodes in one process (the tests) or N workers on one machine stay apart.

``serve --workers N`` runs each node in a process of its own, and a scrape reaches one of
them. prometheus-client's multiprocess mode makes one scrape see them all: the serving
parent points ``PROMETHEUS_MULTIPROC_DIR`` at a fresh folder before the workers start, each
worker writes its values to memory-mapped files there, and the scraped worker reads every
file (server/workers.py marks a worker's live gauges dead when it exits). A single-process
node (``--workers 1``, the tests) keeps its values in memory, in the default registry.
The variable must be set before ``prometheus_client`` is first imported in the process.

What is counted on every step, every move frame and every socket a step reaches (steps and
moves written, step and fan-out latencies) is kept in plain numbers first and added to the
series at most every ``FLUSH_SECONDS`` and before each scrape (``NodeMetrics.flush``): in
multiprocess mode every increment is a locked write to a memory-mapped file, and counting
each one as it happened cost a node about 6 % of its CPU at 1,000 rooms (py-spy).
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import json
import time
from collections.abc import Mapping
from typing import Any

from prometheus_client import Counter, Gauge, Histogram

# Seconds: a step is a few Redis round trips; fan-out adds the socket writes.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
# Seconds late: the clock polls every 0.25 s by default.
LAG_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)

STEPS = Counter(
    "tortuga_steps",
    "Versions this node wrote (won the compare-and-set), by kind (start, move, reveal, "
    "takeback, abandon) and game",
    ["node", "kind", "game"],
)
MOVES = Counter(
    "tortuga_moves",
    "Players' moves written by this node (an open move counts one, a revealed sealed "
    "phase one per seat); rate() gives moves per second",
    ["node", "game"],
)
ARCHIVED = Counter(
    "tortuga_archived_records",
    "Game records this node's archiver stored in Postgres, by kind (final: a game's end; "
    "playing: a game under way's checkpoint): the load test waits for a step's finals",
    ["node", "kind"],
)
PUSHES = Counter(
    "tortuga_pushes",
    "Web Push work of this node, by outcome: sent (a push service took a push), dropped "
    "(a step not looked at: the push queue was full)",
    ["node", "outcome"],
)
CONFLICTS = Counter(
    "tortuga_step_conflicts",
    "Step writes this node lost to another writer of the same version (compare-and-set "
    "failed; the step is retried on the new version or dropped as stale)",
    ["node"],
)
STEP_SECONDS = Histogram(
    "tortuga_step_seconds",
    "A player's move frame (act, commit, reveal, takeback) from its arrival on this node "
    "to its answer: read, rules, compare-and-set write and publication",
    ["node", "frame"],
    buckets=LATENCY_BUCKETS,
)
FANOUT_SECONDS = Histogram(
    "tortuga_fanout_seconds",
    "From a step's notice (made as it is written, on any node) to its frames written to "
    "one socket of this node",
    ["node"],
    buckets=LATENCY_BUCKETS,
)
CLOCK_LAG_SECONDS = Histogram(
    "tortuga_clock_lag_seconds",
    "How late this node applied a deadline (move, commit, reveal) after it was due",
    ["node", "kind"],
    buckets=LAG_BUCKETS,
)
ERRORS = Counter(
    "tortuga_errors",
    "Error frames this node sent on websockets, by error code (docs/PROTOCOL.md)",
    ["node", "code"],
)
SOCKETS = Gauge(
    "tortuga_sockets",
    "Websockets open on this node",
    ["node"],
    multiprocess_mode="livesum",
)
NODE_ROOMS = Gauge(
    "tortuga_node_rooms",
    "Rooms this node has sockets in (at its last heartbeat)",
    ["node"],
    multiprocess_mode="livesum",
)
UP_SINCE = Gauge(
    "tortuga_node_start_time_seconds",
    "When this node started (epoch seconds)",
    ["node", "version"],
    multiprocess_mode="liveall",
)

_MOVE_KINDS = ("move", "reveal")
FLUSH_SECONDS = 0.5  # at most this late, a worker's hot counts reach the series


class _Observed:
    """Observations of one histogram series, counted by bucket here and added to it at
    once (``flush``). It goes by the series' own bounds and buckets (prometheus-client's
    ``Histogram``: ``_upper_bounds``, ``_buckets``, ``_sum``): tests/server/admin/
    test_metrics.py fails if a newer version names them otherwise."""

    __slots__ = ("bounds", "counts", "series", "total")

    def __init__(self, series: Any) -> None:
        self.series = series
        self.bounds: list[float] = list(series._upper_bounds)
        self.counts = [0] * len(self.bounds)
        self.total = 0.0

    def observe(self, amount: float) -> None:
        self.total += amount
        self.counts[bisect.bisect_left(self.bounds, amount)] += 1

    def flush(self) -> None:
        counts, self.counts = self.counts, [0] * len(self.bounds)
        if any(counts):
            for bucket, n in zip(self.series._buckets, counts, strict=True):
                if n:
                    bucket.inc(n)
            self.series._sum.inc(self.total)
        self.total = 0.0


def _text(value: bytes | str | None) -> str:
    if isinstance(value, bytes):
        return value.decode()
    return value or ""


class NodeMetrics:
    """The series of one node (its ``node`` label), for the modules that count."""

    def __init__(self, node: str) -> None:
        self.node = node
        self._sockets = SOCKETS.labels(node=node)
        self._conflicts = CONFLICTS.labels(node=node)
        self._fanout = _Observed(FANOUT_SECONDS.labels(node=node))
        self._answered: dict[str, _Observed] = {}  # frame -> its step latencies
        self._steps: dict[tuple[str, str], int] = {}  # (kind, game) -> steps written
        self._moves: dict[str, int] = {}  # game -> moves written

    def started(self, version: str) -> None:
        UP_SINCE.labels(node=self.node, version=version).set(time.time())

    def step_written(self, log_fields: Mapping[str, bytes | str]) -> None:
        """A step won its compare-and-set: count it, and its moves."""
        kind, game = _text(log_fields.get("kind")), _text(log_fields.get("engine"))
        self._steps[kind, game] = self._steps.get((kind, game), 0) + 1
        if kind in _MOVE_KINDS:
            seats = json.loads(_text(log_fields.get("seats")) or "[]")
            if seats:
                self._moves[game] = self._moves.get(game, 0) + len(seats)

    def step_lost(self) -> None:
        self._conflicts.inc()

    def step_answered(self, frame: str, seconds: float) -> None:
        observed = self._answered.get(frame)
        if observed is None:
            observed = self._answered[frame] = _Observed(
                STEP_SECONDS.labels(node=self.node, frame=frame)
            )
        observed.observe(seconds)

    def fanned_out(self, published_at: float) -> None:
        self._fanout.observe(max(0.0, time.time() - published_at))

    def flush(self) -> None:
        """Add what was counted since the last flush to the series (a scrape does first)."""
        steps, self._steps = self._steps, {}
        for (kind, game), n in steps.items():
            STEPS.labels(node=self.node, kind=kind, game=game).inc(n)
        moves, self._moves = self._moves, {}
        for game, n in moves.items():
            MOVES.labels(node=self.node, game=game).inc(n)
        self._fanout.flush()
        for observed in self._answered.values():
            observed.flush()

    async def keep_flushing(self, every: float = FLUSH_SECONDS) -> None:
        """``flush`` every ``every`` seconds until cancelled (then once more)."""
        try:
            while True:
                await asyncio.sleep(every)
                self.flush()
        finally:
            with contextlib.suppress(Exception):
                self.flush()

    def clock_late(self, kind: str, seconds: float) -> None:
        CLOCK_LAG_SECONDS.labels(node=self.node, kind=kind).observe(max(0.0, seconds))

    def error_sent(self, code: str) -> None:
        ERRORS.labels(node=self.node, code=code).inc()

    def socket_opened(self) -> None:
        self._sockets.inc()

    def socket_closed(self) -> None:
        self._sockets.dec()

    def rooms_followed(self, count: int) -> None:
        NODE_ROOMS.labels(node=self.node).set(count)
