"""`tortuga loadtest`: whole games played over websockets by many clients at once.

N rooms, each with M seats held by bot-driven websocket clients (no server bots): guests are
made over HTTP, the host creates a private room, every client joins, sits, sends its deal
entropy with ``ready``, the host starts, and the clients play the whole game as a browser
would -- open moves with ``act``, sealed bids by commit and reveal -- choosing with the
game's heuristic bot from the view and legal moves the server sent them. The rooms are
spread over client processes (one event loop each; a room's clients share one, so their
clocks agree); client seat ``s`` talks to ``urls[s % len(urls)]``, so with several nodes the
players of one room are on different nodes.

Without ``--url`` it starts a node of its own (``tortuga serve`` in a child process, with a
temporary data folder, the guest quota off: every client comes from one address) and stops
it with SIGTERM at the end; Redis and Postgres are what the environment says (embedded when
unset). Against given URLs, the site's guest quota must allow ``rooms * players`` guests.

Figures (``Report.lines``):

- moves/s: moves applied (open moves, plus every seat's move of each revealed sealed phase)
  over the time from the first start to the last game over (wall clock, all processes);
- move latency: an ``act`` sent until the event of the version it made reaches its sender;
- reveal fan-out: the last ``reveal`` of a sealed phase sent until ``revealed`` reaches each
  socket of the room (every socket counts: that is the fan-out);
- errors by code: ``error`` frames, plus ``client-<Exception>`` and ``timeout`` for rooms
  that failed on the client's side.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

from engines.registry import GAMES
from engines.rng import Rng
from server.reveal import digest


@dataclass(frozen=True)
class Plan:
    """What to run."""

    urls: tuple[str, ...]
    rooms: int = 2
    players: int = 4
    game: str = next(iter(GAMES))  # the first registered game
    rounds: int | None = None  # None: the game's default options
    pace: float = 0.0  # seconds each client thinks before each move, commit or reveal
    timeout: float = 300.0  # per room, from its creation to its game over

    def url(self, seat: int) -> str:
        return self.urls[seat % len(self.urls)]


@dataclass
class Tally:
    """What some rooms measured; tallies of several processes add up."""

    rooms: int = 0
    finished: int = 0
    moves: int = 0
    move_ms: list[float] = field(default_factory=list)
    fanout_ms: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    first_start: float = float("inf")  # wall clock (time.time), comparable across processes
    last_over: float = 0.0

    def add(self, other: Tally) -> None:
        self.rooms += other.rooms
        self.finished += other.finished
        self.moves += other.moves
        self.move_ms += other.move_ms
        self.fanout_ms += other.fanout_ms
        self.errors.update(other.errors)
        self.first_start = min(self.first_start, other.first_start)
        self.last_over = max(self.last_over, other.last_over)


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (``p`` in 0..100) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * p // 100))  # ceil(n * p / 100), at least 1
    return ordered[int(rank) - 1]


@dataclass(frozen=True)
class Report:
    plan: Plan
    processes: int
    tally: Tally
    started_node: bool

    @property
    def seconds(self) -> float:
        return max(0.0, self.tally.last_over - self.tally.first_start)

    @property
    def moves_per_second(self) -> float:
        return self.tally.moves / self.seconds if self.seconds else 0.0

    def lines(self) -> list[str]:
        t, plan = self.tally, self.plan
        rounds = "default options" if plan.rounds is None else f"{plan.rounds} round(s)"
        where = ", ".join(plan.urls) + (" (started here)" if self.started_node else "")
        out = [
            f"loadtest: {plan.rooms} rooms x {plan.players} clients, {plan.game}, {rounds}, "
            f"pace {plan.pace:g} s, {self.processes} client processes, against {where}",
            f"games finished: {t.finished}/{t.rooms} in {self.seconds:.1f} s",
            f"moves: {t.moves} ({self.moves_per_second:.1f} moves/s)",
        ]
        if t.move_ms:
            out.append(
                f"move latency (act -> its event at the mover): p50 "
                f"{percentile(t.move_ms, 50):.1f} ms, p95 {percentile(t.move_ms, 95):.1f} ms, "
                f"p99 {percentile(t.move_ms, 99):.1f} ms (n={len(t.move_ms)})"
            )
        if t.fanout_ms:
            out.append(
                f"reveal fan-out (last reveal -> revealed at each socket): p50 "
                f"{percentile(t.fanout_ms, 50):.1f} ms, p99 {percentile(t.fanout_ms, 99):.1f} ms "
                f"(n={len(t.fanout_ms)})"
            )
        errors = ", ".join(f"{code} {n}" for code, n in sorted(t.errors.items()))
        out.append(f"errors: {errors or 'none'}")
        return out


# -- one client ------------------------------------------------------------------------------


class Player:
    """One seat's websocket, playing with the game's heuristic bot."""

    def __init__(self, table: Table, seat: int, token: str, user_id: str) -> None:
        self.table = table
        self.seat = seat
        self.token = token
        self.rng = Rng(hashlib.sha256(user_id.encode()).digest(), "loadtest")
        self.game = GAMES[table.plan.game]
        self.bot = self.game.bot("heuristic")
        self.ws: ClientConnection | None = None
        self.sent_at: dict[int, float] = {}  # version -> when our act at it was sent
        self.sealed: dict[str, tuple[Any, str]] = {}  # phase -> (move, salt)

    async def connect(self) -> None:
        url = self.table.plan.url(self.seat).replace("http", "ws", 1).rstrip("/") + "/ws"
        self.ws = await connect(url, max_size=2**24)
        await self.send("auth", token=self.token)
        await self.until(lambda f: f["type"] == "hello")

    async def send(self, type_: str, **fields: Any) -> None:
        assert self.ws is not None
        await self.ws.send(json.dumps({"type": type_, **fields}))

    async def receive(self) -> dict[str, Any]:
        assert self.ws is not None
        frame: dict[str, Any] = json.loads(await self.ws.recv())
        if frame["type"] == "error":
            self.table.tally.errors[str(frame["code"])] += 1
        return frame

    async def until(self, wanted: Any) -> dict[str, Any]:
        while True:
            frame = await self.receive()
            if wanted(frame):
                return frame

    async def call(self, type_: str, **fields: Any) -> None:
        """Send, then wait until the node has processed it (a ping's pong comes after)."""
        ref = os.urandom(4).hex()
        await self.send(type_, ref=ref, **fields)
        await self.send("ping", t=ref)
        await self.until(lambda f: f["type"] == "pong" and f.get("t") == ref)

    def choose(self, view: dict[str, Any]) -> Any:
        legal = [self.game.decode_move(m) for m in view["legal"]]
        return self.bot(view, legal, self.rng).to_json()

    async def think(self) -> None:
        if self.table.plan.pace > 0:
            await asyncio.sleep(self.table.plan.pace)

    async def play(self) -> None:
        """React to frames until the game is over."""
        tally = self.table.tally
        view: dict[str, Any] | None = None
        version = -1
        while True:
            frame = await self.receive()
            now = time.perf_counter()
            kind = frame["type"]
            if kind in ("snapshot", "event") and frame.get("view") is not None:
                view, version = frame["view"], int(frame["version"])
                sent = self.sent_at.pop(version - 1, None)
                if kind == "event" and sent is not None:
                    tally.move_ms.append((now - sent) * 1000)
                if kind == "event" and self.seat == 0:  # count each step once per room
                    event = frame["event"]
                    if event["kind"] == "move":
                        tally.moves += 1
                    elif event["kind"] == "reveal":
                        tally.moves += len(event.get("seats") or [])
                if view["outcome"] is not None:
                    return
                prompt = view["prompt"]
                if not prompt["sealed"] and self.seat in prompt["seats"] and view["legal"]:
                    await self.think()
                    self.sent_at[version] = time.perf_counter()
                    await self.send("act", move=self.choose(view), version=version)
            elif kind == "sealed" and view is not None and frame["version"] == version:
                phase = str(frame["phase"])
                mine = self.seat in frame["seats"] and str(self.seat) not in frame["committed"]
                if mine and phase not in self.sealed:
                    await self.think()
                    move = self.choose(view)
                    salt = os.urandom(16).hex()
                    self.sealed[phase] = (move, salt)
                    await self.send(
                        "commit", phase=phase, digest=digest(phase, self.seat, move, salt)
                    )
            elif kind == "open" and frame["phase"] in self.sealed:
                phase = str(frame["phase"])
                move, salt = self.sealed[phase]
                await self.think()
                self.table.last_reveal[phase] = time.perf_counter()
                await self.send("reveal", phase=phase, move=move, salt=salt)
            elif kind == "revealed":
                sent = self.table.last_reveal.get(str(frame["phase"]))
                if sent is not None:
                    tally.fanout_ms.append((now - sent) * 1000)

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()


# -- one room ------------------------------------------------------------------------------


class Table:
    """One room: its players, from the guests to the game over."""

    def __init__(self, plan: Plan, index: int, tally: Tally) -> None:
        self.plan = plan
        self.index = index
        self.tally = tally
        self.last_reveal: dict[str, float] = {}  # phase -> when its last reveal was sent
        self.players: list[Player] = []

    async def run(self) -> None:
        try:
            await asyncio.wait_for(self._run(), self.plan.timeout)
            self.tally.finished += 1
        except TimeoutError:
            self.tally.errors["timeout"] += 1
        except Exception as exc:
            while isinstance(exc, ExceptionGroup):  # a player's failure, from the task group
                exc = exc.exceptions[0]
            self.tally.errors[f"client-{type(exc).__name__}"] += 1
        finally:
            for player in self.players:
                await player.close()

    async def _run(self) -> None:
        plan = self.plan
        async with httpx.AsyncClient(timeout=30) as http:
            for seat in range(plan.players):
                r = await http.post(
                    f"{plan.url(seat)}/api/guest", json={"name": f"load {self.index}.{seat}"}
                )
                r.raise_for_status()
                body = r.json()
                self.players.append(Player(self, seat, body["token"], body["user"]["id"]))
            room: dict[str, Any] = {"game": plan.game, "seats": plan.players, "public": False}
            if plan.rounds is not None:
                room["options"] = {"rounds": plan.rounds}
            host = self.players[0]
            r = await http.post(
                f"{plan.url(0)}/api/rooms",
                json=room,
                headers={"Authorization": f"Bearer {host.token}"},
            )
            r.raise_for_status()
            code = r.json()["id"]
        for player in self.players:
            await player.connect()
            await player.send("join", room=code)
            await player.until(lambda f: f["type"] == "snapshot")
            await player.call("sit", seat=player.seat)
            await player.call("ready", entropy=os.urandom(32).hex())
        self.tally.first_start = min(self.tally.first_start, time.time())
        await host.send("start")
        async with asyncio.TaskGroup() as players:  # one fails: the others stop too
            for player in self.players:
                players.create_task(player.play())
        self.tally.last_over = max(self.tally.last_over, time.time())


async def _play_rooms(plan: Plan, indices: Sequence[int]) -> Tally:
    tally = Tally(rooms=len(indices))
    await asyncio.gather(*(Table(plan, i, tally).run() for i in indices))
    return tally


def _worker(plan: Plan, indices: Sequence[int]) -> Tally:
    return asyncio.run(_play_rooms(plan, indices))


# -- a node of its own ------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def own_node(env: dict[str, str] | None = None, timeout: float = 120.0) -> Iterator[str]:
    """``tortuga serve`` in a child process on a free port: its URL while it runs, then
    SIGTERM (it stops its embedded servers too) and its temporary data folder removed."""
    port = _free_port()
    data = Path(tempfile.mkdtemp(prefix="tortuga-loadtest-"))
    environment = {
        **os.environ,
        "TORTUGA_DATA_DIR": str(data),
        "TORTUGA_GUESTS_PER_ADDRESS_PER_HOUR": "0",  # every client comes from here
        "TORTUGA_PUBLIC_URL": f"http://127.0.0.1:{port}/",
        **(env or {}),
    }
    log = (data / "serve.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=environment,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if process.poll() is not None:
                raise RuntimeError(
                    "the node did not start: " + (data / "serve.log").read_text()[-2000:]
                )
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError("the node did not answer /readyz in time")
            time.sleep(0.2)
        yield url
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        log.close()
        shutil.rmtree(data, ignore_errors=True)


# -- the whole run -------------------------------------------------------------------------------


def run(plan: Plan, processes: int | None = None, node_env: dict[str, str] | None = None) -> Report:
    """Play ``plan``; without ``plan.urls`` against a node started for it (``node_env``:
    environment for that node)."""
    if plan.game not in GAMES:
        raise ValueError(f"no game {plan.game!r}; known: {', '.join(sorted(GAMES))}")
    if plan.players not in GAMES[plan.game].seats:
        raise ValueError(f"{plan.game} is not for {plan.players} players")
    count = max(1, min(plan.rooms, processes or os.cpu_count() or 1))
    if not plan.urls:
        with own_node(node_env) as url:
            report = run(replace(plan, urls=(url,)), count)
        return Report(report.plan, report.processes, report.tally, started_node=True)
    chunks = [list(range(plan.rooms))[k::count] for k in range(count)]
    tally = Tally()
    with ProcessPoolExecutor(count, mp_context=get_context("spawn")) as pool:
        for part in pool.map(_worker, [plan] * count, chunks):
            tally.add(part)
    return Report(plan, count, tally, started_node=False)
