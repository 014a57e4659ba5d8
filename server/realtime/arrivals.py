"""Connections that have not yet said who they are, bounded per address, and a deadline
for each request's head.

A connection costs the node a descriptor and some memory from the moment it is accepted,
before it has sent anything that could be checked against a quota. So, per client
address, the node counts its *pending* connections: those still sending a request's head
(the request line and headers), and websockets not yet greeted (the node says nothing to a
socket before its ``auth`` frame is checked: its first frame out ends the wait). Past
``max_pending_per_address`` a new connection from that address is answered 429 at once
and closed. A head not complete within ``head_seconds`` is cut off (a client that sends a
byte a minute would otherwise hold its connection for good). And past ``max_connections``
in all (a bound below the process's descriptor limit) a new connection is answered 503
and closed, so the node refuses newcomers cleanly instead of running out of descriptors.

The address is the peer's, as accepted: a proxy's forwarded address is not known until
the head is read, and a proxy in front (deploy/nginx.conf) has limits of its own.
"""

from __future__ import annotations

import logging
import resource
import time
import weakref
from collections import Counter
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("tortuga.arrivals")

# Descriptors kept for what is not a client's connection: Redis and Postgres pools,
# listening sockets, files, the workers' channels.
RESERVED_DESCRIPTORS = 256
QUIET_SECONDS = 10.0  # at most one warning per kind of refusal this often


@dataclass(frozen=True, slots=True)
class Bounds:
    """A node's bounds on connections (from its settings; ``max_connections`` 0: none)."""

    head_seconds: float
    max_pending_per_address: int
    max_connections: int


class Pending:
    """One process's count of pending connections by client address."""

    def __init__(self) -> None:
        self.by_address: Counter[str] = Counter()
        self.sockets: dict[int, str] = {}  # websockets not yet greeted: id -> address
        self._warned: dict[str, float] = {}

    def enter(self, address: str, limit: int) -> bool:
        """Count a new pending connection from ``address``; False (not counted) when it
        already has ``limit`` (0: no limit)."""
        if limit and self.by_address[address] >= limit:
            return False
        self.by_address[address] += 1
        return True

    def leave(self, address: str) -> None:
        left = self.by_address[address] - 1
        if left > 0:
            self.by_address[address] = left
        else:
            del self.by_address[address]

    def socket_waits(self, socket_id: int, address: str) -> None:
        """A websocket from ``address`` the node has said nothing to yet (it counts with
        the address's pending connections, with no refusal: its connection was counted
        when it arrived)."""
        self.sockets[socket_id] = address
        self.by_address[address] += 1

    def socket_greeted(self, socket_id: int) -> None:
        """That websocket was answered (greeted or refused), or is gone."""
        address = self.sockets.pop(socket_id, None)
        if address is not None:
            self.leave(address)

    def warn(self, kind: str, address: str) -> None:
        """Log a refusal, at most once per ``QUIET_SECONDS`` per kind: a flood of them
        must not become a flood of log lines."""
        now = time.monotonic()
        if now - self._warned.get(kind, -QUIET_SECONDS) >= QUIET_SECONDS:
            self._warned[kind] = now
            log.warning("connection refused", extra={"kind": f"{kind} ({address})"})


_pending: weakref.WeakKeyDictionary[Any, Pending] = weakref.WeakKeyDictionary()


def pending_of(config: Any) -> Pending:
    """The pending connections of the server (its uvicorn ``Config``) a protocol serves."""
    pending = _pending.get(config)
    if pending is None:
        pending = _pending[config] = Pending()
    return pending


def open_files_limit() -> int:
    """Raise this process's soft limit on open descriptors to its hard limit, and return
    it: the more connections the node may hold before it refuses newcomers."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = max(soft, 1 << 20)
    if soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    return soft


def max_connections() -> int:
    """How many client connections a node holds at most: its descriptor limit, less what
    it keeps for everything else."""
    return max(64, open_files_limit() - RESERVED_DESCRIPTORS)


def refusal(status: int, reason: str, code: str, message: str) -> bytes:
    """A whole HTTP response refusing a connection before its request is read."""
    body = f'{{"error": {{"code": "{code}", "message": "{message}"}}}}'.encode()
    return (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    ).encode() + body


TOO_MANY_PENDING = refusal(
    429, "Too Many Requests", "too-many-connections", "too many connections from your address"
)
FULL = refusal(503, "Service Unavailable", "busy", "the server is full: try again later")


def quiet_accept_errors(loop: Any) -> None:
    """An exception handler for ``loop`` that logs a failed ``accept`` (out of
    descriptors: EMFILE, ENFILE) once per ``QUIET_SECONDS``, with no traceback, and hands
    everything else to the handler it had. asyncio reports such a failure for every
    connection waiting to be accepted, on every turn of the loop, while it lasts."""
    previous = loop.get_exception_handler()
    last = [-QUIET_SECONDS]

    def handler(loop: Any, context: dict[str, Any]) -> None:
        if context.get("message") == "socket.accept() out of system resource":
            now = time.monotonic()
            if now - last[0] >= QUIET_SECONDS:
                last[0] = now
                log.warning("out of descriptors: not accepting for now", extra={})
            return
        if previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)
