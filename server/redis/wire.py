"""The node's hot path to Redis: commands auto-pipelined on one connection per Redis server.

Every command a move makes (the room read, the step's compare-and-set script, a log read, a
commit or a reveal, presence, the clock) goes over a ``Wire``, not redis-py's client
(server/redis/pool.py, which stays for everything else: blocking stream reads, pub/sub,
transactions, the admin's pipelines). Why: under load, redis-py's per-command path -- a
connection checked out of a pool, a retry wrapper, a timeout scope, the command packed in
Python, one write syscall per command, the reply through response callbacks -- cost a node
about 40 % of its CPU (py-spy at saturation, docs/SPEED.md), 50 us a command, where the
protocol work itself is a few microseconds.

A ``Wire`` keeps one connection per Redis server (Redis runs one command at a time anyway)
and any number of commands in flight on it: each is packed by hiredis (C), appended to an
output buffer, and every command issued in the same turn of the event loop leaves in one
write (``call_soon``); replies are parsed by hiredis and matched to their callers in order,
as RESP guarantees. Replies come back raw (bytes, ints, lists): the store decodes them.

What redis-py's pool promised still holds (server/redis/pool.py): a command is retried on a
lost connection or a timeout (``retries`` times, 50 ms doubling to 1 s), so a Redis restart
costs a player nothing; a retried command may have run already (its reply was lost), which
the store's writes are built for (a step is a compare-and-set, commits and reveals carry a
nonce). A script unknown to the server (a restarted Redis) is loaded and run again
(NOSCRIPT). A connection whose oldest command has waited ``timeout`` seconds is given up as
dead, failing what it carried into the retry.

On a Redis Cluster (``redis+cluster://``) the wire routes each command by its key's hash
slot (every key of a room shares its tag, so a room's script is one slot), from the slot
map read with ``CLUSTER SLOTS``; ``MOVED`` updates the map (and has it read again), ``ASK``
sends that one command to the importing node after ``ASKING``, ``TRYAGAIN`` (a multi-key
command while its slot migrates) and ``CLUSTERDOWN`` wait and retry.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
import ssl
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias, TypeVar, cast
from urllib.parse import parse_qs, unquote, urlsplit

import hiredis
from redis import exceptions
from redis.crc import key_slot

from server.redis.pool import cluster_nodes, is_cluster

Arg: TypeAlias = bytes | str | int | float
Address: TypeAlias = tuple[str, int]  # a cluster node (host, port)

# hiredis packs a command in C (its stub types the tuple as of one element: it takes any).
_pack = cast(Callable[[tuple[Arg, ...]], bytes], hiredis.pack_command)

SLOTS = 16384
REDIRECTS = 16  # MOVED / ASK / TRYAGAIN answers followed for one command, at most


class WireError(exceptions.ConnectionError):
    """The connection to Redis was lost (or never made) under a command."""


class WireTimeout(exceptions.TimeoutError):
    """Redis did not answer in time: the connection was given up."""


class CommandError(exceptions.ResponseError):
    """Redis answered the command with an error."""


@dataclass(frozen=True, slots=True)
class Script:
    """A Lua script, run by its SHA1 (``EVALSHA``; loaded on ``NOSCRIPT``)."""

    text: str
    sha: str

    @classmethod
    def of(cls, text: str) -> Script:
        return cls(text, hashlib.sha1(text.encode()).hexdigest())


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where one Redis server listens and how to sign in to it."""

    host: str = "127.0.0.1"
    port: int = 6379
    path: str | None = None  # a unix socket
    db: int = 0
    username: str | None = None
    password: str | None = None
    tls: bool = False

    def at(self, address: Address) -> Endpoint:
        """The same sign-in at another node (a cluster's)."""
        return Endpoint(address[0], address[1], None, 0, self.username, self.password, self.tls)


