"""The load generator's websocket client (server/tools/loadtest/): websockets' own sans-I/O
client protocol (handshake, framing, masking, pings, the close) over a plain asyncio
Protocol.

Why not websockets' asyncio client: on this 2-core machine the load generator shares the
cores with the node it measures, and that client -- a task-free but general connection
with a message assembler, a send lock and its context managers -- took about a third of a
client process's CPU (py-spy), as much again as the JSON of the frames. This one does the
same protocol work (websockets' ``ClientProtocol``) with a list for an inbox. It offers
per-message deflate as browsers and websockets' client do (a node turns it down; the
raw-limit server with ``--deflate`` accepts it).
"""

from __future__ import annotations

import asyncio
from typing import Any

from websockets.client import ClientProtocol
from websockets.extensions.permessage_deflate import enable_client_permessage_deflate
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.uri import parse_uri

_DATA = (Opcode.TEXT, Opcode.BINARY, Opcode.CONT)


class SocketClosed(ConnectionError):
    """The websocket is closed (by either side, or the connection was lost)."""


class LoadSocket(asyncio.Protocol):
    """One client websocket: ``await LoadSocket.open(url)``, ``send``, ``recv``, ``close``."""

    def __init__(self, url: str, max_size: int | None) -> None:
        self.protocol = ClientProtocol(
            parse_uri(url),
            extensions=enable_client_permessage_deflate(None),
            max_size=max_size,
        )
        self.transport: asyncio.Transport | None = None
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.inbox: list[str | bytes] = []
        self.waiter: asyncio.Future[None] | None = None
        self.parts: list[bytes] = []  # a fragmented message so far
        self.text = False
        self.done = False

    @classmethod
    async def open(cls, url: str, *, max_size: int | None = 2**24, timeout: float = 30) -> Any:
        """Connect to a ``ws://`` URL and complete the handshake."""
        uri = parse_uri(url)
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(timeout):
            _, socket = await loop.create_connection(lambda: cls(url, max_size), uri.host, uri.port)
            await socket.opened
        return socket

    # -- asyncio.Protocol ---------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.protocol.send_request(self.protocol.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        protocol = self.protocol
        protocol.receive_data(data)
        for event in protocol.events_received():
            if isinstance(event, Response):
                if protocol.handshake_exc is not None:
                    self._fail(protocol.handshake_exc)
                elif not self.opened.done():
                    self.opened.set_result(None)
            elif isinstance(event, Frame) and event.opcode in _DATA:
                if event.opcode is not Opcode.CONT:
                    self.text = event.opcode is Opcode.TEXT
                self.parts.append(bytes(event.data))
                if event.fin:
                    data_ = b"".join(self.parts) if len(self.parts) > 1 else self.parts[0]
                    self.parts = []
                    self.inbox.append(data_.decode() if self.text else data_)
                    self._wake()
        self._flush()  # pongs, the close's answer
        if protocol.state is State.CLOSED or protocol.close_expected():
            self._ended()

    def eof_received(self) -> bool | None:
        self.protocol.receive_eof()
        self._flush()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(SocketClosed(f"connection lost: {exc or 'closed'}"))

    # -- the socket ---------------------------------------------------------------------
    @property
    def closed(self) -> bool:
        return self.done or self.protocol.state is State.CLOSED

    def send(self, text: str | bytes) -> None:
        """Send one text frame (``bytes``: UTF-8 text already), written at once (the
        transport buffers what the kernel does not take)."""
        if self.closed:
            raise SocketClosed("the websocket is closed")
        self.protocol.send_text(text if isinstance(text, bytes) else text.encode())
        self._flush()

    async def recv(self) -> str | bytes:
        """The next message; SocketClosed once the socket is closed and nothing is left."""
        while not self.inbox:
            if self.done:
                raise SocketClosed("the websocket is closed")
            self.waiter = asyncio.get_running_loop().create_future()
            await self.waiter
        return self.inbox.pop(0)

    async def close(self) -> None:
        if self.transport is None or self.done:
            return
        if self.protocol.state is State.OPEN:
            self.protocol.send_close(1000)
            self._flush()
        transport = self.transport
        for _ in range(50):  # the server's close frame, then its end of the TCP connection
            if self.done:
                break
            await asyncio.sleep(0.02)
        transport.close()
        self.done = True

    # -- inside -------------------------------------------------------------------------
    def _flush(self) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        for data in self.protocol.data_to_send():
            if data:
                self.transport.write(data)
            elif self.transport.can_write_eof():
                self.transport.write_eof()  # websockets asks to half-close (b"")

    def _wake(self) -> None:
        waiter, self.waiter = self.waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _ended(self) -> None:
        self.done = True
        self._wake()

    def _fail(self, exc: BaseException) -> None:
        if not self.opened.done():
            self.opened.set_exception(exc)
            self.opened.exception()
        self._ended()
