"""The hub's subscriptions: the site-wide channels and the channels of the rooms it follows.

``subscriber(redis)`` gives the hub one object with the same small surface for both shapes
of Redis (server/redis/pool.py):

- one Redis: one pub/sub connection, classic ``SUBSCRIBE`` for every channel
  (``WireSubscriber``: its pushes parsed by hiredis straight into the hub's inbox -- redis-py's
  ``PubSub`` cost a node about 7 % of its CPU under load, a parse and a timeout per
  message);
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
the rooms' logs (server/realtime/connection.py): what was published in between is not lost to a
player.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
from typing import Any, Protocol

import hiredis
import redis.asyncio as aioredis
from redis.asyncio.client import PubSub
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ConnectionError, RedisError
from redis.exceptions import TimeoutError as RedisTimeout

from server.redis.pool import Client
from server.redis.wire import Endpoint, Wire, WireError, WireTimeout, open_connection, pack, sign_in

log = logging.getLogger("tortuga.pubsub")

# Seconds a channel dropped by its old owner waits for the slot map to name the new one.
MOVE_WAIT = 10.0
# Seconds a subscription (or letting one go) may take before its primary is taken as gone.
PLACE_SECONDS = 2.0

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


def subscriber(redis: Client, wire: Wire | None = None) -> Subscriber:
    if isinstance(redis, RedisCluster):
        return ShardedSubscriber(redis)
    if wire is not None and not wire.cluster:
        return WireSubscriber(wire.seeds[0])
    return PlainSubscriber(redis)


class _Pushes(asyncio.Protocol):
    """A pub/sub connection: what Redis pushes, as the hub's messages, into ``inbox``."""

    def __init__(self, owner: WireSubscriber) -> None:
        self.owner = owner
        self.reader = hiredis.Reader()
        self.transport: asyncio.Transport | None = None
        self.lost = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        put = self.owner.put
        try:
            while (reply := self.reader.gets()) is not False:
                if type(reply) is list and len(reply) == 3:
                    kind = reply[0]
                    if kind == b"message":
                        put({"type": "message", "channel": reply[1], "data": reply[2]})
                    elif kind in (b"subscribe", b"unsubscribe"):
                        put({"type": kind.decode(), "channel": reply[1], "data": reply[2]})
                elif type(reply) is hiredis.ReplyError:
                    log.warning("pub/sub refused: %s", reply)
        except hiredis.ProtocolError:
            log.warning("pub/sub protocol error: dropping the connection")
            if self.transport is not None:
                self.transport.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self.owner.dropped(self)

    def send(self, *command: str) -> None:
        if self.transport is not None and not self.lost:
            self.transport.write(pack(command))


