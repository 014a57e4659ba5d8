"""A room's home worker: under ``serve --workers N``, every socket of a room on one worker.

Any node serves any room (rooms live in Redis), so the kernel may hand a room's sockets to
different workers -- and then every step of that room is received, read from the log,
decoded and rendered by each of them (docs/SPEED.md: 1.6 against 1.0 ms of CPU per move
with two workers). Here each room has a home, worker ``crc32(room) % N``, and a socket that
says which room it is for (``GET /ws?room=CODE``, what a room's page opens) is passed to
that worker before its handshake: the worker the kernel chose reads the request line,
and if the room's home is another, sends it the connection's file descriptor with the
bytes read so far (``SCM_RIGHTS`` over a unix datagram socket in a folder the parent
made) and lets go of it; the home adopts it as if it had accepted it. The hint routes
only: a socket may join any room, on whatever worker it is, and a hint naming a room that
does not exist costs nothing but a home.

Workers claim their index at start (``fcntl.flock`` on ``<i>.lock`` in the folder, held
for the worker's life: a dead worker's lock goes with it) and listen on ``<i>.sock``. A
worker with no index yet (a replacement started before the worker it replaces stopped)
tries again every second. A home that cannot take a connection (no such socket, a full
queue, draining: it withdrew its socket) is skipped: the connection is served where it
landed, as before. A worker never passes on a connection it adopted.
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import fcntl
import logging
import os
import re
import signal
import socket
import zlib
from pathlib import Path
from typing import Any

from server.realtime.http_protocol import NodeHTTPProtocol

log = logging.getLogger("tortuga.homes")

FOLDER_ENV = "TORTUGA_HOMES_DIR"  # set by the parent of ``serve --workers N``
WORKERS_ENV = "TORTUGA_WORKERS"
MAX_HEAD = 16 * 1024  # bytes of a request read before deciding (its headers fit)
HEAD_SECONDS = 30.0  # a connection that sends no request line in this long is closed
CLAIM_EVERY = 1.0  # seconds between tries at an index, while a worker has none

# The request line of a room's socket: ``GET /ws?room=CODE HTTP/1.1`` (other parameters
# may come before or after).
_HINT = re.compile(rb"GET /ws\?(?:[^ ]*&)?room=([0-9A-Za-z]{1,64})(?:&[^ ]*)? HTTP/1\.[01]")


def room_hint(head: bytes) -> str | None:
    """The room a request's first line names for its websocket (None: no hint)."""
    line = head.split(b"\r\n", 1)[0]
    match = _HINT.fullmatch(line)
    return match.group(1).decode() if match else None


def home_index(room: str, workers: int) -> int:
    return zlib.crc32(room.encode()) % workers


class Homes:
    """This worker's part in the homes of rooms (one per worker process)."""

    def __init__(self, folder: Path, workers: int, server: Any) -> None:
        self.folder = folder
        self.workers = workers
        self.server = server  # uvicorn's Server of this worker: how to serve a connection
        self.index: int | None = None
        self.withdrawn = False  # draining: take no connections from the others
        self._lock: int | None = None  # the fd holding the index's lock
        self._inbox: socket.socket | None = None
        self._outbox = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self._outbox.setblocking(False)
        self._claiming: asyncio.Task[None] | None = None

    def path(self, index: int) -> str:
        return str(self.folder / f"{index}.sock")

    # -- an index -------------------------------------------------------------------------
    async def start(self) -> None:
        if not self._claim():
            self._claiming = asyncio.get_running_loop().create_task(self._keep_claiming())

    async def _keep_claiming(self) -> None:
        while not self._claim():
            await asyncio.sleep(CLAIM_EVERY)

    def _claim(self) -> bool:
        """Take the first free index (its lock), and listen as its home."""
        for index in range(self.workers):
            fd = os.open(self.folder / f"{index}.lock", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            self._lock, self.index = fd, index
            self._listen()
            log.info("home of rooms", extra={"kind": f"worker {index} of {self.workers}"})
            return True
        return False

    def _listen(self) -> None:
        assert self.index is not None
        path = self.path(self.index)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # a dead worker's (we hold its lock now)
        inbox = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        inbox.bind(path)
        inbox.setblocking(False)
        self._inbox = inbox
        asyncio.get_running_loop().add_reader(inbox.fileno(), self._adopt_all)

    def withdraw(self) -> None:
        """Take no more connections from the other workers (draining)."""
        if self.withdrawn:
            return
        self.withdrawn = True
        if self.index is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path(self.index))

    def rejoin(self) -> None:
        """Serve again (a drain lifted): the home of its rooms once more."""
        if not self.withdrawn:
            return
        self.withdrawn = False
        if self._inbox is not None and self.index is not None:
            asyncio.get_running_loop().remove_reader(self._inbox.fileno())
            self._inbox.close()
            self._listen()

    async def stop(self) -> None:
        if self._claiming is not None:
            self._claiming.cancel()
            with contextlib.suppress(BaseException):
                await self._claiming
        self.withdraw()
        if self._inbox is not None:
            asyncio.get_running_loop().remove_reader(self._inbox.fileno())
            self._inbox.close()
            self._inbox = None
        self._outbox.close()
        if self._lock is not None:
            os.close(self._lock)  # the lock goes with it
            self._lock = None

    # -- passing a connection on -------------------------------------------------------------
    def home_of(self, room: str) -> int:
        return home_index(room, self.workers)

    def hand_over(self, index: int, sock: socket.socket, head: bytes) -> bool:
        """Send the connection ``sock`` (its request read so far: ``head``) to worker
        ``index``; False if it cannot take it (then it is served here)."""
        fds = array.array("i", [sock.fileno()])
        try:
            self._outbox.sendmsg(
                [head], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)], 0, self.path(index)
            )
        except OSError:  # no such worker now, its queue is full, ...
            return False
        return True

    # -- taking one -------------------------------------------------------------------------
    def _adopt_all(self) -> None:
        inbox = self._inbox
        if inbox is None:
            return
        while True:
            try:
                head, ancillary, _, _ = inbox.recvmsg(MAX_HEAD, socket.CMSG_SPACE(4))
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                log.exception("handoff inbox failed")
                return
            fds = array.array("i")
            for level, kind, data in ancillary:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds.frombytes(data[: len(data) - (len(data) % fds.itemsize)])
            for fd in fds[1:]:
                os.close(fd)  # never more than one is sent
            if fds:
                self._adopt(fds[0], head)

    def _adopt(self, fd: int, head: bytes) -> None:
        sock = socket.socket(fileno=fd)
        sock.setblocking(False)
        loop = asyncio.get_running_loop()

        async def serve() -> None:
            try:
                await loop.connect_accepted_socket(lambda: Routed(self.server, head), sock)
            except Exception:
                log.exception("could not adopt a connection")
                sock.close()

        task = loop.create_task(serve())
        self.server.server_state.tasks.add(task)
        task.add_done_callback(self.server.server_state.tasks.discard)


