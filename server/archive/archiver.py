"""The archiver: game records from the Redis archive stream into Postgres.

The room server XADDs one entry per record (field ``record``: the JSON document described in
``record.py``) to ``Keys(prefix).archive``. Archivers on any number of nodes read it through
one consumer group (``Keys.archive_group``):

1. ``XAUTOCLAIM`` takes over entries that another consumer left pending for longer than
   ``claim_idle_ms`` (a node that died mid-write);
2. ``XREADGROUP ... 0`` re-reads this consumer's own pending entries (a write that failed);
3. ``XREADGROUP ... >`` reads new entries, blocking up to ``block_ms``.

Each record is written in ONE transaction of idempotent upserts (``write.save_record``); the
entry is acknowledged (and deleted from the stream) only after that transaction commits. When
Postgres is unreachable the entries stay pending and the archiver retries with exponential
backoff: archiving is delayed, nothing is lost. A record that can never be stored (malformed,
or refused by the schema, or failing ``max_strikes`` times while the database answers) goes
to the dead-letter stream ``{<archive>}:dead`` with the reason, so it does not block the others.

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
from dataclasses import dataclass, field
from typing import Any

from redis.exceptions import ResponseError
from sqlalchemy.exc import DataError, IntegrityError

from server.archive.db import Database
from server.archive.record import RecordError, decode_record
from server.archive.write import RatingRules, Saved, save_record
from server.redis_pool import Client
from server.store import Keys

log = logging.getLogger("tortuga.archive")

POISON = (RecordError, DataError, IntegrityError)
"""Errors that the same record would raise again on every retry."""


def dead_letter_key(keys: Keys) -> str:
    """Stream of the records that could not be archived (with why): in the archive
    stream's slot (``Keys.archive_dead``)."""
    return keys.archive_dead


def default_consumer() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


