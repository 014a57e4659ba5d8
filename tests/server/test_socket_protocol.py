"""What an idle websocket holds on a node ("≤ 10 KB per idle connected socket").

The memory itself is measured by ``tortuga loadtest --idle`` (README, Speed); these tests
check, on a real node, the things that measurement rests on: the lighter protocol of
server/realtime/socket_protocol.py is the one serving (and still keeps its sockets alive with
pings), it holds nothing of the handshake once the socket is open, and a socket that
waits for nothing holds no writer task and no queue. The close codes, frame limits and
drain of the protocol are checked where they belong (test_protocol.py, test_drain*.py,
admin/test_admin_nodes.py), all through the same protocol.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from tortuga_client import Client, Node, create_room, guest
from websockets.protocol import Protocol

from server.app import uvicorn_options
from server.realtime.socket_protocol import HELD_FRAMES, Inbox, LeanWebSocketProtocol, Writable
from server.settings import Settings


def _protocols(node: Node) -> list[LeanWebSocketProtocol]:
    """The open websockets of ``node``, as uvicorn holds them."""
    connections = node.server.server_state.connections
    return [c for c in connections if isinstance(c, LeanWebSocketProtocol)]


async def _settled(predicate: Any) -> None:
    for _ in range(200):
        if predicate():
            return
        await asyncio.sleep(0.01)
    assert predicate()


def test_a_node_is_served_with_the_lighter_protocol_and_no_compression() -> None:
    """Every node (CLI, workers, tests, the raw-limit server) takes uvicorn's options from
    ``uvicorn_options``: the lighter sans-I/O protocol, and per-message deflate off (a
    hand must never share a compression window with chat: CRIME/BREACH)."""
    options = uvicorn_options(Settings())
    assert options["ws"] is LeanWebSocketProtocol
    assert options["ws_per_message_deflate"] is False
    assert options["interface"] == "asgi3"


async def test_an_open_socket_holds_nothing_of_its_handshake(node: Node) -> None:
    """Once open, a socket's protocol keeps neither the handshake request (websockets'
    parser no longer holds it: the frame parser runs on its own) nor the response, nor the
    request's headers in its scope; the attributes of its own are few enough for CPython's
    small shared-key dictionary; its keepalive ping is armed; and it still answers."""
    anne = await Client.connect(node, "Anne")
    bob = await Client.connect(node, "Bob")
    protocols = _protocols(node)
    assert len(protocols) == 2
    for proto in protocols:
        assert proto.request is None and proto.response is None
        assert proto.conn.parser.gi_code is Protocol.parse.__code__  # type: ignore[attr-defined]
        assert proto.scope["headers"] == []
        assert len(vars(proto)) < 30, sorted(vars(proto))
        assert proto.config is node.server.config
        assert proto.ping_interval == node.server.config.ws_ping_interval == 20.0
        assert proto.ping_timer is not None  # a timer, not a task: the next keepalive ping
    assert protocols[0]._shared is protocols[1]._shared
    await anne.send("ping", t=1)
    assert (await anne.of("pong"))["t"] == 1
    await bob.close()
    await anne.close()


async def test_an_idle_socket_holds_no_writer_and_no_queue(node: Node) -> None:
    """A socket's writer task and queue exist only while something waits to be written
    (server/realtime/hub.py): once the snapshot of the room it joined is written, neither is
    kept."""
    token, _ = await guest(node, "Host")
    room = await create_room(node, token)
    anne = await Client.connect(node, "Anne")
    await anne.send("join", room=room["id"], **{"as": "spectator"})
    await anne.of("snapshot")
    hub = node.server.config.app.state.services.hub
    (conn,) = hub.conns_of[anne.user["id"]]
    await _settled(lambda: conn.writer is None and conn.queue is None)
    assert not hasattr(conn, "__dict__")  # slots: one of these per socket
    await anne.send("ping", t=2)  # a new frame starts a new writer
    assert (await anne.of("pong"))["t"] == 2
    await _settled(lambda: conn.writer is None and conn.queue is None)
    await anne.close()


async def test_the_inbox_loses_nothing_to_a_cancelled_reader() -> None:
    """``Inbox`` stands in for ``asyncio.Queue``: in order, a reader cancelled while it
    waits takes nothing with it, and there is one reader at a time."""
    inbox = Inbox()
    assert inbox.empty()
    waiting = asyncio.ensure_future(inbox.waiter())
    await asyncio.sleep(0)
    with pytest.raises(RuntimeError):
        inbox.waiter()  # a second reader while the first waits
    waiting.cancel()
    inbox.put_nowait({"n": 1})
    inbox.put_nowait({"n": 2})
    assert not inbox.empty()
    assert inbox.get_nowait() == {"n": 1}
    assert inbox.get_nowait() == {"n": 2}
    assert inbox.empty()
    later = inbox.waiter()
    inbox.put_nowait({"n": 3})
    await asyncio.wait_for(later, 1)
    assert inbox.get_nowait() == {"n": 3}


async def test_writable_holds_writers_while_cleared() -> None:
    """``Writable`` stands in for ``asyncio.Event`` in write flow control: set at first;
    cleared, every writer waits until it is set again."""
    writable = Writable()
    assert writable.is_set()
    await asyncio.wait_for(writable.wait(), 1)
    writable.clear()
    writers = [asyncio.ensure_future(writable.wait()) for _ in range(2)]
    await asyncio.sleep(0.01)
    assert not any(w.done() for w in writers)
    writable.set()
    await asyncio.wait_for(asyncio.gather(*writers), 1)


async def test_a_frame_framed_once_is_written_to_an_open_socket_only(node: Node) -> None:
    """A step's frames for a seat are framed once and written to each of its sockets as
    they are (``write_frame``): the client reads them as ordinary text frames. A socket
    whose writes are paused (flow control) or that is closing is not written to: the frame
    goes the usual way, after what waits (server/realtime/hub.py)."""
    from server.realtime.socket_protocol import text_frame

    anne = await Client.connect(node, "Anne")
    [proto] = _protocols(node)
    assert proto.write_frame(text_frame(b'{"type":"pong","t":"framed"}'))
    frame = await anne.of("pong")
    assert frame["t"] == "framed"
    proto.writable.clear()  # as uvicorn's pause_writing does
    assert not proto.write_frame(text_frame(b'{"type":"pong","t":"paused"}'))
    proto.writable.set()
    await anne.close()
    await _settled(lambda: not _protocols(node))
    assert not proto.write_frame(text_frame(b'{"type":"pong","t":"closed"}'))


async def test_reading_pauses_only_once_frames_pile_up(node: Node) -> None:
    """uvicorn pauses a socket's reading at every frame and resumes it when the app takes
    it; the lighter protocol reads on while fewer than ``HELD_FRAMES`` messages wait. A
    player sending one frame at a time is never paused; a burst may pause it (only ever
    with that many waiting), loses nothing, and reading resumes once the app caught up."""
    anne = await Client.connect(node, "Anne")
    (proto,) = _protocols(node)
    waiting_at_pause: list[int] = []
    pause = proto.transport.pause_reading

    def counted_pause() -> None:
        waiting_at_pause.append(len(proto.queue))  # type: ignore[arg-type]
        pause()

    proto.transport.pause_reading = counted_pause  # type: ignore[method-assign]
    for t in range(20):
        await anne.send("ping", t=t)
        assert (await anne.of("pong"))["t"] == t
    assert waiting_at_pause == []
    for t in range(100, 160):
        await anne.send("ping", t=t)
    pongs = [(await anne.of("pong"))["t"] for _ in range(60)]
    assert pongs == list(range(100, 160))
    assert all(n >= HELD_FRAMES for n in waiting_at_pause), waiting_at_pause
    assert proto.transport.is_reading() and not proto.read_paused
    await anne.close()
