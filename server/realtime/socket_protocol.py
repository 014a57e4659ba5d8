"""uvicorn's sans-I/O websocket protocol, lighter per idle socket (at most 10 KB each).

uvicorn serves a node's websockets with ``WebSocketsSansIOProtocol`` (no task of its own
per socket: keepalive pings are timers). Measured with tracemalloc, an idle socket of it
still held about 19 KB, most of it things a socket needs only for its handshake or only
while it is busy:

- the handshake request's headers (websockets' ``Headers``: a dict of lists and a list of
  tuples), kept alive by the parser's generator frame for the socket's whole life, and the
  handshake response: about 4.4 KB, dropped once the socket is accepted (the ASGI scope
  has its own copy of the request headers);
- an ``asyncio.Queue`` for frames going to the app, and an ``asyncio.Event`` for write
  flow control: five deques of about 600 bytes each, empty nearly all the time. ``Inbox``
  and ``Writable`` below do the same with a list and a future made only while someone
  waits: about 3.7 KB.

It also reads on while the app has fewer than ``HELD_FRAMES`` messages waiting: uvicorn
pauses a socket's reading at every message and resumes it when the app takes it, two
``epoll_ctl`` calls and two selector updates per frame (about 4 % of a node's CPU at human
pace), where pausing only once messages pile up bounds what a socket holds just as well.

Everything else (framing, limits, ping timers, close codes) is uvicorn's and websockets'
own, unchanged: ``ws_max_size`` still closes with 1009, and so on (tests/server).

This builds on internals of both: the attributes uvicorn's constructor sets, and the
generator websockets parses with. pyproject.toml pins both to the minor versions tested,
and tests/server/test_socket_protocol_upstream.py fails when either changes what is relied
on here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import weakref
from asyncio import TimerHandle
from typing import Any, Literal

from uvicorn.config import Config
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory
from websockets.frames import Frame, Opcode
from websockets.http11 import Request
from websockets.protocol import Protocol, State
from websockets.server import ServerProtocol

from server.realtime.arrivals import pending_of


def text_frame(payload: bytes) -> bytes:
    """A server's text frame of ``payload`` (UTF-8), unmasked and with no extension: the
    same bytes for every socket, so a step's frame for a seat is framed once, not once per
    socket (``LeanWebSocketProtocol.write_frame``)."""
    return Frame(Opcode.TEXT, payload).serialize(mask=False, extensions=[])


HELD_FRAMES = 2  # messages waiting for the app before a socket's reading pauses
# The kernel's send buffer of a socket (Linux doubles it): a few steps of a game.
SEND_BUFFER_BYTES = 64 * 1024


class Inbox:
    """What ``asyncio.Queue`` does for the protocol (``put_nowait``, ``empty``), for its one
    reader (``LeanWebSocketProtocol.receive``), with no deque at all: a list, and a future
    only while the reader waits. A reader cancelled while waiting loses nothing."""

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: list[Any] = []
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: Any) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def empty(self) -> bool:
        return not self._items

    def __len__(self) -> int:
        return len(self._items)

    def get_nowait(self) -> Any:
        return self._items.pop(0)

    def waiter(self) -> asyncio.Future[None]:
        """A future done when an item comes (await it while ``empty()``)."""
        if self._waiter is not None and not self._waiter.done():
            raise RuntimeError("a websocket has one reader at a time")
        self._waiter = asyncio.get_running_loop().create_future()
        return self._waiter


class Writable:
    """What ``asyncio.Event`` does for the protocol's write flow control (``set``,
    ``clear``, ``wait``; set at first), with futures only while a writer waits."""

    __slots__ = ("_set", "_waiters")

    def __init__(self) -> None:
        self._set = True
        self._waiters: list[asyncio.Future[None]] | None = None

    def set(self) -> None:
        self._set = True
        waiters, self._waiters = self._waiters, None
        for waiter in waiters or ():
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        self._set = False

    def is_set(self) -> bool:
        return self._set

    async def wait(self) -> None:
        while not self._set:
            waiter = asyncio.get_running_loop().create_future()
            if self._waiters is None:
                self._waiters = []
            self._waiters.append(waiter)
            try:
                await waiter
            finally:
                if self._waiters is not None and waiter in self._waiters:
                    self._waiters.remove(waiter)


class _Shared:
    """What every socket of one uvicorn server has alike, held once, not once per socket."""

    __slots__ = (
        "app",
        "app_state",
        "asgi_version",
        "config",
        "connections",
        "default_headers",
        "logger",
        "loop",
        "root_path",
        "tasks",
    )

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        self.config = config
        self.app = config.loaded_app
        self.loop = loop
        self.logger = logging.getLogger("uvicorn.error")
        self.root_path = config.root_path
        self.asgi_version = config.asgi_version
        self.app_state = app_state
        self.connections = server_state.connections
        self.tasks = server_state.tasks
        self.default_headers = server_state.default_headers


_shared_of: weakref.WeakKeyDictionary[ServerState, _Shared] = weakref.WeakKeyDictionary()


def _from_shared(name: str) -> Any:
    return property(lambda self: getattr(self._shared, name))


CLASS_LEVEL = (*_Shared.__slots__, "close_timeout", "ping_interval", "ping_timeout")
"""The attributes uvicorn's constructor sets on every socket that ``LeanWebSocketProtocol``
holds on the class instead (read through ``_shared``, or the same value for every socket);
its ``__init__`` sets all the others, as uvicorn's does."""


