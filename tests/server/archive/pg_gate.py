"""A TCP gate in front of the real Postgres: open, it forwards; closed, it refuses new
connections and cuts the open ones -- Postgres "going down" and "coming back" for one client,
without touching the server the other tests share."""

from __future__ import annotations

import asyncio
import contextlib

from sqlalchemy.engine import make_url


class PgGate:
    def __init__(self, upstream_url: str) -> None:
        url = make_url(upstream_url)
        socket_dir = url.query.get("host")
        if isinstance(socket_dir, tuple):
            socket_dir = socket_dir[0]
        self._unix = f"{socket_dir}/.s.PGSQL.{url.port or 5432}" if socket_dir else None
        self._host, self._port = url.host or "127.0.0.1", url.port or 5432
        self._url = url
        self.is_open = False
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self.port = 0

    @property
    def url(self) -> str:
        """The database URL through the gate."""
        return (
            self._url.set(host="127.0.0.1", port=self.port)
            .difference_update_query(["host"])
            .render_as_string(hide_password=False)
        )

    async def start(self) -> PgGate:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    def open(self) -> None:
        self.is_open = True

    def close(self) -> None:
        """Refuse new connections and cut every open one."""
        self.is_open = False
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    async def stop(self) -> None:
        self.close()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not self.is_open:
            writer.transport.abort()
            return
        if self._unix:
            up_reader, up_writer = await asyncio.open_unix_connection(self._unix)
        else:
            up_reader, up_writer = await asyncio.open_connection(self._host, self._port)
        self._writers |= {writer, up_writer}
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            self._writers.discard(writer)
            with contextlib.suppress(Exception):
                writer.transport.abort()
