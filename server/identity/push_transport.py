"""The HTTP transport pushes go out on: it connects only to public addresses.

An endpoint's URL is checked when its subscription is kept (``webpush.check_endpoint``),
but its host name resolves anew at every POST, and a name may answer a private, loopback
or link-local address (SSRF) -- even one that answered a public address to a check made
just before (DNS rebinding). So the check is made here, at the connect itself: the name is
resolved once, every address it gives is checked (``PrivateAddress`` if one is not public),
and the connection is made to a checked address. TLS still verifies the certificate
against the endpoint's host name (httpcore starts TLS with the origin's host, whatever
address the socket went to).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import ssl
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import httpcore
import httpx

Resolve = Callable[[str, int], Awaitable[list[str]]]
Allowed = Callable[[ipaddress.IPv4Address | ipaddress.IPv6Address], bool]


def public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """A public address: not private, loopback, link-local, reserved or shared."""
    return address.is_global


async def resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (TCP)."""
    found = await asyncio.get_running_loop().getaddrinfo(
        host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
    )
    return [str(sockaddr[0]).split("%")[0] for *_, sockaddr in found]


class PrivateAddress(httpcore.ConnectError):
    """The endpoint's host resolves to an address that is not public: a subscription to
    drop (httpx raises its ``ConnectError`` from this one)."""


class PublicOnly(httpcore.AsyncNetworkBackend):
    """A network backend whose every connection goes to a public address it checked."""

    def __init__(self, resolver: Resolve = resolve, allowed: Allowed = public) -> None:
        self._inner = httpcore.AnyIOBackend()
        self._resolve = resolver
        self._allowed = allowed

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        try:
            addresses = await asyncio.wait_for(self._resolve(host, port), timeout)
        except (OSError, TimeoutError) as exc:
            raise httpcore.ConnectError(
                f"the push endpoint's host does not resolve: {exc}"
            ) from None
        if not addresses or not all(self._allowed(ipaddress.ip_address(a)) for a in addresses):
            raise PrivateAddress("the push endpoint's host resolves to a private address")
        return await self._inner.connect_tcp(
            addresses[0], port, timeout, local_address, socket_options
        )

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("pushes go to push services over TCP only")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class PublicTransport(httpx.AsyncHTTPTransport):
    """httpx's transport on a ``PublicOnly`` backend. httpx takes no backend of its own, so
    its connection pool is made again with one (the same settings as httpx's default; the
    versions are locked, and tests/server/test_push_transport.py fails if that changes)."""

    def __init__(
        self,
        resolver: Resolve = resolve,
        allowed: Allowed = public,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        super().__init__()
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context or httpx.create_ssl_context(),
            max_connections=100,  # httpx's default limits
            max_keepalive_connections=20,
            keepalive_expiry=5.0,
            network_backend=PublicOnly(resolver, allowed),
        )
