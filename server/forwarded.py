"""The client's address and scheme as a trusted proxy forwards them (X-Forwarded-For and
X-Forwarded-Proto), applied by the node's own ``__call__`` instead of uvicorn's
``ProxyHeadersMiddleware``.

The two do the same (this reuses uvicorn's list of trusted hosts and networks), but
uvicorn's middleware is a coroutine that awaits the app: for a websocket it stays
suspended, with its frame, for the whole life of the socket (issue 15's budget is 10 KB per
idle socket). Here the scope is rewritten by a plain function before the app's coroutine
is made, so nothing of it stays alive. uvicorn is told not to add its own
(``proxy_headers=False`` in ``server.app.uvicorn_options``).
"""

from __future__ import annotations

from starlette.types import Scope
from uvicorn.middleware.proxy_headers import _TrustedHosts

SCHEMES = frozenset({"http", "https", "ws", "wss"})


class Forwarded:
    """Rewrites a scope's ``client`` and ``scheme`` from a trusted proxy's headers."""

    def __init__(self, trusted: str) -> None:
        """``trusted``: comma-separated addresses or networks (``*``: any), as uvicorn's
        ``forwarded_allow_ips`` (``settings.forwarded_allow_ips``)."""
        self.trusted = _TrustedHosts(trusted)

    def apply(self, scope: Scope) -> None:
        client = scope.get("client")
        if client is None or client[0] not in self.trusted:
            return  # not from a proxy we trust: its headers say nothing
        proto: bytes | None = None
        addresses: list[bytes] = []
        for name, value in scope["headers"]:
            if name == b"x-forwarded-proto":
                proto = value
            elif name == b"x-forwarded-for":
                addresses.append(value)
        if proto is not None:
            scheme = proto.decode("latin1").strip()
            if scheme in SCHEMES:
                websocket = scope["type"] == "websocket"
                scope["scheme"] = scheme.replace("http", "ws") if websocket else scheme
        if addresses:
            joined = b", ".join(addresses).decode("latin1")
            host, port = self.trusted.get_trusted_client_address(joined)
            if host:  # an empty X-Forwarded-For leaves the client as it is
                scope["client"] = (host, port)
