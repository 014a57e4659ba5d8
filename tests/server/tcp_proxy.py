"""A TCP proxy a test puts between its nodes and a Redis, to take the network away.

``cut()``: every connection through it is reset and new ones are refused (the listening
socket closed) until ``restore()``. ``pause()``: bytes stop flowing both ways (held, not
lost, as on a network that drops packets and TCP retransmits) until ``restore()``.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket


class TcpProxy:
    def __init__(self, target_port: int, host: str = "127.0.0.1") -> None:
        self.host = host
        self.target_port = target_port
        self.port = 0
        self._server: asyncio.Server | None = None
        self._links: set[asyncio.StreamWriter] = set()
        self._flowing = asyncio.Event()
        self._flowing.set()

    @property
    def url(self) -> str:
        return f"redis://{self.host}:{self.port}/0"

    async def start(self) -> None:
        sock = None
        if self.port:  # the same port again (after a cut)
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((self.host, self.port))
            self._server = await asyncio.start_server(self._serve, sock=sock)
        else:
            self._server = await asyncio.start_server(self._serve, self.host, 0)
            self.port = int(self._server.sockets[0].getsockname()[1])

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(self.host, self.target_port)
        except OSError:
            writer.close()
            return
        self._links.update((writer, up_writer))
        try:
            await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))
        finally:
            for w in (writer, up_writer):
                self._links.discard(w)
                w.close()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, ConnectionError):
            while data := await reader.read(65536):
                await self._flowing.wait()
                writer.write(data)
                await writer.drain()
        with contextlib.suppress(OSError, ConnectionError):
            writer.close()

    def pause(self) -> None:
        self._flowing.clear()

    async def cut(self) -> None:
        """Reset every connection and refuse new ones."""
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._links):
            transport = writer.transport
            sock = transport.get_extra_info("socket")
            if sock is not None:  # a reset, not a polite close
                with contextlib.suppress(OSError):
                    sock.setsockopt(
                        socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00"
                    )
            transport.abort()
        self._links.clear()

    async def restore(self) -> None:
        self._flowing.set()
        if self._server is None:
            await self.start()

    async def close(self) -> None:
        await self.cut()
        self._flowing.set()
