"""Test helpers: real server nodes (uvicorn in this event loop) and real websocket clients.

``Client`` records every frame it receives (for leak and ordering checks) and can play a
seat by itself with one of the engine's bot policies (``autoplay``), choosing from the view
and legal moves the server sent it -- exactly what a browser knows.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import secrets
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import uvicorn
import websockets

from engines.registry import GAMES
from engines.rng import Rng
from server.app import create_app, uvicorn_options
from server.redis.store import Keys
from server.settings import Settings
from server.table.reveal import digest

SECRET = b"tortuga-test-secret-0123456789abcdef"


# A request may wait out a Redis Cluster failover (tests/server/test_failover.py).
HTTP_SECONDS = 15.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Node:
    settings: Settings
    server: uvicorn.Server
    task: asyncio.Task[None]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.settings.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.settings.port}/ws"

    async def stop(self) -> None:
        self.server.should_exit = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.task, 10)


async def start_node(redis_url: str, prefix: str, node_id: str, **changes: Any) -> Node:
    port = free_port()
    # Test clients play far faster than people: a generous message rate unless a test
    # sets its own.
    knobs: dict[str, Any] = {
        "rate_per_second": 500.0,
        "rate_burst": 500,
        "bot_delay": 0.0,
        # Every test client comes from 127.0.0.1: no guest quota unless a test sets one,
        # and no bound on connections per address; tests that stand for clients at other
        # addresses send X-Forwarded-For as a proxy on this host would.
        "guests_per_address_per_hour": 0,
        "max_pending_per_address": 0,
        "forwarded_allow_ips": "127.0.0.1",
        "max_public_rooms_per_address": 0,
        "resume_address_burst": 0,
        # Test users join and resume far faster than people too.
        "resume_burst": 0,
        # Test users are minutes old: rate them all (the rules have tests of their own).
        "rated_min_games": 0,
        "rated_min_age_seconds": 0.0,
        "leaderboard_min_games": 1,
        **changes,
    }
    settings = Settings(
        port=port,
        redis_url=redis_url,
        redis_prefix=prefix,
        secret=SECRET,
        node_id=node_id,
        **knobs,
    )
    app = create_app(settings)
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan="on",
        **uvicorn_options(settings),
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    for _ in range(200):
        if server.started:
            break
        if task.done():
            try:
                task.result()
            except SystemExit as exc:
                # uvicorn exits when the app's startup fails: a SystemExit out of a fixture
                # leaves pytest's fixture cache behind (later tests got this one's values).
                raise RuntimeError(f"the test node did not start (exit {exc.code})") from None
        await asyncio.sleep(0.02)
    else:
        raise RuntimeError("the node did not start")
    RUNNING.add(app)
    task.add_done_callback(lambda _: RUNNING.discard(app))
    return Node(settings, server, task)


RUNNING: set[Any] = set()  # the apps of the nodes this process runs


async def after_steps() -> None:
    """Until every running node's work after its steps is done (``GameEnd.later``: the
    checkpoints and final records it puts on the archive stream), at most 5 s."""
    for _ in range(500):
        services = [getattr(app.state, "services", None) for app in RUNNING]
        if not any(s is not None and s.rooms.ending.pending for s in services):
            return
        await asyncio.sleep(0.01)


async def guest(node: Node, name: str) -> tuple[str, dict[str, str]]:
    async with httpx.AsyncClient(base_url=node.url, timeout=HTTP_SECONDS) as http:
        r = await http.post("/api/guest", json={"name": name})
        r.raise_for_status()
        body = r.json()
        return body["token"], body["user"]


async def create_room(node: Node, token: str, **body: Any) -> dict[str, Any]:
    body.setdefault("game", "skull-king")
    async with httpx.AsyncClient(base_url=node.url, timeout=HTTP_SECONDS) as http:
        r = await http.post("/api/rooms", json=body, headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 201, r.text
        return r.json()  # type: ignore[no-any-return]


async def open_socket(ws_url: str, token: str, key: str | None = None, **options: Any) -> Any:
    """A websocket that authenticated the way browsers do: the token in the first frame
    (``auth``), never in the URL; ``key``: the kid of the device key it signs moves with."""
    ws = await websockets.connect(ws_url, max_size=2**24, **options)
    auth = {"type": "auth", "token": token, **({"key": key} if key else {})}
    await ws.send(json.dumps(auth))
    return ws


Pred = Callable[[dict[str, Any]], bool]


class Client:
    """One websocket of one user."""

    def __init__(self, node: Node, token: str, user: dict[str, str], ws: Any) -> None:
        self.node = node
        self.token = token
        self.user = user
        self.ws = ws
        self.frames: list[dict[str, Any]] = []
        self.device: Any = None  # a device.Device: this socket signs its moves
        self.mark = 0
        self.closed: tuple[int | None, str] | None = None
        self._changed = asyncio.Event()
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def connect(
        cls,
        node: Node,
        name: str = "",
        token: str | None = None,
        user: dict[str, str] | None = None,
        device: Any = None,
    ) -> Client:
        """``device``: a ``device.Device`` whose key is registered and named in ``auth``:
        the socket signs its moves (``autoplay``)."""
        if token is None or user is None:
            token, user = await guest(node, name or f"p{secrets.token_hex(2)}")
        if device is not None:
            assert (await device.register(node.url, token)).status_code == 201
        ws = await open_socket(node.ws_url, token, device.kid if device is not None else None)
        client = cls(node, token, user, ws)
        client.device = device
        await client.wait(lambda f: f["type"] == "hello")
        return client

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                self.frames.append(json.loads(raw))
                self._changed.set()
        except websockets.ConnectionClosed:
            pass
        finally:
            self.closed = (self.ws.close_code, self.ws.close_reason or "")
            self._changed.set()

    async def send(self, type_: str, **fields: Any) -> None:
        await self.ws.send(json.dumps({"type": type_, **fields}))

    async def send_raw(self, text: str | bytes) -> None:
        await self.ws.send(text)

    async def wait(self, pred: Pred, timeout: float = 10.0) -> dict[str, Any]:
        """The first frame after ``mark`` that matches; ``mark`` moves past it."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            for i in range(self.mark, len(self.frames)):
                if pred(self.frames[i]):
                    self.mark = i + 1
                    return self.frames[i]
            if self.closed is not None:
                raise AssertionError(f"closed {self.closed} while waiting; got {self.tail()}")
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise AssertionError(f"timed out waiting; last frames: {self.tail()}")
            self._changed.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)

    async def seen(self, pred: Pred, timeout: float = 10.0) -> dict[str, Any]:
        """Any frame received so far (or soon) that matches; ``mark`` does not move."""
        saved = self.mark
        self.mark = 0
        try:
            return await self.wait(pred, timeout)
        finally:
            self.mark = saved

    async def has_version(self, version: int, timeout: float = 10.0) -> dict[str, Any]:
        return await self.seen(lambda f: f["type"] == "event" and f["version"] == version, timeout)

    def tail(self, n: int = 5) -> list[dict[str, Any]]:
        return [{k: v for k, v in f.items() if k != "view"} for f in self.frames[-n:]]

    async def of(self, type_: str, timeout: float = 10.0, **match: Any) -> dict[str, Any]:
        return await self.wait(
            lambda f: f["type"] == type_ and all(f.get(k) == v for k, v in match.items()),
            timeout,
        )

    async def error(self, code: str, timeout: float = 10.0) -> dict[str, Any]:
        frame = await self.wait(lambda f: f["type"] in ("error",), timeout)
        assert frame["code"] == code, frame
        return frame

    async def call(self, type_: str, **fields: Any) -> dict[str, Any]:
        """Send, then wait for an answer that proves it was processed: a ping's pong."""
        ref = secrets.token_hex(4)
        await self.send(type_, ref=ref, **fields)
        await self.send("ping", t=ref)
        pong = await self.wait(lambda f: f["type"] == "pong" and f.get("t") == ref)
        errors = [f for f in self.frames[: self.frames.index(pong)] if f.get("ref") == ref]
        return errors[0] if errors else {"type": "ok"}

    async def close(self) -> None:
        await self.ws.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._reader, 5)

    def versions(self) -> list[int]:
        """The versions of the ``event`` frames received, in order."""
        return [f["version"] for f in self.frames if f["type"] == "event"]


