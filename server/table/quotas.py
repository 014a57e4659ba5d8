"""Per-user and per-address quotas: what one person may hold at once, so that
one guest cannot fill the site (rooms, the public list, guest identities).

- ``rooms``: rooms a user hosts that are not over (lobby or playing), at most
  ``max_open_rooms``. Kept in the user's ``hosted`` sorted set.
- public rooms per address: public rooms not over made from one client address (its keyed
  hash), at most ``max_public_per_address``, so that many guests from one address cannot
  fill the public list. Kept in the address's ``public`` sorted set.
- all-bot games: games under way where no seat holds a user (the host watches bots play),
  at most ``max_bot_games`` per host. Kept in the user's ``bot-games`` sorted set.
- guests: guest identities issued to one client address per clock hour, at most
  ``guests_per_hour`` (a counter in Redis, so every node counts together).

A place is checked and taken in one step (``Store.hold_room``, one Lua script on the set):
requests at once cannot all pass a check made before any of them was noted. The rooms of a
set that are over, or gone (an idle lobby expired), are found by reading them first and
dropped in that same step. A room noted but not made yet (a create or start under way)
(or a game not started yet) still counts for ``PENDING`` seconds.

Every limit is a setting (server/settings.py); 0 turns one off.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec

from server import protocol as p
from server.redis.store import Store
from server.table.room import RoomError

OVER = (b"finished", b"abandoned")
LOBBY = b"lobby"
PENDING = 60.0  # seconds: a room noted but not made (or started) yet counts this long
ADDRESS_TTL = 8 * 24 * 3600  # seconds: an address's set outlives its rooms, then goes


@dataclass(frozen=True, slots=True)
class Limits:
    max_open_rooms: int = 5
    max_bot_games: int = 2
    guests_per_hour: int = 30
    max_public_per_address: int = 20


def _humans(seats: list[Any]) -> bool:
    return any(s.get("user") for s in seats)


class Quotas:
    def __init__(self, store: Store, limits: Limits) -> None:
        self.store = store
        self.limits = limits

    async def _hold(
        self,
        key: str,
        room_id: str,
        limit: int,
        counts: Callable[[bytes, list[Any]], bool],
        ttl: int = 0,
    ) -> bool:
        """Take a place for ``room_id`` in the quota set ``key`` if fewer than ``limit``
        rooms there still count (``counts(status, seats)``; a room not made yet, or still in
        the lobby, counts for ``PENDING`` seconds after it was noted: a create or a start
        under way). Those that do not are dropped in the same step."""
        now = time.time()
        gone: list[str] = []
        for held, at, status, seats in await self.store.held_rooms(key):
            if held == room_id:
                continue
            if (status is None or status == LOBBY) and now - at <= PENDING:
                continue  # a create or a start under way
            if status is None or seats is None or not counts(status, msgspec.json.decode(seats)):
                gone.append(held)
        return await self.store.hold_room(key, room_id, now, limit, gone, ttl)

    async def take_room(self, user_id: str, room_id: str, address: str | None) -> None:
        """Take the new room's places: one of the host's ``max_open_rooms`` (else
        ``too-many-rooms``) and, for a public room, one of its address's
        ``max_public_per_address`` (``address``: the client address's keyed hash; else
        ``too-many-public-rooms``). Refused: nothing is held."""
        keys = self.store.keys
        limit = self.limits.max_open_rooms
        if limit and not await self._hold(
            keys.user_hosted(user_id), room_id, limit, lambda status, _: status not in OVER
        ):
            raise RoomError(
                p.TOO_MANY_ROOMS,
                f"you host {limit} open rooms already: start, finish or abandon one first",
            )
        public = self.limits.max_public_per_address
        if address is None or not public:
            return
        if not await self._hold(
            keys.address_public(address),
            room_id,
            public,
            lambda status, _: status not in OVER,
            ADDRESS_TTL,
        ):
            await self.release_room(user_id, room_id, None)
            raise RoomError(
                p.TOO_MANY_PUBLIC_ROOMS,
                f"{public} public rooms from this address are open already: "
                "make a private room, or wait for one to end",
            )

    async def release_room(self, user_id: str, room_id: str, address: str | None) -> None:
        """Give back the places ``take_room`` took for a room that was not made."""
        await self.store.release_room(self.store.keys.user_hosted(user_id), room_id)
        if address is not None:
            await self.store.release_room(self.store.keys.address_public(address), room_id)

    async def check_new_room(self) -> None:
        """Refuse (``lobby-locked``) any new room while an admin has locked the lobby."""
        if (why := await self.store.lobby_locked()) is not None:
            raise RoomError(p.LOBBY_LOCKED, f"no new rooms for now: {why}")

    async def take_bot_game(self, user_id: str, room_id: str, seats: list[Any]) -> bool:
        """Take a place among the host's ``max_bot_games`` games of bots only under way for
        a start with no user seated; refuse (``too-many-bot-games``) when they are all
        taken. True if a place was taken (``release_bot_game`` if the start fails)."""
        limit = self.limits.max_bot_games
        if not limit or _humans(seats):
            return False

        def counts(status: bytes, seated: list[Any]) -> bool:
            return status == b"playing" and not _humans(seated)

        key = self.store.keys.user_bot_games(user_id)
        if not await self._hold(key, room_id, limit, counts):
            raise RoomError(
                p.TOO_MANY_BOT_GAMES, f"you have {limit} games of bots only under way already"
            )
        return True

    async def release_bot_game(self, user_id: str, room_id: str) -> None:
        await self.store.release_room(self.store.keys.user_bot_games(user_id), room_id)

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
