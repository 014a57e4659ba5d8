"""One websocket of this node: its state, and the writer that sends it its frames in order.

A ``Connection`` knows who it is, which room and seat it follows, and the last version it
was sent. Everything it is sent goes through it: written at once when nothing waits before
it (the usual case), else put on its queue and sent by its writer task, in order. Both the
queue and the writer exist only while something waits to be written (an idle socket holds
neither). ``_put`` is the one place the queue grows, and it keeps the socket's bound: what
waits for one socket (its queue, and what the transport holds unsent) stays under
``max_queued_bytes`` and ``MAX_QUEUE`` items, or the socket is cut off as too slow -- at
once, with no closing handshake, since a peer that reads nothing would never read a close
frame either; the client comes back with a resume, as after any drop. A frame is encoded as
it is queued, so its size is known; a publication is shared by every socket of its room,
so a socket holds only its place in the queue. A new full room list replaces every room
list still waiting (a socket that asks again and again, and reads nothing, holds one).

The writer sends every publication of the room as rendered for the socket's own seat (the
hub's fan-out caches, server/realtime/fanout.py). A socket remembers the last version it
was sent: an older publication is skipped, a newer one after a gap is preceded by the
missing entries, read from the room's log stream. So every socket, on any node, receives
every version exactly once and in order, even if a publication was lost. Joining a room or
coming back to it, it is sent a snapshot or what it missed (server/realtime/resume.py).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from server import protocol
from server.identity.tokens import User
from server.protocol import encode_bytes as protocol_encode
from server.realtime import resume
from server.realtime.fanout import PLAIN, VERSIONED, Rendered
from server.realtime.socket_protocol import LeanWebSocketProtocol, text_frame
from server.table.entry import Entry, Published
from server.table.room import LOBBY, Room, RoomError

if TYPE_CHECKING:
    from server.ops.metrics import NodeMetrics
    from server.table.rooms import RoomService

log = logging.getLogger("tortuga.hub")

MAX_QUEUE = 2000  # frames waiting for one socket before it is dropped as too slow
# What a socket's place in the queue costs when what it holds is shared (a publication of
# its room, the order to send a snapshot): the queue's own entry and a little more.
SHARED_ITEM_BYTES = 128
TOO_SLOW = "too slow"


class Node(Protocol):
    """What a socket needs of its node's hub (server/realtime/hub.py): the entries and
    renderings it shares with the node's other sockets, the rooms, and taking a socket out
    of its room."""

    @property
    def rooms(self) -> RoomService: ...

    @property
    def resume_max(self) -> int: ...

    @property
    def max_queued_bytes(self) -> int: ...

    @property
    def metrics(self) -> NodeMetrics: ...

    def cached(self, room_id: str | None, version: int) -> Entry | None: ...

    def rendered(self, entry: Entry, seat: int | None) -> Rendered: ...

    async def entries(self, room_id: str, first: int, last: int) -> list[Entry]: ...

    def drop(self, conn: Connection) -> None: ...

    def reseat(self, conn: Connection) -> None: ...


def protocol_of(socket: WebSocket) -> LeanWebSocketProtocol | None:
    """The node's own websocket protocol under ``socket`` (server/realtime/socket_protocol.py),
    whose ``write_frame`` takes a frame framed once for many sockets; None under another
    server. Starlette's WebSocket keeps the ASGI ``send``, which uvicorn makes the
    protocol's method."""
    protocol = getattr(getattr(socket, "_send", None), "__self__", None)
    return protocol if isinstance(protocol, LeanWebSocketProtocol) else None