def choose(game_id: str, view: dict[str, Any], rng: Rng, level: str = "heuristic") -> Any:
    game = GAMES[game_id]
    legal = [game.decode_move(m) for m in view["legal"]]
    return game.bot(level)(view, legal, rng).to_json()


def salted(phase: str, seat: int, move: Any) -> tuple[str, str]:
    salt = secrets.token_hex(16)
    return salt, digest(phase, seat, move, salt)


async def autoplay(
    client: Client, game_id: str, start: int = 0, level: str = "heuristic", stop_at: int = 0
) -> dict[str, Any]:
    """Play this client's seat from frame ``start`` on until the game is over (or until
    version ``stop_at`` was received); the last view."""
    rng = Rng(hashlib.sha256(client.user["id"].encode()).digest(), "test-client")
    device = client.device

    def sig(kind: str, c: str) -> dict[str, str]:
        """A signed commit's or opening's ``sig``, for a client with a device key."""
        if device is None or view is None:
            return {}
        return {"sig": device.sign(kind, frame["room"], version, view["seat"], c)}

    index = start
    view: dict[str, Any] | None = None
    version = -1
    sealed: dict[str, tuple[Any, str]] = {}  # phase -> (move, salt)
    while True:
        while index >= len(client.frames):
            if client.closed is not None:
                raise AssertionError(f"closed {client.closed}; {client.tail()}")
            client._changed.clear()
            await asyncio.wait_for(client._changed.wait(), 20)
        frame = client.frames[index]
        index += 1
        kind = frame["type"]
        if kind == "error" and frame["code"] not in ("stale-version", "not-your-turn"):
            raise AssertionError(f"unexpected error {frame}")
        if kind in ("snapshot", "event") and frame.get("view") is not None:
            view, version = frame["view"], frame["version"]
            seat = view["seat"]
            if view["outcome"] is not None or (stop_at and version >= stop_at):
                return view
            prompt = view["prompt"]
            if not prompt["sealed"] and seat in prompt["seats"] and view["legal"]:
                move = choose(game_id, view, rng, level)
                if device is not None:
                    signed = device.act(frame["room"], version, seat, move, secrets.token_hex(16))
                    await client.send("act", **signed)
                else:
                    await client.send("act", move=move, version=version)
        elif kind == "sealed" and view is not None and frame["version"] == version:
            seat = view["seat"]
            phase = frame["phase"]
            if seat not in frame["seats"]:
                continue
            if str(seat) not in frame["committed"] and phase not in sealed:
                move = choose(game_id, view, rng, level)
                salt, dig = salted(phase, seat, move)
                sealed[phase] = (move, salt)
                await client.send("commit", phase=phase, digest=dig, **sig("commit", dig))
            elif frame["open"] and seat not in frame["revealed"] and phase in sealed:
                move, salt = sealed[phase]
                opened = {"move": move, "salt": salt}
                await client.send(
                    "reveal",
                    phase=phase,
                    **opened,
                    **sig("reveal", digest(phase, seat, move, salt)),
                )
        elif kind == "open" and frame["phase"] in sealed:
            move, salt = sealed[frame["phase"]]
            phase, seat = frame["phase"], (view or {}).get("seat", -1)
            opened = {"move": move, "salt": salt}
            await client.send(
                "reveal", phase=phase, **opened, **sig("reveal", digest(phase, seat, move, salt))
            )