def parse_url(url: str) -> tuple[list[Endpoint], bool]:
    """The servers a ``redis://``, ``rediss://``, ``unix://`` or ``redis+cluster://`` URL names
    and whether it is a cluster (its seed nodes, then)."""
    parts = urlsplit(url)
    userinfo = parts.netloc.rpartition("@")[0] if "@" in parts.netloc else ""
    user, _, password = userinfo.partition(":")
    username, secret = unquote(user) or None, unquote(password) or None
    query = parse_qs(parts.query)
    if is_cluster(url):
        tls = parts.scheme == "rediss+cluster"
        seeds = [Endpoint(h, p, None, 0, username, secret, tls) for h, p in cluster_nodes(url)]
        return seeds, True
    if parts.scheme == "unix":
        db = int((query.get("db") or ["0"])[0])
        return [Endpoint(path=parts.path, db=db, username=username, password=secret)], False
    if parts.scheme not in ("redis", "rediss"):
        raise ValueError(f"not a Redis URL: {url!r}")
    db_text = parts.path.strip("/") or (query.get("db") or ["0"])[0]
    endpoint = Endpoint(
        parts.hostname or "127.0.0.1",
        parts.port or 6379,
        None,
        int(db_text or 0),
        username,
        secret,
        parts.scheme == "rediss",
    )
    return [endpoint], False


class _Link(asyncio.Protocol):
    """One connection: commands out in order, replies matched to their futures in order."""

    def __init__(self, loop: asyncio.AbstractEventLoop, timeout: float) -> None:
        self.loop = loop
        self.timeout = timeout
        self.reader = hiredis.Reader()
        self.waiting: collections.deque[asyncio.Future[Any] | None] = collections.deque()
        self.out: list[bytes] = []
        self.transport: asyncio.Transport | None = None
        self.lost: Exception | None = None
        self._flush_soon = False
        self._watch: asyncio.TimerHandle | None = None
        self._watched: asyncio.Future[Any] | None = None  # the oldest waiter at the last look

    # -- asyncio.Protocol ---------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        reader = self.reader
        reader.feed(data)
        waiting = self.waiting
        try:
            while True:
                reply = reader.gets()
                if reply is False:
                    return
                future = waiting.popleft()
                if future is not None and not future.done():
                    future.set_result(reply)
        except (hiredis.ProtocolError, IndexError) as exc:  # nothing to do but drop it
            self._fail(WireError(f"Redis protocol error: {exc}"))
            if self.transport is not None:
                self.transport.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(WireError(f"connection to Redis lost: {exc or 'closed'}"))

    # -- commands -----------------------------------------------------------------------
    def send(self, packed: bytes, replies: int = 1) -> asyncio.Future[Any]:
        """Queue one packed command (or ``replies`` of them, packed together: only the
        last reply is awaited); the future of its reply."""
        if self.lost is not None:
            raise self.lost
        future = self.loop.create_future()
        for _ in range(replies - 1):
            self.waiting.append(None)
        self.waiting.append(future)
        self.out.append(packed)
        if not self._flush_soon:
            self._flush_soon = True
            self.loop.call_soon(self._flush)
        if self._watch is None:
            self._watch = self.loop.call_later(self.timeout, self._look)
        return future

    def _flush(self) -> None:
        self._flush_soon = False
        out, self.out = self.out, []
        if self.transport is not None and out and self.lost is None:
            self.transport.write(b"".join(out) if len(out) > 1 else out[0])

    def _look(self) -> None:
        """Every ``timeout`` while commands wait: the oldest one still the same as a look
        ago means Redis has not answered it for that long."""
        self._watch = None
        oldest = next((f for f in self.waiting if f is not None), None)
        if oldest is None:
            return
        if oldest is self._watched and not oldest.done():
            self._fail(WireTimeout(f"Redis did not answer in {self.timeout:g} s"))
            if self.transport is not None:
                self.transport.abort()
            return
        self._watched = oldest
        self._watch = self.loop.call_later(self.timeout, self._look)

    def _fail(self, exc: Exception) -> None:
        if self.lost is None:
            self.lost = exc
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        waiting, self.waiting = self.waiting, collections.deque()
        for future in waiting:
            if future is not None and not future.done():
                future.set_exception(self.lost)
                future.exception()  # retrieved: a caller that is gone leaves no warning

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


