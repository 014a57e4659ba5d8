"""Who is in a room: each socket's presence (a player's seat, or a spectator), a seat's
last socket leaving (its grace time starts) and, past the grace, the seat taken over by
the room's ``absent`` player -- or, in a slow game whose player a push reaches, held for
them (server/table/deadlines.py). Every change is published as a ``presence`` frame.
"""

from __future__ import annotations

import logging
import time

from server import protocol as p
from server.redis.store import Store
from server.table.entry import Published, pack
from server.table.room import (
    PLAYING,
    Hooks,
    Room,
    RoomError,
    check_host,
    check_seat,
    is_socket,
    seats_held,
    seats_present,
)

log = logging.getLogger("tortuga.rooms")


class Presence:
    """Sockets arriving in and leaving rooms, and seats taken over."""

    def __init__(self, store: Store, hooks: Hooks) -> None:
        self.store = store
        self.hooks = hooks

    async def arrive(self, room_id: str, conn_id: str, seat: int | None) -> None:
        await self.store.presence(room_id, conn_id, seat, joining=True, at=time.time())
        await self.presence_changed(room_id)

    async def depart(self, room_id: str, conn_id: str, seat: int | None) -> None:
        """A socket left (or its node was found dead). When it was the seat's last one the
        seat's grace time starts: ``on_seat_dropped`` hooks run with the time."""
        at = time.time()
        left = await self.store.presence(room_id, conn_id, seat, joining=False, at=at)
        if left < 0:
            return  # already gone: a second reaper, or the reaper came first
        if seat is not None and left == 0:
            log.info("seat dropped", extra={"room": room_id, "seat": seat})
            self.hooks.seat_dropped(room_id, seat, at)
        await self.presence_changed(room_id)

    async def take_over(self, room_id: str, seat: int, drop_stamp: str) -> bool:
        """The grace time of ``seat`` (dropped at ``drop_stamp``) is over: from now on the
        room's ``absent`` player (a bot, or the default move) plays it until its player
        returns. False if the player came back (or the seat was taken over already)."""
        if not await self.store.mark_away(room_id, seat, drop_stamp, time.time()):
            return False
        log.info("seat taken over", extra={"room": room_id, "seat": seat})
        await self.presence_changed(room_id)
        self.hooks.turn(room_id)
        return True

    async def hold(self, room_id: str, seat: int, drop_stamp: str) -> bool:
        """The grace time of ``seat`` is over in a slow game whose player a push reaches:
        the table waits for them (no stand-in), everyone sees it (``presence.held``) and
        the ``on_seat_held`` hooks tell the player. False if the player came back (or the
        seat was held or taken over already)."""
        if not await self.store.mark_away(room_id, seat, drop_stamp, time.time(), "held"):
            return False
        log.info("seat held", extra={"room": room_id, "seat": seat})
        await self.presence_changed(room_id)
        self.hooks.seat_held(room_id, seat)
        return True

    async def stand_in(self, room: Room, user_id: str, seat: int) -> None:
        """The host lets the room's stand-in play ``seat``, which a slow game waits for
        (``hold``): taken over from now on, as after the grace time in a room with
        deadlines, until its player comes back. Without it a table whose other players stay
        would wait for the seat with no end but the host's abandon."""
        check_host(room, user_id)
        check_seat(room, seat)
        if room.status != PLAYING:
            raise RoomError(p.GAME_NOT_STARTED, "no game is under way")
        if not await self.store.stand_in(room.id, seat, time.time()):
            raise RoomError(p.SEAT_NOT_HELD, f"the table does not wait for seat {seat}")
        log.info("seat given to its stand-in", extra={"room": room.id, "seat": seat})
        await self.presence_changed(room.id)
        self.hooks.turn(room.id)

    async def presence_changed(self, room_id: str) -> None:
        seen = await self.store.load_presence(room_id)
        connected, away = seats_present(seen)
        watchers = sum(1 for k, v in seen.items() if is_socket(k) and v == "-")
        data = {
            "connected": sorted(connected),
            "watchers": watchers,
            "away": sorted(away),
            "held": sorted(seats_held(seen)),
        }
        payload = pack(Published(k="presence", room=room_id, data=data))
        await self.store.publish(self.store.keys.channel(room_id), payload)
