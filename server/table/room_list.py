"""The public room list: what the lobby page shows and live-updates (``rooms`` frames).

A public room is in the list (a sorted set, ``list_score``) while it is in the lobby or
playing, and leaves it when its game is over; every change is published on the rooms
channel for the sockets watching the list.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from server.table.entry import Published, pack
from server.table.room import ABANDONED, FINISHED, LOBBY, Room, RoomError, RoomReader


class PublicList:
    """The list of public rooms, kept in order as rooms change."""

    def __init__(self, reader: RoomReader) -> None:
        self.reader = reader
        self.store = reader.store

    async def list_public(self, limit: int) -> list[dict[str, Any]]:
        out = []
        for room_id in await self.store.list_open(limit):
            try:
                room = await self.reader.get(room_id, presence=True)
            except RoomError:
                await self.store.set_open(room_id, None)
                continue
            out.append(room.summary(self.reader.base_url))
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
        payload = pack(Published(k="rooms", data=data))
        await self.store.publish(self.store.keys.rooms_channel, payload)


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
