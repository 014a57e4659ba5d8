"""This node's sockets, the rooms they follow through pub/sub, and the fan-out of views.

The node subscribes to the channel of every room it has sockets in, and its one reader
hands each publication to the sockets following that room (each a ``Connection``, with its
own writer: server/realtime/connection.py). A step's frames are rendered and encoded once
per seat on this node, not once per socket, and its entry read from the log once (the
fan-out caches: server/realtime/fanout.py). If the connection to Redis was lost and
pub/sub subscribed again, each socket of the room catches up from the log.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import logging
from collections import defaultdict
from typing import Any

from starlette.websockets import WebSocket

from server import protocol
from server.identity.tokens import User
from server.ops.metrics import NodeMetrics
from server.realtime.connection import Connection, protocol_of
from server.realtime.fanout import FanOut, framed
from server.redis.pool import Client
from server.redis.pubsub import subscriber
from server.table.entry import Entry, Published, unpack
from server.table.rooms import RoomService

# ``Connection`` too: the sockets the hub makes (``Hub.connection``) are what its users hold.
__all__ = ["Connection", "Hub"]

log = logging.getLogger("tortuga.hub")

# Seconds a socket joining a room waits for the room's channel to be subscribed: longer than
# a Redis Cluster failover (the subscription lands on the promoted replica).
FOLLOW_WAIT = 15.0


class Hub(FanOut):
    """The sockets of this node, by room, and the one pub/sub connection that feeds them.

    A ``FanOut`` too (server/realtime/fanout.py): its sockets share the entries and
    renderings it keeps, and look them up on it for every socket of a room at each step.

    A socket's id is ``<instance>:<n>``: the instance names this process (its node id and a
    random suffix), so presence entries can be told apart by node, and a dead node's
    entries can be found and dropped (server/realtime/heartbeat.py)."""

    def __init__(
        self,
        redis: Client,
        rooms: RoomService,
        instance: str,
        resume_max: int,
        sockets_per_user: int = 0,
        *,
        max_queued_bytes: int,
    ) -> None:
        super().__init__(rooms)
        self.redis = redis
        self.instance = instance
        self.resume_max = resume_max
        self.max_queued_bytes = max_queued_bytes
        self.sockets_per_user = sockets_per_user  # 0: no cap
        self.sockets_of: collections.Counter[str] = collections.Counter()
        # Room channels sharded on a Redis Cluster; one Redis: parsed as the wire parses.
        wire = getattr(getattr(rooms, "store", None), "wire", None)
        self.pubsub = subscriber(redis, wire)
        self.by_room: dict[str, set[Connection]] = defaultdict(set)
        self.watchers: set[Connection] = set()
        self.conns_of: dict[str, set[Connection]] = defaultdict(set)  # open sockets by user
        self._counter = itertools.count(1)
        self._subscribed: dict[str, asyncio.Event] = {}
        self._lock = asyncio.Lock()
        self._reader: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        # room -> (the version this node is writing, the publications that came first).
        self._early: dict[str, tuple[int, list[Published]]] = {}

    @property
    def keys(self) -> Any:
        return self.rooms.store.keys

    @property
    def metrics(self) -> NodeMetrics:
        return self.rooms.store.metrics

    async def start(self) -> None:
        channels = (self.keys.rooms_channel, self.keys.users_channel)
        for channel in channels:
            self._subscribed[channel] = asyncio.Event()
        await self.pubsub.subscribe(*channels)
        self._reader = asyncio.create_task(self._read())
        for channel in channels:
            await asyncio.wait_for(self._subscribed[channel].wait(), 5)

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        for task in list(self._tasks):
            task.cancel()
        await self.pubsub.aclose()

    def admit(self, user: User) -> bool:
        """Count one more open socket of ``user`` on this node, unless it has its cap."""
        if self.sockets_per_user and self.sockets_of[user.id] >= self.sockets_per_user:
            return False
        self.sockets_of[user.id] += 1
        self.metrics.socket_opened()
        return True

    def release(self, user: User) -> None:
        """One socket of ``user`` closed (admitted before)."""
        self.sockets_of[user.id] -= 1
        self.metrics.socket_closed()
        if self.sockets_of[user.id] <= 0:
            del self.sockets_of[user.id]

    def connection(self, user: User, socket: WebSocket, gen: int = 0) -> Connection:
        conn = Connection(
            f"{self.instance}:{next(self._counter)}",
            user,
            socket,
            self,
            gen=gen,
            protocol=protocol_of(socket),
        )
        self.conns_of[user.id].add(conn)
        return conn

    def forget(self, conn: Connection) -> None:
        """A socket closed."""
        conns = self.conns_of.get(conn.user.id)
        if conns is not None:
            conns.discard(conn)
            if not conns:
                del self.conns_of[conn.user.id]

    def banned(self, user_id: str, message: str, mark: str | None = None) -> None:
        """An operator banned ``user_id`` from the site (with ``mark``, the address their
        guest was made from too): close every socket of theirs here, and of every guest made
        from that address."""
        closing = dict.fromkeys(self.conns_of.get(user_id, ()))
        if mark:  # an operator's rare act: one pass over this node's sockets
            closing.update(
                dict.fromkeys(
                    c for conns in self.conns_of.values() for c in conns if c.mark == mark
                )
            )
        for conn in list(closing):
            conn.send(protocol.error(protocol.BANNED, message))
            conn.close(protocol.CLOSE_BANNED, "banned")

    def signed_out(self, user_id: str, gen: int) -> None:
        """``user_id`` signed out everywhere (generation ``gen``): close their sockets that
        signed in with an older token."""
        for conn in list(self.conns_of.get(user_id, ())):
            if conn.gen < gen:
                conn.send(protocol.error(protocol.BAD_TOKEN, "signed out everywhere"))
                conn.close(protocol.CLOSE_BAD_TOKEN, "signed out")

    def writing(self, room_id: str, version: int) -> None:
        """This node is about to try to write ``version`` of ``room_id`` (``Hooks``): its
        sockets of the room wait for the entry rather than read it (``FanOut.entries``)."""
        if room_id in self.by_room:
            self.expect(room_id, version)

    def written(self, room_id: str, version: int, entry: Entry | None) -> None:
        """This node's try at ``version`` of ``room_id`` is over (``entry``: it won with
        it; None: lost or failed): the entry is kept for this node's sockets of the room,
        as if read from the log, and whoever waited for it goes on; a notice of that
        version that came first (``_held_back``) is handed to the sockets now."""
        self.keep(room_id, version, entry if room_id in self.by_room else None)
        early = self._early.get(room_id)
        if early is not None and early[0] == version:
            del self._early[room_id]
            for message in early[1]:
                frame = framed(message)
                for conn in list(self.by_room.get(room_id, ())):
                    conn.feed(message, frame)

    def _held_back(self, room_id: str, message: Published) -> bool:
        """A step's notice that beat this node's own write of it to this node (the reply
        to the script and the publication leave Redis at once) is kept until ``written``,
        and so is every later publication of the room, in order: then the sockets are
        written to at once from the entry, not by a task each waiting for it. True if
        kept."""
        early = self._early.get(room_id)
        if early is not None:
            early[1].append(message)
            return True
        version = (message.data or {}).get("version") if message.k == "step" else None
        if not isinstance(version, int) or not self.expecting(room_id, version):
            return False
        self._early[room_id] = (version, [message])
        return True

    # -- rooms followed -------------------------------------------------------------------
    async def follow(self, conn: Connection, room_id: str) -> None:
        """Subscribe (if this node was not yet) and wait until Redis confirmed it."""
        channel = self.keys.channel(room_id)
        async with self._lock:
            self.by_room[room_id].add(conn)
            if channel not in self._subscribed:
                self._subscribed[channel] = asyncio.Event()
                await self.pubsub.follow(channel)
            event = self._subscribed[channel]
        await asyncio.wait_for(event.wait(), FOLLOW_WAIT)

    async def unfollow(self, conn: Connection, room_id: str) -> None:
        channel = self.keys.channel(room_id)
        async with self._lock:
            conns = self.by_room.get(room_id)
            if conns is not None:
                conns.discard(conn)
                if not conns:
                    del self.by_room[room_id]
                    self.forget_room(room_id)
                    self._subscribed.pop(channel, None)
                    await self.pubsub.unfollow(channel)

    def drop(self, conn: Connection) -> None:
        """Take a socket out of the room it follows (it stays open): no more frames, and
        its presence in the room goes."""
        room_id, seat = conn.room_id, conn.seat
        if room_id is None:
            return
        conn.room_id = None
        conn.synced = False

        async def leave() -> None:
            await self.unfollow(conn, room_id)
            await self.rooms.presence.depart(room_id, conn.id, seat)

        task = asyncio.create_task(leave())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def reseat(self, conn: Connection) -> None:
        """A socket's seat changed (sat, stood, kicked): record it in the room's presence."""
        if conn.room_id is None:
            return
        task = asyncio.create_task(self.rooms.presence.arrive(conn.room_id, conn.id, conn.seat))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def announce_all(self) -> None:
        """Record every socket of this node in its room's presence again (after this node
        was taken for dead and its entries were dropped)."""
        for room_id, conns in list(self.by_room.items()):
            for conn in list(conns):
                if conn.room_id == room_id:
                    await self.rooms.presence.arrive(room_id, conn.id, conn.seat)

    def _catch_up(self, channel: str) -> None:
        """``channel`` was subscribed again: the connection to Redis was lost (a restart)
        and redis-py re-subscribed. What was published meanwhile never came: each socket
        of the room is sent what it missed since its last version, with the sealed phase's
        status (a lost ``open`` would leave players waiting), as after a resume."""
        prefix = self.keys.channel("")[: -len("{}")]
        if channel == self.keys.rooms_channel or not channel.startswith(prefix):
            return
        room_id = channel[len(prefix) + 1 : -1]
        log.warning("pub/sub subscribed again: catching up", extra={"room": room_id})
        for conn in list(self.by_room.get(room_id, ())):
            if conn.room_id == room_id and conn.synced:
                conn.sync(room_id, None, from_here=True)

    # -- the reader -----------------------------------------------------------------------
    async def _read(self) -> None:
        rooms_channel = self.keys.rooms_channel
        prefix = self.keys.channel("")[: -len("{}")]
        while True:
            try:
                message = await self.pubsub.get_message(timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("pub/sub read failed")
                await asyncio.sleep(0.5)
                continue
            if message is None:
                continue
            channel = message["channel"]
            channel = channel.decode() if isinstance(channel, bytes) else channel
            if message["type"] == "subscribe":
                event = self._subscribed.get(channel)
                if event is not None:
                    if event.is_set():
                        self._catch_up(channel)
                    event.set()
                continue
            if message["type"] != "message":
                continue
            try:
                published = unpack(message["data"])
            except Exception:
                log.warning("unreadable publication", extra={"channel": channel})
                continue
            if channel == self.keys.users_channel:
                data = published.data or {}
                if published.k == "signout" and isinstance(data.get("gen"), int):
                    self.signed_out(str(data.get("user")), data["gen"])
                elif published.k == "ban":
                    mark = data.get("mark")
                    self.banned(
                        str(data.get("user")),
                        str(data.get("message") or "banned"),
                        mark if isinstance(mark, str) else None,
                    )
                continue
            if channel == rooms_channel:
                for conn in list(self.watchers):
                    conn.feed(published)
                continue
            room_id = channel[len(prefix) + 1 : -1]
            targets = list(self.by_room.get(room_id, ()))
            if self._held_back(room_id, published):
                continue  # fed once this node's write of that version is known (``written``)
            frame = framed(published) if targets else None
            for conn in targets:
                conn.feed(published, frame)