@dataclass(eq=False, slots=True)
class Connection:
    """One websocket: who it is, which room and seat it follows, what it was last sent.
    Slots, not a ``__dict__``: one of these per socket, its size a node's memory per idle
    socket."""

    id: str
    user: User
    socket: WebSocket
    hub: Node
    room_id: str | None = None
    role: str = "player"  # "player" or "spectator"
    seat: int | None = None  # the seat it renders for (None: spectator view)
    gen: int = 0  # the token generation it signed in with (sign out everywhere closes it)
    mark: str | None = None  # its token's address mark (an address ban closes it)
    key: Any = None  # (kid, public key) of the device key its moves are signed with
    spectators: bool = True  # the room it follows allows spectators
    version: int = -1  # the last version sent; -1: no snapshot yet
    synced: bool = False
    watching: bool = False
    held: list[Published] = field(default_factory=list)
    # What waits to be written, and the task writing it: both exist only while there is
    # something to write (an idle socket holds neither: memory per idle socket).
    queue: collections.deque[tuple[str, Any]] | None = None
    queued: int = 0  # bytes the queue holds (``_weight``)
    writer: asyncio.Task[None] | None = None
    closing: bool = False  # a close is queued: nothing more is
    protocol: LeanWebSocketProtocol | None = None  # to write frames framed once (``Rendered``)

    # -- called from anywhere on this node ------------------------------------------------
    def send(self, frame: dict[str, Any]) -> None:
        if self.queue is None and not self.closing and self._write_now(frame):
            return
        if self.closing:
            return
        if frame.get("type") == "error":
            self.hub.metrics.error_sent(str(frame.get("code")))
        if frame.get("type") == "rooms" and frame.get("full"):
            self._drop_room_lists()
            self._put(("list", protocol_encode(frame)))
        else:
            self._put(("text", protocol_encode(frame)))

    def feed(self, message: Published, framed: bytes | None = None) -> None:
        """A publication of the room this socket follows (or of the room list). ``framed``:
        the frame it makes for every socket alike (``fanout.framed``), if it is such a kind."""
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
        """Queue ``item`` for the writer task (started if none runs). The one way into a
        socket's queue, so its bound is kept here: past ``max_queued_bytes`` waiting (the
        queue and the transport's unsent bytes) or ``MAX_QUEUE`` items, the socket is cut
        off as too slow instead (``_cut``)."""
        if self.closing:
            return
        if self.queue is None:
            self.queue = collections.deque()
        weight = _weight(item)
        if (
            len(self.queue) >= MAX_QUEUE
            or self.queued + weight + self._unsent() > self.hub.max_queued_bytes
        ):
            self._cut()
            return
        if item[0] == "close":
            self.closing = True
        self.queue.append(item)
        self.queued += weight
        if self.writer is None or self.writer.done():
            self.writer = asyncio.create_task(self.run_writer())

    def _unsent(self) -> int:
        """Bytes written to the transport that the peer has not taken yet."""
        protocol = self.protocol
        if protocol is None or protocol.transport is None:
            return 0
        return protocol.transport.get_write_buffer_size()

    def _cut(self) -> None:
        """Cut off a socket too slow to take what it is sent: what waits for it is dropped
        and its connection aborted (its reader then cleans up, as for any socket that
        goes). Under a server without the node's own protocol it is closed through its
        queue instead."""
        log.warning("slow socket dropped", extra={"conn": self.id})
        queue = self.queue
        if queue is not None:
            queue.clear()
        self.queued = 0
        self.closing = True
        protocol = self.protocol
        if protocol is not None and protocol.transport is not None:
            protocol.transport.abort()
        elif queue is not None:
            queue.append(("close", (1013, TOO_SLOW)))

    def _drop_room_lists(self) -> None:
        """Forget the room lists still waiting (whole ones and changes to them): a new
        whole list is about to be queued, and it says all they would have."""
        queue = self.queue
        if not queue:
            return
        kept = [item for item in queue if not _room_list(item)]
        if len(kept) != len(queue):
            queue.clear()
            queue.extend(kept)
            self.queued = sum(_weight(item) for item in kept)

    # -- the writer task ------------------------------------------------------------------
    async def run_writer(self) -> None:
        """Write what is queued, in order, then end (the next ``_put`` starts another)."""
        try:
            while self.queue:
                kind, item = entry = self.queue.popleft()
                self.queued -= _weight(entry)
                if kind in ("text", "list"):
                    await self._write_encoded(item)
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
                self.writer = None  # a finished task is no use to keep

    async def _write(self, frame: dict[str, Any]) -> None:
        if frame.get("type") == "error" and self.socket.application_state == (
            WebSocketState.CONNECTED
        ):
            self.hub.metrics.error_sent(str(frame.get("code")))
        await self._write_text(protocol.encode(frame))

    async def _write_encoded(self, payload: bytes) -> None:
        """A frame encoded as it was queued: framed and written at once if the transport
        takes it, else sent the usual way (which waits for the transport to drain)."""
        if self.socket.application_state != WebSocketState.CONNECTED:
            return
        if self.protocol is not None and self.protocol.write_frame(text_frame(payload)):
            return
        await self.socket.send_text(payload.decode())

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
        """A snapshot, or what was missed since ``version`` (server/realtime/resume.py);
        then what the room published meanwhile, held until now."""
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
            missed = await resume.missed(rooms, room, version, self.seat, self.hub.resume_max)
        if missed is None:
            await self._write(await resume.snapshot(rooms, room, self.seat, self.role))
            self.version = room.version
            await self._seal_status(room)
        else:
            assert version is not None
            for frame in missed:
                await self._write(frame)
            self.version = room.version
            await self._seal_status(room)
            await self._write(await resume.resumed(rooms, room, version, self.seat))
        self.synced = True
        held, self.held = self.held, []
        for message in held:
            await self._publication(message)

    async def _seal_status(self, room: Room) -> None:
        frame = await resume.seal_status(self.hub.rooms, room)
        if frame is not None:
            await self._write(frame)

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


def _weight(item: tuple[str, Any]) -> int:
    """What a queued item costs its socket, in bytes: an encoded frame its size; a shared
    publication, a sync or a close only its place."""
    kind, payload = item
    if kind in ("text", "list"):
        return len(payload) + SHARED_ITEM_BYTES
    return SHARED_ITEM_BYTES


def _room_list(item: tuple[str, Any]) -> bool:
    kind, payload = item
    return kind == "list" or (kind == "pub" and payload.k == "rooms")