class LeanWebSocketProtocol(WebSocketsSansIOProtocol):
    """``WebSocketsSansIOProtocol`` without what an idle socket need not hold (above).

    Its ``__init__`` is uvicorn's, attribute for attribute (uvicorn 0.54), except that what
    is the same for every socket of a server is read through ``_shared``: with fewer than
    30 attributes of its own, CPython keeps an instance's attributes in a small split
    dictionary (about 1.3 KB less per socket than uvicorn's 37). A uvicorn that names its
    attributes differently fails tests/server/test_socket_protocol_upstream.py."""

    config = _from_shared("config")
    app = _from_shared("app")
    loop = _from_shared("loop")
    logger = _from_shared("logger")
    root_path = _from_shared("root_path")
    asgi_version = _from_shared("asgi_version")
    app_state = _from_shared("app_state")
    connections = _from_shared("connections")
    tasks = _from_shared("tasks")
    default_headers = _from_shared("default_headers")
    close_timeout = 10.0
    ping_interval = property(lambda self: self._shared.config.ws_ping_interval)
    ping_timeout = property(lambda self: self._shared.config.ws_ping_timeout)

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        if not config.loaded:
            config.load()
        shared = _shared_of.get(server_state)
        if shared is None or shared.config is not config or shared.app_state is not app_state:
            shared = _Shared(config, server_state, app_state, _loop or asyncio.get_event_loop())
            _shared_of[server_state] = shared
        self._shared = shared
        self.transport: asyncio.Transport = None  # type: ignore[assignment]
        self.server: tuple[str, int | None] | None = None
        self.client: tuple[str, int] | None = None
        self.scheme: Literal["wss", "ws"] = None  # type: ignore[assignment]
        self.queue = Inbox()  # type: ignore[assignment]
        self.handshake_initiated = False
        self.handshake_complete = False
        self.close_sent = False
        self.disconnected = False
        self.close_timer: TimerHandle | None = None
        self.initial_response: tuple[int, list[tuple[str, str]], bytes] | None = None
        extensions = []
        if config.ws_per_message_deflate:  # never on a node: server/app.py, uvicorn_options
            extensions = [
                ServerPerMessageDeflateFactory(
                    server_max_window_bits=12,
                    client_max_window_bits=12,
                    compress_settings={"memLevel": 5},
                )
            ]
        self.conn = ServerProtocol(
            extensions=extensions, max_size=config.ws_max_size, logger=shared.logger
        )
        self.read_paused = False
        self.writable = Writable()  # type: ignore[assignment]
        self.ping_timer: TimerHandle | None = None
        self.pong_timer: TimerHandle | None = None
        self.pending_ping_payload: bytes | None = None
        self.ping_sent_at: float = 0.0
        self.last_ping_rtt: float = 0.0
        self.frames: list[bytes] = []
        self.curr_msg_data_type: Literal["text", "bytes"] = "bytes"

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """uvicorn's, and the kernel's send buffer for the socket bounded: left to itself
        it grows to megabytes for a peer that stops reading (all of it memory of the
        machine); a game's frames are a few KB, and what waits beyond the buffer is the
        node's to bound (server/realtime/connection.py)."""
        super().connection_made(transport)
        # Not signed in yet: counted with the address's pending connections until the app
        # first says something to it (its greeting, or its refusal).
        address = self.client[0] if self.client else ""
        pending_of(self.config).socket_waits(id(self), address)
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER_BYTES)

    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        self.request = None  # type: ignore[assignment]  # the scope has what it holds

    waiting = True  # not yet said anything to (``_greeted`` sets it on the socket)

    def _greeted(self) -> None:
        if self.waiting:
            self.waiting = False
            pending_of(self.config).socket_greeted(id(self))

    def connection_lost(self, exc: Exception | None) -> None:
        self._greeted()
        super().connection_lost(exc)

    async def send(self, message: Any) -> None:
        if message["type"] != "websocket.accept":
            self._greeted()
        await super().send(message)
        if message["type"] == "websocket.accept":
            self.response = None  # type: ignore[assignment]  # sent: no longer read
            self._forget_request()
        elif message["type"] == "websocket.close" and not self.disconnected:
            # A closed transport first sends what it holds: a peer that reads nothing
            # would keep it open, and its bytes in memory, for good. Cut it after a while.
            self.loop.call_later(self.close_timeout, self._cut_if_open)

    def _cut_if_open(self) -> None:
        if not self.disconnected and self.transport is not None:
            self.transport.abort()

    def _forget_request(self) -> None:
        """websockets' server parser is a generator that reads the handshake request, then
        delegates to the frame parser for the socket's whole life, its frame holding the
        request (headers and all): start the frame parser on its own instead, as
        websockets itself swaps parsers on a close. Done right after the handshake's
        response is written, before anything more is read: nothing of a frame can be
        half read (a client sends none before that response, RFC 6455 4.1; one that did
        anyway gets a protocol error)."""
        conn = self.conn
        if conn.state is State.OPEN and conn.parser_exc is None and not conn.reader.buffer:
            conn.parser = Protocol.parse(conn)
            next(conn.parser)

    def keepalive_timeout(self) -> None:
        """uvicorn's (a close frame, then the transport closed), but the connection is cut
        at once: a peer that answered no ping reads nothing either, and a closed transport
        waits to send what it holds first -- for good, holding it in memory."""
        super().keepalive_timeout()
        if self.transport is not None and not self.disconnected:
            self.transport.abort()

    def write_frame(self, frame: bytes) -> bool:
        """Write a frame made by ``text_frame`` at once, without uvicorn's per-message send
        (an ASGI message, websockets' framing, a coroutine): True if written. False when it
        must wait or go the usual way -- flow control has paused writing, the socket is not
        open (handshake, closing), or it negotiated an extension (never on a node)."""
        if (
            not self.writable.is_set()
            or self.disconnected
            or self.close_sent
            or not self.handshake_complete
            or self.initial_response is not None
            or self.conn.state is not State.OPEN
            or self.conn.extensions
            or self.transport.is_closing()
        ):
            return False
        if self.waiting:
            self._greeted()
        self.transport.write(frame)
        return True

    def send_receive_event_to_app(self) -> None:
        """uvicorn's, but reading pauses only once ``HELD_FRAMES`` messages wait for the app
        (uvicorn pauses at the first): a socket that sends one frame at a time, as players
        do, is never paused, and one that floods holds at most that many frames (each
        under ``ws_max_size``) besides what one read brought. uvicorn pauses only a socket
        not paused already, so it is told that this one is while it queues the message."""
        paused = self.read_paused
        self.read_paused = True
        try:
            super().send_receive_event_to_app()
        finally:
            self.read_paused = paused
        if not paused and len(self.queue) >= HELD_FRAMES:  # type: ignore[arg-type]
            self.read_paused = True
            self.transport.pause_reading()

    async def receive(self) -> Any:
        """uvicorn's ``receive``, awaiting the inbox's future itself: one coroutine frame
        less for every idle socket."""
        inbox: Inbox = self.queue  # type: ignore[assignment]
        while inbox.empty():
            await inbox.waiter()
        message = inbox.get_nowait()
        if self.read_paused and len(inbox) < HELD_FRAMES:
            self.read_paused = False
            self.transport.resume_reading()
        return message
