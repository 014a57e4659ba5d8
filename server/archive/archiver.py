"""The archiver: game records from the Redis archive streams into Postgres.

The room server XADDs one entry per record (field ``record``: the JSON document described in
``record.py``) to the archive stream of the record's room (``Keys.archive_of``): the records
are spread over ``ARCHIVE_STREAMS`` streams in as many slot ranges, so that on a Redis
Cluster no primary carries the whole site's archive traffic. Archivers on any number of
nodes read every stream through one consumer group per stream (``Keys.archive_group``). An
``XREADGROUP`` names several streams only when they share a slot, so each node reads each
stream in a *lane* of its own (a task, its own blocking read, its own backoff): a quiet
stream never holds up a busy one. In each lane, a pass:

1. ``XAUTOCLAIM`` takes over entries that another consumer left pending for longer than
   ``claim_idle_ms`` (a node that died mid-write);
2. ``XREADGROUP ... 0`` re-reads this consumer's own pending entries (a write that failed);
3. ``XREADGROUP ... >`` reads new entries, blocking up to ``block_ms``.

Each record is written in ONE transaction of idempotent upserts (``write.save_record``); the
entry is acknowledged (and deleted from the stream) only after that transaction commits. When
Postgres is unreachable the entries stay pending and the lane retries with exponential
backoff: archiving is delayed, nothing is lost. A record that can never be stored (malformed,
or refused by the schema, or failing ``max_strikes`` times while the database answers) goes
to its stream's dead-letter stream (``Keys.archive_dead``, in the stream's slot) with the
reason, so it does not block the others.

Wiring (in the app's lifespan):

    archiver = Archiver(redis, app.state.db, settings.redis_prefix, consumer=settings.node_id)
    archiver.start()
    ...
    await archiver.stop()
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from redis.exceptions import ResponseError
from sqlalchemy.exc import DataError, IntegrityError

from server.archive.db import Database
from server.archive.record import RecordError, decode_record
from server.archive.write import RatingRules, Saved, save_record
from server.ops.metrics import ARCHIVED
from server.redis.pool import Client
from server.redis.store import Keys

log = logging.getLogger("tortuga.archive")

POISON = (RecordError, DataError, IntegrityError)

# An archived entry goes: acknowledged and dropped from its stream at once, in one call (a
# transaction of two commands cost the node about 2 % of its CPU at a thousand rooms).
_DONE = """
redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
return redis.call('XDEL', KEYS[1], ARGV[2])
"""
"""Errors that the same record would raise again on every retry."""

GAP_WAIT = 30.0
"""Seconds a checkpoint waits for the one before it (being written by another archiver, or
lost with a node that died before writing it) before it is stored without its events."""


def brief(error: BaseException, limit: int = 300) -> str:
    """An error's first line, cut short: a failed statement's SQL (a batch of events
    is thousands of placeholders) stays out of the logs, one line per retry of each lane."""
    text = str(error).strip().splitlines()
    return text[0][:limit] if text else ""


def default_consumer() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


@dataclass(slots=True)
class Pass:
    """What one ``run_once`` did."""

    read: int = 0  # entries handled (claimed, pending or new)
    archived: list[str] = field(default_factory=list)  # game ids committed
    unchanged: list[str] = field(default_factory=list)  # committed, but nothing was new
    dead: list[str] = field(default_factory=list)  # entry ids sent to the dead-letter stream
    waiting: int = 0  # checkpoints left pending: the one before them is not stored yet
    error: BaseException | None = None  # why the pass stopped early (entries stay pending)

    def add(self, other: Pass) -> None:
        self.read += other.read
        self.archived += other.archived
        self.unchanged += other.unchanged
        self.dead += other.dead
        self.waiting += other.waiting
        if other.error is not None:
            self.error = other.error


@dataclass(slots=True)
class Lane:
    """One archive stream as this archiver reads it."""

    stream: str
    dead: str  # its dead letters, in its slot
    ready: bool = False  # the group exists
    reading: bool = False  # in a blocking XREADGROUP: safe to cancel at once
    failures: int = 0  # consecutive failed passes


def _entries(response: Any) -> list[tuple[bytes, dict[bytes, bytes] | None]]:
    """The (id, fields) pairs of an XREADGROUP reply for one stream (RESP2 or RESP3)."""
    if not response:
        return []
    if isinstance(response, dict):
        streams = list(response.values())
    else:
        streams = [entries for _name, entries in response]
    out: list[tuple[bytes, dict[bytes, bytes] | None]] = []
    for entries in streams:
        out.extend((entry_id, fields) for entry_id, fields in entries)
    return out


class Archiver:
    def __init__(
        self,
        redis: Client,
        database: Database | str,
        prefix: str = "",
        *,
        consumer: str | None = None,
        batch: int = 20,
        block_ms: int = 2000,
        claim_idle_ms: int = 60_000,
        backoff_min: float = 0.5,
        backoff_max: float = 30.0,
        max_strikes: int = 5,
        rules: RatingRules | None = None,
        pace: Callable[[], Awaitable[None]] | None = None,
        gap_wait: float = GAP_WAIT,
    ) -> None:
        self.redis = redis
        self._done_script = redis.register_script(_DONE)
        self._owns_db = isinstance(database, str)
        self.db = Database(database) if isinstance(database, str) else database
        self.keys = Keys(prefix)
        self.group = self.keys.archive_group
        self.lanes = [
            Lane(stream, self.keys.archive_dead(stream)) for stream in self.keys.archive_streams
        ]
        self.consumer = consumer or default_consumer()
        self.batch = batch
        self.block_ms = block_ms
        self.claim_idle_ms = claim_idle_ms
        self.backoff_min = backoff_min
        self.backoff_max = backoff_max
        self.max_strikes = max_strikes
        self.rules = rules or RatingRules()
        # Awaited before each record: the node's players first (server/ops/busy.py).
        self.pace = pace
        self._one_at_a_time = asyncio.Lock()
        # (stream, entry) -> failures while the database answered
        self._strikes: dict[tuple[str, bytes], int] = {}
        # (stream, entry) -> when a checkpoint was first found ahead of its game (monotonic)
        self._gaps: dict[tuple[str, bytes], float] = {}
        self.gap_wait = gap_wait
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping = asyncio.Event()

    @property
    def failures(self) -> int:
        """Consecutive failed passes of the lane failing longest (0: healthy)."""
        return max(lane.failures for lane in self.lanes)

    # -- the streams -------------------------------------------------------------------
    async def ensure_group(self) -> None:
        """Create every stream's consumer group (and the stream) if missing."""
        for lane in self.lanes:
            await self._ensure(lane)

    async def _ensure(self, lane: Lane) -> None:
        """Make ``lane``'s stream and its consumer group if need be."""
        if lane.ready:
            return
        try:
            await self.redis.xgroup_create(lane.stream, self.group, id="0", mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise
        lane.ready = True

    async def _claim(self, lane: Lane) -> int:
        """Take over entries other consumers left pending too long; how many."""
        claimed = 0
        start: Any = "0-0"
        for _ in range(10):  # a bounded scan of the group's pending list per pass
            if claimed >= self.batch:
                break
            reply = await self.redis.xautoclaim(
                lane.stream,
                self.group,
                self.consumer,
                min_idle_time=self.claim_idle_ms,
                start_id=start,
                count=self.batch,
            )
            # [next cursor, [(id, fields), ...], [ids deleted meanwhile]] (Redis 7)
            start, entries = reply[0], reply[1]
            claimed += len(entries)
            if start in (b"0-0", "0-0"):
                break
        if claimed:
            log.info(
                "archiver %s claimed %d stale entries of %s", self.consumer, claimed, lane.stream
            )
        return claimed

    async def _read(self, lane: Lane, entry_id: str, block_ms: int | None) -> Any:
        try:
            return await self.redis.xreadgroup(
                self.group,
                self.consumer,
                {lane.stream: entry_id},
                count=self.batch,
                block=block_ms,
            )
        except ResponseError as exc:
            if "NOGROUP" in str(exc):  # the stream was deleted: make it again
                lane.ready = False
                await self._ensure(lane)
                return []
            raise

    async def _done(self, lane: Lane, entry_id: bytes) -> None:
        """Acknowledge an archived entry and drop it from the stream."""
        await self._done_script(keys=[lane.stream], args=[self.group, entry_id])

    async def _bury(
        self, lane: Lane, entry_id: bytes, fields: dict[bytes, bytes], why: str
    ) -> None:
        log.error("archive entry %s of %s cannot be archived: %s", entry_id, lane.stream, why)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.xadd(
                lane.dead,
                {
                    b"entry": entry_id,
                    b"record": fields.get(b"record", b""),
                    b"error": why.encode(),
                    b"consumer": self.consumer.encode(),
                },
            )
            pipe.xack(lane.stream, self.group, entry_id)
            pipe.xdel(lane.stream, entry_id)
            await pipe.execute()

    # -- one entry -------------------------------------------------------------------------
    async def _archive(
        self, lane: Lane, entry_id: bytes, fields: dict[bytes, bytes] | None, out: Pass
    ) -> None:
        """Write one entry; raise (leaving it pending) if it should be retried. With a
        ``pace``, the node's lanes write one record at a time, each once the loop is calm:
        every lane finding it calm at once would write a record each into the next wave."""
        out.read += 1
        if self.pace is None:
            await self._write(lane, entry_id, fields, out)
            return
        async with self._one_at_a_time:
            await self.pace()
            await self._write(lane, entry_id, fields, out)

    async def _write(
        self, lane: Lane, entry_id: bytes, fields: dict[bytes, bytes] | None, out: Pass
    ) -> None:
        if not fields:  # deleted from the stream while pending: nothing left to do
            await self._done(lane, entry_id)
            return
        try:
            record = decode_record(fields.get(b"record", b""))
        except RecordError as exc:
            await self._bury(lane, entry_id, fields, str(exc))
            out.dead.append(entry_id.decode())
            return
        key = (lane.stream, entry_id)
        first_seen = self._gaps.get(key)
        given_up = first_seen is not None and time.monotonic() - first_seen >= self.gap_wait
        try:
            async with self.db.engine.begin() as conn:  # Core: no ORM session needed
                saved = await save_record(conn, record, rules=self.rules, accept_gap=given_up)
        except POISON as exc:
            await self._bury(lane, entry_id, fields, f"{type(exc).__name__}: {exc}")
            out.dead.append(entry_id.decode())
            return
        except Exception as exc:
            # Postgres away (retry, without limit), or this record fails while the database
            # answers: after ``max_strikes`` such failures it would block the stream forever.
            if not await self._strike((lane.stream, entry_id)):
                raise
            await self._bury(
                lane,
                entry_id,
                fields,
                f"failed {self.max_strikes} times while the database answered: "
                f"{type(exc).__name__}: {exc}",
            )
            out.dead.append(entry_id.decode())
            return
        self._strikes.pop((lane.stream, entry_id), None)
        if saved is Saved.GAP:  # stays pending: read again with this consumer's pending ones
            self._gaps.setdefault(key, time.monotonic())
            out.waiting += 1
            return
        self._gaps.pop(key, None)
        # Committed: only now may the entry go.
        await self._done(lane, entry_id)
        ARCHIVED.labels(node=self.consumer, kind="final" if record.final else "playing").inc()
        if saved is Saved.UNCHANGED:
            out.unchanged.append(record.game_id)
        else:
            out.archived.append(record.game_id)
        # A game's end at info; the records of games under way (a round each) at debug.
        level = logging.INFO if record.final else logging.DEBUG
        log.log(level, "archived %s (%s, %s)", record.game_id, record.status, saved.value)

    async def _strike(self, entry: tuple[str, bytes]) -> bool:
        """Count a failure of this entry if the database answers; True: give it up."""
        try:
            await self.db.ping()
        except Exception:
            return False  # an outage: not the record's fault
        strikes = self._strikes[entry] = self._strikes.get(entry, 0) + 1
        if strikes < self.max_strikes:
            return False
        del self._strikes[entry]
        return True

    async def _archive_all(
        self, lane: Lane, entries: list[tuple[bytes, dict[bytes, bytes] | None]], out: Pass
    ) -> None:
        for entry_id, fields in entries:
            await self._archive(lane, entry_id, fields, out)

    # -- passes ------------------------------------------------------------------------------
    async def run_once(self) -> Pass:
        """One pass over every stream, without waiting for new entries (``pass_of``)."""
        out = Pass()
        for lane in self.lanes:
            out.add(await self.pass_of(lane, None))
        return out

    async def pass_of(self, lane: Lane, block_ms: int | None) -> Pass:
        """One pass over one stream: claim stale entries, retry this consumer's pending
        ones, else read new ones (waiting up to ``block_ms``; None: don't wait). A database
        error ends the pass early and is returned in ``Pass.error``; the unwritten entries
        stay pending."""
        out = Pass()
        try:
            await self._ensure(lane)
            await self._claim(lane)
            pending = _entries(await self._read(lane, "0", None))
            if pending:
                await self._archive_all(lane, pending, out)
                if out.read > out.waiting:
                    return out
                # Only checkpoints waiting for the one before them: read what is new (and
                # wait for it a while) rather than ask for them again at once.
            lane.reading = block_ms is not None
            try:
                new = _entries(await self._read(lane, ">", block_ms))
            finally:
                lane.reading = False
            await self._archive_all(lane, new, out)
        except Exception as exc:  # Postgres away (or Redis): the rest stays pending
            log.debug("archive pass failed", exc_info=True)
            out.error = exc
        return out

    async def drain(self, max_passes: int = 1000) -> Pass:
        """Passes until no stream has anything for this consumer (tests, shutdown)."""
        total = Pass()
        for _ in range(max_passes):
            one = await self.run_once()
            total.add(one)
            if one.error is not None or one.read == one.waiting:
                break  # nothing left, or only checkpoints waiting for the ones before
        return total

    async def _run_lane(self, lane: Lane) -> None:
        """Archive one stream until ``stop()``; back off while Postgres (or Redis) fails."""
        delay = self.backoff_min
        while not self._stopping.is_set():
            try:
                error = (await self.pass_of(lane, self.block_ms)).error
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis away, ...
                error = exc
            if error is None:
                lane.failures = 0
                delay = self.backoff_min
                continue
            lane.failures += 1
            log.warning(
                "archiver %s on %s: %s: %s (retry %d in %.1fs; entries stay pending)",
                self.consumer,
                lane.stream,
                type(error).__name__,
                brief(error),
                lane.failures,
                delay,
            )
            await self._rest(delay * random.uniform(0.8, 1.2))
            delay = min(self.backoff_max, delay * 2)

    async def _rest(self, seconds: float) -> None:
        """Wait ``seconds``, or less if ``stop()`` comes first."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stopping.wait(), seconds)

    def start(self) -> None:
        """Run in the background; ``stop()`` ends it."""
        if self._tasks and not all(task.done() for task in self._tasks):
            return
        self._stopping.clear()
        self._tasks = [
            asyncio.create_task(self._run_lane(lane), name=f"archiver-{self.consumer}-{i}")
            for i, lane in enumerate(self.lanes)
        ]

    async def stop(self, timeout: float = 10.0) -> None:
        """Finish the entries being written (up to ``timeout``), then stop. An unfinished
        entry stays pending: this or another archiver writes it later."""
        self._stopping.set()
        tasks, self._tasks = self._tasks, []
        for lane, task in zip(self.lanes, tasks, strict=True):
            if lane.reading and not task.done():  # waiting for new entries: nothing to finish
                task.cancel()
        if tasks:
            _, late = await asyncio.wait(tasks, timeout=timeout)
            for task in late:
                task.cancel()
            if late:
                await asyncio.wait(late)
        for task in tasks:
            if not task.cancelled() and task.exception():
                log.error(
                    "archiver %s stopped on an error", self.consumer, exc_info=task.exception()
                )
        if self._owns_db:
            await self.db.close()


def start(redis: Client, database: Database | str, prefix: str = "", **options: Any) -> Archiver:
    """An Archiver running in the background (``await archiver.stop()`` to end it)."""
    archiver = Archiver(redis, database, prefix, **options)
    archiver.start()
    return archiver