_homes: Homes | None = None


def current() -> Homes | None:
    """This worker's homes (None: one process, or not started)."""
    return _homes


def uvicorn_server() -> Any:
    """The uvicorn Server serving this process (its SIGTERM handler is its method), or None
    outside uvicorn."""
    handler = signal.getsignal(signal.SIGTERM)
    return getattr(handler, "__self__", None)


async def start() -> Homes | None:
    """Take this worker's part, when the parent of ``serve --workers N`` asked for homes."""
    global _homes
    folder, workers = os.environ.get(FOLDER_ENV), int(os.environ.get(WORKERS_ENV) or 0)
    server = uvicorn_server()
    if not folder or workers < 2 or server is None:
        return None
    _homes = Homes(Path(folder), workers, server)
    await _homes.start()
    return _homes


async def stop() -> None:
    global _homes
    if _homes is not None:
        await _homes.stop()
        _homes = None


class _Head(asyncio.Protocol):
    """Reads a connection's request line, then hands the connection to uvicorn's HTTP
    protocol: here, or at the room's home."""

    def __init__(self, args: dict[str, Any]) -> None:
        self.args = args
        self.transport: asyncio.Transport | None = None
        self.head = b""
        self.timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.timer = asyncio.get_running_loop().call_later(HEAD_SECONDS, transport.close)

    def data_received(self, data: bytes) -> None:
        self.head += data
        if b"\r\n" not in self.head and len(self.head) < MAX_HEAD:
            return  # the request line is not all here yet
        if self.timer is not None:
            self.timer.cancel()
        homes, transport = current(), self.transport
        assert transport is not None
        room = room_hint(self.head) if homes is not None else None
        if homes is not None and room is not None and homes.index is not None:
            index = homes.home_of(room)
            sock = transport.get_extra_info("socket")
            if index != homes.index and sock is not None:
                transport.pause_reading()
                if homes.hand_over(index, sock, self.head):
                    transport.abort()  # our descriptor only: the connection lives on there
                    return
                transport.resume_reading()
        self.serve_here()

    def serve_here(self) -> None:
        transport = self.transport
        assert transport is not None
        if self.timer is not None:
            self.timer.cancel()
        protocol = NodeHTTPProtocol(**self.args)
        transport.set_protocol(protocol)
        protocol.connection_made(transport)
        protocol.data_received(self.head)

    def eof_received(self) -> bool | None:
        return None  # closes

    def connection_lost(self, exc: Exception | None) -> None:
        if self.timer is not None:
            self.timer.cancel()


class RoutingProtocol(_Head):
    """uvicorn's ``http`` protocol class for the workers of ``serve --workers N``."""

    def __init__(
        self,
        config: Any,
        server_state: Any,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(
            {"config": config, "server_state": server_state, "app_state": app_state, "_loop": _loop}
        )


class Routed(_Head):
    """A connection another worker passed here: served here, whatever its room."""

    def __init__(self, server: Any, head: bytes) -> None:
        super().__init__(
            {
                "config": server.config,
                "server_state": server.server_state,
                "app_state": server.lifespan.state,
            }
        )
        self.head = head

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.serve_here()  # before the transport reads anything more: the head first