class Wire:
    """Commands to one Redis or a Redis Cluster, pipelined (see the module's docstring)."""

    def __init__(
        self,
        endpoints: Sequence[Endpoint],
        *,
        cluster: bool = False,
        retries: int = 10,
        timeout: float = 10.0,
        connect_timeout: float = 5.0,
    ) -> None:
        self.seeds = list(endpoints)
        self.cluster = cluster
        self.retries = retries
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self._links: dict[Address | None, _Link] = {}  # None: the one server (not a cluster)
        self._connecting: dict[Address | None, asyncio.Future[_Link]] = {}
        self._slots: list[Address | None] = [None] * SLOTS
        self._mapping: asyncio.Task[None] | None = None
        self._mapped = False  # a slot map was read once
        self._closed = False

    @classmethod
    def from_url(cls, url: str, *, retries: int = 10, timeout: float = 10.0) -> Wire:
        endpoints, cluster = parse_url(url)
        return cls(endpoints, cluster=cluster, retries=retries, timeout=timeout)

    # -- the commands ---------------------------------------------------------------------
    async def call(self, *args: Arg, key: Arg | None = None) -> Any:
        """One command; its raw reply (an error reply raises ``CommandError``). ``key``
        routes it on a cluster (by default the command's first argument: its key, or the
        channel of a ``PUBLISH``)."""
        link = None if self.cluster else self._links.get(None)
        if link is None or link.lost is not None:
            return await self._call(args, key)
        try:  # the usual case, one Redis connected: no detour
            reply = await link.send(_pack(args))
        except (WireError, WireTimeout):
            return await self._call(args, key, failures=1)
        if type(reply) is hiredis.ReplyError:
            raise CommandError(str(reply))
        return reply

    async def run(self, script: Script, keys: Sequence[Arg], args: Sequence[Arg]) -> Any:
        """A Lua script (``EVALSHA``), loaded first if the server does not know it."""
        command: tuple[Arg, ...] = ("EVALSHA", script.sha, len(keys), *keys, *args)
        key = keys[0] if keys else None
        if self.cluster:  # loaded on the very primary that did not know it (see ``_call``)
            return await self._call(command, key, script=script)
        try:
            return await self.call(*command, key=key)
        except CommandError as exc:
            if not str(exc).startswith("NOSCRIPT"):
                raise
        await self.call("SCRIPT", "LOAD", script.text, key=key)
        return await self.call(*command, key=key)

    async def many(self, *commands: tuple[Arg, ...], key: Arg | None = None) -> list[Any]:
        """Several commands in one round trip (they leave in one write); their replies, or
        ``CommandError`` for the first that failed. ``key`` routes them all (on a cluster,
        keys of one slot: a room's); by default each goes by its own first argument, as
        ``call``. After a lost connection they are all sent again."""
        link = None if self.cluster else self._links.get(None)
        replies: list[Any]
        if link is not None and link.lost is None:
            futures = [link.send(_pack(c)) for c in commands]
            try:
                replies = [await f for f in futures]
            except (WireError, WireTimeout):
                replies = list(await asyncio.gather(*(self._call(c, key, 1) for c in commands)))
        else:
            replies = list(await asyncio.gather(*(self._call(c, key) for c in commands)))
        for reply in replies:
            if type(reply) is hiredis.ReplyError:
                raise CommandError(str(reply))
        return replies

    async def _call(
        self,
        args: tuple[Arg, ...],
        key: Arg | None,
        failures: int = 0,
        script: Script | None = None,
    ) -> Any:
        """``call`` the long way: connecting, retrying, following a cluster's redirects.
        ``script``: ``args`` is its ``EVALSHA``; a primary that answers ``NOSCRIPT`` is given
        the script and asked again. It must be that primary: while a slot moves (``ASK``) or
        a stale slot map names the old owner, loading it "by the key" reaches another one."""
        if key is None and len(args) > 1:
            key = args[1]
        delay = 0.05
        redirects = 0
        if failures:
            await asyncio.sleep(delay)
        asking: Address | None = None
        asked: Address | None = None
        loads = 0
        packed = _pack(args)
        while True:
            try:
                asked = asking
                if asking is not None:
                    link = await self._link(asking)
                    reply = await link.send(_pack(("ASKING",)) + packed, 2)
                    asking = None
                else:
                    if self.cluster and not self._mapped:
                        await self._first_map()
                    link = await self._link(self._route(key))
                    reply = await link.send(packed)
            except (WireError, WireTimeout, OSError) as exc:
                failures += 1
                if self._closed or failures > self.retries:
                    if isinstance(exc, WireError | WireTimeout):
                        raise
                    raise WireError(f"cannot reach Redis: {exc}") from exc
                if self.cluster:
                    self._map_again()
                await asyncio.sleep(delay)
                delay = min(1.0, delay * 2)
                continue
            if type(reply) is not hiredis.ReplyError:
                return reply
            message = str(reply)
            if script is not None and loads < 3 and message.startswith("NOSCRIPT"):
                loads += 1
                loaded = await link.send(_pack(("SCRIPT", "LOAD", script.text)))
                if type(loaded) is hiredis.ReplyError:
                    raise CommandError(str(loaded))
                asking = asked  # the same primary again, ASKING as before if it was asked
                continue
            if self.cluster and redirects < REDIRECTS:
                word = message.split(" ", 1)[0]
                if word in ("MOVED", "ASK"):
                    redirects += 1
                    _, slot, where = message.split(" ")
                    host, _, port = where.rpartition(":")
                    address = (host, int(port))
                    if word == "MOVED":
                        self._slots[int(slot)] = address
                        self._map_again()
                    else:
                        asking = address
                    continue
                if word in ("TRYAGAIN", "CLUSTERDOWN"):
                    redirects += 1
                    await asyncio.sleep(0.05 * redirects)
                    continue
            raise CommandError(message)

    # -- connections ------------------------------------------------------------------------
    def _route(self, key: Arg | None) -> Address | None:
        if not self.cluster:
            return None
        if key is None:
            return next((a for a in self._slots if a is not None), None) or self._seed_address()
        raw = key if isinstance(key, bytes) else str(key).encode()
        return self._slots[key_slot(raw)] or self._seed_address()

    def _seed_address(self) -> Address:
        seed = self.seeds[0]
        return (seed.host, seed.port)

    async def _link(self, address: Address | None) -> _Link:
        """The connection to ``address`` (None: the one Redis), opened if need be: once,
        however many commands wait for it."""
        link = self._links.get(address)
        if link is not None and link.lost is None:
            return link
        pending = self._connecting.get(address)
        if pending is not None:
            return await asyncio.shield(pending)
        pending = asyncio.get_running_loop().create_future()
        self._connecting[address] = pending
        try:
            link = await self._open(address)
        except Exception as exc:
            pending.set_exception(exc)
            pending.exception()  # retrieved: nobody else may be waiting
            raise
        except BaseException:
            pending.set_exception(WireError("connecting was cancelled"))
            pending.exception()
            raise
        finally:
            self._connecting.pop(address, None)
        self._links[address] = link
        pending.set_result(link)
        return link

    def _endpoint(self, address: Address | None) -> Endpoint:
        if address is None:
            return self.seeds[0]
        return self.seeds[0].at(address)

    async def _open(self, address: Address | None) -> _Link:
        if self._closed:
            raise WireError("the wire is closed")
        endpoint = self._endpoint(address)
        loop = asyncio.get_running_loop()
        link = await open_connection(
            endpoint, lambda: _Link(loop, self.timeout), self.connect_timeout
        )
        hello = [link.send(_pack(c)) for c in sign_in(endpoint)]
        if endpoint.db:
            hello.append(link.send(_pack(("SELECT", endpoint.db))))
        try:
            async with asyncio.timeout(self.connect_timeout):
                replies = [await future for future in hello]
        except TimeoutError:
            link.close()
            raise WireTimeout("Redis did not answer the sign-in") from None
        for reply in replies:
            if type(reply) is hiredis.ReplyError:
                link.close()
                raise CommandError(str(reply))
        return link

    # -- the cluster's slot map -------------------------------------------------------------
    async def _first_map(self) -> None:
        """Before a cluster's first command: its slot map (routing by guess would have
        every first command MOVED)."""
        self._map_again()
        assert self._mapping is not None
        await asyncio.shield(self._mapping)
        if not self._mapped:
            raise WireError("no node of the Redis Cluster answered CLUSTER SLOTS")

    def _map_again(self) -> None:
        """Read the slot map again, in the background (once at a time)."""
        if self._mapping is None or self._mapping.done():
            self._mapping = asyncio.get_running_loop().create_task(self._read_map())

    async def _read_map(self) -> None:
        known = [a for a in dict.fromkeys(self._slots) if a is not None]
        candidates = [*known, *((s.host, s.port) for s in self.seeds)]
        for address in dict.fromkeys(candidates):
            try:
                link = await self._link(address)
                reply = await link.send(_pack(("CLUSTER", "SLOTS")))
            except (WireError, WireTimeout, OSError):
                continue
            if type(reply) is hiredis.ReplyError:
                continue
            slots: list[Address | None] = [None] * SLOTS
            for start, end, primary, *_ in reply:
                host = primary[0].decode() if primary[0] else address[0]
                for slot in range(int(start), int(end) + 1):
                    slots[slot] = (host, int(primary[1]))
            self._slots = slots
            self._mapped = True
            return

    async def primaries(self, timeout: float = 1.0) -> dict[str, bool]:
        """A cluster's primaries by the slot map, ``host:port`` -> whether it answered PING
        within ``timeout``: readiness's view of a failover under way (a dead primary stays
        in the map until a replica takes over)."""
        replies = await self.each_primary("PING", timeout=timeout)
        return {address: reply is not None for address, reply in replies.items()}

    async def each_primary(self, *command: Arg, timeout: float = 1.0) -> dict[str, Any]:
        """``command`` sent to each of a cluster's primaries by the slot map (read again
        first, within ``timeout``): ``host:port`` -> its reply, None when none came within
        ``timeout`` or it was an error."""
        if not self._mapped:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(timeout):
                    await self._first_map()
        else:
            self._map_again()
            assert self._mapping is not None
            with contextlib.suppress(Exception):
                async with asyncio.timeout(timeout):
                    await asyncio.shield(self._mapping)
        addresses = sorted({a for a in self._slots if a is not None})

        async def ask(address: Address) -> Any:
            try:
                async with asyncio.timeout(timeout):
                    link = await self._link(address)
                    reply = await link.send(_pack(command))
            except (TimeoutError, WireError, WireTimeout, OSError):
                return None
            return None if type(reply) is hiredis.ReplyError else reply

        replies = await asyncio.gather(*(ask(a) for a in addresses))
        return {f"{h}:{p}": reply for (h, p), reply in zip(addresses, replies, strict=True)}

    async def close(self) -> None:
        self._closed = True
        if self._mapping is not None:
            self._mapping.cancel()
            with contextlib.suppress(BaseException):
                await self._mapping
        for link in list(self._links.values()):
            link.close()
        self._links.clear()


