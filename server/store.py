"""The only module that knows Redis key names (and, later, the Lua scripts).

Every key of one room carries the room's id as a hash tag, ``room:{ID}...``, so that a
Redis Cluster keeps a room on one shard and multi-key scripts stay legal. A prefix gives
tests (or several sites on one Redis) key spaces of their own.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Keys:
    prefix: str = ""

    def room(self, room_id: str) -> str:
        """Hash: version, engine id, options, seats, host, status, the state blob."""
        return f"{self.prefix}room:{{{room_id}}}"

    def log(self, room_id: str) -> str:
        """Stream: one entry per accepted step (replay and resume)."""
        return f"{self.prefix}room:{{{room_id}}}:log"

    def seal(self, room_id: str) -> str:
        """Hash: digests and openings of the sealed phase in progress."""
        return f"{self.prefix}room:{{{room_id}}}:seal"

    def channel(self, room_id: str) -> str:
        """Pub/sub channel: "version N is out"."""
        return f"{self.prefix}room:{{{room_id}}}"

    @property
    def clock(self) -> str:
        """Sorted set: room deadlines by time."""
        return f"{self.prefix}clock"

    @property
    def rooms_open(self) -> str:
        """Sorted set: public rooms waiting for players."""
        return f"{self.prefix}rooms:open"

    @property
    def archive(self) -> str:
        """Stream (with a consumer group): game records waiting for Postgres."""
        return f"{self.prefix}archive"

    archive_group: str = "archivers"
