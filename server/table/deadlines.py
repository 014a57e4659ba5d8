"""The table's clock: deadlines, grace times, rescues and idle games, on every node.

Everything that must happen *later* is a member of a Redis sorted set (the bucket of its
room among ``Keys.clock_buckets``: spread over a cluster's primaries), scored by its due
time in epoch milliseconds, so that it does not depend on the node that set it staying
alive:

- ``move|<room>|<version>``: added before the step that opens the prompt is written
  (``Steps.advance``); the open move was not made: the engine's default.
- ``commit|<room>|<version>``: likewise; seats that did not commit get the ``default``
  marker (their default is computed when the phase resolves).
- ``reveal|<room>|<version>``: added by the commit that opened the phase
  (``Sealing.commit``); seats that did not open get their default.
- ``grace|<room>|<seat>|<drop stamp>``: added by the node that saw the seat's last socket
  leave (or reaped a dead node); the seat is taken over (room option ``absent``: a bot, or
  the default move) until its player returns -- unless the game is slow (a room without
  deadlines) and a device of the player wants "your move" pushes (``Hooks.can_reach``):
  then the seat is held (``Presence.hold``): the table waits for its player, who is pushed.
- ``idle|<room>|<stamp>``: added when a human seat's last socket left a game under way
  (and by ``arm`` when no human player is connected), due ``abandon_after_seconds`` after
  the last human player left; the game is abandoned (``GameEnd.abandon``, reason
  "idle") unless a human player came back. One member per drop; a member that comes early
  (another player left later) is moved to the later time.
- ``bot|<room>|<version>|<stage>``: added before a step that gives bots a move is written
  (``BotDriver.before_step``), or by a bot run of a new stage; removed once the bots acted.
  Due only if the node that should have run them died: any node runs them.
- ``unlist|<room>|<seat>|<drop stamp>``: added with the grace member when a seat's last
  socket leaves, due ``lobby_host_away_seconds`` later; a public lobby whose host it was,
  still away, leaves the public list (``PublicList.unlist_if_left``).
- ``quiet|<room>|<seat>``: added by the pusher (server/archive/push.py) when a turn of the
  seat's player was kept from every device of theirs by its quiet hours, due when the first
  of them end; the pusher asks again whether the turn is owed (``Hooks.quiet_over``).
- ``archive|<room>|<version>``: added before the step that ends the game (finished or
  abandoned) at ``version`` is written; the writer takes it (``Store.take``), puts the final
  record on the archive stream, sets ``archived=1`` and removes it. Due only if the writer
  died (or stalled) first: the record is rebuilt from the log and put on the stream
  (``GameEnd.archive_overdue``); a room with ``archived`` makes it stale.

Every node runs ``Clock``: a loop that *claims* due members of every bucket with one Lua
script per bucket (the member's score moves to the end of a lease, so exactly one node holds
it) and fires each through the same hooks players use (``Steps.play_default``,
``Sealing.default``, ``Presence.take_over``, ``BotDriver.run``), then removes it. A
claimer that dies mid-way leaves the member to come due again when its lease ends; the hooks
are idempotent (they check the version and the seal), so a deadline takes effect exactly
once. A stale member (the
version moved on, the player came back, an attempt that lost its race) does nothing; a
deadline member that comes early is moved to the time the room recorded (``deadline``,
``open_by``), which is the one the players were shown.

What is added after a write (a reveal deadline, a grace time, a bot run after a phase
opened) could be lost if the node died between the two; every ``sweep_seconds`` each node
re-arms the rooms it has sockets in (``arm``: the current deadline, the grace times of
dropped seats, and the bots' turn; the node's heartbeat asks for the ``sweep``,
server/realtime/heartbeat.py), and so does any join. The same goes for the step that
resolves a sealed phase, written after the last opening by the node that stored it: a
phase found open with every opening in is resolved by ``arm`` (``Sealing.resolve``).

The clock knows rooms, not sockets or nodes: which rooms have sockets on this node, and
which sockets a dead node left, is the heartbeat's to say.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import datetime as dt
import logging
import math
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from server.redis.store import member, stamp
from server.table.reveal import DEFAULT, Sealing, opened_all
from server.table.room import (
    ABANDONED,
    FINISHED,
    LOBBY,
    PLAYING,
    Room,
    RoomError,
    now_ms,
    phase_name,
)
from server.table.rooms import RoomService

if TYPE_CHECKING:
    from server.settings import Settings
    from server.table.bots import BotDriver

log = logging.getLogger("tortuga.clock")


def after_stamp(dropped: str, seconds: float) -> float:
    """``seconds`` after a drop as presence keeps it (``stamp``: rounded to the millisecond),
    not as it was measured: the member that checks "away that long" against the stored stamp
    must not come due a fraction of a millisecond before it holds (then it would find the
    host away 0.9995 s of 1 and do nothing, for good)."""
    return float(dropped) + seconds


BATCH = 100  # members claimed per look
APPLIED, STALE, LATER = "applied", "stale", "later"  # what firing a member did
EARLY_MS = 50  # a deadline member this early (clocks of nodes differ) fires anyway
PAUSED_LOOK_MS = 5000  # a member of a paused room is looked at again this much later


SWEEP_SPREAD = 0.8  # of ``sweep_seconds``: the part of it a sweep's visits are spread over
SWEEP_BATCH = 16  # rooms a sweep visits together


class Clock:
    def __init__(
        self,
        rooms: RoomService,
        sealing: Sealing,
        bots: BotDriver,
        settings: Settings,
    ) -> None:
        self.rooms = rooms
        self.sealing = sealing
        self.bots = bots
        self.store = rooms.store
        self.grace = settings.grace_seconds
        self.host_away = settings.lobby_host_away_seconds
        self.poll = settings.clock_poll_seconds
        self.lease_ms = int(settings.clock_lease_seconds * 1000)
        self.sweep_ms = int(settings.sweep_seconds * 1000)
        self.abandon_after = settings.abandon_after_seconds
        self.archive_rescue_ms = int(settings.archive_rescue_seconds * 1000)
        # What this node fired, in order: (member, APPLIED | STALE | LATER), for tests.
        self.fired: collections.deque[tuple[str, str]] = collections.deque(maxlen=10_000)
        self._loop: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._limit = asyncio.Semaphore(64)
        # Rooms re-armed at once (joins, the game's start, the sweep): the rest wait.
        self._arming = asyncio.Semaphore(max(1, settings.visit_concurrency))
        self._sweeping: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()

    # -- life -------------------------------------------------------------------------------
    async def start(self) -> None:
        """Start the loop that claims and fires due members."""
        self._loop = asyncio.create_task(self._ticks(), name="clock")

    async def stop(self) -> None:
        """Stop the loop (and a sweep under way): nothing more is claimed or re-armed.

        The loop stops on an event, not by cancellation alone: a cancel that lands inside a
        Redis call can be swallowed by the client library, and the loop would go on."""
        self._stop.set()
        if self._sweeping is not None:
            self._sweeping.cancel()
        if self._loop is not None:
            _, late = await asyncio.wait([self._loop], timeout=5)
            for task in late:
                task.cancel()
            self._loop = None

    async def close(self) -> None:
        """Stop, then let what the clock set going finish (the grace times of the seats
        whose sockets left as the node signed off, among others)."""
        await self.stop()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=5)

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.create_task(self._logged(coro))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @staticmethod
    async def _logged(coro: Coroutine[Any, Any, Any]) -> None:
        try:
            await coro
        except Exception:
            log.exception("clock task failed")

    # -- hooks of the room service ----------------------------------------------------------
    def seat_dropped(self, room_id: str, seat: int, at: float) -> None:
        """``on_seat_dropped``: the seat's grace time starts now."""
        self._spawn(self._schedule(member("grace", room_id, seat, stamp(at)), at + self.grace))
        if self.host_away > 0:
            due = after_stamp(stamp(at), self.host_away)
            self._spawn(self._schedule(member("unlist", room_id, seat, stamp(at)), due))
        self._spawn(self._schedule(member("idle", room_id, stamp(at)), at + self.abandon_after))

    def started(self, room_id: str) -> None:
        """``on_started``: seats whose player left while the room was in the lobby start
        their grace time (or are taken over at once, if it is over). The start's own step
        told the bots already."""
        self._spawn(self._arm_in_turn(room_id, nudge=False))

    def visit(self, room_id: str) -> None:
        """``on_visit`` (a socket joined): re-arm what a node that died may have left."""
        self._spawn(self._arm_in_turn(room_id, nudge=True))

    async def _arm_in_turn(self, room_id: str, *, nudge: bool) -> None:
        async with self._arming:
            await self.arm(room_id, nudge=nudge)

    def sweep(self, room_ids: list[str]) -> bool:
        """Re-arm ``room_ids`` (the rooms this node has sockets in) in the background: a
        safety net for what a node that died between two writes left undone (a reveal
        deadline, a bot's turn). False, and nothing done, while the last sweep is still
        under way or the clock is stopping."""
        if self._stop.is_set() or (self._sweeping is not None and not self._sweeping.done()):
            return False
        self._sweeping = asyncio.create_task(self._logged(self._sweep(room_ids)))
        return True

    async def _sweep(self, room_ids: list[str]) -> None:
        """Re-arm the rooms this node has sockets in, ``visit_concurrency`` at a time and
        spread over most of ``sweep_seconds``: a node with hundreds of rooms neither fires
        two Redis-reading tasks per room at once nor spends its next half second on them
        (a wave that every player of the node felt, at 1,000 rooms). The bots' safety net
        runs only where bots play."""

        async def one(room_id: str) -> None:
            async with self._arming:
                await self.arm(room_id, nudge=True)

        loop = asyncio.get_running_loop()
        began = loop.time()
        size = SWEEP_BATCH
        gap = SWEEP_SPREAD * self.sweep_ms / 1000 / max(1, len(room_ids) // size + 1)
        for batch, start in enumerate(range(0, len(room_ids), size)):
            await asyncio.sleep(max(0.0, began + batch * gap - loop.time()))
            await asyncio.gather(*(one(r) for r in room_ids[start : start + size]))

    async def _schedule(self, name: str, due: float) -> None:
        await self.store.schedule(name, math.ceil(due * 1000))  # never before ``due``

    async def arm(self, room_id: str, *, nudge: bool = False) -> None:
        """Put the room's current deadline and the grace times of its dropped seats on the
        clock, unless they are there already (or, for a game over whose final record is
        not on the archive stream, its ``archive`` member). Idempotent: a member that already fired
        fires again as a no-op (its moment has passed)."""
        try:
            room = await self.rooms.get(room_id, presence=True)
        except RoomError:
            return
        if room.status in (FINISHED, ABANDONED) and not room.archived:
            # A game that ended without its final record on the archive stream (by a
            # node that died before this member existed): rescue it a little later.
            name = member("archive", room_id, room.version)
            await self.store.schedule(name, now_ms() + self.archive_rescue_ms)
            return
        if room.status == LOBBY:
            await self.rooms.seats.touch_lobby(room_id)  # a socket is in it: not idle
            await self.rooms.listing.returned(room)  # its host back: listed again
            return
        if room.status != PLAYING or room.state is None:
            return
        game = room.game
        prompt = game.prompt(game.decode(room.state))
        if prompt.sealed:
            seal = await self.store.load_seal(room_id)
            phase = phase_name(prompt, room.version)
            same = seal.get("phase") == phase
            if same and seal.get("open") == "1" and opened_all(prompt.seats, seal):
                # Every opening is in, yet the phase is not resolved: the node that stored
                # the last one died before it wrote the step, or is writing it now. Resolve
                # it (a compare-and-set: one of the two writes it).
                if await self.sealing.resolve(room_id, phase):
                    log.warning("resolved a phase left complete", extra={"room": room_id})
            elif same and seal.get("open") == "1":
                if seal.get("open_by"):
                    name = member("reveal", room_id, room.version)
                    await self.store.schedule(name, int(seal["open_by"]))
            elif room.deadline is not None:
                await self.store.schedule(member("commit", room_id, room.version), room.deadline)
        elif room.deadline is not None:
            await self.store.schedule(member("move", room_id, room.version), room.deadline)
        seen = await self.store.load_presence(room_id)
        for seat, info in enumerate(room.seats):
            dropped = seen.get(f"drop:{seat}")
            if info.bot is None and dropped and seat not in room.connected | room.away | room.held:
                name = member("grace", room_id, seat, dropped)
                await self.store.schedule(name, int((float(dropped) + self.grace) * 1000))
        left = self._last_human_seen(room, seen)
        if left is not None:
            name = member("idle", room_id, stamp(left))
            await self.store.schedule(name, int((left + self.abandon_after) * 1000))
        if nudge and (room.away or any(s.bot is not None for s in room.seats)):
            # A bot's trigger lost with a node that died. Tables where only their players
            # play start no bot work.
            self.rooms.hooks.turn(room_id)

    @staticmethod
    def _last_human_seen(room: Room, seen: dict[str, str]) -> float | None:
        """When the last human player left the game (epoch seconds), or None while one is
        connected (or the room has no human player). A seat with no drop time counts from
        the start of the game."""
        humans = [i for i, s in enumerate(room.seats) if s.user is not None and s.bot is None]
        if not humans or any(i in room.connected for i in humans):
            return None
        started = dt.datetime.fromisoformat(room.started_at or room.created_at).timestamp()
        return max(float(seen.get(f"drop:{i}") or started) for i in humans)

    # -- the clock loop ---------------------------------------------------------------------
    async def _pause(self, seconds: float) -> None:
        """Sleep, unless the clock is stopping."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stop.wait(), seconds)

    async def _ticks(self) -> None:
        while not self._stop.is_set():
            try:
                now = now_ms()
                claimed, more, nxt = await self.store.claim_clock(now, self.lease_ms, BATCH)
                for key, name in claimed:
                    await self._limit.acquire()
                    self._spawn(self._handle(key, name, now + self.lease_ms))
                if more:
                    continue
                wait = self.poll if nxt is None else min(self.poll, (nxt - now_ms()) / 1000)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("clock look failed")
                wait = self.poll
            await self._pause(max(wait, 0.005))

    async def _handle(self, key: str, name: str, lease_end: int) -> None:
        try:
            result = await self.fire(name)
        except Exception:
            # Left on the clock: it comes due again when the lease ends.
            log.exception("clock member failed", extra={"room": name.split("|")[1]})
            return
        finally:
            self._limit.release()
        self.fired.append((name, result))
        await self.store.done(key, name, lease_end)

    async def fire(self, name: str) -> str:
        """Do what ``name`` stands for, if its moment has not passed: APPLIED or STALE."""
        kind, room_id, *rest = name.split("|")
        try:
            if kind == "bot":
                await self.bots.run(room_id, rescue=False)
                return APPLIED
            if kind == "idle":
                return await self._idle(name, room_id)
            if kind == "archive":
                done = await self.rooms.ending.archive_overdue(room_id, int(rest[0]))
                return APPLIED if done else STALE
            if kind == "quiet":  # the pusher decides whether the turn is still owed
                self.rooms.hooks.quiet_over(room_id, int(rest[0]))
                return APPLIED
            if kind == "unlist":
                return APPLIED if await self.rooms.listing.unlist_if_left(room_id) else STALE
            if kind == "grace":
                seat, dropped = int(rest[0]), rest[1]
                room = await self.rooms.get(room_id)
                if room.status != PLAYING:
                    return STALE  # in the lobby: armed again when the game starts
                if room.seats[seat].bot is not None:
                    return STALE  # an operator gave the seat to a bot meanwhile
                if room.paused_at is not None:
                    return await self._later(name)
                user = room.seats[seat].user
                presence = self.rooms.presence
                if not room.deadlines and user and await self.rooms.hooks.can_reach(user):
                    took = await presence.hold(room_id, seat, dropped)  # a slow game waits
                else:
                    took = await presence.take_over(room_id, seat, dropped)
                return APPLIED if took else STALE
            version = int(rest[0])
            result = await self._deadline(name, kind, room_id, version)
        except RoomError:
            return STALE  # the room is gone, over, or not there yet
        if result == APPLIED:
            log.info("deadline", extra={"room": room_id, "version": version, "kind": kind})
        return result

    async def _idle(self, name: str, room_id: str) -> str:
        """No human player connected since ``abandon_after_seconds``: abandon the game
        (exactly once: the claim, then the compare-and-set of ``abandon``)."""
        room = await self.rooms.get(room_id, presence=True)
        if room.status != PLAYING:
            return STALE
        if room.paused_at is not None:
            return await self._later(name)
        left = self._last_human_seen(room, await self.store.load_presence(room_id))
        if left is None:
            return STALE  # someone is back
        due = int((left + self.abandon_after) * 1000)
        if due > now_ms() + EARLY_MS:
            await self.store.reschedule(name, due)
            return LATER
        await self.rooms.ending.abandon(room_id, None, "idle")
        log.info("abandoned: nobody came back", extra={"room": room_id})
        return APPLIED

    async def _later(self, name: str) -> str:
        """The room's clocks are paused (an admin, server/admin/clocks.py): nothing fires;
        the member is looked at again a little later."""
        await self.store.reschedule(name, now_ms() + PAUSED_LOOK_MS)
        return LATER

    async def _deadline(self, name: str, kind: str, room_id: str, version: int) -> str:
        """A deadline of ``version``: the default for every seat that still owes. The
        room's own record of the deadline has the last word: a member that comes early (set
        by an attempt that was not the one written) is moved to the recorded time."""
        room = await self.rooms.get(room_id)
        if room.status != PLAYING or room.version != version or room.state is None:
            return STALE
        if room.paused_at is not None:
            return await self._later(name)  # the resume moves it to the time it had left
        game = room.game
        prompt = game.prompt(game.decode(room.state))
        due = room.deadline
        seal: dict[str, str] = {}
        if kind == "reveal":
            seal = await self.store.load_seal(room_id)
            due = int(seal["open_by"]) if seal.get("open_by") else None
        if due is None:
            return STALE
        if due > now_ms() + EARLY_MS:
            await self.store.reschedule(name, due)
            return LATER
        late = (now_ms() - due) / 1000
        applied = await self._defaults(kind, room_id, version, prompt, seal)
        if applied:
            self.store.metrics.clock_late(kind, late)
        return APPLIED if applied else STALE

    async def _defaults(
        self, kind: str, room_id: str, version: int, prompt: Any, seal: dict[str, str]
    ) -> bool:
        if kind == "move":
            if prompt.sealed:
                return False
            applied = False
            for seat in prompt.seats:  # several seats: one after the other
                if not await self.rooms.steps.play_default(room_id, seat, version):
                    break
                applied, version = True, version + 1
            return applied
        if not prompt.sealed:
            return False
        phase = phase_name(prompt, version)
        seal = seal or await self.store.load_seal(room_id)
        same = seal.get("phase") == phase
        owing: list[int] = []
        if kind == "commit":
            owing = [s for s in prompt.seats if not (same and f"c:{s}" in seal)]
        elif kind == "reveal" and same and seal.get("open") == "1":
            owing = [
                s
                for s in prompt.seats
                if f"r:{s}" not in seal and seal.get(f"c:{s}") not in (None, DEFAULT)
            ]
        applied = False
        for seat in owing:
            applied = await self.sealing.default(room_id, seat, phase) or applied
        return applied