@dataclass
class Table:
    """A room with its host and seated clients, ready to start."""

    room: dict[str, Any]
    clients: list[Client] = field(default_factory=list)

    @property
    def id(self) -> str:
        return str(self.room["id"])


async def seat_players(
    nodes: list[Node],
    players: int,
    game: str = "skull-king",
    options: dict[str, Any] | None = None,
    bots: dict[int, str] | None = None,
    **room: Any,
) -> Table:
    """Create a room on ``nodes[0]``; human i connects to ``nodes[i % len(nodes)]`` and sits
    in seat i (except the bot seats); all are ready. The host is seat 0's client."""
    bots = bots or {}
    token, user = await guest(nodes[0], "host")
    info = await create_room(
        nodes[0],
        token,
        game=game,
        seats=players,
        options=options if options is not None else {"rounds": 2},
        **room,
    )
    table = Table(info)
    for seat in range(players):
        if seat in bots:
            continue
        node = nodes[seat % len(nodes)]
        if not table.clients:
            c = await Client.connect(node, token=token, user=user)
        else:
            c = await Client.connect(node, f"player{seat}")
        await c.send("join", room=table.id)
        await c.of("snapshot")
        assert (await c.call("sit", seat=seat))["type"] == "ok"
        # As browsers do: 32 random bytes for the deal seed (server/table/seeding.py).
        assert (await c.call("ready", entropy=secrets.token_hex(32)))["type"] == "ok"
        table.clients.append(c)
    host = table.clients[0]
    for seat, level in bots.items():
        assert (await host.call("add_bot", seat=seat, level=level))["type"] == "ok"
    return table


