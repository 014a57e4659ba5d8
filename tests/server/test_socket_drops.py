"""A socket that goes away before it signs in is no error of the server's: no traceback,
no error line, whichever way it goes (a close, a dropped connection, before or after the
upgrade, after a bad ``auth``) -- a thousand such sockets used to log a thousand
"Exception in ASGI application" tracebacks. A real failure while signing in still logs.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from typing import Any

import pytest
import websockets
from tortuga_client import Node, guest

UPGRADE = (
    "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)
LOGGERS = ("", "uvicorn", "tortuga", "asyncio")  # uvicorn's and ours do not propagate


class Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def loud(self) -> list[str]:
        """The records at warning or above, or with a traceback."""
        return [
            f"{r.name} {r.levelname} {r.getMessage()[:80]} {r.exc_info and r.exc_info[1]!r}"
            for r in self.records
            if r.levelno >= logging.WARNING or r.exc_info
        ]


@pytest.fixture
def kept() -> Iterator[Kept]:
    handler = Kept()
    for name in LOGGERS:
        logging.getLogger(name).addHandler(handler)
    yield handler
    for name in LOGGERS:
        logging.getLogger(name).removeHandler(handler)


async def _settled(node: Node) -> None:
    """Until the node holds no connection (each dropped socket has been served to its end)."""
    for _ in range(500):
        if not node.server.server_state.connections:
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the node still holds connections")


async def _raw_drop(node: Node, read_answer: bool) -> None:
    """Ask for the upgrade and cut the connection: before the answer comes, or after it."""
    reader, writer = await asyncio.open_connection("127.0.0.1", node.settings.port)
    writer.write(UPGRADE.encode())
    await writer.drain()
    if read_answer:
        await reader.readuntil(b"\r\n\r\n")
    writer.transport.abort()


async def test_sockets_that_drop_before_signing_in_log_no_error(node: Node, kept: Kept) -> None:
    token, _ = await guest(node, "Anne")
    for round_ in range(40):
        ws = await websockets.connect(node.ws_url)  # a clean close, no auth
        await ws.close()
        await _raw_drop(node, read_answer=True)  # dropped after the upgrade
        await _raw_drop(node, read_answer=False)  # dropped before it is answered
        ws = await websockets.connect(node.ws_url)  # a bad auth, then gone
        await ws.send('{"type": "auth", "token": "forged"}')
        ws.transport.abort()
        ws = await websockets.connect(node.ws_url)  # a good auth, then gone at once
        await ws.send(f'{{"type": "auth", "token": "{token}", "ref": {round_}}}')
        ws.transport.abort()
    await _settled(node)
    assert kept.loud() == []


async def test_a_failure_while_signing_in_still_logs(
    node: Node, kept: Kept, monkeypatch: Any
) -> None:
    services = node.server.config.app.state.services

    async def broken(claims: Any, address: Any = None) -> Any:
        raise RuntimeError("the user's standing could not be read")

    monkeypatch.setattr(services.identity, "current", broken)
    token, _ = await guest(node, "Anne")
    async with websockets.connect(node.ws_url) as ws:
        await ws.send(f'{{"type": "auth", "token": "{token}"}}')
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 10)
    await _settled(node)
    assert any("could not be read" in line for line in kept.loud()), kept.loud()
