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

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.redis.lua import Lua
from server.redis.part import StorePart, decoded

CLAIM = Lua.load("claim")
CLAIM_CLOCK = Lua.load("claim_clock")
DONE = Lua.load("done")
TAKE = Lua.load("take")

# A step's clock members go elsewhere when their bucket's Redis does not answer in this long.
ELSEWHERE_SECONDS = 0.5
# The buckets tried after a member's own, in order: the far half of the slot space first
# (most likely another primary), then the quarters between (8 buckets, ``CLOCK_BUCKETS``).
ELSEWHERE_ORDER = (0, 4, 2, 6, 1, 5, 3, 7)


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
            await self._add(key, pairs)

    async def _add(self, key: str, pairs: list[str | int]) -> None:
        """ZADD NX ``pairs`` to bucket ``key`` -- or, when its Redis does not answer within
        ``ELSEWHERE_SECONDS`` (a Redis Cluster primary down, its replica not promoted yet),
        to another bucket, most likely on another primary: every node's clock claims from
        every bucket, so a member fires wherever it is, and a step whose room is on a live
        primary does not wait for a dead one. A copy the first try still adds later (its
        retry) fires too, and finds itself stale, as every member that fired once does."""
        buckets = self.keys.clock_buckets
        if key not in buckets:
            await self.wire.call("ZADD", key, "NX", *pairs, key=key)
            return
        home = buckets.index(key)
        for step in ELSEWHERE_ORDER[:-1]:
            bucket = buckets[(home + step) % len(buckets)]
            try:
                async with asyncio.timeout(ELSEWHERE_SECONDS):
                    await self.wire.call("ZADD", bucket, "NX", *pairs, key=bucket)
                return
            except (TimeoutError, RedisConnectionError, RedisTimeoutError):
                continue
        last = buckets[(home + ELSEWHERE_ORDER[-1]) % len(buckets)]
        await self.wire.call("ZADD", last, "NX", *pairs, key=last)  # the wire's own retries

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
