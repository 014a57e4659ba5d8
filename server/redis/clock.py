"""The clock's buckets: deadlines, grace expiries and bot moves, each due at its score.

``claim`` takes the due members of one sorted set atomically and leases them (their score
moves to the end of the lease), so exactly one node handles a member at a time, and a member
whose claimer died comes due again; every node claims from every bucket (server/realtime/
clock.py). The same claim finds dead nodes in ``nodes`` (server/redis/nodes.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, cast

from server.redis.lua import Lua
from server.redis.part import StorePart, decoded

CLAIM = Lua.load("claim")
CLAIM_CLOCK = Lua.load("claim_clock")
DONE = Lua.load("done")
TAKE = Lua.load("take")


class ClockStore(StorePart):
    """Clock members scheduled, moved, claimed, taken and done with."""

    async def schedule(self, name: str, due_ms: int, *, key: str | None = None) -> bool:
        """Add a clock member due at ``due_ms``, unless it is there already (then its
        time stays: a deadline is set once). True if added."""
        bucket = key or self.keys.clock_of(name)
        return bool(await self.wire.call("ZADD", bucket, "NX", due_ms, name))

    async def schedule_many(self, members: Sequence[tuple[str, int]]) -> None:
        """Add several clock members (each unless there already), one command per bucket
        (the members of one room: one command)."""
        by_bucket: dict[str, list[str | int]] = {}
        for name, due in members:
            by_bucket.setdefault(self.keys.clock_of(name), []).extend((due, name))
        for key, pairs in by_bucket.items():
            await self.wire.call("ZADD", key, "NX", *pairs, key=key)

    async def reschedule(self, name: str, due_ms: int) -> None:
        """Move a member (claimed or not) to ``due_ms``; nothing if it is gone."""
        await self.wire.call("ZADD", self.keys.clock_of(name), "XX", due_ms, name)

    async def unschedule(self, name: str) -> None:
        await self.wire.call("ZREM", self.keys.clock_of(name), name)

    async def claim(self, key: str, now_ms: int, lease_ms: int, limit: int) -> list[str]:
        """Due members of ``key`` (clock or nodes), leased to the caller until
        ``now_ms + lease_ms``."""
        raw: Any = await self._run(CLAIM, [key], [now_ms, now_ms + lease_ms, limit])
        return [cast(str, decoded(x)) for x in raw]

    async def claim_clock(
        self, now_ms: int, lease_ms: int, limit: int
    ) -> tuple[list[tuple[str, str]], bool, int | None]:
        """The due members of every clock bucket, each leased to the caller until
        ``now_ms + lease_ms`` (as ``claim``), as (bucket, member); whether some bucket had
        more than ``limit`` due (look again at once); and when the earliest member left is
        due (epoch ms; None: the clock is empty). One round trip on one Redis; on a cluster
        one per bucket, all at once (each on its own primary's connection)."""
        buckets = self.keys.clock_buckets
        args = [now_ms, now_ms + lease_ms, limit]
        if self.sharded:
            parts: list[Any] = await asyncio.gather(
                *(self._run(CLAIM_CLOCK, [key], args) for key in buckets)
            )
            claimed = [part[0] for part in parts]
            firsts = [part[1] for part in parts]
        else:
            reply: Any = await self._run(CLAIM_CLOCK, list(buckets), args)
            claimed, firsts = reply[:-1], [reply[-1]]
        names = [[cast(str, decoded(x)) for x in part] for part in claimed]
        found = [(key, name) for key, part in zip(buckets, names, strict=True) for name in part]
        dues = [int(float(cast(str, decoded(x)))) for x in firsts if decoded(x)]
        return found, any(len(part) >= limit for part in names), min(dues, default=None)

    async def take(self, name: str, latest_ms: int, lease_end: int) -> bool:
        """Lease the clock member ``name`` to the caller until ``lease_end`` if its score is
        still at most ``latest_ms`` (nobody claimed it). True if taken; ``done`` removes it."""
        key = self.keys.clock_of(name)
        return bool(await self._run(TAKE, [key], [name, latest_ms, lease_end]))

    async def done(self, key: str, name: str, lease_end: int) -> None:
        """Remove a claimed member (unless re-armed or claimed again since)."""
        await self._run(DONE, [key], [name, lease_end])
