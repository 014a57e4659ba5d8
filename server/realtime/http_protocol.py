"""uvicorn's HTTP protocol for a node: a deadline for each request's head, and newcomers
refused cleanly past the node's bounds (server/realtime/arrivals.py).

Everything else is uvicorn's own (httptools parsing, keep-alive, pipelining, the upgrade
to the node's websocket protocol). The bounds are the app's (``bounds``, set from the
node's settings by server/app.py): uvicorn makes a protocol per connection from the class
alone, and under ``serve --workers N`` sends the class to each worker by name.
"""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from server.realtime.arrivals import FULL, TOO_MANY_PENDING, Bounds, Pending, pending_of


class NodeHTTPProtocol(HttpToolsProtocol):
    """``HttpToolsProtocol`` with the node's bounds on connections."""

    bounds: Bounds | None = None  # the app's (none: uvicorn's protocol as it is)
    _head_timer: asyncio.TimerHandle | None = None
    _pending: Pending | None = None  # set while this connection counts as pending
    _address: str = ""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.bounds = bounds = getattr(self.app, "bounds", None)
        if bounds is None:
            return
        address = self.client[0] if self.client else ""
        pending = pending_of(self.config)
        if bounds.max_connections and len(self.connections) > bounds.max_connections:
            pending.warn("the node is full", address)
            self._refuse(FULL)
            return
        # A trusted proxy's connections are many clients' (it bounds them itself: nginx's
        # limit_conn and client_header_timeout, deploy/nginx.conf).
        forwarded = getattr(self.app, "forwarded", None)
        proxy = forwarded is not None and forwarded.trusts(address)
        limit = 0 if proxy else bounds.max_pending_per_address
        if not pending.enter(address, limit):
            pending.warn("too many pending connections from one address", address)
            self._refuse(TOO_MANY_PENDING)
            return
        self._pending, self._address = pending, address
        self._head_timer = self.loop.call_later(bounds.head_seconds, self._head_too_slow)

    def _refuse(self, response: bytes) -> None:
        self.transport.write(response)
        self.transport.close()

    def _head_too_slow(self) -> None:
        """The request's head did not come in time: cut off (it would hold its descriptor
        and its place for as long as it liked)."""
        self._head_timer = None
        self._done_pending()
        self.transport.abort()

    def _done_pending(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None
        if self._pending is not None:
            self._pending.leave(self._address)
            self._pending = None

    def on_message_begin(self) -> None:
        super().on_message_begin()
        # The next request on a kept-alive connection: its head has a deadline too.
        bounds = self.bounds
        if bounds is not None and self._head_timer is None and not self.transport.is_closing():
            self._head_timer = self.loop.call_later(bounds.head_seconds, self._head_too_slow)

    def on_headers_complete(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None
        # A websocket's wait goes on in its own protocol, until it is greeted.
        self._done_pending()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._done_pending()
        super().connection_lost(exc)