def sign_in(endpoint: Endpoint) -> list[tuple[Arg, ...]]:
    """The commands that sign a new connection in (``AUTH``, if the URL has a password)."""
    if endpoint.password is None:
        return []
    if endpoint.username is not None:
        return [("AUTH", endpoint.username, endpoint.password)]
    return [("AUTH", endpoint.password)]


P = TypeVar("P", bound=asyncio.Protocol)


async def open_connection(endpoint: Endpoint, factory: Callable[[], P], timeout: float) -> P:
    """A connection to ``endpoint`` (TCP, TLS or a unix socket) with the protocol
    ``factory`` makes; ``WireError`` / ``WireTimeout`` when it cannot be made."""
    loop = asyncio.get_running_loop()
    context = ssl.create_default_context() if endpoint.tls else None
    try:
        async with asyncio.timeout(timeout):
            if endpoint.path is not None:
                _, protocol = await loop.create_unix_connection(factory, endpoint.path)
            else:
                _, protocol = await loop.create_connection(
                    factory, endpoint.host, endpoint.port, ssl=context
                )
    except TimeoutError:
        raise WireTimeout(f"could not connect to Redis in {timeout:g} s") from None
    except OSError as exc:
        raise WireError(f"could not connect to Redis: {exc}") from exc
    return protocol


def pack(command: tuple[Arg, ...]) -> bytes:
    """A command in Redis's protocol (hiredis)."""
    return _pack(command)


def connect(url: str, *, retries: int, timeout: float = 10.0) -> Wire:
    """The node's wire to the Redis (or Redis Cluster) of ``url``; connects on first use."""
    return Wire.from_url(url, retries=retries, timeout=timeout)