def latest(client: Client) -> dict[str, Any]:
    """The last snapshot/event frame with a view."""
    for frame in reversed(client.frames):
        if frame["type"] in ("snapshot", "event") and frame.get("view") is not None:
            return frame
    raise AssertionError("no view yet")


async def advance(clients: list[Client], game_id: str = "skull-king") -> int:
    """Make the next step happen with every seat a client (index = seat): a whole sealed
    phase, or one open move. The new version, once every client has it."""
    rng = Rng(b"advance", "test")
    top = latest(clients[0])
    version, view = top["version"], top["view"]
    prompt = view["prompt"]
    assert prompt["seats"], f"nobody is to move at v{version} (is the game over?)"
    if prompt["sealed"]:
        phase = f"{prompt['kind']}@{version}"
        opened: dict[int, tuple[Any, str]] = {}
        for seat in prompt["seats"]:
            c = clients[seat]
            move = choose(game_id, latest(c)["view"], rng)
            salt, dig = salted(phase, seat, move)
            opened[seat] = (move, salt)
            await c.send("commit", phase=phase, digest=dig)
        for seat, (move, salt) in opened.items():
            await clients[seat].of("open", phase=phase)
            await clients[seat].send("reveal", phase=phase, move=move, salt=salt)
    else:
        (seat,) = prompt["seats"]
        c = clients[seat]
        await c.send("act", move=choose(game_id, latest(c)["view"], rng), version=version)
    for c in clients:
        await c.has_version(version + 1)
    return int(version) + 1


async def dump(redis: Any, prefix: str) -> dict[str, Any]:
    """Every key of a test's key space with its whole value (to prove nothing changed) --
    but the nodes' heartbeats (``nodes``, ``nodes:seen``, ``node:<instance>:info``), which
    move every ``heartbeat_seconds`` whatever the clients do."""
    await after_steps()  # what earlier steps called for is not what this dump is about
    out: dict[str, Any] = {}
    beats = (f"{prefix}nodes".encode(), f"{prefix}nodes:seen".encode())
    async for key in redis.scan_iter(match=f"{prefix}*", count=1000):
        if key in beats or (key.startswith(f"{prefix}node:".encode()) and key.endswith(b":info")):
            continue
        kind = (await redis.type(key)).decode()
        if kind == "hash":
            out[key] = await redis.hgetall(key)
        elif kind == "stream":
            out[key] = await redis.xrange(key)
        elif kind == "zset":
            out[key] = await redis.zrange(key, 0, -1, withscores=True)
        elif kind == "string":
            out[key] = await redis.get(key)
        elif kind == "list":
            out[key] = await redis.lrange(key, 0, -1)
        else:
            out[key] = kind
    return out


async def archive_entries(redis: Any, prefix: str) -> list[tuple[bytes, dict[bytes, bytes]]]:
    """The entries of every archive stream, by entry id: a room's records are all in one
    stream, in the order they were added."""
    keys = Keys(prefix)
    out: list[tuple[bytes, dict[bytes, bytes]]] = []
    for stream in keys.archive_streams:
        out.extend(await redis.xrange(stream))
    return sorted(out, key=lambda e: tuple(int(x) for x in e[0].split(b"-")))


async def records_on_stream(redis: Any, prefix: str, count: int) -> list[dict[str, Any]]:
    """The archive records once at least ``count`` are on the streams (within 5 s): a
    step's checkpoint or final record goes there after the step (``GameEnd.later``)."""
    for _ in range(100):
        got = [json.loads(f[b"record"]) for _, f in await archive_entries(redis, prefix)]
        if len(got) >= count:
            return got
        await asyncio.sleep(0.05)
    raise AssertionError(f"{count} archive records expected, {len(got)} on the streams")


async def final_records(redis: Any, prefix: str) -> list[tuple[bytes, dict[bytes, bytes]]]:
    """The archive streams' entries of games that are over (finished or abandoned): the
    "playing" records a game under way leaves at its checkpoints are left out."""
    entries = await archive_entries(redis, prefix)
    return [e for e in entries if json.loads(e[1][b"record"])["status"] != "playing"]
