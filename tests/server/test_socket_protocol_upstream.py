"""What server/realtime/socket_protocol.py relies on in uvicorn and websockets, checked
against the installed versions: a release that renames, adds or drops one of these fails
here, by name, rather than as a socket that misbehaves at run time.

- ``LeanWebSocketProtocol.__init__`` does not call uvicorn's: it sets uvicorn's attributes
  itself (or holds them on the class, ``CLASS_LEVEL``). Both constructors are run and
  their attributes compared, name for name and value for value.
- It stands ``Inbox`` and ``Writable`` in for the ``asyncio.Queue`` and ``asyncio.Event``
  uvicorn makes: every method uvicorn's class calls on them must be there.
- It drops the handshake's request and response, which uvicorn keeps as ``request`` and
  ``response``, and it swaps websockets' server parser for the frame parser the server
  parser delegates to once the handshake is read (``parser``, ``parser_exc``,
  ``reader.buffer``, ``Protocol.parse``).
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import textwrap
from typing import Any

from uvicorn.config import Config
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.frames import Frame, Opcode
from websockets.http11 import Request
from websockets.protocol import Protocol, State
from websockets.server import ServerProtocol

from server.realtime.socket_protocol import (
    CLASS_LEVEL,
    Inbox,
    LeanWebSocketProtocol,
    Writable,
)

HANDSHAKE = (
    b"GET /ws HTTP/1.1\r\n"
    b"Host: localhost\r\n"
    b"Upgrade: websocket\r\n"
    b"Connection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    b"Sec-WebSocket-Version: 13\r\n"
    b"\r\n"
)


async def _app(scope: Any, receive: Any, send: Any) -> None:
    raise AssertionError("never called: no socket is connected")


def _both() -> tuple[WebSocketsSansIOProtocol, LeanWebSocketProtocol]:
    """uvicorn's protocol and the lighter one, made as uvicorn makes them for a server."""
    config = Config(_app, ws="websockets-sansio", ws_per_message_deflate=False, log_config=None)
    config.load()
    state = ServerState()
    app_state: dict[str, Any] = {}
    loop = asyncio.get_running_loop()
    upstream = WebSocketsSansIOProtocol(config, state, app_state, _loop=loop)
    lean = LeanWebSocketProtocol(config, state, app_state, _loop=loop)
    return upstream, lean


def _attribute_uses(cls: type, holder: str, *, skip: set[str]) -> set[str]:
    """The names used on ``self.<holder>`` in ``cls``'s own methods, but those in ``skip``."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    used: set[str] = set()
    for method in ast.walk(tree):
        if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef) or method.name in skip:
            continue
        for node in ast.walk(method):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Attribute)
                and node.value.attr == holder
                and isinstance(node.value.value, ast.Name)
                and node.value.value.id == "self"
            ):
                used.add(node.attr)
    return used


async def test_the_constructor_sets_what_uvicorns_sets() -> None:
    """Every attribute uvicorn's constructor sets is set by the lighter one, or held on its
    class (``CLASS_LEVEL``), with the same value; it sets nothing else of its own but
    ``_shared``. A uvicorn that sets one more attribute, or one fewer, fails here."""
    upstream, lean = _both()
    upstream_names = set(vars(upstream))
    own = set(vars(lean)) - {"_shared"}
    assert not own & set(CLASS_LEVEL), own & set(CLASS_LEVEL)
    assert upstream_names == own | set(CLASS_LEVEL), (
        sorted(upstream_names - own - set(CLASS_LEVEL)),  # uvicorn's, not set here
        sorted((own | set(CLASS_LEVEL)) - upstream_names),  # set here, no longer uvicorn's
    )
    for name in CLASS_LEVEL:
        assert name in vars(LeanWebSocketProtocol), name
    # The same values, but the stand-ins and the per-socket websockets protocol.
    replaced = {"queue", "writable", "conn"}
    for name in sorted(upstream_names - replaced):
        assert getattr(lean, name) == getattr(upstream, name), name
    assert type(upstream.queue) is asyncio.Queue and isinstance(lean.queue, Inbox)
    assert type(upstream.writable) is asyncio.Event and isinstance(lean.writable, Writable)
    assert upstream.writable.is_set() and lean.writable.is_set()
    assert type(lean.conn) is type(upstream.conn) is ServerProtocol
    for name in ("max_message_size", "max_fragment_size", "logger", "state"):
        assert getattr(lean.conn, name) == getattr(upstream.conn, name), name
    assert lean.conn.extensions == upstream.conn.extensions == []
    assert len(vars(lean)) < 30  # CPython's small shared-key dictionary: the point of it


def test_the_stand_ins_have_every_method_uvicorn_calls() -> None:
    """``Inbox`` and ``Writable`` have every method uvicorn's protocol calls on its queue
    and its event (but in ``receive``, which the lighter protocol replaces whole)."""
    replaced = set(vars(LeanWebSocketProtocol)) - {"__init__"}
    whole = {"receive"}
    assert whole <= replaced
    on_queue = _attribute_uses(WebSocketsSansIOProtocol, "queue", skip=whole | {"__init__"})
    on_writable = _attribute_uses(WebSocketsSansIOProtocol, "writable", skip={"__init__"})
    assert on_queue == {"put_nowait"}, on_queue
    assert on_writable == {"set", "clear", "wait"}, on_writable
    for name in on_queue:
        assert callable(getattr(Inbox, name, None)), name
    for name in on_writable:
        assert callable(getattr(Writable, name, None)), name


def test_uvicorn_keeps_the_handshake_where_it_is_dropped() -> None:
    """uvicorn keeps the handshake's request and response as ``request`` and ``response``
    (``handle_connect``), the names the lighter protocol clears once the socket is open;
    and it pauses and resumes reading through ``read_paused``."""
    source = inspect.getsource(WebSocketsSansIOProtocol.handle_connect)
    assert "self.request = event" in source
    assert "self.response = self.conn.accept(event)" in source
    receive_event = inspect.getsource(WebSocketsSansIOProtocol.send_receive_event_to_app)
    assert "if not self.read_paused:" in receive_event
    assert "self.transport.pause_reading()" in receive_event


async def test_the_frame_parser_takes_over_from_the_handshake_parser() -> None:
    """websockets' server parser reads the handshake, keeps the request in its frame, and
    delegates to ``Protocol.parse`` for the frames; after ``_forget_request`` the frame
    parser runs on its own, holds no request, and reads a client's frame as before."""
    _, lean = _both()
    conn = lean.conn
    assert conn.state is State.CONNECTING
    conn.receive_data(HANDSHAKE)
    [request] = conn.events_received()
    assert isinstance(request, Request)
    conn.send_response(conn.accept(request))
    assert conn.state is State.OPEN and conn.parser_exc is None
    assert isinstance(conn.reader.buffer, bytearray) and not conn.reader.buffer
    handshake_parser: Any = conn.parser
    assert handshake_parser.gi_frame.f_locals["request"] is request
    assert handshake_parser.gi_yieldfrom.gi_code is Protocol.parse.__code__

    lean._forget_request()

    parser: Any = conn.parser
    assert parser is not handshake_parser
    assert parser.gi_code is Protocol.parse.__code__
    assert request not in parser.gi_frame.f_locals.values()
    conn.receive_data(Frame(Opcode.TEXT, b"ahoy").serialize(mask=True, extensions=[]))
    [frame] = conn.events_received()
    assert frame.opcode is Opcode.TEXT and frame.data == b"ahoy"
    assert conn.parser_exc is None and conn.state is State.OPEN
