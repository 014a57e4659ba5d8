"""uvicorn's sans-I/O websocket protocol, lighter per idle socket (issue 15: ≤ 10 KB each).

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

Everything else (framing, limits, ping timers, close codes) is uvicorn's and websockets'
own, unchanged: ``ws_max_size`` still closes with 1009, and so on (tests/server).
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.datastructures import Headers
from websockets.http11 import Request


class Inbox:
    """What ``asyncio.Queue`` does for the protocol (``put_nowait``, ``get``, ``empty``),
    for its one reader (the ASGI app's ``receive``), with no deque at all: a list, and a
    future only while the reader waits. A reader cancelled while waiting loses nothing."""

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

    async def get(self) -> Any:
        while not self._items:
            if self._waiter is not None:
                raise RuntimeError("a websocket has one reader at a time")
            waiter = asyncio.get_running_loop().create_future()
            self._waiter = waiter
            try:
                await waiter
            finally:
                self._waiter = None
        return self._items.pop(0)


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


class LeanWebSocketProtocol(WebSocketsSansIOProtocol):
    """``WebSocketsSansIOProtocol`` without what an idle socket need not hold (above)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queue = Inbox()  # type: ignore[assignment]
        self.writable = Writable()  # type: ignore[assignment]

    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        # The scope has the headers now (a list of its own); websockets' parser keeps
        # ``event`` for as long as the socket lives: let its headers go.
        event.headers = Headers()
        self.request = None  # type: ignore[assignment]

    async def send(self, message: Any) -> None:
        await super().send(message)
        if message["type"] == "websocket.accept":
            self.response = None  # type: ignore[assignment]  # sent: no longer read
