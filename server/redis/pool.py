"""How a node talks to Redis: one bounded pool whose commands survive a Redis restart.

- A pool of ``settings.redis_pool_size`` connections (redis-py's own
  ``BlockingConnectionPool``, ``blocking_pool``): when every connection is busy a command
  *waits* (up to ``redis_pool_wait_seconds``) instead of failing at once, as redis-py's
  default pool does when it runs dry. A move's commands do not come this way (they go over
  server/redis/wire.py): this pool serves blocking stream reads, pub/sub, transactions and
  the admin's pipelines.
- Every command is retried on a connection error or timeout, with exponential backoff
  (``redis_retries`` times, 50 ms doubling up to 1 s): after a Redis restart the first
  command on each stale pooled connection fails, reconnects and runs again, instead of
  reaching a player as ``server-error``. The scripts are re-loaded by redis-py when the
  restarted server no longer knows them (NOSCRIPT).

A retried command may already have run when only its reply was lost. The writes a player
can repeat that way are safe: a step is a compare-and-set on the version (a repeat loses),
and a commit or a reveal carries a nonce of its call (server/redis/store.py), so its own repeat
is recognised and answered as it was the first time.

Redis Cluster: a URL ``redis+cluster://host:port[,host:port...]`` (``rediss+cluster://``
with TLS; user and password as in ``redis://``) names some nodes of a cluster; the client
learns the rest from them. redis-py's cluster client opens a pool per primary and raises
when one runs dry, so here every command and pipeline first waits (up to the same
``redis_pool_wait_seconds``) for one of ``redis_pool_size`` permits: the node keeps the
"wait, don't fail" promise above, and no primary ever sees more than ``redis_pool_size``
connections from it. Retries are the cluster client's own (a MOVED, a failover, a lost
connection: it re-reads the slot map and tries again, ``redis_retries`` times).
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import Iterable
from typing import Any, TypeAlias
from urllib.parse import unquote, urlsplit

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, ClusterPipeline, RedisCluster
from redis.asyncio.connection import parse_url
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError, TimeoutError

Client: TypeAlias = aioredis.Redis | RedisCluster
"""What the store, the hub and the archiver talk to: one Redis, or a Redis Cluster."""

CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")


def is_cluster(url: str) -> bool:
    """Whether ``url`` names a Redis Cluster (``redis+cluster://``, ``rediss+cluster://``)."""
    return urlsplit(url).scheme in CLUSTER_SCHEMES


def cluster_nodes(url: str) -> list[tuple[str, int]]:
    """The ``host:port`` pairs of a ``redis+cluster://`` URL, in order."""
    netloc = urlsplit(url).netloc.rpartition("@")[2]
    nodes = []
    for part in netloc.split(","):
        host, _, port = part.strip().rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"a cluster node must be host:port, not {part!r} (in {url!r})")
        nodes.append((host.strip("[]"), int(port)))
    return nodes


def connect(url: str, *, size: int, wait_seconds: float, retries: int) -> Client:
    """A client on a pool of at most ``size`` connections (see above)."""
    retry = Retry(ExponentialBackoff(cap=1.0, base=0.05), retries)
    if is_cluster(url):
        return _connect_cluster(url, size=size, wait_seconds=wait_seconds, retry=retry)
    pool = blocking_pool(
        url,
        max_connections=size,
        timeout=wait_seconds,
        retry=retry,
        retry_on_error=[ConnectionError, TimeoutError],
    )
    return aioredis.Redis(connection_pool=pool)


def blocking_pool(url: str, **options: Any) -> aioredis.BlockingConnectionPool:
    """redis-py's ``BlockingConnectionPool.from_url(url, **options)`` (the URL's options
    win, as there), its connections writing as ``_PlainSend`` does."""
    options.update(parse_url(url))
    plain = options.get("connection_class", aioredis.Connection)
    options["connection_class"] = _PLAIN_SEND.get(plain, plain)
    return aioredis.BlockingConnectionPool(**options)


