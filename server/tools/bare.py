"""The bare fan-out server: what a move's own I/O costs on the node's stack, with nothing else.

``tortuga loadtest`` plays each load step against it too, beside the node, and sets the
node's CPU per move against this server's. It is served by the same uvicorn, with the
node's own options and protocols (``server.app.uvicorn_options``: the lean websocket
protocol of server/realtime/socket_protocol.py, the node's HTTP protocol, no deflate), on
the same Redis, through the node's own Redis client for its hot path (server/redis/wire.py)
and its own subscriber (server/redis/pubsub.py). A move is:

- one text frame in (``{"v": N, "p": "..."}``, padded to the game's mean frame size in);
- one Lua script: a compare-and-set of the room's version (N -> N+1) and a publication of
  N+1 on the room's channel (``SPUBLISH`` on a Redis Cluster, as the node's scripts);
- every process with sockets in the room follows the channel and, for each publication,
  writes each of its sockets of the room its frames: as many in all, and as big, as the
  game's frames out per move (the profile the socket's URL gives: ``out`` frames per move
  over the room, ``size`` bytes each), framed once per publication and written with the
  protocol's ``write_frame``, as the node writes a step's frames.

No engine, no view, no log, no seal, no archive, no presence, no clock, no metrics. Each
frame out is ``{"v": N, "n": K, "p": "..."}``: K frames of that publication still to come
to this socket (0: its last). Sockets open ``/ws?room=R&seat=S&seats=M&out=F&size=B``;
``GET /`` answers 200 (ready).

A room's sockets go to one process, as a node's go to their room's home worker
(server/realtime/homes.py): ``--ports`` names one port per process, and the clients pick
the port by crc32 of the room. Run as ``python -m server.tools.bare --ports P1,P2`` with
TORTUGA_REDIS_URL (and TORTUGA_REDIS_PREFIX) in the environment.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import signal
import subprocess
import sys
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

import msgspec
import uvicorn

from server.ops import heap
from server.realtime.socket_protocol import LeanWebSocketProtocol, text_frame
from server.redis import pool as redis_pool
from server.redis import pubsub
from server.redis import wire as redis_wire
from server.settings import Settings

FOLLOW_SECONDS = 15.0  # a room's subscription confirmed by Redis, at most (a failover: longer)

# KEYS: the room's version key (also its channel: the same slot) ; ARGV: expected, new.
_STEP = """
if (redis.call('GET', KEYS[1]) or '0') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', 600)
redis.call('PUBLISH', KEYS[1], ARGV[2])
return 1
"""

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


class Move(msgspec.Struct):
    v: int


_move = msgspec.json.Decoder(Move)


def frames_for(version: int, seat: int, seats: int, out: float) -> int:
    """Frames socket ``seat`` gets for publication ``version`` when a move makes ``out``
    frames over the room's ``seats`` sockets: ``out`` per move on average (the fractions
    carried from move to move), each socket at least one, the extra ones from the mover's
    seat on. The clients count the same way."""
    total = max(seats, math.floor(version * out) - math.floor((version - 1) * out))
    mover = (version - 1) % seats
    return total // seats + (1 if (seat - mover) % seats < total % seats else 0)


def frame_out(version: int, left: int, size: int) -> bytes:
    """One frame's text, padded to ``size`` bytes."""
    head = b'{"v":%d,"n":%d,"p":"' % (version, left)
    return head + b"x" * max(0, size - len(head) - 2) + b'"}'


@dataclass
class Room:
    key: str
    seats: int
    out: float
    size: int
    sockets: dict[int, LeanWebSocketProtocol] = field(default_factory=dict)
    # Redis confirmed the subscription: a move published before it would reach nobody (on a
    # cluster the channel is placed on its shard in the background, as the hub's are).
    subscribed: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass
class _Process:
    wire: redis_wire.Wire
    subscriber: pubsub.Subscriber
    script: redis_wire.Script
    prefix: str
    rooms: dict[str, Room] = field(default_factory=dict)  # channel -> room
    tasks: list[asyncio.Task[None]] = field(default_factory=list)


_state: list[_Process] = []


