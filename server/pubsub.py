"""The hub's subscriptions: the site-wide channels and the channels of the rooms it follows.

``subscriber(redis)`` gives the hub one object with the same small surface for both shapes
of Redis (server/redis_pool.py):

- one Redis: one pub/sub connection, classic ``SUBSCRIBE`` for every channel;
- a Redis Cluster: a room's channel is a *sharded* channel (``SSUBSCRIBE`` on the primary
  that owns the room's slot, which is where the room's scripts ``SPUBLISH``), so the hub
  holds one pub/sub connection per primary it follows rooms on; the site-wide channels
  are classic pub/sub (a ``PUBLISH`` reaches every node of a cluster) on one more
  connection. A task per connection moves what arrives into one inbox, renamed to the
  classic message kinds (``smessage`` -> ``message``, ``ssubscribe`` -> ``subscribe``),
  so the hub reads one stream of messages either way.

When a slot moves to another primary (resharding, a failover), Redis ends the
subscriptions of its channels (an ``sunsubscribe`` the hub did not ask for) or the
connection fails: the subscriber reads the slot map again and subscribes on the new owner.
The hub is told ``subscribe`` again, as after a reconnect, and catches its sockets up from
the rooms' logs (server/hub.py): what was published in between is not lost to a player.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, Protocol

import redis.asyncio as aioredis
from redis.asyncio.client import PubSub
from redis.asyncio.cluster import RedisCluster

from server.redis_pool import Client

log = logging.getLogger("tortuga.pubsub")

# Seconds a channel dropped by its old owner waits for the slot map to name the new one.
MOVE_WAIT = 10.0

Message = dict[str, Any]


class Subscriber(Protocol):
    async def subscribe(self, *channels: str) -> None:
        """Site-wide channels (the room list, sign-outs)."""

    async def follow(self, channel: str) -> None:
        """A room's channel."""

    async def unfollow(self, channel: str) -> None: ...

    async def get_message(self, timeout: float) -> Message | None:
        """The next message (``subscribe`` or ``message``), or None after ``timeout``."""

    async def aclose(self) -> None: ...


def subscriber(redis: Client) -> Subscriber:
    if isinstance(redis, RedisCluster):
        return ShardedSubscriber(redis)
    return PlainSubscriber(redis)


class PlainSubscriber:
    """One pub/sub connection to one Redis (redis-py subscribes again after a reconnect)."""

    def __init__(self, redis: aioredis.Redis) -> None:
        self.pubsub = redis.pubsub()

    async def subscribe(self, *channels: str) -> None:
        await self.pubsub.subscribe(*channels)

    async def follow(self, channel: str) -> None:
        await self.pubsub.subscribe(channel)

    async def unfollow(self, channel: str) -> None:
        await self.pubsub.unsubscribe(channel)

    async def get_message(self, timeout: float) -> Message | None:
        message: Message | None = await self.pubsub.get_message(timeout=timeout)
        return message

    async def aclose(self) -> None:
        await self.pubsub.aclose()  # type: ignore[no-untyped-call]