class _PlainSend:
    """A connection that writes a command without a task and a timer around the write.

    redis-py (8.1) wraps every write in ``asyncio.wait_for`` when the connection has a
    ``socket_timeout`` (5 s by default): a task, a timer and two more turns of the event
    loop per command -- about 8 % of a node's CPU under load (py-spy) when every command
    went through redis-py, and still one task per command of the pool's. A write the socket
    takes at once cannot time out, so it is not wrapped; only a write that left bytes in
    the transport's buffer waits for it to drain within ``socket_timeout``, as before.
    Errors are handled as redis-py does (the connection dropped, redis-py's errors raised),
    so retries and reconnects are unchanged."""

    async def send_packed_command(
        self, command: bytes | str | Iterable[bytes], check_health: bool = True
    ) -> None:
        conn: Any = self
        if not conn.is_connected:
            await conn.connect_check_health(check_health=False)
        if check_health:
            await conn.check_health()
        try:
            if isinstance(command, str):
                command = command.encode()
            if isinstance(command, bytes):
                command = [command]
            writer = conn._writer
            writer.writelines(command)
            if writer.transport.get_write_buffer_size() and conn.socket_timeout:
                # The socket did not take it all (Redis reads slowly, or not at all).
                await asyncio.wait_for(writer.drain(), conn.socket_timeout)
            else:
                await writer.drain()  # returns at once; raises if the connection broke
        except builtins.TimeoutError:
            await conn.disconnect(nowait=True)
            raise TimeoutError("Timeout writing to socket") from None
        except OSError as e:
            await conn.disconnect(nowait=True)
            if len(e.args) == 1:
                err_no, errmsg = "UNKNOWN", e.args[0]
            else:
                err_no, errmsg = e.args[0], e.args[1]
            raise ConnectionError(f"Error {err_no} while writing to socket. {errmsg}.") from e
        except BaseException:
            # A write cut short (cancelled): what was sent of it is unknown, as in redis-py.
            await conn.disconnect(nowait=True)
            raise


class _TcpConnection(_PlainSend, aioredis.Connection):
    pass


class _SslConnection(_PlainSend, aioredis.SSLConnection):
    pass


class _UnixConnection(_PlainSend, aioredis.UnixDomainSocketConnection):
    pass


_PLAIN_SEND: dict[type, type] = {
    aioredis.Connection: _TcpConnection,
    aioredis.SSLConnection: _SslConnection,
    aioredis.UnixDomainSocketConnection: _UnixConnection,
}


def _connect_cluster(url: str, *, size: int, wait_seconds: float, retry: Retry) -> RedisCluster:
    parts = urlsplit(url)
    if parts.path not in ("", "/", "/0") or parts.query:
        raise ValueError(f"a cluster URL has no database and no options: {url!r}")
    userinfo = parts.netloc.rpartition("@")[0]
    username, _, password = userinfo.partition(":") if userinfo else ("", "", "")
    client = _GatedCluster(
        startup_nodes=[ClusterNode(host, port) for host, port in cluster_nodes(url)],
        max_connections=size,
        retry=retry,
        username=unquote(username) or None,
        password=unquote(password) or None,
        ssl=parts.scheme == "rediss+cluster",
    )
    client.gate = _Gate(size, wait_seconds)
    return client


class _Gate:
    """At most ``size`` commands (or pipelines) of this node in flight; the others wait up
    to ``wait_seconds`` for their turn, then fail as a dry pool does."""

    def __init__(self, size: int, wait_seconds: float) -> None:
        self.size = size
        self.wait_seconds = wait_seconds
        self._permits: asyncio.Semaphore | None = None

    async def __aenter__(self) -> None:
        if self._permits is None:
            self._permits = asyncio.Semaphore(self.size)
        if not self._permits.locked():
            await self._permits.acquire()  # a free permit: returns without suspending
            return
        try:
            async with asyncio.timeout(self.wait_seconds):  # a timer, not a task
                await self._permits.acquire()
        except builtins.TimeoutError:
            raise ConnectionError("no free connection to the Redis Cluster") from None

    async def __aexit__(self, *exc: object) -> None:
        assert self._permits is not None
        self._permits.release()


class _GatedCluster(RedisCluster):
    """redis-py's cluster client, with every command and pipeline behind the gate."""

    gate: _Gate

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        async with self.gate:
            if self._initialize:
                # Learn the slot map first. redis-py 8 decides how to route a command before
                # it initializes the client: a command issued while it has no slot map yet
                # (the first ones of a node, often many at once) goes to a random primary,
                # is MOVED, and every fifth MOVED makes it close all its connections --
                # failing every command in flight ("Connection closed by server").
                await self.initialize()
            return await super().execute_command(*args, **kwargs)

    def pipeline(self, transaction: Any | None = None, shard_hint: Any | None = None) -> Any:
        if shard_hint:
            return super().pipeline(transaction, shard_hint)
        return _GatedPipeline(self, transaction)  # type: ignore[abstract]  # as redis-py's own


class _GatedPipeline(ClusterPipeline):
    async def execute(self, raise_on_error: bool = True, allow_redirections: bool = True) -> Any:
        gate: _Gate = self.cluster_client.gate  # type: ignore[attr-defined]
        async with gate:
            if self.cluster_client._initialize:  # the slot map first (as for a command)
                await self.cluster_client.initialize()
            return await super().execute(raise_on_error, allow_redirections)