@dataclass(slots=True)
class Pass:
    """What one ``run_once`` did."""

    read: int = 0  # entries handled (claimed, pending or new)
    archived: list[str] = field(default_factory=list)  # game ids committed
    unchanged: list[str] = field(default_factory=list)  # committed, but nothing was new
    dead: list[str] = field(default_factory=list)  # entry ids sent to the dead-letter stream
    error: BaseException | None = None  # why the pass stopped early (entries stay pending)


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
    ) -> None:
        self.redis = redis
        self._owns_db = isinstance(database, str)
        self.db = Database(database) if isinstance(database, str) else database
        self.keys = Keys(prefix)
        self.stream = self.keys.archive
        self.group = self.keys.archive_group
        self.dead = dead_letter_key(self.keys)
        self.consumer = consumer or default_consumer()
        self.batch = batch
        self.block_ms = block_ms
        self.claim_idle_ms = claim_idle_ms
        self.backoff_min = backoff_min
        self.backoff_max = backoff_max
        self.max_strikes = max_strikes
        self.rules = rules or RatingRules()
        self._strikes: dict[bytes, int] = {}  # entry -> failures while the database answered
        self._group_ready = False
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()
        self._reading = False  # in a blocking XREADGROUP: safe to cancel at once
        self.failures = 0  # consecutive failed passes (0: healthy)

    # -- the stream --------------------------------------------------------------------
    async def ensure_group(self) -> None:
        """Create the consumer group (and the stream) if missing."""
        if self._group_ready:
            return
        try:
            await self.redis.xgroup_create(self.stream, self.group, id="0", mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise
        self._group_ready = True

    async def _claim(self) -> int:
        """Take over entries other consumers left pending too long; how many."""
        claimed = 0
        start: Any = "0-0"
        for _ in range(10):  # a bounded scan of the group's pending list per pass
            if claimed >= self.batch:
                break
            reply = await self.redis.xautoclaim(
                self.stream,
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
            log.info("archiver %s claimed %d stale entries", self.consumer, claimed)
        return claimed

    async def _read(self, entry_id: str, block_ms: int | None) -> Any:
        try:
            return await self.redis.xreadgroup(
                self.group,
                self.consumer,
                {self.stream: entry_id},
                count=self.batch,
                block=block_ms,
            )
        except ResponseError as exc:
            if "NOGROUP" in str(exc):  # the stream was deleted: make it again
                self._group_ready = False
                await self.ensure_group()
                return []
            raise

    async def _done(self, entry_id: bytes) -> None:
        """Acknowledge an archived entry and drop it from the stream."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.xack(self.stream, self.group, entry_id)
            pipe.xdel(self.stream, entry_id)
            await pipe.execute()

    async def _bury(self, entry_id: bytes, fields: dict[bytes, bytes], why: str) -> None:
        log.error("archive entry %s cannot be archived: %s", entry_id, why)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.xadd(
                self.dead,
                {
                    b"entry": entry_id,
                    b"record": fields.get(b"record", b""),
                    b"error": why.encode(),
                    b"consumer": self.consumer.encode(),
                },
            )
            pipe.xack(self.stream, self.group, entry_id)
            pipe.xdel(self.stream, entry_id)
            await pipe.execute()

    # -- one entry -------------------------------------------------------------------------
    async def _archive(self, entry_id: bytes, fields: dict[bytes, bytes] | None, out: Pass) -> None:
        """Write one entry; raise (leaving it pending) if it should be retried."""
        out.read += 1
        if not fields:  # deleted from the stream while pending: nothing left to do
            await self._done(entry_id)
            return
        try:
            record = decode_record(fields.get(b"record", b""))
        except RecordError as exc:
            await self._bury(entry_id, fields, str(exc))
            out.dead.append(entry_id.decode())
            return
        try:
            async with self.db.session() as session, session.begin():
                saved = await save_record(session, record, rules=self.rules)
        except POISON as exc:
            await self._bury(entry_id, fields, f"{type(exc).__name__}: {exc}")
            out.dead.append(entry_id.decode())
            return
        except Exception as exc:
            # Postgres away (retry, without limit), or this record fails while the database
            # answers: after ``max_strikes`` such failures it would block the stream forever.
            if not await self._strike(entry_id):
                raise
            await self._bury(
                entry_id,
                fields,
                f"failed {self.max_strikes} times while the database answered: "
                f"{type(exc).__name__}: {exc}",
            )
            out.dead.append(entry_id.decode())
            return
        self._strikes.pop(entry_id, None)
        # Committed: only now may the entry go.
        await self._done(entry_id)
        if saved is Saved.UNCHANGED:
            out.unchanged.append(record.game_id)
        else:
            out.archived.append(record.game_id)
        log.info("archived %s (%s, %s)", record.game_id, record.status, saved.value)

    async def _strike(self, entry_id: bytes) -> bool:
        """Count a failure of this entry if the database answers; True: give it up."""
        try:
            await self.db.ping()
        except Exception:
            return False  # an outage: not the record's fault
        strikes = self._strikes[entry_id] = self._strikes.get(entry_id, 0) + 1
        if strikes < self.max_strikes:
            return False
        del self._strikes[entry_id]
        return True

    async def _archive_all(
        self, entries: list[tuple[bytes, dict[bytes, bytes] | None]], out: Pass
    ) -> None:
        for entry_id, fields in entries:
            await self._archive(entry_id, fields, out)

    # -- passes ------------------------------------------------------------------------------
    async def run_once(self, block_ms: int | None = None) -> Pass:
        """One pass: claim stale entries, retry this consumer's pending ones, else read new
        ones (waiting up to ``block_ms``; None: don't wait). A database error ends the pass
        early and is returned in ``Pass.error``; the unwritten entries stay pending."""
        out = Pass()
        await self.ensure_group()
        try:
            await self._claim()
            pending = _entries(await self._read("0", None))
            if pending:
                await self._archive_all(pending, out)
                return out
            self._reading = block_ms is not None
            try:
                new = _entries(await self._read(">", block_ms))
            finally:
                self._reading = False
            await self._archive_all(new, out)
        except Exception as exc:  # Postgres away (or Redis): the rest stays pending
            log.debug("archive pass failed", exc_info=True)
            out.error = exc
        return out

    async def drain(self, max_passes: int = 1000) -> Pass:
        """Passes until the stream has nothing for this consumer (tests, shutdown)."""
        total = Pass()
        for _ in range(max_passes):
            one = await self.run_once()
            total.read += one.read
            total.archived += one.archived
            total.unchanged += one.unchanged
            total.dead += one.dead
            if one.error is not None:
                total.error = one.error
                break
            if one.read == 0:
                break
        return total

    async def run(self) -> None:
        """Archive until ``stop()``; back off while Postgres (or Redis) is failing."""
        delay = self.backoff_min
        while not self._stopping.is_set():
            try:
                one = await self.run_once(self.block_ms)
                error = one.error
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis away, ...
                error = exc
            if error is None:
                self.failures = 0
                delay = self.backoff_min
                continue
            self.failures += 1
            log.warning(
                "archiver %s: %s: %s (retry %d in %.1fs; entries stay pending)",
                self.consumer,
                type(error).__name__,
                error,
                self.failures,
                delay,
            )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), delay * random.uniform(0.8, 1.2))
            delay = min(self.backoff_max, delay * 2)

    def start(self) -> asyncio.Task[None]:
        """Run in the background; ``stop()`` ends it."""
        if self._task is None or self._task.done():
            self._stopping.clear()
            self._task = asyncio.create_task(self.run(), name=f"archiver-{self.consumer}")
        return self._task

    async def stop(self, timeout: float = 10.0) -> None:
        """Finish the entry being written (up to ``timeout``), then stop. An unfinished
        entry stays pending: this or another archiver writes it later."""
        self._stopping.set()
        task, self._task = self._task, None
        if task is not None and not task.done():
            if self._reading:  # waiting for new entries: nothing to finish
                task.cancel()
            done, _ = await asyncio.wait({task}, timeout=timeout)
            if not done:
                task.cancel()
                await asyncio.wait({task})
        if task is not None and task.done() and not task.cancelled() and task.exception():
            log.error("archiver %s stopped on an error", self.consumer, exc_info=task.exception())
        if self._owns_db:
            await self.db.close()


def start(redis: Client, database: Database | str, prefix: str = "", **options: Any) -> Archiver:
    """An Archiver running in the background (``await archiver.stop()`` to end it)."""
    archiver = Archiver(redis, database, prefix, **options)
    archiver.start()
    return archiver
