"""Connections are bounded per address and in all, and refused cleanly.

A connection costs a descriptor and memory from the moment it is accepted, before it has
shown a token or sent a request that a quota could count: a request's head must come
within ``head_seconds``; one address has at most ``max_pending_per_address`` connections
still sending a head or websockets not yet signed in (the next is answered 429); and a
node past its descriptor budget answers 503 and closes, writing one log line, not one per
refused connection -- then serves again by itself once the crowd is gone."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

import pytest
from test_node_death import spawn_node
from tortuga_client import Client, Node, guest

from server.realtime import arrivals


async def _connect(node: Any) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", node.port)


async def _answer(reader: asyncio.StreamReader, seconds: float = 5.0) -> bytes:
    """What the node says before it closes the connection (b"": closed with nothing)."""
    with contextlib.suppress(ConnectionError):
        return await asyncio.wait_for(reader.read(4096), seconds)
    return b""


async def _closed(reader: asyncio.StreamReader, seconds: float) -> bool:
    try:
        while await asyncio.wait_for(reader.read(4096), seconds):
            pass
    except TimeoutError:
        return False
    except ConnectionError:
        return True
    return True


class _Port:
    def __init__(self, node: Node) -> None:
        self.port = node.settings.port


async def test_a_head_that_does_not_come_in_time_is_cut_off(start: Any) -> None:
    """Connections that send a request's head a byte at a time (slowloris) hold nothing
    for long: ``head_seconds`` after they came, each is cut off."""
    node = await start("a", head_seconds=0.5, max_pending_per_address=100, forwarded_allow_ips="")
    slow = [await _connect(_Port(node)) for _ in range(20)]
    for _, writer in slow:
        writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n")  # and never the blank line
    closed = await asyncio.gather(*(_closed(reader, 3.0) for reader, _ in slow))
    assert all(closed), f"{closed.count(False)} still open"
    # An ordinary request on a kept-alive connection is not hurt: its heads come at once.
    reader, writer = await _connect(_Port(node))
    for _ in range(2):
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert (await reader.readuntil(b"\r\n")).startswith(b"HTTP/1.1 200")
        await reader.readuntil(b"\r\n\r\n")
        await reader.read(100)
        await asyncio.sleep(0.7)  # between requests, longer than the head deadline
    writer.close()


async def test_one_address_has_a_bounded_number_of_pending_connections(start: Any) -> None:
    """Past ``max_pending_per_address`` connections still sending their heads, or
    websockets not yet signed in, the next connection from that address is answered 429
    (``too-many-connections``) at once; as they finish or go, others are let in."""
    node = await start(
        "a",
        max_pending_per_address=6,
        head_seconds=30.0,
        auth_timeout_seconds=30,
        forwarded_allow_ips="",  # this host is a client here, not a trusted proxy
    )
    player = await Client.connect(node, "Anne")  # signed in: not pending
    heads = [await _connect(_Port(node)) for _ in range(3)]
    for _, writer in heads:
        writer.write(b"GET / HTTP/1.1\r\n")
    sockets = []
    for _ in range(3):  # websockets that never send their auth frame
        reader, writer = await _connect(_Port(node))
        writer.write(
            b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 101")
        sockets.append((reader, writer))
    await asyncio.sleep(0.1)
    reader, writer = await _connect(_Port(node))
    answer = await _answer(reader)
    assert answer.startswith(b"HTTP/1.1 429"), answer
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"]["code"] == "too-many-connections"
    await player.send("ping", t=1)  # a signed-in socket is served all along
    assert (await player.of("pong"))["t"] == 1
    for _, w in heads + sockets:
        w.close()
    await asyncio.sleep(0.2)
    for _ in range(6):
        reader, writer = await _connect(_Port(node))
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert (await _answer(reader)).startswith(b"HTTP/1.1 200")
        writer.close()


async def test_a_node_out_of_descriptors_refuses_cleanly_and_recovers(
    redis_url: str, redis_prefix: str
) -> None:
    """A node limited to 320 descriptors, sent 600 connections at once: past its budget
    each is answered 503 and closed; the node writes a few lines of log, not one (with a
    traceback) per refused connection, and serves again once they are gone."""
    node = await spawn_node(redis_url, redis_prefix, "full", open_files=320)
    try:
        crowd = []
        for _ in range(600):
            with contextlib.suppress(OSError):
                crowd.append(await asyncio.wait_for(_connect(node), 2))
        answers = await asyncio.gather(*(_answer(r, 10.0) for r, _ in crowd))
        refused = [a for a in answers if a.startswith(b"HTTP/1.1 503")]
        assert refused, "nobody was told the node is full"
        for _, writer in crowd:
            writer.close()
        await asyncio.sleep(1.0)
        async with asyncio.timeout(15):
            while True:
                with contextlib.suppress(OSError, TimeoutError):
                    reader, writer = await _connect(node)
                    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                    if (await _answer(reader, 2.0)).startswith(b"HTTP/1.1 200"):
                        writer.close()
                        break
                await asyncio.sleep(0.2)
        log = node.output()
        assert log.count("Traceback") == 0, log[-2000:]
        assert len(log) < 4000, len(log)
    finally:
        node.process.terminate()
        node.process.wait(20)
        node.stderr.close()


async def test_a_trusted_proxy_is_not_bounded_as_one_address(start: Any) -> None:
    """Behind a proxy every connection comes from the proxy's address: the proxy bounds
    connections per client address itself (deploy/nginx.conf), so the node does not count
    a trusted proxy's connections as one address's."""
    node = await start("a", max_pending_per_address=2, forwarded_allow_ips="127.0.0.1")
    heads = [await _connect(_Port(node)) for _ in range(5)]
    for _, writer in heads:
        writer.write(b"GET / HTTP/1.1\r\n")
    reader, writer = await _connect(_Port(node))
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    assert (await _answer(reader)).startswith(b"HTTP/1.1 200")
    for _, w in [*heads, (reader, writer)]:
        w.close()


def test_a_failed_accept_is_logged_once_a_while(caplog: pytest.LogCaptureFixture) -> None:
    """asyncio reports a failed ``accept`` (out of descriptors) for every connection
    waiting, every turn of the loop: the node logs it once per ``QUIET_SECONDS``, without
    a traceback, and passes every other report on."""
    loop = asyncio.new_event_loop()
    seen: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: seen.append(context))
    arrivals.quiet_accept_errors(loop)
    handler = loop.get_exception_handler()
    assert handler is not None
    with caplog.at_level(logging.WARNING, logger="tortuga.arrivals"):
        for _ in range(1000):
            handler(loop, {"message": "socket.accept() out of system resource"})
        handler(loop, {"message": "something else"})
    assert len(caplog.records) == 1 and caplog.records[0].exc_info is None
    assert seen == [{"message": "something else"}]
    loop.close()


async def test_signed_in_players_are_never_pending(start: Any) -> None:
    """Many tabs of signed-in players from one address (a school, a family behind one
    router) are not pending connections: they never meet the per-address bound."""
    node = await start("a", max_pending_per_address=3, forwarded_allow_ips="")
    clients = []
    for n in range(8):
        token, user = await guest(node, f"P{n}")
        clients.append(await Client.connect(node, token=token, user=user))
    await clients[-1].send("ping", t=1)
    assert (await clients[-1].of("pong"))["t"] == 1
