"""The archive queue: finished games' records on their way to Postgres.

A room's records go onto the archive stream of its room (``Keys.archive_of``); the archivers
(server/archive/archiver.py) read every stream, write the records and delete them."""

from __future__ import annotations

from typing import Any

from server.redis.part import StorePart


class ArchiveStore(StorePart):
    """Records queued for the archivers, and how many wait."""

    async def archive(self, room_id: str, record: bytes) -> None:
        """A record of the room's game onto the room's archive stream."""
        await self.wire.call("XADD", self.keys.archive_of(room_id), "*", "record", record)

    async def archive_backlog(self) -> tuple[int, int | None, int]:
        """The records not yet in Postgres, over every archive stream (the archivers delete
        each once written), when the oldest of them was added (epoch ms, None if none), and
        the records in the streams' dead letters."""
        commands: list[tuple[Any, ...]] = []
        for stream in self.keys.archive_streams:
            commands.append(("XLEN", stream))
            commands.append(("XRANGE", stream, "-", "+", "COUNT", 1))
            commands.append(("XLEN", self.keys.archive_dead(stream)))
        replies = await self.wire.many(*commands)
        length = sum(int(n) for n in replies[0::3])
        firsts = [int(f[0][0].split(b"-")[0]) for f in replies[1::3] if f]
        dead = sum(int(n) for n in replies[2::3])
        return length, (min(firsts) if firsts else None), dead
