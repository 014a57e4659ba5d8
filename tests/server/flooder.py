"""A flood of bad frames against one node, from a process of its own (the flood drill,
tests/server/test_drills.py::test_a_flood_of_bad_frames).

    python tests/server/flooder.py BASE_URL TASKS USERS UNAUTHENTICATED MAX_SECONDS

``TASKS`` flood tasks, spread over ``USERS`` guest users, each with one socket open at a
time: it authenticates, then sends frames as fast as it can -- malformed JSON, a JSON
array, unknown types, bad fields, binary junk, too deep, a join of a room that does not
exist, frames over the node's 16 KB limit; every fourth task also, as one frame in ten, a
frame over the 64 KB that uvicorn reads -- while reading what comes back, until the node
closes the socket; then it opens another at once, until told to stop.
``UNAUTHENTICATED`` more sockets send junk instead of ``auth``.

It prints ``flooding`` once every task has its first socket open, floods until its stdin
is closed (or ``MAX_SECONDS``), and prints one JSON line: the sockets opened, the frames
sent, how the node closed them (close code -> sockets; ``reset``: dropped without a close
frame; ``not-closed``: still open 10 s after it was opened), the errors received by code,
the connection failures, the frames sent and seconds open per socket.
"""

from __future__ import annotations

import asyncio
import collections
import json
import secrets
import sys
import time
from typing import Any

import httpx
import websockets

JUNK: list[str | bytes] = [
    "{not json",
    "[1, 2, 3]",
    '{"type": "teleport", "ref": "r"}',
    '{"type": "sit", "seat": -1}',
    '{"type": "join", "room": "no/such/room!"}',
    b"\x00\xff\xfe junk",
    '{"type": "commit", "phase": "bid@1", "digest": "XYZ"}',
    json.dumps({"type": "chat", "text": "x" * 20_000}),  # over 16 KB: frame-too-large
    '{"type": "join", "room": "nosuchroom"}',
    "{" * 40 + "}" * 40,  # too deep
]
GIANT_EVERY = 10  # frames of a giant-sending task: the last of every 10 is a giant
GIANT = json.dumps({"type": "chat", "text": "x" * 100_000})  # over 64 KB: uvicorn closes


class Flood:
    def __init__(self, base_url: str) -> None:
        self.base_url = base_url.rstrip("/")
        self.ws_url = self.base_url.replace("http", "ws", 1) + "/ws"
        self.stopping = asyncio.Event()
        self.sockets = 0
        self.frames = 0
        self.closes: collections.Counter[str] = collections.Counter()
        self.errors: collections.Counter[str] = collections.Counter()
        self.connect_errors: list[str] = []
        self.resets_before_giant = 0  # connections dropped without a close frame, unexplained
        self.sent_per_socket: list[int] = []  # frames sent before the socket was closed
        self.open_seconds: list[float] = []  # from connecting to the close
        self.started: list[asyncio.Event] = []

    async def guest(self, http: httpx.AsyncClient) -> str:
        r = await http.post("/api/guest", json={"name": f"flood{secrets.token_hex(2)}"})
        r.raise_for_status()
        return str(r.json()["token"])

    async def _read(self, ws: Any) -> None:
        try:
            async for raw in ws:
                frame = json.loads(raw)
                if frame.get("type") == "error":
                    self.errors[frame["code"]] += 1
        except websockets.ConnectionClosed:
            pass

    async def _one(self, token: str | None, giant: bool) -> None:
        """One socket, flooded until the node closes it (10 s at most)."""
        try:
            ws = await websockets.connect(self.ws_url, max_size=2**24, open_timeout=20)
        except Exception as exc:
            self.connect_errors.append(type(exc).__name__)
            await asyncio.sleep(0.1)
            return
        self.sockets += 1
        reader = asyncio.create_task(self._read(ws))
        opened = time.monotonic()
        deadline = opened + 10
        i = 0
        try:
            if token is None:
                await ws.send("{junk instead of auth")
            else:
                await ws.send(json.dumps({"type": "auth", "token": token}))
                while time.monotonic() < deadline:
                    frame = (
                        GIANT
                        if giant and i % GIANT_EVERY == GIANT_EVERY - 1
                        else JUNK[i % len(JUNK)]
                    )
                    await ws.send(frame)
                    self.frames += 1
                    i += 1
                    if i % 10 == 0:
                        await asyncio.sleep(0)  # let the reader read
        except websockets.ConnectionClosed:
            pass
        # The node cut it off when its close frame came (or the connection ended); the
        # socket itself ends once the node read what was already on its way.
        while ws.protocol.close_rcvd is None and not reader.done():
            if time.monotonic() > deadline:
                break
            await asyncio.sleep(0.02)
        self.sent_per_socket.append(i)
        self.open_seconds.append(round(time.monotonic() - opened, 2))
        got = ws.protocol.close_rcvd  # the node's close frame, if it sent one
        if got is None and not reader.done():
            self.closes["not-closed"] += 1
        else:
            # No close frame: the node dropped the connection (after a frame too large to
            # read, uvicorn closes at once, and the flood still on its way resets it).
            self.closes[str(got.code) if got is not None else "reset"] += 1
            if got is None and not (giant and i >= GIANT_EVERY):
                self.resets_before_giant += 1
        try:
            await asyncio.wait_for(reader, 10)
        except TimeoutError:
            ws.transport.abort()

    async def flooder(self, token: str, giant: bool, started: asyncio.Event) -> None:
        first = True
        while first or not self.stopping.is_set():
            task = asyncio.create_task(self._one(token, giant))
            if first:
                await asyncio.sleep(0.2)
                started.set()
                first = False
            await task

    async def run(self, sockets: int, users: int, unauthenticated: int, seconds: float) -> None:
        async with httpx.AsyncClient(base_url=self.base_url, timeout=30) as http:
            tokens = [await self.guest(http) for _ in range(users)]
        self.started = [asyncio.Event() for _ in range(sockets)]
        tasks = [
            asyncio.create_task(self.flooder(tokens[i % users], i % 4 == 0, self.started[i]))
            for i in range(sockets)
        ]
        tasks += [asyncio.create_task(self._one(None, False)) for _ in range(unauthenticated)]
        await asyncio.gather(*(e.wait() for e in self.started))
        print("flooding", flush=True)
        stdin_closed = asyncio.ensure_future(asyncio.to_thread(sys.stdin.read))
        await asyncio.wait([stdin_closed], timeout=seconds)
        self.stopping.set()
        await asyncio.gather(*tasks)

    def report(self, unauthenticated: int) -> dict[str, Any]:
        return {
            "sockets": self.sockets,
            "unauthenticated": unauthenticated,
            "frames": self.frames,
            "closes": dict(self.closes),
            "errors": dict(self.errors),
            "rate_limited": self.errors.get("rate-limited", 0),
            "connect_errors": self.connect_errors,
            "resets_before_giant": self.resets_before_giant,
            "sent_per_socket": sorted(self.sent_per_socket),
            "open_seconds": sorted(self.open_seconds),
        }


def main() -> None:
    base_url, sockets, users, unauthenticated, seconds = sys.argv[1:6]
    flood = Flood(base_url)
    asyncio.run(flood.run(int(sockets), int(users), int(unauthenticated), float(seconds)))
    print(json.dumps(flood.report(int(unauthenticated))), flush=True)


if __name__ == "__main__":
    main()
