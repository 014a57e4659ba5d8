"""This node's sockets, its pub/sub subscriptions, and the fan-out of views.

The node subscribes to the channel of every room it has sockets in. Each socket has at most
one writer task and one queue (both only while something waits to be written), so its
frames leave in order; the writer sends every publication as rendered for that socket's own
seat (server/realtime/render.py), rendered and encoded once per seat on this node
(``Hub.rendered``),
not once per socket. A socket remembers the last
version it was sent: an older publication is skipped, a newer one after a gap is preceded
by the missing entries, read from the room's log stream. So every socket, on any node,
receives every version exactly once and in order, even if a publication was lost.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import logging
from collections import OrderedDict, defaultdict
from dataclasses import dataclass, field
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from engines.registry import GAMES
from server import protocol
from server.identity.tokens import User
from server.ops.metrics import NodeMetrics
from server.protocol import encode_bytes as protocol_encode
from server.realtime.render import entry_frames, sealed_frame
from server.realtime.socket_protocol import LeanWebSocketProtocol, text_frame
from server.redis.pool import Client
from server.redis.pubsub import subscriber
from server.table import moderation
from server.table.entry import Entry, Published, from_fields, unpack
from server.table.room import LOBBY, Room, RoomError
from server.table.rooms import RoomService

log = logging.getLogger("tortuga.hub")

ENTRY_CACHE = 1024  # log entries a node keeps for its sockets
FRAME_CACHE = 4096  # (entry, seat) renderings a node keeps for its sockets
MAX_QUEUE = 2000  # frames waiting for one socket before it is dropped as too slow
PENDING_WAIT = 5.0  # seconds a socket waits for this node's own write before reading the log


# Publications each socket of the room is sent as they are (``{type: k, room, **data}``):
# those of the version the socket is at, and those of any moment.
VERSIONED = frozenset({"committed", "open", "deadline"})
PLAIN = frozenset(
    {
        "chat",
        "chat_hidden",
        "presence",
        "announce",
        "unannounce",
        "inspected",
        "paused",
        "unpaused",
        "replaced",
    }
)


@dataclass(slots=True)
class Rendered:
    """A step's frames for one seat (or every spectator): each frame's JSON, and all of them
    framed for the wire at once (the same bytes for every socket of that seat)."""

    payloads: list[bytes]
    frames: bytes


def _protocol_of(socket: WebSocket) -> LeanWebSocketProtocol | None:
    """The node's own websocket protocol under ``socket`` (server/realtime/socket_protocol.py),
    whose
    ``write_frame`` takes a frame framed once for many sockets; None under another server.
    Starlette's WebSocket keeps the ASGI ``send``, which uvicorn makes the protocol's method."""
    protocol = getattr(getattr(socket, "_send", None), "__self__", None)
    return protocol if isinstance(protocol, LeanWebSocketProtocol) else None


@dataclass(eq=False, slots=True)
class Connection:
    """One websocket: who it is, which room and seat it follows, what it was last sent.
    Slots, not a ``__dict__``: one of these per socket (memory per socket, issue 15)."""

    id: str
    user: User
    socket: WebSocket
    hub: Hub
    room_id: str | None = None
    role: str = "player"  # "player" or "spectator"
    seat: int | None = None  # the seat it renders for (None: spectator view)
    gen: int = 0  # the token generation it signed in with (sign out everywhere closes it)
    spectators: bool = True  # the room it follows allows spectators
    version: int = -1  # the last version sent; -1: no snapshot yet
    synced: bool = False
    watching: bool = False
    held: list[Published] = field(default_factory=list)
    # What waits to be written, and the task writing it: both exist only while there is
    # something to write (an idle socket holds neither: memory per socket, issue 15).
    queue: collections.deque[tuple[str, Any]] | None = None
    writer: asyncio.Task[None] | None = None
    closing: bool = False  # a close is queued: nothing more is
    protocol: LeanWebSocketProtocol | None = None  # to write frames framed once (``Rendered``)

    # -- called from anywhere on this node ------------------------------------------------
    def send(self, frame: dict[str, Any]) -> None:
        if self.queue is None and not self.closing and self._write_now(frame):
            return
        self._put(("frame", frame))

    def feed(self, message: Published, framed: bytes | None = None) -> None:
        """A publication of the room this socket follows (or of the room list). ``framed``:
        the frame it makes for every socket alike (``Hub.framed``), if it is such a kind."""
        if self.queue is None and self.synced and not self.closing and message.room == self.room_id:
            if message.k == "step" and self._step_now(message.data or {}):
                return
            if framed is not None and self._alike_now(message, framed):
                return
        self._put(("pub", message))

    # -- at once, when nothing waits to be written before it ------------------------------
    # A socket with nothing queued is written to directly, without its writer task (made,
    # run and dropped for every frame, it was 7 % of a node's CPU under load); whatever
    # cannot be written at once (a step whose entry this node has not read yet, a socket
    # whose writes are paused) goes the usual way, in order, behind nothing.
    def _write_now(self, frame: dict[str, Any]) -> bool:
        protocol = self.protocol
        if protocol is None or self.socket.application_state != WebSocketState.CONNECTED:
            return False
        if not protocol.write_frame(text_frame(protocol_encode(frame))):
            return False
        if frame.get("type") == "error":
            self.hub.metrics.error_sent(str(frame.get("code")))
        return True

    def _alike_now(self, message: Published, framed: bytes) -> bool:
        """A publication whose frame is the same for every socket (chat, presence, a seat's
        commitment ...): written now, if it is for this socket at all (as ``_publication``)."""
        if message.k in VERSIONED and (message.data or {}).get("version") != self.version:
            return True  # not for the version this socket is at: nothing to send
        protocol = self.protocol
        return (
            protocol is not None
            and self.socket.application_state == WebSocketState.CONNECTED
            and protocol.write_frame(framed)
        )

    def _step_now(self, data: dict[str, Any]) -> bool:
        """Version ``data["version"]`` when it is the next one and this node has its entry:
        written now; True if nothing more is to be done for it."""
        version = data.get("version")
        if not isinstance(version, int):
            return False
        if version <= self.version:
            return True  # sent already (with a gap filled, or a resume)
        entry = self.hub.cached(self.room_id, version)
        protocol = self.protocol
        if (
            version != self.version + 1
            or entry is None
            or protocol is None
            or self._unwelcome(entry.status)
            or self.socket.application_state != WebSocketState.CONNECTED
            or not protocol.write_frame(self.hub.rendered(entry, self.seat).frames)
        ):
            return False
        self.version = version
        if isinstance(data.get("t"), float):
            self.hub.metrics.fanned_out(data["t"])
        return True

    def sync(self, room_id: str, version: int | None, *, from_here: bool = False) -> None:
        """Send a snapshot (``version`` None) or what was missed since ``version``.
        ``from_here``: since the version this socket is at when the sync's turn comes, not
        now (a catch-up after pub/sub came back: a step queued before it, still waiting for
        its entry, would otherwise be sent twice)."""
        self.synced = False
        self.held.clear()
        self._put(("sync", (room_id, version, from_here)))

    def close(self, code: int, reason: str) -> None:
        self._put(("close", (code, reason)))

    def _put(self, item: tuple[str, Any]) -> None:
        if self.closing:
            return
        if self.queue is None:
            self.queue = collections.deque()
        if len(self.queue) >= MAX_QUEUE:
            log.warning("slow socket dropped", extra={"conn": self.id})
            self.queue.clear()
            item = ("close", (1013, "too slow"))
        if item[0] == "close":
            self.closing = True
        self.queue.append(item)
        if self.writer is None or self.writer.done():
            self.writer = asyncio.create_task(self.run_writer())

    # -- the writer task ------------------------------------------------------------------
    async def run_writer(self) -> None:
        """Write what is queued, in order, then end (the next ``_put`` starts another)."""
        try:
            while self.queue:
                kind, item = self.queue.popleft()
                if kind == "frame":
                    await self._write(item)
                elif kind == "pub":
                    await self._publication(item)
                elif kind == "sync":
                    await self._sync(*item)
                elif kind == "close":
                    if self.socket.application_state == WebSocketState.CONNECTED:
                        await self.socket.close(*item)
                    return
        except (RuntimeError, OSError, ConnectionError, WebSocketDisconnect):
            self.closing = True
            return  # the socket is gone; the reader cleans up
        except Exception:
            self.closing = True
            log.exception("writer failed", extra={"conn": self.id})
            with contextlib.suppress(Exception):
                await self.socket.close(1011, "server error")
        finally:
            if not self.queue:
                self.queue = None
            if self.writer is asyncio.current_task():
                self.writer = None  # a finished task is no use to keep (issue 15)

    async def _write(self, frame: dict[str, Any]) -> None:
        if frame.get("type") == "error" and self.socket.application_state == (
            WebSocketState.CONNECTED
        ):
            self.hub.metrics.error_sent(str(frame.get("code")))
        await self._write_text(protocol.encode(frame))

    async def _write_text(self, text: str) -> None:
        if self.socket.application_state == WebSocketState.CONNECTED:
            await self.socket.send_text(text)

    async def _write_rendered(self, rendered: Rendered) -> None:
        if self.socket.application_state != WebSocketState.CONNECTED:
            return
        if self.protocol is not None and self.protocol.write_frame(rendered.frames):
            return
        for payload in rendered.payloads:
            await self._write_text(payload.decode())

    def _seat_in(self, seats: list[dict[str, Any]]) -> int | None:
        if self.role != "player":
            return None
        for s in seats:
            if s.get("user") == self.user.id:
                return int(s["seat"])
        return None

    async def _sync(self, room_id: str, version: int | None, from_here: bool = False) -> None:
        if room_id != self.room_id:
            return
        if from_here:
            version = self.version if self.version >= 0 else None
        rooms = self.hub.rooms
        try:
            room = await rooms.get(room_id, presence=True)
        except RoomError as exc:
            await self._write(protocol.error(exc.code, exc.message))
            return
        self.seat = room.seat_of(self.user.id) if self.role == "player" else None
        self.spectators = room.spectators
        if self._unwelcome(room.status):
            await self._turn_away()
            return
        missed = None
        if version is not None and room.status != LOBBY and 0 <= version <= room.version:
            missed = await self._missed(room, version)
        if missed is None:
            await self._snapshot(room)
        else:
            assert version is not None
            for frame in missed:
                await self._write(frame)
            self.version = room.version
            await self._seal_status(room)
            await self._write(
                {
                    "type": "resumed",
                    "room": room.id,
                    "version": room.version,
                    "from": version,
                    "missed": room.version - version,
                    "seat": self.seat,
                    "room_state": room.summary(rooms.base_url),
                    "deadline": room.deadline,
                    "chat": await rooms.chat.history(room.id),
                    "announce": await moderation.announcement(rooms.store, room),
                }
            )
        self.synced = True
        held, self.held = self.held, []
        for message in held:
            await self._publication(message)

    async def _missed(self, room: Room, version: int) -> list[dict[str, Any]] | None:
        """The frames of versions ``version+1 ..`` for this socket, or None if too old."""
        if room.version - version > self.hub.resume_max:
            return None
        if version == room.version:
            return []
        entries = await self.hub.rooms.store.log_range(room.id, version + 1, room.version)
        if [v for v, _ in entries] != list(range(version + 1, room.version + 1)):
            return None  # the log no longer holds them all
        game = room.game
        frames: list[dict[str, Any]] = []
        for _, fields in entries:
            frames.extend(entry_frames(game, from_fields(fields), self.seat))
        return frames

    async def _seal_status(self, room: Room) -> None:
        if room.state is None or room.status != "playing":
            return
        game = room.game
        seal = await self.hub.rooms.store.load_seal(room.id)
        state = game.decode(room.state)
        frame = sealed_frame(game, state, room.id, room.version, seal, room.deadline)
        if frame is not None:
            await self._write(frame)

    async def _snapshot(self, room: Room) -> None:
        view = None
        if room.state is not None:
            view = room.game.view(room.game.decode(room.state), self.seat)
        await self._write(
            {
                "type": "snapshot",
                "room": room.id,
                "version": room.version,
                "seat": self.seat,
                "role": self.role,
                "view": view,
                "room_state": room.summary(self.hub.rooms.base_url),
                "seed_digest": room.seed_digest,
                "seed": room.seed if room.status in ("finished", "abandoned") else None,
                "deadline": room.deadline,
                "chat": await self.hub.rooms.chat.history(room.id),
                "announce": await moderation.announcement(self.hub.rooms.store, room),
            }
        )
        self.version = room.version
        await self._seal_status(room)

    async def _publication(self, message: Published) -> None:
        if message.k == "rooms":
            if self.watching:
                await self._write({"type": "rooms", "full": False, **(message.data or {})})
            return
        if message.room != self.room_id:
            return
        if not self.synced:
            self.held.append(message)
            return
        data = message.data or {}
        if message.k == "step" and isinstance(data.get("version"), int):
            before = self.version
            await self._step(data["version"])
            if self.version > before and isinstance(data.get("t"), float):
                self.hub.metrics.fanned_out(data["t"])
        elif message.k == "room":
            seat = self._seat_in(data.get("seats", []))
            if seat != self.seat:
                self.seat = seat
                self.hub.reseat(self)
            await self._write({"type": "room", "room": self.room_id, "room_state": data})
        elif message.k in VERSIONED:
            if data.get("version") == self.version:
                await self._write({"type": message.k, "room": self.room_id, **data})
        elif message.k == "kicked":
            if data.get("user") == self.user.id:
                await self._kicked(data)
        elif message.k in PLAIN:
            await self._write({"type": message.k, "room": self.room_id, **data})

    def _unwelcome(self, status: str) -> bool:
        """A room without spectators, once its game has started, has only its seated
        players in it: a socket without a seat may not follow it."""
        return not self.spectators and status != LOBBY and self.seat is None

    async def _turn_away(self) -> None:
        """Tell this seatless socket it is out of the room, and take it out (it no longer
        follows the room: its chat is refused, it gets nothing more)."""
        room_id = self.room_id
        await self._write(
            protocol.error(
                protocol.NO_SPECTATORS, "the game has started: this room has no spectators"
            )
        )
        await self._write({"type": "left", "room": room_id, "reason": protocol.NO_SPECTATORS})
        self.hub.drop(self)

    async def _kicked(self, data: dict[str, Any]) -> None:
        """An operator removed this socket's user from the room (server/admin/): told why
        (``kicked {room, ban, reason}``), then out of the room like a turned-away spectator;
        a banned user may not come back (``banned-from-room``)."""
        room_id = self.room_id
        frame = {"type": "kicked", "room": room_id, "ban": bool(data.get("ban"))}
        frame["reason"] = data.get("reason")
        await self._write(frame)
        await self._write({"type": "left", "room": room_id, "reason": "kicked"})
        self.seat = None  # the seat is free or a bot's now: its leaving starts no grace time
        self.hub.drop(self)

    async def _step(self, version: int) -> None:
        """Version ``version`` was written: send this socket every version it has not had
        up to it, read from the log (the hub reads each entry once for all its sockets)."""
        assert self.room_id is not None
        if version <= self.version:
            return
        entries = await self.hub.entries(self.room_id, self.version + 1, version)
        for entry in entries:
            if entry.version <= self.version:
                continue
            if self._unwelcome(entry.status):
                await self._turn_away()
                return
            await self._write_rendered(self.hub.rendered(entry, self.seat))
            self.version = entry.version


class Hub:
    """The sockets of this node, by room, and the one pub/sub connection that feeds them.

    A socket's id is ``<instance>:<n>``: the instance names this process (its node id and a
    random suffix), so presence entries can be told apart by node, and a dead node's
    entries can be found and dropped (server/realtime/clock.py)."""

    def __init__(
        self,
        redis: Client,
        rooms: RoomService,
        instance: str,
        resume_max: int,
        sockets_per_user: int = 0,
    ) -> None:
        self.redis = redis
        self.rooms = rooms
        self.instance = instance
        self.resume_max = resume_max
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
        # Entries read from rooms' logs, shared by this node's sockets (most recent last).
        self._entries: OrderedDict[tuple[str, int], Entry] = OrderedDict()
        self._reading: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        # Versions this node is writing: done when its writer knows whether it won.
        self._pending: dict[tuple[str, int], asyncio.Future[None]] = {}
        # room -> (the version this node is writing, the publications that came first).
        self._early: dict[str, tuple[int, list[Published]]] = {}
        # A step's frames for one seat (None: every spectator), rendered and encoded once
        # and sent to each socket of that seat on this node (most recent last).
        self._rendered: OrderedDict[tuple[str, int, int | None], Rendered] = OrderedDict()
        self._decoded: tuple[Entry, Any] | None = None  # the last entry rendered, its state

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
            protocol=_protocol_of(socket),
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

    def banned(self, user_id: str, message: str) -> None:
        """An operator banned ``user_id`` from the site: close every socket of theirs here."""
        for conn in list(self.conns_of.get(user_id, ())):
            conn.send(protocol.error(protocol.BANNED, message))
            conn.close(protocol.CLOSE_BANNED, "banned")

    def signed_out(self, user_id: str, gen: int) -> None:
        """``user_id`` signed out everywhere (generation ``gen``): close their sockets that
        signed in with an older token."""
        for conn in list(self.conns_of.get(user_id, ())):
            if conn.gen < gen:
                conn.send(protocol.error(protocol.BAD_TOKEN, "signed out everywhere"))
                conn.close(protocol.CLOSE_BAD_TOKEN, "signed out")

    async def entries(self, room_id: str, first: int, last: int) -> list[Entry]:
        """The log entries ``first..last`` of a room, in order (those the log still has).
        One read per room at a time, and what was read is kept for the other sockets. A
        version this node is writing is waited for (its writer keeps the entry: see
        ``written``) rather than read: its notice can come before the writer's reply."""
        wanted = range(first, last + 1)
        cached = self._entries
        if all((room_id, v) in cached for v in wanted):
            return [cached[(room_id, v)] for v in wanted]  # the usual case: no lock
        async with self._reading[room_id]:
            for v in wanted:
                pending = self._pending.get((room_id, v))
                if pending is not None and (room_id, v) not in cached:
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(PENDING_WAIT):
                            await asyncio.shield(pending)
            missing = [v for v in wanted if (room_id, v) not in cached]
            if missing:
                read = await self.rooms.store.log_range(room_id, missing[0], last)
                for v, fields in read:
                    cached[(room_id, v)] = from_fields(fields)
                while len(cached) > ENTRY_CACHE:
                    cached.popitem(last=False)
            return [cached[(room_id, v)] for v in wanted if (room_id, v) in cached]

    def writing(self, room_id: str, version: int) -> None:
        """This node is about to try to write ``version`` of ``room_id`` (``Hooks``)."""
        key = (room_id, version)
        if room_id in self.by_room and key not in self._pending and key not in self._entries:
            self._pending[key] = asyncio.get_running_loop().create_future()

    def written(self, room_id: str, version: int, entry: Entry | None) -> None:
        """This node's try at ``version`` of ``room_id`` is over (``entry``: it won with
        it; None: lost or failed): the entry is kept for this node's sockets of the room,
        as if read from the log, and whoever waited for it goes on; a notice of that
        version that came first (``_held_back``) is handed to the sockets now."""
        key = (room_id, version)
        if entry is not None and room_id in self.by_room and key not in self._entries:
            self._entries[key] = entry
            while len(self._entries) > ENTRY_CACHE:
                self._entries.popitem(last=False)
        pending = self._pending.pop(key, None)
        if pending is not None and not pending.done():
            pending.set_result(None)
        early = self._early.get(room_id)
        if early is not None and early[0] == version:
            del self._early[room_id]
            for message in early[1]:
                framed = self.framed(message)
                for conn in list(self.by_room.get(room_id, ())):
                    conn.feed(message, framed)

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
        if not isinstance(version, int) or (room_id, version) not in self._pending:
            return False
        self._early[room_id] = (version, [message])
        return True

    def framed(self, message: Published) -> bytes | None:
        """The frame a publication makes for every socket of its room alike (``PLAIN`` and
        ``VERSIONED`` kinds), framed once; None for the others (rendered per socket)."""
        if message.k not in PLAIN and message.k not in VERSIONED:
            return None
        frame = {"type": message.k, "room": message.room, **(message.data or {})}
        return text_frame(protocol_encode(frame))

    def cached(self, room_id: str | None, version: int) -> Entry | None:
        """The entry of ``version`` if this node has it (written or read), else None."""
        return self._entries.get((room_id or "", version))

    def rendered(self, entry: Entry, seat: int | None) -> Rendered:
        """The frames of ``entry`` for ``seat`` (None: a spectator), encoded and framed. A
        view depends on the seat alone (server/realtime/render.py), so each seat's frames, and one
        set for all spectators, are rendered once per step on this node, not per socket."""
        key = (entry.room, entry.version, seat)
        rendered = self._rendered.get(key)
        if rendered is None:
            game = GAMES[entry.engine]
            decoded = self._decoded
            if decoded is None or decoded[0] is not entry:
                decoded = self._decoded = (entry, game.decode(entry.state))  # once per step
            payloads = [protocol_encode(f) for f in entry_frames(game, entry, seat, decoded[1])]
            rendered = Rendered(payloads, b"".join(text_frame(p) for p in payloads))
            self._rendered[key] = rendered
            while len(self._rendered) > FRAME_CACHE:
                self._rendered.popitem(last=False)
        return rendered

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
        await asyncio.wait_for(event.wait(), 5)

    async def unfollow(self, conn: Connection, room_id: str) -> None:
        channel = self.keys.channel(room_id)
        async with self._lock:
            conns = self.by_room.get(room_id)
            if conns is not None:
                conns.discard(conn)
                if not conns:
                    del self.by_room[room_id]
                    self._reading.pop(room_id, None)
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
                    self.banned(str(data.get("user")), str(data.get("message") or "banned"))
                continue
            if channel == rooms_channel:
                for conn in list(self.watchers):
                    conn.feed(published)
                continue
            room_id = channel[len(prefix) + 1 : -1]
            targets = list(self.by_room.get(room_id, ()))
            if self._held_back(room_id, published):
                continue  # fed once this node's write of that version is known (``written``)
            framed = self.framed(published) if targets else None
            for conn in targets:
                conn.feed(published, framed)
