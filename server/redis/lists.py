"""The site's lists of rooms: the public list, the lobby's lock, the console's every room."""

from __future__ import annotations

from typing import cast

from server.redis.part import StorePart, decoded


class ListStore(StorePart):
    """The public room list (``rooms_open``) and the admin's views over every room."""

    async def list_open(self, limit: int) -> list[str]:
        raw = await self.wire.call("ZREVRANGE", self.keys.rooms_open, 0, limit - 1)
        return [x.decode() for x in raw]

    async def set_open(self, room_id: str, score: float | None) -> bool:
        """List ``room_id`` at ``score``, or (None) take it off the list: whether it was
        added (not listed before) or taken off (listed before)."""
        if score is None:
            return bool(await self.wire.call("ZREM", self.keys.rooms_open, room_id))
        return bool(await self.wire.call("ZADD", self.keys.rooms_open, repr(float(score)), room_id))

    async def lobby_locked(self) -> str | None:
        """The reason the lobby is locked, or None when rooms may be created."""
        return decoded(await self.wire.call("GET", self.keys.lobby_lock))

    async def lock_lobby(self, reason: str | None) -> None:
        """Lock the lobby (``reason``) or unlock it (None)."""
        if reason is None:
            await self.wire.call("DEL", self.keys.lobby_lock)
        else:
            await self.wire.call("SET", self.keys.lobby_lock, reason)

    async def all_room_ids(self, limit: int) -> list[str]:
        """Every room with a hash in Redis (private ones too), at most ``limit``, by a
        SCAN: the admin console's list, not a hot path."""
        pattern = f"{self.keys.prefix}room:{{*}}"
        found: set[str] = set()
        async for raw in self.redis.scan_iter(match=pattern, count=500):
            name = cast(str, decoded(raw))
            if name.endswith("}"):  # the room hash, not its log, seal, presence or chat
                found.add(name[name.index("{") + 1 : -1])
                if len(found) >= limit:
                    break
        return sorted(found)

    async def room_statuses(self, limit: int) -> dict[str, int]:
        """How many rooms are in each status (lobby, playing, finished, abandoned), over
        every room with a hash in Redis (at most ``limit``): ``/metrics``, once a scrape."""
        ids = await self.all_room_ids(limit)
        counts: dict[str, int] = {}
        replies = await self.wire.many(*(("HGET", self.keys.room(i), "status") for i in ids))
        for status in replies:
            if status is not None:
                name = cast(str, decoded(status))
                counts[name] = counts.get(name, 0) + 1
        return counts
