"""Node heartbeats and the reaping of dead nodes.

Presence survives node death through heartbeats: every node instance scores itself in
``Keys.nodes`` with the time its heartbeat expires (``node_ttl_seconds`` ahead, refreshed
every ``heartbeat_seconds``). A claim like the clock's (server/table/deadlines.py) finds
instances past their time; the claimer drops their sockets from every room they were in
(``node:<instance>:rooms``) as if each had closed, so their seats start the grace period.
A node that finds itself reaped while alive (it stalled) announces its sockets again. Each
heartbeat also says what the node is (its version, when it started, its socket and room
counts: ``node:<instance>:info``); that stays ``DEAD_NODE_SHOWN`` after the last beat, so
the admin console shows a dead node as dead.

The heartbeat also asks the table's clock, every ``sweep_seconds``, to re-arm the rooms
this node has sockets in (``Clock.sweep``): what a node that died between two writes left
undone. A game this node itself moved within that time, at a table whose every seat is a
player with a socket here, is left out (``moving_here``): each of its steps put its own
deadline on the clock before it was written, nothing of it waits on another node, and if
it stops moving it is in the next sweep. At 5,000 tables the sweep read 500 rooms a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING

from server.ops.version import version
from server.table.room import now_ms
from server.table.rooms import RoomService

if TYPE_CHECKING:
    from server.realtime.connection import Connection
    from server.realtime.hub import Hub
    from server.settings import Settings
    from server.table.deadlines import Clock

log = logging.getLogger("tortuga.clock")

NODE_ROOMS_KEEP = 24 * 3600  # seconds a node's room index outlives its last heartbeat
DEAD_NODE_SHOWN = 3600  # seconds the console still shows a node after its last heartbeat
REAPED_PER_LOOK = 10  # dead nodes claimed per heartbeat


class Heartbeat:
    def __init__(self, rooms: RoomService, clock: Clock, hub: Hub, settings: Settings) -> None:
        self.rooms = rooms
        self.clock = clock
        self.hub = hub
        self.store = rooms.store
        self.keys = rooms.store.keys
        self.instance = hub.instance
        self.node_id = settings.node_id
        self.started_ms = now_ms()
        self.lease_ms = int(settings.clock_lease_seconds * 1000)
        self.beat = settings.heartbeat_seconds
        self.ttl_ms = int(settings.node_ttl_seconds * 1000)
        self.sweep_ms = int(settings.sweep_seconds * 1000)
        self._loop: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()

    # -- life -------------------------------------------------------------------------------
    async def start(self) -> None:
        """Announce this node (before it serves a socket) and start beating."""
        await self._heartbeat()
        self._loop = asyncio.create_task(self._beats(), name="heartbeat")

    async def close(self) -> None:
        """Stop beating; this node's sockets (if any are left) leave, its heartbeat goes.

        The loop stops on an event, not by cancellation alone: a cancel that lands inside a
        Redis call can be swallowed by the client library, and the loop would go on."""
        self._stop.set()
        if self._loop is not None:
            _, late = await asyncio.wait([self._loop], timeout=5)
            for task in late:
                task.cancel()
        try:
            await self._reap(self.instance)  # their grace times start (on the clock)
            await self.store.forget_node(self.instance)
        except Exception:
            log.exception("could not sign off", extra={"conn": self.instance})

    async def _pause(self, seconds: float) -> None:
        """Sleep, unless the heartbeat is stopping."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stop.wait(), seconds)

    # -- heartbeats and dead nodes ----------------------------------------------------------
    def _info(self, now: int) -> dict[str, str]:
        """What this node says of itself in each heartbeat (the admin console's nodes)."""
        self.store.metrics.rooms_followed(len(self.hub.by_room))
        return {
            "node": self.node_id,
            "version": version(),
            "started_ms": str(self.started_ms),
            "beat_ms": str(now),
            "sockets": str(sum(self.hub.sockets_of.values())),
            "rooms": str(len(self.hub.by_room)),
        }

    async def _heartbeat(self) -> None:
        now = now_ms()
        known = await self.store.heartbeat(
            self.instance,
            now + self.ttl_ms,
            NODE_ROOMS_KEEP + int(self.ttl_ms / 1000),
            self._info(now),
            now_ms=now,
            shown_seconds=DEAD_NODE_SHOWN,
        )
        if not known and self._loop is not None:
            # Taken for dead while alive (a stall): its sockets were dropped; say they are here.
            log.warning("node was reaped while alive", extra={"conn": self.instance})
            await self.hub.announce_all()

    async def _beats(self) -> None:
        swept = now_ms()
        while not self._stop.is_set():
            try:
                await self._heartbeat()
                # A safety net for what a node that died between two writes left undone (a
                # reveal deadline, a bot's turn): any room with a socket here.
                if now_ms() - swept >= self.sweep_ms and self.clock.sweep(self._to_sweep()):
                    swept = now_ms()
                now = now_ms()
                dead = await self.store.claim(self.keys.nodes, now, self.lease_ms, REAPED_PER_LOOK)
                for instance in dead:
                    if instance == self.instance:
                        continue  # late ourselves; the next heartbeat takes it back
                    await self._reap(instance)
                    await self.store.forget_node(instance, lease_end=now + self.lease_ms)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("heartbeat failed")
            await self._pause(self.beat)

    def _to_sweep(self) -> list[str]:
        """The rooms with a socket here, but those ``moving_here``."""
        now = now_ms()
        return [r for r, conns in self.hub.by_room.items() if not self.moving_here(r, conns, now)]

    def moving_here(self, room_id: str, conns: Iterable[Connection], now: int) -> bool:
        """Whether this node wrote a step of ``room_id`` within the last ``sweep_seconds``
        (its memory of the room: ``Steps.written``) and every seat of it is a player (no
        bot, none taken over or held) with a socket following the room here: nothing of
        the game then rests on a node that may have died (its openings, drops and steps
        all come through this node)."""
        room = self.rooms.steps.written(room_id)
        if room is None or room.active_at is None or now - room.active_at >= self.sweep_ms:
            return False
        if room.away or room.held or any(s.user is None or s.bot is not None for s in room.seats):
            return False
        here = {c.seat for c in conns if c.room_id == room_id}
        return all(seat in here for seat in range(len(room.seats)))

    async def _reap(self, instance: str) -> None:
        """Every socket of ``instance`` leaves its room (a dead node's, or ours at stop)."""
        prefix = f"{instance}:"
        dropped = 0
        for room_id in await self.store.node_room_ids(instance):
            seen = await self.store.load_presence(room_id)
            for conn_id, value in seen.items():
                if conn_id.startswith(prefix):
                    seat = None if value == "-" else int(value)
                    await self.rooms.presence.depart(room_id, conn_id, seat)
                    dropped += 1
        if instance != self.instance:
            log.warning(f"dead node reaped ({dropped} sockets)", extra={"conn": instance})