class WireSubscriber:
    """One pub/sub connection to one Redis, kept up: lost, it is made again (backoff 50 ms
    doubling to 1 s) and every channel subscribed again -- the hub is told ``subscribe``
    once more and catches the room's sockets up from the log (server/realtime/connection.py)."""

    def __init__(self, endpoint: Endpoint, connect_timeout: float = 5.0) -> None:
        self.endpoint = endpoint
        self.connect_timeout = connect_timeout
        self.channels: set[str] = set()  # every channel wanted (site-wide and rooms')
        self.inbox: collections.deque[Message] = collections.deque()
        self._waiter: asyncio.Future[None] | None = None
        self._link: _Pushes | None = None
        self._keeper: asyncio.Task[None] | None = None
        self._first: asyncio.Lock | None = None  # the first connection is made once
        self._closed = False

    def put(self, message: Message) -> None:
        self.inbox.append(message)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def _connect(self) -> None:
        link = await open_connection(self.endpoint, lambda: _Pushes(self), self.connect_timeout)
        for command in sign_in(self.endpoint):
            link.send(*(str(x) for x in command))
        if self.channels:
            link.send("SUBSCRIBE", *sorted(self.channels))
        self._link = link

    def dropped(self, link: _Pushes) -> None:
        if link is self._link and not self._closed:
            self._link = None
            log.warning("pub/sub connection lost: connecting again")
            self._keep()

    def _keep(self) -> None:
        if self._keeper is None or self._keeper.done():
            self._keeper = asyncio.get_running_loop().create_task(self._reconnect())

    async def _reconnect(self) -> None:
        delay = 0.05
        while not self._closed and self._link is None:
            try:
                await self._connect()
            except (WireError, WireTimeout):
                await asyncio.sleep(delay)
                delay = min(1.0, delay * 2)

    async def _send(self, *command: str) -> None:
        if self._link is None and self._keeper is None:
            self._first = self._first or asyncio.Lock()
            async with self._first:
                if self._link is None and self._keeper is None:
                    await self._connect()  # the first: its failure is the caller's
                    return  # it subscribed every channel wanted, this one's too
        if self._link is not None:
            self._link.send(*command)
        # else: reconnecting, and the new connection subscribes every channel wanted

    async def subscribe(self, *channels: str) -> None:
        self.channels.update(channels)
        await self._send("SUBSCRIBE", *channels)

    async def follow(self, channel: str) -> None:
        self.channels.add(channel)
        await self._send("SUBSCRIBE", channel)

    async def unfollow(self, channel: str) -> None:
        self.channels.discard(channel)
        await self._send("UNSUBSCRIBE", channel)

    async def get_message(self, timeout: float) -> Message | None:
        if not self.inbox:
            self._waiter = asyncio.get_running_loop().create_future()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    await self._waiter
            self._waiter = None
            if not self.inbox:
                return None
        return self.inbox.popleft()

    async def aclose(self) -> None:
        self._closed = True
        if self._keeper is not None:
            self._keeper.cancel()
            with contextlib.suppress(BaseException):
                await self._keeper
        if self._link is not None and self._link.transport is not None:
            self._link.transport.close()
        self._link = None


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
        self._unplaced: set[str] = set()  # followed, not subscribed anywhere now
        self._placer: asyncio.Task[None] | None = None

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

    async def _resite(self, avoid: str = "") -> None:
        """(Re)subscribe the site-wide channels on the node owning the first one's slot --
        or, when that is ``avoid`` (it failed), on another primary."""
        name = await self._owner_of(self._site_channels[0])
        if name == avoid:
            others = [n.name for n in self.cluster.get_primaries() if n.name != avoid]
            name = others[0] if others else name
        if self._site is not None and name == self._site_node:
            return  # the same node: redis-py reconnects and subscribes again by itself
        old, self._site, self._site_node = self._site, self._connect(name), name
        if old is not None:
            with contextlib.suppress(Exception):
                await old.aclose()  # type: ignore[no-untyped-call]
        await self._site.subscribe(*self._site_channels)
        self._pump("site")  # after the first subscribe: the connection exists

    async def follow(self, channel: str) -> None:
        """Subscribe ``channel`` on its primary, in the background: the hub is told
        ``subscribe`` when it is. A primary that cannot be reached (a failover under way)
        fails nothing: the channel is placed again, the slot map read again, until its
        slot's owner takes it (``_placing``)."""
        self.wanted.add(channel)
        self._unplaced.add(channel)
        self._place_soon()

    async def unfollow(self, channel: str) -> None:
        self.wanted.discard(channel)
        self._unplaced.discard(channel)
        name = self.owner.pop(channel, None)
        if name is not None and name in self._shards:
            with contextlib.suppress(Exception):  # that primary may be gone
                await self._shards[name].sunsubscribe(channel)

    def _place_soon(self) -> None:
        if self._placer is None or self._placer.done():
            self._placer = asyncio.create_task(self._placing())

    async def _placing(self) -> None:
        """Subscribe every channel followed but not subscribed anywhere on the primary
        owning its slot, each primary's at once; what failed (its primary unreachable) is
        tried again after the slot map is read again, with backoff (50 ms to 0.5 s), until
        it is placed -- after a failover, on the promoted replica."""
        delay = 0.05
        while self._unplaced:
            by_owner: dict[str, list[str]] = collections.defaultdict(list)
            for channel in sorted(self._unplaced):
                try:
                    by_owner[await self._owner_of(channel)].append(channel)
                except Exception:
                    log.warning("no owner known", extra={"channel": channel})
            done = await asyncio.gather(*(self._subscribe_on(n, c) for n, c in by_owner.items()))
            if not self._unplaced:
                return
            if not all(done):
                await asyncio.sleep(delay)
                delay = min(0.5, delay * 2)
                await self._reload()

    async def _subscribe_on(self, name: str, channels: list[str]) -> bool:
        """SSUBSCRIBE ``channels`` on primary ``name``; False if it could not be reached."""
        shard = self._shards.get(name)
        if shard is None:
            shard = self._shards[name] = self._connect(name)
        for channel in channels:
            self.owner[channel] = name
        try:
            async with asyncio.timeout(PLACE_SECONDS):
                for channel in channels:  # one by one: each its own slot
                    await shard.ssubscribe(channel)
        except Exception:
            log.warning("shard channels not subscribed: trying again", extra={"conn": name})
            for channel in channels:
                if self.owner.get(channel) == name:
                    del self.owner[channel]
            await self._drop(name)
            return False
        for channel in channels:
            if self.owner.get(channel) == name:
                self._unplaced.discard(channel)
            if channel not in self.wanted:  # let go meanwhile
                with contextlib.suppress(Exception):
                    await shard.sunsubscribe(channel)
        self._pump(name)  # after the first subscribe: the connection exists
        return True

    async def _drop(self, name: str) -> None:
        """Let go of the connection to primary ``name``: every channel it held is placed
        again (on its owner of now, once the slot map names one that answers)."""
        for channel, owner in list(self.owner.items()):
            if owner == name:
                del self.owner[channel]
                if channel in self.wanted:
                    self._unplaced.add(channel)
        pubsub = self._shards.pop(name, None)
        if pubsub is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(pubsub.aclose(), PLACE_SECONDS)  # type: ignore[no-untyped-call]
        if self._unplaced:
            self._place_soon()

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
            except (RedisError, OSError) as exc:
                if not isinstance(exc, ConnectionError | RedisTimeout | OSError):
                    log.warning("pub/sub refused", extra={"conn": name, "kind": type(exc).__name__})
                    await asyncio.sleep(0.1)
                    continue
                # This primary is unreachable: its slots may be moving to another (a
                # failover). Its channels are placed again, the site-wide ones on another
                # node at once (any node hears a classic PUBLISH).
                log.warning(
                    "pub/sub of a cluster node failed",
                    extra={"conn": name, "kind": type(exc).__name__},
                )
                if name != "site":
                    await self._drop(name)
                    return
                await asyncio.sleep(0.1)
                await self._reload()
                with contextlib.suppress(Exception):
                    await self._resite(avoid=self._site_node)
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
                        self._unplaced.add(channel)
                        self._place_soon()
                        return
            await asyncio.sleep(0.1)

    async def aclose(self) -> None:
        tasks = [*self._pumps.values(), *self._moving, *([self._placer] if self._placer else [])]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for pubsub in [*self._shards.values(), *([self._site] if self._site else [])]:
            with contextlib.suppress(Exception):
                await pubsub.aclose()  # type: ignore[no-untyped-call]
                await pubsub.connection_pool.disconnect()