async def _process() -> _Process:
    """This process's wire, subscriber and reader, made on first use."""
    if not _state:
        settings = Settings.from_env()
        url = settings.redis_url or ""
        wire = redis_wire.connect(url, retries=settings.redis_retries)
        client = redis_pool.connect(url, size=8, wait_seconds=10, retries=3)
        text = _STEP
        if wire.cluster:
            text = text.replace("redis.call('PUBLISH',", "redis.call('SPUBLISH',")
        own = _Process(
            wire, pubsub.subscriber(client, wire), redis_wire.Script.of(text), settings.redis_prefix
        )
        _state.append(own)
        own.tasks.append(asyncio.create_task(_fan_out(own)))
        own.tasks.append(asyncio.create_task(heap.keep()))  # as a node does
    return _state[0]


async def _fan_out(own: _Process) -> None:
    """Each publication: every local socket of the room its frames."""
    while True:
        message = await own.subscriber.get_message(timeout=60.0)
        if message is None or message.get("type") not in ("message", "subscribe"):
            continue
        channel = message["channel"]
        room = own.rooms.get(channel if isinstance(channel, str) else channel.decode())
        if room is None:
            continue
        if message["type"] == "subscribe":
            room.subscribed.set()
            continue
        version = int(message["data"])
        framed: dict[int, bytes] = {}  # frames left -> the frame, framed once for all
        for seat, protocol in room.sockets.items():
            for left in range(frames_for(version, seat, room.seats, room.out) - 1, -1, -1):
                frame = framed.get(left)
                if frame is None:
                    frame = framed[left] = text_frame(frame_out(version, left, room.size))
                if not protocol.write_frame(frame):
                    protocol.transport.close()  # no queue here: a socket that waits is cut
                    break


async def app(scope: Scope, receive: Receive, send: Send) -> None:
    """A room's socket (``/ws?...``); ``GET /`` answers 200."""
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"bare"})
        return
    if scope["type"] != "websocket":
        return
    query = {k: v[0] for k, v in parse_qs(scope["query_string"].decode()).items()}
    protocol = getattr(send, "__self__", None)
    if not isinstance(protocol, LeanWebSocketProtocol):
        raise RuntimeError("the bare server runs on the node's own websocket protocol")
    own = await _process()
    key = f"{own.prefix}bare:{{{query['room']}}}"
    room = own.rooms.get(key)
    if room is None:
        seats, out, size = int(query["seats"]), float(query["out"]), int(query["size"])
        room = own.rooms[key] = Room(key, seats, out, size)
        await own.subscriber.follow(key)
    await asyncio.wait_for(room.subscribed.wait(), FOLLOW_SECONDS)
    seat = int(query["seat"])
    await receive()  # websocket.connect
    await send({"type": "websocket.accept"})
    room.sockets[seat] = protocol
    try:
        while True:
            message = await receive()
            if message["type"] != "websocket.receive":
                return
            version = _move.decode(message.get("text") or message.get("bytes") or b"").v
            if not int(await own.wire.run(own.script, [key], [version, version + 1])):
                await send({"type": "websocket.send", "text": '{"error":"stale"}'})
    finally:
        room.sockets.pop(seat, None)
        if not room.sockets:
            own.rooms.pop(key, None)
            with contextlib.suppress(Exception):
                await own.subscriber.unfollow(key)


def _serve(port: int, host: str) -> None:
    from server.app import uvicorn_options  # here: only the server's processes need it

    uvicorn.run(
        "server.tools.bare:app",
        host=host,
        port=port,
        lifespan="off",
        log_level="warning",
        **uvicorn_options(Settings.from_env()),
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m server.tools.bare", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--ports", required=True, help="one port per process: P1,P2,...")
    args = parser.parse_args(argv)
    ports = [int(p) for p in args.ports.split(",")]
    if len(ports) == 1:
        _serve(ports[0], args.host)
        return 0
    children = [
        subprocess.Popen([sys.executable, "-m", "server.tools.bare", "--ports", str(port)])
        for port in ports
    ]

    def stop(*_: Any) -> None:
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for child in children:
        child.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
