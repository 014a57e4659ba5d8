"""What every part of the store shares: the Redis it talks to, and how replies are read.

The store (server/redis/store.py) is one class made of a part per kind of data (rooms,
seals, presence, ...), each in a module of its own; they all stand on ``StorePart``.
"""

from __future__ import annotations

from collections.abc import Coroutine, Mapping, Sequence
from typing import Any

from redis.asyncio.cluster import RedisCluster

from server.ops.metrics import NodeMetrics
from server.redis.keys import Keys
from server.redis.lua import Lua
from server.redis.pool import Client
from server.redis.wire import Wire


class StorePart:
    """Reads and atomic writes over the ``wire`` (server/redis/wire.py: pipelined, one
    connection per Redis server, routed by key on a cluster). redis-py's client (``redis``,
    server/redis/pool.py) names the same Redis for what the wire does not do: the admin's
    ``SCAN`` of every room. (The archiver's blocking stream reads and transactions and the
    hub's pub/sub use it too, outside the store.)"""

    def __init__(
        self, redis: Client, wire: Wire, keys: Keys, metrics: NodeMetrics | None = None
    ) -> None:
        self.redis = redis
        self.wire = wire
        self.keys = keys
        # This node's series (server/ops/metrics.py): every module that counts reaches it here.
        self.metrics = metrics if metrics is not None else NodeMetrics("")
        self.sharded = isinstance(redis, RedisCluster)

    def _run(self, lua: Lua, keys: Sequence[Any], args: Sequence[Any]) -> Coroutine[Any, Any, Any]:
        """Run one of the store's scripts (its room publications sharded on a cluster). A
        plain function handing back the wire's own coroutine: no frame more per call."""
        return self.wire.run(lua.sharded if self.sharded else lua.plain, keys, args)


def pairs(reply: Any) -> dict[str, bytes]:
    """A raw ``HGETALL`` reply (field, value, field, value, ...) as a dict."""
    it = iter(reply)
    return {k.decode(): v for k, v in zip(it, it, strict=True)}


def text_pairs(reply: Any) -> dict[str, str]:
    """``pairs`` with the values decoded too."""
    it = iter(reply)
    return {k.decode(): v.decode() for k, v in zip(it, it, strict=True)}


def flat(fields: Mapping[str, Any]) -> list[Any]:
    """A mapping as the field, value, field, value ... of ``HSET``."""
    return [x for item in fields.items() for x in item]


def decoded(value: bytes | str | None) -> str | None:
    """A raw reply's text (None stays None)."""
    if value is None:
        return None
    return value.decode() if isinstance(value, bytes) else value
