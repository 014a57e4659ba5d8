"""Sockets that stop reading cannot fill a node: what waits for one socket is bounded in
bytes, room lists asked for again and again are kept once, a socket that answers no ping
is cut off, and everything it held is let go when it goes.

The peer here is a real websocket client (websockets' own protocol, without its I/O) on a
TCP connection with a small receive buffer, that signs in and then never reads again, as
a socket left open by an attacker, or by a phone that lost its signal, does."""

from __future__ import annotations

import asyncio
import gc
import json
import socket
from typing import Any

from tortuga_client import Client, Node, create_room, guest
from websockets.client import ClientProtocol
from websockets.protocol import State
from websockets.uri import parse_uri

from server.realtime.connection import Connection


class Sleeper:
    """A websocket that signs in, then reads nothing: the kernel's buffers fill and then
    the node's."""

    def __init__(self, proto: ClientProtocol, writer: asyncio.StreamWriter) -> None:
        self.proto = proto
        self.writer = writer

    @classmethod
    async def open(cls, node: Node, token: str) -> Sleeper:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", node.settings.port))
        # A small stream buffer: past 2 KB unread, the client stops taking bytes in.
        reader, writer = await asyncio.open_connection(sock=sock, limit=1024)
        proto = ClientProtocol(parse_uri(node.ws_url))
        proto.send_request(proto.connect())
        writer.write(b"".join(proto.data_to_send()))
        sleeper = cls(proto, writer)
        while proto.state is not State.OPEN:  # the handshake's answer
            proto.receive_data(await asyncio.wait_for(reader.read(4096), 10))
        sleeper.send({"type": "auth", "token": token})
        seen = ""
        while '"hello"' not in seen:  # read until signed in, then never again
            proto.receive_data(await asyncio.wait_for(reader.read(4096), 10))
            seen += "".join(e.data.decode() for e in proto.events_received() if hasattr(e, "data"))
        assert proto.state is State.OPEN
        return sleeper

    def send(self, frame: dict[str, Any]) -> None:
        self.proto.send_text(json.dumps(frame).encode())
        self.writer.write(b"".join(self.proto.data_to_send()))

    def close(self) -> None:
        self.writer.transport.abort()


def _conns(node: Node, user: dict[str, str]) -> set[Connection]:
    hub = node.server.config.app.state.services.hub
    return set(hub.conns_of.get(user["id"], ()))


async def _until(predicate: Any, seconds: float = 10.0) -> bool:
    for _ in range(int(seconds / 0.05)):
        if predicate():
            return True
        await asyncio.sleep(0.05)
    return bool(predicate())


async def test_what_waits_for_a_socket_that_reads_nothing_is_bounded_in_bytes(
    start: Any,
) -> None:
    """Pings of 15 KB each, answered by pongs as large, to a socket that reads nothing:
    past ``max_queued_bytes`` waiting (its queue and its transport's unsent bytes) the
    socket is cut off, at once, its bytes dropped; the node serves everyone else."""
    node = await start("a", max_queued_bytes=128 * 1024, ping_seconds=60.0)
    token, user = await guest(node, "Sleepy")
    sleeper = await Sleeper.open(node, token)
    (conn,) = _conns(node, user)
    protocol = conn.protocol
    assert protocol is not None
    most = 0
    sent = 0
    while sent < 200:
        sleeper.send({"type": "ping", "t": "x" * 15000})
        sent += 1
        await asyncio.sleep(0.005)
        if conn.closing:
            break
        unsent = protocol.transport.get_write_buffer_size()
        most = max(most, conn.queued + unsent)
    assert conn.closing and sent < 200, "never cut off"
    assert most <= 128 * 1024
    assert await _until(lambda: not _conns(node, user)), "the node still holds the socket"
    assert conn.queued == 0 and not conn.queue
    assert protocol.transport.is_closing() and protocol.transport.get_write_buffer_size() == 0
    other = await Client.connect(node, "Awake")
    await other.send("ping", t=1)
    assert (await other.of("pong"))["t"] == 1
    sleeper.close()


async def test_room_lists_asked_for_again_and_again_wait_once(start: Any) -> None:
    """``watch_rooms`` sent over and over by a socket that reads nothing: each answer is
    the whole public list (tens of KB with many rooms). A list still waiting is replaced by
    the newer one, so the socket holds one list, not one per request."""
    node = await start("a", max_open_rooms_per_user=0, ping_seconds=60.0)
    host, _ = await guest(node, "Host")
    for _ in range(30):
        await create_room(node, host)
    token, user = await guest(node, "Watcher")
    sleeper = await Sleeper.open(node, token)
    (conn,) = _conns(node, user)
    lists_waiting = 0
    for _ in range(300):
        sleeper.send({"type": "watch_rooms"})
        await asyncio.sleep(0.002)
        queue = conn.queue or ()
        lists_waiting = max(lists_waiting, sum(1 for kind, _ in queue if kind == "list"))
    assert lists_waiting == 1  # the socket stopped reading: lists waited, one at a time
    one_list = max(len(payload) for kind, payload in conn.queue or () if kind == "list")
    assert one_list > 10_000
    assert conn.queued <= one_list + 4096 and not conn.closing
    sleeper.close()


async def test_a_socket_that_answers_no_ping_is_cut_off_and_let_go(start: Any) -> None:
    """A socket that stopped reading answers no keepalive ping: ``ping_seconds`` after the
    ping it is cut off, even with bytes waiting for it that it will never take (a closed
    transport would wait to send them first, for good), and the node keeps nothing of it."""
    node = await start("a", ping_seconds=0.5, max_open_rooms_per_user=0)
    host, _ = await guest(node, "Host")
    room = await create_room(node, host)
    token, user = await guest(node, "Gone")
    sleeper = await Sleeper.open(node, token)
    sleeper.send({"type": "join", "room": room["id"], "as": "spectator"})
    for _ in range(40):  # fill what the kernel holds, and then some
        sleeper.send({"type": "ping", "t": "y" * 15000})
    await asyncio.sleep(0.2)
    (conn,) = _conns(node, user)
    protocol = conn.protocol
    assert protocol is not None and protocol.transport.get_write_buffer_size() > 0
    assert await _until(lambda: not _conns(node, user), seconds=5.0), "never cut off"
    assert protocol.transport.is_closing() and protocol.transport.get_write_buffer_size() == 0
    hub = node.server.config.app.state.services.hub
    assert conn not in hub.by_room.get(room["id"], set())
    del conn, protocol
    gc.collect()
    left = [o for o in gc.get_objects() if isinstance(o, Connection) and o.user.id == user["id"]]
    assert left == []
    sleeper.close()
