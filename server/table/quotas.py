"""Per-user and per-address quotas: what one person may hold at once, so that
one guest cannot fill the site (rooms, the public list, guest identities).

- ``rooms``: rooms a user hosts that are not over (lobby or playing), at most
  ``max_open_rooms``. Kept in the user's ``hosted`` sorted set; a room that is gone (an
  idle lobby expired), finished or abandoned stops counting the next time it is counted.
- all-bot games: games under way where no seat holds a user (the host watches bots play),
  at most ``max_bot_games`` per host.
- guests: guest identities issued to one client address per clock hour, at most
  ``guests_per_hour`` (a counter in Redis, so every node counts together).

Every limit is a setting (server/settings.py); 0 turns one off.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import msgspec

from server import protocol as p
from server.redis.store import Store
from server.table.room import RoomError

OVER = (b"finished", b"abandoned")


@dataclass(frozen=True, slots=True)
class Limits:
    max_open_rooms: int = 5
    max_bot_games: int = 2
    guests_per_hour: int = 30


class Quotas:
    def __init__(self, store: Store, limits: Limits) -> None:
        self.store = store
        self.limits = limits

    async def _hosted(self, user_id: str) -> list[tuple[str, bytes, list[Any]]]:
        """The user's hosted rooms that are not over: (id, status, seats). Rooms gone or
        over are dropped from the set on the way."""
        rooms: list[tuple[str, bytes, list[Any]]] = []
        gone: list[str] = []
        for room_id, status, seats in await self.store.hosted_rooms(user_id):
            if status is None or seats is None or status in OVER:
                gone.append(room_id)
            else:
                rooms.append((room_id, status, msgspec.json.decode(seats)))
        if gone:
            await self.store.forget_hosted(user_id, gone)
        return rooms

    async def check_new_room(self, user_id: str) -> None:
        """Refuse (``too-many-rooms``) a new room while the user hosts ``max_open_rooms``,
        and (``lobby-locked``) any new room while an admin has locked the lobby."""
        if (why := await self.store.lobby_locked()) is not None:
            raise RoomError(p.LOBBY_LOCKED, f"no new rooms for now: {why}")
        limit = self.limits.max_open_rooms
        if limit and len(await self._hosted(user_id)) >= limit:
            raise RoomError(
                p.TOO_MANY_ROOMS,
                f"you host {limit} open rooms already: start, finish or abandon one first",
            )

    async def note_room(self, user_id: str, room_id: str) -> None:
        await self.store.note_hosted(user_id, room_id, time.time())

    async def check_bot_game(self, user_id: str, room_id: str, seats: list[Any]) -> None:
        """Refuse (``too-many-bot-games``) to start a game of bots only while the host has
        ``max_bot_games`` of them under way."""
        limit = self.limits.max_bot_games
        if not limit or any(s.get("user") for s in seats):
            return
        running = [
            r
            for r, status, seated in await self._hosted(user_id)
            if r != room_id and status == b"playing" and not any(s.get("user") for s in seated)
        ]
        if len(running) >= limit:
            raise RoomError(
                p.TOO_MANY_BOT_GAMES, f"you have {limit} games of bots only under way already"
            )

    async def take_guest(self, address: str) -> None:
        """Count one guest identity for ``address`` this hour; ``too-many-guests`` past it."""
        limit = self.limits.guests_per_hour
        if not limit:
            return
        hour = int(time.time() // 3600)
        if await self.store.count_guest(address, hour) > limit:
            raise RoomError(
                p.TOO_MANY_GUESTS, f"at most {limit} new guests an hour from one address"
            )