_KINDS = {"smessage": "message", "ssubscribe": "subscribe"}


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class ShardedSubscriber:
    """Room channels sharded on their primaries, site-wide channels classic (see above)."""

    def __init__(self, cluster: RedisCluster) -> None:
        self.cluster = cluster
        self.inbox: asyncio.Queue[Message] = asyncio.Queue()
        self.wanted: set[str] = set()  # the room channels followed
        self.owner: dict[str, str] = {}  # room channel -> the primary it is subscribed on
        self._shards: dict[str, PubSub] = {}  # primary -> its pub/sub connection
        self._site: PubSub | None = None
        self._site_channels: tuple[str, ...] = ()
        self._site_node = ""
        self._pumps: dict[str, asyncio.Task[None]] = {}
        self._lock = asyncio.Lock()
        self._moving: set[asyncio.Task[None]] = set()

    def _connect(self, name: str) -> PubSub:
        """A pub/sub connection of its own to the cluster node ``name`` (host:port)."""
        node = self.cluster.get_node(node_name=name)
        if node is None:
            raise ConnectionError(f"no cluster node {name}")
        kwargs = node.connection_kwargs
        pool = aioredis.ConnectionPool(connection_class=node.connection_class, **kwargs)
        return aioredis.Redis(connection_pool=pool).pubsub()

    async def _owner_of(self, channel: str) -> str:
        """The primary that owns ``channel``'s slot, by the slot map this client has."""
        await self.cluster.initialize()  # once: the first command reads the slot map
        node = self.cluster.get_node_from_key(channel)
        if node is None:
            raise ConnectionError(f"no cluster node serves {channel}")
        return node.name

    def _pump(self, name: str) -> None:
        if name not in self._pumps or self._pumps[name].done():
            self._pumps[name] = asyncio.create_task(self._read(name))

    async def subscribe(self, *channels: str) -> None:
        self._site_channels = (*self._site_channels, *channels)
        if self._site is None:
            await self._resite()
        else:
            await self._site.subscribe(*channels)

    async def _resite(self) -> None:
        """(Re)subscribe the site-wide channels on the node owning the first one's slot."""
        name = await self._owner_of(self._site_channels[0])
        if self._site is not None and name == self._site_node:
            return  # the same node: redis-py reconnects and subscribes again by itself
        old, self._site, self._site_node = self._site, self._connect(name), name
        if old is not None:
            with contextlib.suppress(Exception):
                await old.aclose()  # type: ignore[no-untyped-call]
        await self._site.subscribe(*self._site_channels)
        self._pump("site")  # after the first subscribe: the connection exists

    async def follow(self, channel: str) -> None:
        async with self._lock:
            self.wanted.add(channel)
            await self._place(channel)

    async def _place(self, channel: str) -> None:
        """Subscribe ``channel`` on the primary that owns its slot now (lock held)."""
        name = await self._owner_of(channel)
        old = self.owner.get(channel)
        if old == name:
            return
        if old is not None and old in self._shards:
            with contextlib.suppress(Exception):  # that primary may be gone
                await self._shards[old].sunsubscribe(channel)
        shard = self._shards.get(name)
        if shard is None:
            shard = self._shards[name] = self._connect(name)
        self.owner[channel] = name
        await shard.ssubscribe(channel)
        self._pump(name)  # after the first subscribe: the connection exists

    async def unfollow(self, channel: str) -> None:
        async with self._lock:
            self.wanted.discard(channel)
            name = self.owner.pop(channel, None)
            if name is not None and name in self._shards:
                await self._shards[name].sunsubscribe(channel)

    async def get_message(self, timeout: float) -> Message | None:
        try:
            return await asyncio.wait_for(self.inbox.get(), timeout)
        except TimeoutError:
            return None

    async def _read(self, name: str) -> None:
        """Move what arrives on one connection into the inbox (a task per connection:
        ``name`` is a primary, or "site"); ends when the connection was let go."""
        while True:
            pubsub = self._site if name == "site" else self._shards.get(name)
            if pubsub is None:
                return
            try:
                message: Message | None = await pubsub.get_message(timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception:
                # This primary is unreachable (redis-py retried already): the slots may have
                # moved to another (a failover). Read the map again and move what moved.
                log.warning("pub/sub of a cluster node failed", extra={"conn": name}, exc_info=True)
                await asyncio.sleep(0.5)
                if await self._reload():
                    if name == "site":
                        await self._resite()
                    else:
                        await self._rehome(name)
                continue
            if message is None:
                continue
            kind = _text(message["type"])
            if kind == "sunsubscribe":
                channel = _text(message["channel"])
                if channel in self.wanted and self.owner.get(channel) == name:
                    self._spawn(self._moved(name, channel))  # ended by Redis: its slot moved
                continue
            message["type"] = _KINDS.get(kind, kind)
            self.inbox.put_nowait(message)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self._moving.add(task)
        task.add_done_callback(self._moving.discard)

    async def _reload(self) -> bool:
        """Read the cluster's slot map again; False if no node answered."""
        try:
            await self.cluster.nodes_manager.initialize()
        except Exception:
            log.warning("cluster slot map not read", exc_info=True)
            return False
        return True

    async def _moved(self, name: str, channel: str) -> None:
        """Redis ended ``channel``'s subscription on ``name``: its slot moved. The slot map
        is read again until it names another owner -- a primary not yet told of the move
        (a reshard tells the two owners first, the others after) still names the old one,
        and subscribing there would be a subscription nobody publishes to -- then every
        channel whose owner changed moves. After ``MOVE_WAIT`` the channel is subscribed
        wherever the map says, so a slot that moved back is followed too."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + MOVE_WAIT
        while True:
            if await self._reload():
                async with self._lock:
                    if channel not in self.wanted or self.owner.get(channel) != name:
                        return  # moved already, or no longer followed
                    if await self._owner_of(channel) != name or loop.time() >= deadline:
                        self.owner.pop(channel)  # Redis dropped it: subscribe it again
                        await self._rehome_locked(name, channel)
                        return
            await asyncio.sleep(0.1)

    async def _rehome(self, name: str) -> None:
        async with self._lock:
            await self._rehome_locked(name)

    async def _rehome_locked(self, name: str, *dropped: str) -> None:
        """Subscribe the channels held on primary ``name`` (and the ``dropped`` ones) on
        their owners of now; let go of the connection to ``name`` once it holds none."""
        for channel in [*dropped, *(c for c, owner in self.owner.items() if owner == name)]:
            try:
                await self._place(channel)
            except Exception:
                log.warning("shard channel not moved", extra={"channel": channel})
        if name not in self.owner.values() and name in self._shards:
            pubsub = self._shards.pop(name)
            with contextlib.suppress(Exception):
                await pubsub.aclose()  # type: ignore[no-untyped-call]

    async def aclose(self) -> None:
        for task in [*self._pumps.values(), *self._moving]:
            task.cancel()
        for task in [*self._pumps.values(), *self._moving]:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for pubsub in [*self._shards.values(), *([self._site] if self._site else [])]:
            with contextlib.suppress(Exception):
                await pubsub.aclose()  # type: ignore[no-untyped-call]
                await pubsub.connection_pool.disconnect()
