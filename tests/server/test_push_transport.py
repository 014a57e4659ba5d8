"""The transport pushes go out on (server/identity/push_transport.py) connects only to the
addresses it checked: a host name that resolved to a public address when the endpoint was
checked and to a private one at the connect (DNS rebinding) reaches nothing."""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import AsyncIterator

import httpx
import pytest

from server.identity.push_transport import (
    PrivateAddress,
    PublicOnly,
    PublicTransport,
    Resolve,
    public,
)


class Listener:
    """A one-line HTTP server on an address of the test's choosing; it counts its requests."""

    def __init__(self) -> None:
        self.requests = 0
        self.server: asyncio.Server | None = None

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        self.requests += 1
        writer.write(b"HTTP/1.1 201 Created\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
        await writer.drain()
        writer.close()


@pytest.fixture
async def listener() -> AsyncIterator[tuple[Listener, int]]:
    one = Listener()
    one.server = await asyncio.start_server(one.serve, "127.0.0.2", 0)
    port = one.server.sockets[0].getsockname()[1]
    yield one, port
    one.server.close()
    await one.server.wait_closed()


def answers(*addresses: str) -> Resolve:
    """A resolver that gives ``addresses`` for any name."""

    async def resolver(host: str, port: int) -> list[str]:
        return list(addresses)

    return resolver


def loopback_two(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """For the test only: 127.0.0.2 stands for a public address."""
    return str(address) == "127.0.0.2" or public(address)


@pytest.mark.parametrize(
    "addresses",
    [("127.0.0.1",), ("10.0.0.7",), ("169.254.169.254",), ("::1",), ("8.8.8.8", "127.0.0.2")],
)
async def test_a_name_that_resolves_inward_is_not_connected_to(
    addresses: tuple[str, ...], listener: tuple[Listener, int]
) -> None:
    """Loopback, private, the cloud's metadata address -- or a public one beside any of
    them: refused at the connect, and nothing reaches the inside."""
    server, port = listener
    transport = PublicTransport(answers(*addresses))
    async with httpx.AsyncClient(transport=transport) as client:
        with pytest.raises(httpx.ConnectError, match="private address") as refused:
            await client.post(f"http://push.example.test:{port}/send/abc", content=b"x")
    assert server.requests == 0
    # What the pusher reads to drop the subscription (as a refused endpoint's).
    assert isinstance(refused.value.__cause__, PrivateAddress)


async def test_the_connection_goes_to_the_address_that_was_checked(
    listener: tuple[Listener, int],
) -> None:
    """The name is resolved once, at the connect, and the socket goes to that checked
    address (here 127.0.0.2 stands for a public one; push.example.test resolves nowhere
    else)."""
    server, port = listener
    transport = PublicTransport(answers("127.0.0.2"), allowed=loopback_two)
    async with httpx.AsyncClient(transport=transport) as client:
        r = await client.post(f"http://push.example.test:{port}/send/abc", content=b"x")
    assert r.status_code == 201 and server.requests == 1


async def test_no_unix_sockets_and_an_unresolvable_name_is_a_connect_error() -> None:
    backend = PublicOnly()
    with pytest.raises(Exception, match="TCP only"):
        await backend.connect_unix_socket("/tmp/x")
    with pytest.raises(Exception, match="does not resolve"):
        await backend.connect_tcp("no-such-host.invalid", 443, timeout=5)
