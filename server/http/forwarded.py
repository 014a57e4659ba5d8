"""The client's address and scheme as a trusted proxy forwards them (X-Forwarded-For and
X-Forwarded-Proto), applied to a scope by the node's own ``__call__``.

It is uvicorn's ``ProxyHeadersMiddleware``, unchanged, run to completion at once: given an
app that returns without waiting, its coroutine finishes on its first step, so the scope is
rewritten before the node's own coroutine is made. As uvicorn adds it (``proxy_headers``),
the middleware's coroutine would instead await the node's for a request's whole life: for
a websocket, a frame suspended per socket for hours (memory per idle socket).
uvicorn is told not to add it (``server.app.uvicorn_options``).
"""

from __future__ import annotations

from typing import Any

from starlette.types import Scope
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware


async def _done(scope: Any, receive: Any, send: Any) -> None:
    """The app behind the middleware here: it has rewritten the scope; nothing more."""


async def _never() -> Any:
    raise RuntimeError("the proxy-headers step neither receives nor sends")


class Forwarded:
    """A trusted proxy's headers applied to a scope (``client``, ``scheme``), in place."""

    def __init__(self, trusted: str) -> None:
        """``trusted``: comma-separated addresses or networks (``*``: any), uvicorn's
        ``forwarded_allow_ips`` (``settings.forwarded_allow_ips``)."""
        self._middleware = ProxyHeadersMiddleware(_done, trusted_hosts=trusted)

    def trusts(self, host: str) -> bool:
        """Whether ``host`` is a trusted proxy (its connections carry many clients)."""
        return host in self._middleware.trusted_hosts

    def apply(self, scope: Scope) -> None:
        step = self._middleware(scope, _never, _never)  # type: ignore[arg-type]
        try:
            step.send(None)
        except StopIteration:
            return
        step.close()
        raise RuntimeError("uvicorn's proxy-headers middleware waited for something")
