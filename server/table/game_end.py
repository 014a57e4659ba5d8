"""The end of a game and its archive record.

A game ends finished (its last step, server/table/steps.py) or abandoned (``abandon``: the host
ends it, or the clock finds it idle). Either way the writer of the last version puts the
game's record on the archive stream (``archive_end``), and a clock member rescues it if
that writer dies first (``archive_overdue``). Games under way are also archived at
checkpoints (``archive`` with a version: a "playing" record).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from server import protocol as p
from server.identity.signing import ServerKey
from server.redis.store import member
from server.table.entry import ABANDON
from server.table.record import GameRecord, build_record, encode_record, kids_used
from server.table.room import (
    ABANDONED,
    FINISHED,
    PLAYING,
    RETRIES,
    Room,
    RoomError,
    RoomReader,
    check_host,
    now_ms,
    playing,
)

CROWD = 64  # jobs waiting beyond which ``later`` no longer waits for a calm loop

log = logging.getLogger("tortuga.rooms")


class StepWriter(Protocol):
    """The writer of every step of a game (server/table/steps.py), its abandon included."""

    server_key: ServerKey  # the key of the moves the server makes (the record names it)

    async def advance(
        self,
        room: Room,
        state: Any,
        *,
        kind: str,
        moves: dict[str, Any],
        defaults: list[int],
        extra: dict[str, Any] | None = None,
    ) -> bool: ...


class GameEnd:
    """Ending games and writing their records to the archive stream."""

    def __init__(
        self,
        reader: RoomReader,
        *,
        archive_rescue: float,
        lease: float,
        pace: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.reader = reader
        self.store = reader.store
        self.archive_rescue_ms = int(archive_rescue * 1000)
        self.lease_ms = int(lease * 1000)
        self.pace = pace  # awaited before each job of ``later`` (server/ops/busy.py)
        self._later: collections.deque[Callable[[], Awaitable[None]]] = collections.deque()
        self._first: collections.deque[Callable[[], Awaitable[None]]] = collections.deque()
        self._working: asyncio.Task[None] | None = None
        self.writer: StepWriter | None = None  # the one writer of a step (``Steps``)

    # -- after a step: what nobody waits for ----------------------------------------------
    def later(self, job: Callable[[], Awaitable[None]], *, first: bool = False) -> None:
        """Run ``job`` (a checkpoint, a game's final record) after the step that called for
        it, in order with the others, each once the loop is calm (``pace``): a wave of
        round ends or game ends at 1,000 tables is then not written in the middle of the
        next moves. A job lost with its node is the clock's to do (``archive_overdue``) or,
        for a checkpoint, the next checkpoint's and the final record's.

        ``first``: a game's final record, run before every checkpoint waiting (in order
        with the other final records). It holds the whole game, and the archiver takes
        records in any order (a checkpoint behind a final record changes nothing:
        server/archive/write.py); but a final record still waiting when its rescue comes
        due (``archive_rescue``, 5 s) is rebuilt by the clock as if this node had died --
        at saturation, behind a queue of checkpoints, 516-609 of 720 were (docs/SPEED.md)."""
        (self._first if first else self._later).append(job)
        if self._working is None or self._working.done():
            self._working = asyncio.get_running_loop().create_task(self._work())

    @property
    def pending(self) -> bool:
        """Jobs of ``later`` wait or run."""
        waiting = bool(self._first or self._later)
        return waiting or (self._working is not None and not self._working.done())

    async def _work(self) -> None:
        while self._first or self._later:
            job = self._first.popleft() if self._first else self._later.popleft()
            try:
                # A queue this long is work falling behind (a node at saturation): it is
                # done at once, not a calm wait a job (records must not pile up unbounded).
                if self.pace is not None and len(self._first) + len(self._later) < CROWD:
                    await self.pace()
                await job()
            except Exception:
                log.exception("archive work after a step failed")

    async def settle(self, timeout: float) -> None:
        """Let the jobs waiting run (the node stops), at most ``timeout`` seconds."""
        working = self._working
        if working is not None and not working.done():
            self.pace = None  # no more waiting for a calm loop
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(working), timeout)

    async def abandon(self, room_id: str, user_id: str | None, reason: str) -> Room:
        """End the game under way without finishing it: status ``abandoned``, a last
        version (kind ``abandon``, the state unchanged) that every socket receives with
        the seed revealed, and the record on the archive stream marked so. ``user_id``: the
        host asking (``reason`` "host"); None: the clock (``reason`` "idle"). The step is
        written like every other (``writer``: ``Steps.advance``), which also archives it
        before this returns the room."""
        writer = self.writer
        if writer is None:
            raise RuntimeError("no step writer: Steps(..., ending) names itself")
        for _ in range(RETRIES):
            room = await self.reader.get(room_id)
            if user_id is not None:
                check_host(room, user_id)
            _, state = playing(room)
            # A seated host who ends the game under way takes it as their loss (ratings).
            quitter = room.seat_of(user_id) if user_id is not None else None
            if await writer.advance(
                room,
                state,
                kind=ABANDON,
                moves={},
                defaults=[],
                extra={"reason": reason, "abandoned_by": quitter},
            ):
                return await self.reader.get(room.id)
        raise RoomError(p.BUSY, "the room is busy; try again")

    def archive_member(self, room_id: str, version: int) -> tuple[str, int]:
        """The clock member that puts the final record on the archive stream if the node
        that ended the game at ``version`` dies first (``archive|<room>|<version>``), and
        when it is due."""
        return member("archive", room_id, version), now_ms() + self.archive_rescue_ms

    async def archive_end(self, rescue: tuple[str, int]) -> None:
        """The winner of the game's last version (finished or abandoned) archives it.

        The stream is in another slot than the room (Redis Cluster), so the final record
        cannot be written by the step's script. Instead the step's writer put ``rescue``
        (``archive|<room>|<version>``, due ``archive_rescue_seconds`` later) on the clock
        before writing: if this node dies before the record is on the stream, any node's
        clock writes it (``archive_overdue``). Here the writer first takes that member
        (leases it to itself, as a claim would) so that no clock writes the record while
        it does; if a clock claimed it first (this node stalled past its due time), the
        record is that clock's to write. Then the record, ``archived=1``, and the member
        goes. (A racing attempt at the same version added it first: its earlier score
        still counts as unclaimed.)"""
        name, due = rescue
        room_id = name.split("|")[1]
        lease_end = now_ms() + self.lease_ms
        if not await self.store.take(name, due, lease_end):
            log.warning("final record left to the clock", extra={"room": room_id})
            return
        await self.archive(room_id)
        await self.store.done(self.store.keys.clock_of(name), name, lease_end)

    async def archive_overdue(self, room_id: str, version: int) -> bool:
        """The clock's ``archive|<room>|<version>`` member came due: the node that ended
        the game at ``version`` died (or stalled) before its final record was on the
        archive stream. Rebuild the record from the room and its log and put it there.
        False if there is nothing to do: the game did not end at ``version`` (the member of
        an attempt that lost its race) or its record is there (``archived``)."""
        room = await self.reader.get(room_id)
        over = room.status in (FINISHED, ABANDONED)
        if not over or room.version != version or room.archived:
            return False
        await self.archive(room_id)
        log.warning("final record written by the clock", extra={"room": room_id})
        return True

    async def _keys(self, room: Room, record: GameRecord[str]) -> dict[str, dict[str, Any]]:
        """The public keys the record's proofs name (``kids_used``): the server's, and each
        seat's player's as registered with their user (server/identity/signing.py)."""
        server = self.writer.server_key if self.writer is not None else None
        named: list[tuple[str, str | None]] = []  # (kid, its player; None: the server's)
        for kid, seat in kids_used(record).items():
            if seat is None:
                if server is not None and kid == server.kid:
                    named.append((kid, None))
                continue
            user = room.seats[seat].user if 0 <= seat < len(room.seats) else None
            if user is not None:
                named.append((kid, user))
        # The players' keys looked up together (one trip), kept in the order named.
        found = await asyncio.gather(
            *(self.store.device_key(user, kid) for kid, user in named if user is not None)
        )
        publics = iter(found)
        keys: dict[str, dict[str, Any]] = {}
        for kid, user in named:
            public = server.public if user is None and server is not None else None
            if user is not None:
                public = next(publics)
            if public is not None:
                keys[kid] = {"user": user, "key": public}
        return keys

    async def archive(
        self,
        room_id: str,
        checkpoint: int | None = None,
        *,
        since: int = 1,
        room: Room | None = None,
    ) -> None:
        """The game's record onto the archive stream: the whole game once it is over
        (finished or abandoned; then ``archived=1`` on the room), or a "playing" record at
        the checkpoint version ``checkpoint`` (no seed, no outcome) with the events
        ``since .. checkpoint`` only: those since the checkpoint before (the archiver
        stores each game's events once; a final record has them all). ``room``: the game
        under way as its step's writer read it (the record's room fields do not change
        while it plays; None: read it). A duplicate is harmless (the archiver's writes are
        upserts by game id) but the final one is written once in effect: see
        ``archive_end``."""
        if room is None:
            room = await self.reader.get(room_id)
        if checkpoint is not None and room.status != PLAYING:
            return
        first = since if checkpoint is not None else 1
        entries = await self.store.log_range(room_id, first, checkpoint or room.version)
        record = build_record(room, [e for _, e in entries], events_from=first)
        record.keys = await self._keys(room, record)
        await self.store.archive(room_id, encode_record(record))
        if room.status in (FINISHED, ABANDONED):
            await self.store.set_fields(room_id, {"archived": "1"})
        # A game's end at info; its checkpoints (one a round) at debug: not a line a round.
        level = logging.DEBUG if checkpoint is not None else logging.INFO
        log.log(
            level, "archived", extra={"room": room_id, "version": room.version, "kind": room.status}
        )
