"""The raw limit of this machine: what a node could do at best, measured by ``tortuga loadtest``.

A tiny ASGI app served by the same uvicorn with the same websocket options as a node
(``server.app.uvicorn_options``: the same per-message deflate setting, the same frame
limit): every text frame a socket sends costs one compare-and-set script in Redis (on the
socket's own hash-tagged key, as a step costs its room) and is echoed back. No rooms, no
engine, no views: a move can never be cheaper than this, so moves/s divided by echoes/s
says how much of the machine the node's own work leaves on the table.

Run as ``python -m server.tools.rawlimit --port P --workers W`` with TORTUGA_REDIS_URL (and
TORTUGA_REDIS_PREFIX) in the environment; ``tortuga loadtest`` starts and stops it.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Any

import uvicorn

from server.redis import wire as redis_wire
from server.settings import Settings

# KEYS: the socket's key ; ARGV: expected version, new version. 1 if this call won.
_CAS = """
if (redis.call('GET', KEYS[1]) or '0') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', 600)
return 1
"""

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

_state: dict[str, Any] = {}
_ids = itertools.count(1)


def _wire() -> redis_wire.Wire:
    """This process's wire to Redis (the node's own client for its hot path, so that the
    comparison is fair), made on first use (each worker has its own)."""
    if "wire" not in _state:
        settings = Settings.from_env()
        _state["prefix"] = settings.redis_prefix
        _state["wire"] = redis_wire.connect(
            settings.redis_url or "", retries=settings.redis_retries
        )
    wire: redis_wire.Wire = _state["wire"]
    return wire


_SCRIPT = redis_wire.Script.of(_CAS)


async def app(scope: Scope, receive: Receive, send: Send) -> None:
    """Echo every frame after one compare-and-set; ``GET /`` answers 200 (ready)."""
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"raw"})
        return
    if scope["type"] != "websocket":
        return
    wire = _wire()
    key = f"{_state['prefix']}raw:{{{os.getpid()}.{next(_ids)}}}"
    await receive()  # websocket.connect
    await send({"type": "websocket.accept"})
    version = 0
    try:
        while True:
            message = await receive()
            if message["type"] != "websocket.receive":
                return
            if not int(await wire.run(_SCRIPT, [key], [version, version + 1])):
                await send({"type": "websocket.close", "code": 1011})
                return
            version += 1
            if message.get("text") is not None:
                await send({"type": "websocket.send", "text": message["text"]})
            else:
                await send({"type": "websocket.send", "bytes": message.get("bytes") or b""})
    finally:
        await wire.call("DEL", key, key=key)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m server.tools.rawlimit", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument(
        "--deflate",
        action="store_true",
        help="per-message deflate on (a node never has it): to measure what it costs",
    )
    args = parser.parse_args(argv)
    from server.app import uvicorn_options  # here: the workers need none of the node

    options = uvicorn_options(Settings.from_env())
    if args.deflate:
        options["ws_per_message_deflate"] = True
    uvicorn.run(
        "server.tools.rawlimit:app",
        host=args.host,
        port=args.port,
        workers=args.workers,
        lifespan="off",
        log_level="warning",
        **options,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
