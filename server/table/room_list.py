"""The public room list: what the lobby page shows and live-updates (``rooms`` frames).

A public room is in the list (a sorted set, ``list_score``) while it is in the lobby or
playing, and leaves it when its game is over; every change is published on the rooms
channel for the sockets watching the list.

A public lobby whose host left (no socket of theirs in it for ``host_away`` seconds) is
nobody's table to join -- only the host can start it -- so it leaves the list too: when the
clock's ``unlist`` member finds it so (set when a seat's last socket leaves), or when the
list is read (a host who never opened the room). Its link still works, and it is listed
again when the host comes back (``returned``: the clock's look at a room a socket joined).
"""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

from server.table.entry import Published, pack
from server.table.room import (
    ABANDONED,
    FINISHED,
    LOBBY,
    Room,
    RoomReader,
    is_socket,
    parse_room,
)

LOOKS = 4  # reads of the list at most, each after dropping lobbies found left by their host


class PublicList:
    """The list of public rooms, kept in order as rooms change."""

    def __init__(self, reader: RoomReader, *, host_away: float = 0.0) -> None:
        self.reader = reader
        self.store = reader.store
        self.host_away = host_away

    async def list_public(self, limit: int) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for _ in range(LOOKS):
            out, dropped = [], []
            for room_id in await self.store.list_open(limit):
                raw, seen = await self.store.load_room_and_presence(room_id)
                if raw is None or "engine" not in raw:
                    await self.store.set_open(room_id, None)
                    continue
                room = parse_room(raw, seen)
                if self._left(room, seen, time.time()):
                    await self.store.set_open(room_id, None)
                    dropped.append(room_id)
                    continue
                out.append(room.summary(self.reader.base_url))
            if not dropped:
                break
            # Those places in the list go to the rooms after them: read it again.
            await self._publish({"removed": dropped})
        return out

    async def changed(self, room: Room) -> None:
        """``room`` changed: its place in the list (or its leaving it), and the news."""
        if not room.public:
            return
        if room.status in (FINISHED, ABANDONED):
            await self.store.set_open(room.id, None)
            data: dict[str, Any] = {"removed": [room.id]}
        else:
            await self.store.set_open(room.id, list_score(room))
            data = {"changed": [room.summary(self.reader.base_url)]}
        await self._publish(data)

    async def unlist_if_left(self, room_id: str) -> bool:
        """The clock's ``unlist`` member: take the public lobby off the list if its host has
        been away long enough (the pages watching the list are told). Whether it did."""
        raw, seen = await self.store.load_room_and_presence(room_id)
        if raw is None or "engine" not in raw:
            return False
        room = parse_room(raw, seen)
        if not self._left(room, seen, time.time()):
            return False
        if await self.store.set_open(room_id, None):
            await self._publish({"removed": [room_id]})
        return True

    async def returned(self, room: Room) -> None:
        """A socket is in ``room`` (read with its presence): a public lobby whose host is
        back is listed again, and the pages watching the list are told."""
        if not room.public or room.status != LOBBY or self.host_away <= 0:
            return
        seat = room.seat_of(room.host)
        if seat is None or seat not in room.connected:
            return
        if await self.store.set_open(room.id, list_score(room)):
            await self._publish({"changed": [room.summary(self.reader.base_url)]})

    def _left(self, room: Room, seen: dict[str, str], now: float) -> bool:
        """A public lobby whose host has been away ``host_away`` seconds or more."""
        if self.host_away <= 0 or not room.public or room.status != LOBBY:
            return False
        since = host_away_since(room, seen)
        return since is not None and now - since >= self.host_away

    async def _publish(self, data: dict[str, Any]) -> None:
        payload = pack(Published(k="rooms", data=data))
        await self.store.publish(self.store.keys.rooms_channel, payload)


def host_away_since(room: Room, seen: dict[str, str]) -> float | None:
    """When the host of a lobby left it (epoch seconds), or None while they are in it: the
    host's seat has no socket since its last one left (``drop:<seat>``); a host who never
    opened the room, or holds no seat and left it empty, since the room last changed."""
    seat = room.seat_of(room.host)
    if seat is not None:
        if seat in room.connected:
            return None
        if dropped := seen.get(f"drop:{seat}"):
            return float(dropped)
    elif any(is_socket(k) for k in seen):
        return None
    if room.active_at is not None:
        return room.active_at / 1000
    return dt.datetime.fromisoformat(room.created_at).timestamp() if room.created_at else None


def list_score(room: Room) -> float:
    """A public room's place in the list (highest first): rooms where humans wait for
    players (in the lobby, a human seated, a seat free) first, then games under way, then
    other lobbies (nobody seated yet, bots only, or full); newest first within each."""
    created = dt.datetime.fromisoformat(room.created_at).timestamp() if room.created_at else 0
    if room.status == LOBBY:
        humans = any(s.user is not None for s in room.seats)
        waiting = humans and any(s.empty for s in room.seats)
        tier = 2 if waiting else 0
    else:
        tier = 1
    return tier * 1e10 + created
