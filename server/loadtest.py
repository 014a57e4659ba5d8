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

Every room is set up first -- guests, the room, its players seated and ready -- and only
when all of them are (in every client process: a barrier) do the games start: all at once,
or spread over ``ramp`` seconds. The set-up is not what is measured.

Figures (``Report.lines``):

- moves/s: moves applied (open moves, plus every seat's move of each revealed sealed phase)
  over the time from the first start to the last game over (wall clock, all processes);
- move latency: an ``act`` sent until the event of the version it made reaches its sender;
- reveal fan-out: the last ``reveal`` of a sealed phase sent until ``revealed`` reaches each
  socket of the room (every socket counts: that is the fan-out);
- errors by code: ``error`` frames, plus ``http-<status> <code>`` (an HTTP call the node
  refused), ``client-<Exception>`` and ``timeout`` for rooms that failed on the client's side.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import html
import json
import os
import resource
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
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import httpx
import msgspec
from websockets.asyncio.client import connect

from engines.registry import GAMES
from engines.rng import Rng
from server import heap
from server.archive.scratch import scratch_database
from server.load_socket import LoadSocket
from server.reveal import digest

HUMAN_PACE = 2.0  # seconds a person takes to act once their turn comes (about)

# The clients' JSON: msgspec's, not the standard library's (json.loads of every frame was a
# fifth of a client process's CPU, which the node it measures shares the cores with).
_encode = msgspec.json.encode
_decode = msgspec.json.decode


@dataclass(frozen=True)
class Plan:
    """What to run."""

    urls: tuple[str, ...]
    rooms: int = 2
    players: int = 4
    game: str = next(iter(GAMES))  # the first registered game
    rounds: int | None = None  # None: the game's default options
    pace: float = 0.0  # seconds each client thinks before each move, commit or reveal
    timeout: float = 300.0  # per room: its set-up, then its game from the start to the end
    # Seconds over which the games start once every room is set up (0: all at once). Tables
    # do not all start in the same instant: at human pace, the first bids of a thousand
    # tables dealt in the same millisecond would be a burst no site sees.
    ramp: float = 0.0
    # The protocol of older revisions (the baseline of ``--against``): the token in the
    # socket's URL instead of an ``auth`` frame, ``ready`` without deal entropy.
    legacy: bool = False

    def url(self, seat: int) -> str:
        return self.urls[seat % len(self.urls)]


LAG_EVERY = 0.05  # seconds between two looks at a client process's loop lag


@dataclass
class Tally:
    """What some rooms measured; tallies of several processes add up."""

    rooms: int = 0
    finished: int = 0
    moves: int = 0
    move_ms: list[float] = field(default_factory=list)
    fanout_ms: list[float] = field(default_factory=list)
    # How late each client process's own event loop woke for a timer, every LAG_EVERY s
    # while the games ran: what of the latencies above is the load generator's own wait.
    client_lag_ms: list[float] = field(default_factory=list)
    # Frames the clients sent and received while the games ran (the node's in and out):
    # set beside the raw limit's two frames per echo, what the node carries per frame.
    frames_in: int = 0
    frames_out: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    first_start: float = float("inf")  # wall clock (time.time), comparable across processes
    last_over: float = 0.0

    def add(self, other: Tally) -> None:
        self.rooms += other.rooms
        self.finished += other.finished
        self.moves += other.moves
        self.move_ms += other.move_ms
        self.fanout_ms += other.fanout_ms
        self.client_lag_ms += other.client_lag_ms
        self.frames_in += other.frames_in
        self.frames_out += other.frames_out
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

    @property
    def frames_per_second(self) -> float:
        """Frames in and out of the node per second while the games ran."""
        frames = self.tally.frames_in + self.tally.frames_out
        return frames / self.seconds if self.seconds else 0.0

    def lines(self) -> list[str]:
        t, plan = self.tally, self.plan
        rounds = "default options" if plan.rounds is None else f"{plan.rounds} round(s)"
        where = ", ".join(plan.urls) + (" (started here)" if self.started_node else "")
        out = [
            f"loadtest: {plan.rooms} rooms x {plan.players} clients, {plan.game}, {rounds}, "
            f"pace {plan.pace:g} s, {self.processes} client processes, against {where}",
            f"games finished: {t.finished}/{t.rooms} in {self.seconds:.1f} s",
            f"moves: {t.moves} ({self.moves_per_second:.1f} moves/s)",
            f"frames: {t.frames_in} in, {t.frames_out} out "
            f"({self.frames_per_second:.0f} frames/s; "
            f"{t.frames_out / max(1, t.frames_in):.1f} out per frame in)",
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
        if t.client_lag_ms:
            out.append(
                f"the load generator's own loop lag (a {LAG_EVERY * 1000:.0f} ms timer in each "
                f"client process, counted in the latencies above): p50 "
                f"{percentile(t.client_lag_ms, 50):.1f} ms, p99 "
                f"{percentile(t.client_lag_ms, 99):.1f} ms, max {max(t.client_lag_ms):.1f} ms"
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
        self.ws: LoadSocket | None = None
        self.sent_at: dict[int, float] = {}  # version -> when our act at it was sent
        self.sealed: dict[str, tuple[Any, str]] = {}  # phase -> (move, salt)

    async def connect(self, room: str) -> None:
        """Sign in, with the room named in the socket's URL as a room's page does (under
        ``serve --workers N`` the socket goes to the room's worker: server/homes.py)."""
        url = self.table.plan.url(self.seat).replace("http", "ws", 1).rstrip("/") + "/ws"
        if not self.table.plan.legacy:
            url += f"?room={room}"
        if self.table.plan.legacy:
            self.ws = await LoadSocket.open(f"{url}?token={self.token}")
        else:
            self.ws = await LoadSocket.open(url)
            await self.send("auth", token=self.token)
        await self.until(lambda f: f["type"] == "hello")

    async def send(self, type_: str, **fields: Any) -> None:
        assert self.ws is not None
        self.ws.send(_encode({"type": type_, **fields}))

    async def send_move(self, type_: str, **fields: Any) -> None:
        """Send a frame of the game under way, counted (the node's frames in)."""
        self.table.tally.frames_in += 1
        await self.send(type_, **fields)

    async def receive(self) -> dict[str, Any]:
        assert self.ws is not None
        frame: dict[str, Any] = _decode(await self.ws.recv())
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
        """``pace`` seconds, give or take a quarter (people do not all act in step)."""
        if self.table.plan.pace > 0:
            await asyncio.sleep(self.table.plan.pace * (0.75 + self.rng.below(1001) / 2000))

    async def play(self) -> None:
        """React to frames until the game is over."""
        tally = self.table.tally
        view: dict[str, Any] | None = None
        version = -1
        while True:
            frame = await self.receive()
            now = time.perf_counter()
            tally.frames_out += 1
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
                    await self.send_move("act", move=self.choose(view), version=version)
            elif kind == "sealed" and view is not None and frame["version"] == version:
                phase = str(frame["phase"])
                mine = self.seat in frame["seats"] and str(self.seat) not in frame["committed"]
                if mine and phase not in self.sealed:
                    await self.think()
                    move = self.choose(view)
                    salt = os.urandom(16).hex()
                    self.sealed[phase] = (move, salt)
                    await self.send_move(
                        "commit", phase=phase, digest=digest(phase, self.seat, move, salt)
                    )
            elif kind == "open" and frame["phase"] in self.sealed:
                phase = str(frame["phase"])
                move, salt = self.sealed[phase]
                await self.think()
                self.table.last_reveal[phase] = time.perf_counter()
                await self.send_move("reveal", phase=phase, move=move, salt=salt)
            elif kind == "revealed":
                sent = self.table.last_reveal.get(str(frame["phase"]))
                if sent is not None:
                    tally.fanout_ms.append((now - sent) * 1000)

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()


# -- one room ------------------------------------------------------------------------------


def _client_error(exc: BaseException) -> str:
    """How a room's failure on the client's side is counted: the node's answer when it
    refused an HTTP call (``http-429 too-many-guests``: a node given by ``--url`` that
    still has its guest quota), else ``client-<Exception>``."""
    if isinstance(exc, httpx.HTTPStatusError):
        try:
            answer = exc.response.json()
            code = answer["error"]["code"] if "error" in answer else answer.get("code")
        except (ValueError, AttributeError, KeyError, TypeError):
            code = None
        return f"http-{exc.response.status_code}" + (f" {code}" if isinstance(code, str) else "")
    return f"client-{type(exc).__name__}"


class Table:
    """One room: its players, from the guests to the game over."""

    def __init__(self, plan: Plan, index: int, tally: Tally) -> None:
        self.plan = plan
        self.index = index
        self.tally = tally
        self.last_reveal: dict[str, float] = {}  # phase -> when its last reveal was sent
        self.players: list[Player] = []

    async def run(self, gate: Gate) -> None:
        try:
            try:
                code = await asyncio.wait_for(self._set_up(), self.plan.timeout)
            finally:
                await gate.passed(self.index)  # every room set up (or failed), then its turn
            await asyncio.wait_for(self._play(code), self.plan.timeout)
            self.tally.finished += 1
        except TimeoutError:
            self.tally.errors["timeout"] += 1
        except Exception as exc:
            while isinstance(exc, ExceptionGroup):  # a player's failure, from the task group
                exc = exc.exceptions[0]
            self.tally.errors[_client_error(exc)] += 1
        finally:
            for player in self.players:
                await player.close()

    async def _set_up(self) -> str:
        """Guests, the room, its players joined, seated and ready; the room's code."""
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
            await player.connect(code)
            await player.send("join", room=code)
            await player.until(lambda f: f["type"] == "snapshot")
            await player.call("sit", seat=player.seat)
            if plan.legacy:
                await player.call("ready")
            else:
                await player.call("ready", entropy=os.urandom(32).hex())
        return str(code)

    async def _play(self, code: str) -> None:
        host = self.players[0]
        self.tally.first_start = min(self.tally.first_start, time.time())
        await host.send("start")
        async with asyncio.TaskGroup() as players:  # one fails: the others stop too
            for player in self.players:
                players.create_task(player.play())
        self.tally.last_over = max(self.tally.last_over, time.time())


class Gate:
    """Where a client process's tables wait until every room of the run is set up (its
    own, then the other processes' through ``barrier``), then each its turn to start:
    room ``i`` of ``plan.rooms`` at ``ramp * i / rooms`` seconds after the gate opened."""

    def __init__(self, plan: Plan, tables: int, barrier: Any | None) -> None:
        self.plan = plan
        self.waiting = tables
        self.barrier = barrier
        self.opened = asyncio.Event()
        self.at = 0.0

    async def passed(self, index: int) -> None:
        self.waiting -= 1
        if self.waiting == 0:
            if self.barrier is not None:  # the other client processes' rooms
                wait = self.barrier.wait
                await asyncio.get_running_loop().run_in_executor(None, wait, self.plan.timeout)
            self.at = time.time()
            self.opened.set()
        await self.opened.wait()
        turn = self.at + self.plan.ramp * index / max(1, self.plan.rooms)
        await asyncio.sleep(max(0.0, turn - time.time()))


async def _play_rooms(plan: Plan, indices: Sequence[int], barrier: Any | None) -> Tally:
    tally = Tally(rooms=len(indices))
    gate = Gate(plan, len(indices), barrier)
    # A client process holding thousands of sockets would stop for a full collection of
    # its own heap now and then, and count the pause as the node's latency: frozen, as a
    # node's is (server/heap.py).
    freezing = asyncio.create_task(heap.keep())
    watching = asyncio.create_task(_watch_lag(tally))
    try:
        await asyncio.gather(*(Table(plan, i, tally).run(gate) for i in indices))
    finally:
        freezing.cancel()
        watching.cancel()
        await freezing
        with contextlib.suppress(asyncio.CancelledError):
            await watching
    return tally


async def _watch_lag(tally: Tally) -> None:
    """How late this process's loop wakes for a timer, once the games are under way: a
    frame that reached the process is counted late by as much (the clients share the
    node's machine)."""
    loop = asyncio.get_running_loop()
    while tally.first_start == float("inf"):
        await asyncio.sleep(LAG_EVERY)
    while True:
        due = loop.time() + LAG_EVERY
        await asyncio.sleep(LAG_EVERY)
        tally.client_lag_ms.append(max(0.0, loop.time() - due) * 1000)


def _worker(plan: Plan, indices: Sequence[int], barrier: Any | None = None) -> Tally:
    return asyncio.run(_play_rooms(plan, indices, barrier))


# -- a node of its own ------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _more_files() -> None:
    """Raise this process's open-files limit to its hard limit (thousands of sockets)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


@dataclass(frozen=True)
class Node:
    url: str
    pid: int | None  # the process started here (None: a node given by URL)


def _wait_ready(process: subprocess.Popen[bytes], url: str, log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"{url} did not start: " + log.read_text()[-2000:])
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url, timeout=2).status_code == 200:
                return
        if time.monotonic() > deadline:
            raise RuntimeError(f"{url} did not answer in time")
        time.sleep(0.2)


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextlib.contextmanager
def own_node(
    env: dict[str, str] | None = None,
    timeout: float = 180.0,
    workers: int | None = None,
    checkout: Path | None = None,
) -> Iterator[Node]:
    """``tortuga serve`` in a child process on a free port while it runs, then SIGTERM (it
    stops its embedded servers too) and its temporary data folder removed. ``checkout``:
    serve from that source tree (another revision's worktree: the baseline of
    ``--against``) with this environment's Python and packages."""
    port = _free_port()
    data = Path(tempfile.mkdtemp(prefix="tortuga-loadtest-"))
    environment = {
        **os.environ,
        "TORTUGA_DATA_DIR": str(data),
        "TORTUGA_GUESTS_PER_ADDRESS_PER_HOUR": "0",  # every client comes from here
        "TORTUGA_PUBLIC_URL": f"http://127.0.0.1:{port}/",
        "TORTUGA_METRICS_TOKEN": METRICS_TOKEN,  # the node's own latencies, per step
        **(env or {}),
    }
    if checkout is not None:
        environment["PYTHONPATH"] = str(checkout)
    command = [sys.executable, "-m", "server.cli", "serve", "--host", "127.0.0.1"]
    command += ["--port", str(port)]
    if workers is not None:
        command += ["--workers", str(workers)]
    log = (data / "serve.log").open("wb")
    process = subprocess.Popen(
        command,
        env=environment,
        stdout=log,
        stderr=subprocess.STDOUT,
        preexec_fn=_more_files,
        cwd=checkout,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(process, f"{url}/readyz", data / "serve.log", timeout)
        yield Node(url, process.pid)
    finally:
        _stop(process)
        log.close()
        shutil.rmtree(data, ignore_errors=True)


METRICS_TOKEN = "loadtest-" + os.urandom(16).hex()  # for the nodes started here


def scrape(url: str) -> dict[str, dict[float, float]] | None:
    """The node's latency histograms (``/metrics``, summed over its workers): for
    ``tortuga_step_seconds`` and ``tortuga_fanout_seconds``, cumulative count by bucket
    bound. None when the node has no such page (an older revision) or refuses."""
    try:
        r = httpx.get(
            f"{url}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=30
        )
    except httpx.HTTPError:
        return None
    if r.status_code != 200:
        return None
    out: dict[str, dict[float, float]] = {}
    for line in r.text.splitlines():
        for name in ("tortuga_step_seconds", "tortuga_fanout_seconds"):
            if line.startswith(name + "_bucket{"):
                bound = line.split('le="', 1)[1].split('"', 1)[0]
                le = float("inf") if bound == "+Inf" else float(bound)
                counts = out.setdefault(name, {})
                counts[le] = counts.get(le, 0.0) + float(line.rsplit(" ", 1)[1])
    return out


def archive_backlog(url: str) -> int | None:
    """The site's archive records not yet in Postgres (``tortuga_archive_backlog`` of the
    node's /metrics), or None when the node has no such page."""
    try:
        r = httpx.get(
            f"{url}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=30
        )
    except httpx.HTTPError:
        return None
    if r.status_code != 200:
        return None
    for line in r.text.splitlines():
        if line.startswith("tortuga_archive_backlog "):
            return int(float(line.split()[1]))
    return None


DRAIN_WAIT = 120.0  # seconds a step waits, at most, for the archive to catch up


def wait_archived(url: str) -> tuple[int | None, float]:
    """The archive backlog when the games are over, and the seconds until it was 0 (the
    archiver writes while the node is calm: server/busy.py); at most ``DRAIN_WAIT``."""
    first = archive_backlog(url)
    started = time.monotonic()
    left = first
    while left and time.monotonic() - started < DRAIN_WAIT:
        time.sleep(0.5)
        left = archive_backlog(url)
    return first, time.monotonic() - started


def histogram_quantile(
    before: dict[float, float] | None, after: dict[float, float], q: float
) -> tuple[float, int] | None:
    """The bucket bound under which ``q`` (0..1) of the observations made between two
    scrapes fall (as Prometheus's histogram_quantile, without interpolation), and how
    many there were."""
    counts = {le: n - (before or {}).get(le, 0.0) for le, n in after.items()}
    total = counts.get(float("inf"), 0.0)
    if total <= 0:
        return None
    for le in sorted(counts):
        if counts[le] >= q * total:
            return le, int(total)
    return None


def legacy_protocol(url: str) -> bool:
    """Whether the node at ``url`` speaks the older protocol (the token in the socket's URL,
    answered with ``hello`` at once); today's refuses a token there (``auth`` frame)."""

    async def probe() -> bool:
        async with httpx.AsyncClient(timeout=30) as http:
            r = await http.post(f"{url}/api/guest", json={"name": "protocol probe"})
            r.raise_for_status()
            token = r.json()["token"]
        ws_url = url.replace("http", "ws", 1) + f"/ws?token={token}"
        async with connect(ws_url) as ws:
            first = json.loads(await asyncio.wait_for(ws.recv(), 10))
        return bool(first.get("type") == "hello")

    return asyncio.run(probe())


def _tree(pid: int) -> set[int]:
    """``pid`` and its descendants."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = (entry / "stat").read_text()
                parents[int(entry.name)] = int(stat[stat.rindex(")") + 2 :].split()[1])
    tree, grew = {pid}, True
    while grew:
        more = {child for child, parent in parents.items() if parent in tree} - tree
        tree |= more
        grew = bool(more)
    return tree


def _python(pid: int) -> bool:
    return Path(f"/proc/{pid}/comm").read_text().startswith("python")


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) used so far by the Python processes of ``pid``'s tree (a
    node and its workers; not the Redis or Postgres it may have started)."""
    total = 0
    for member_pid in _tree(pid):
        with contextlib.suppress(OSError, IndexError, ValueError):
            if _python(member_pid):
                stat = Path(f"/proc/{member_pid}/stat").read_text()
                fields = stat[stat.rindex(")") + 2 :].split()
                total += int(fields[11]) + int(fields[12])  # utime, stime (clock ticks)
    return total / os.sysconf("SC_CLK_TCK")


def redis_cpu_seconds(url: str) -> float | None:
    """CPU time Redis used so far (``INFO cpu``; None on a cluster or when unreachable)."""
    from server.redis_pool import is_cluster

    if is_cluster(url):
        return None
    import redis

    try:
        client = redis.Redis.from_url(url)
        try:
            info: Any = client.info("cpu")
        finally:
            client.close()
    except redis.RedisError:
        return None
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def memory(pid: int) -> int:
    """Resident bytes of the Python processes of ``pid``'s tree (a node and its workers; not
    the embedded Redis or Postgres it may have started)."""
    total = 0
    for member_pid in _tree(pid):
        with contextlib.suppress(OSError):
            if not _python(member_pid):
                continue
            for line in Path(f"/proc/{member_pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
    return total


# -- the raw limit -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Raw:
    """Echoes (each after one compare-and-set in Redis) per second, as many sockets at once."""

    sockets: int
    echoes: int
    seconds: float
    errors: int

    @property
    def per_second(self) -> float:
        return self.echoes / self.seconds if self.seconds else 0.0


_ECHOED = json.dumps({"type": "act", "move": {"card": "parrot-7"}, "version": 12})


async def _echo(url: str, sockets: int, start_at: float, seconds: float) -> tuple[int, int]:
    """``sockets`` clients each sending and awaiting echoes; those that come back between
    ``start_at`` (wall clock, the same for every client process) and ``seconds`` later
    count: (echoes, sockets that failed or were not connected by ``start_at``)."""
    done, failed = 0, 0
    end = start_at + seconds

    async def one() -> None:
        nonlocal done, failed
        try:
            ws = await LoadSocket.open(url)
        except Exception:
            failed += 1
            return
        try:
            if time.time() > start_at:
                failed += 1  # too late to count
                return
            await asyncio.sleep(start_at - time.time())
            while True:
                ws.send(_ECHOED)
                await ws.recv()
                if time.time() > end:
                    return
                done += 1
        except Exception:
            failed += 1
        finally:
            await ws.close()

    await asyncio.gather(*(one() for _ in range(sockets)))
    return done, failed


def _echo_worker(url: str, sockets: int, start_at: float, seconds: float) -> tuple[int, int]:
    return asyncio.run(_echo(url, sockets, start_at, seconds))


def _ready() -> None:
    """Nothing: run once in each pool process so that they are all up before timing."""


class RawServer:
    """``server.rawlimit`` in a child process with ``env`` (its Redis) and as many workers as
    the node; started at once, waited for when needed (it starts while the node does)."""

    def __init__(self, env: dict[str, str], workers: int | None, deflate: bool = False) -> None:
        self.port = _free_port()
        self.data = Path(tempfile.mkdtemp(prefix="tortuga-rawlimit-"))
        command = [sys.executable, "-m", "server.rawlimit", "--port", str(self.port)]
        command += ["--workers", str(workers or os.cpu_count() or 1)]
        if deflate:
            command.append("--deflate")
        self.log = (self.data / "raw.log").open("wb")
        self.process = subprocess.Popen(
            command, env={**os.environ, **env}, stdout=self.log, stderr=subprocess.STDOUT
        )

    def measure(
        self, sockets: int, seconds: float, pool: ProcessPoolExecutor, processes: int
    ) -> Raw:
        """``sockets`` echo clients over ``processes`` client processes for ``seconds``."""
        self.ready()
        count = max(1, min(processes, sockets))
        parts = [sockets // count + (1 if k < sockets % count else 0) for k in range(count)]
        echoes = failed = 0
        start_at = time.time() + 1.0 + sockets / 200  # every socket connected by then
        url = f"ws://127.0.0.1:{self.port}/"
        for done, lost in pool.map(
            _echo_worker, [url] * count, parts, [start_at] * count, [seconds] * count
        ):
            echoes += done
            failed += lost
        return Raw(sockets, echoes, seconds, failed)

    def ready(self) -> Node:
        """Wait until it answers; the server as a node (its URL and process)."""
        _wait_ready(self.process, f"http://127.0.0.1:{self.port}/", self.data / "raw.log", 180)
        return Node(f"http://127.0.0.1:{self.port}", self.process.pid)

    def stop(self) -> None:
        _stop(self.process)
        self.log.close()
        shutil.rmtree(self.data, ignore_errors=True)


# -- idle sockets ---------------------------------------------------------------------------------

PER_GUEST = 8  # sockets one guest opens (the node's default cap per user)
PER_ROOM = 20  # idle spectators per lobby room


async def _hold(url: str, count: int, pipe: Connection, raw: bool = False) -> None:
    """Open ``count`` sockets that sign in and watch a lobby (``raw``: that echo one frame
    of the raw-limit server, compression included when it is on), report, hold them until
    told, close them."""
    sockets: list[LoadSocket] = []
    failed = 0
    gate = asyncio.Semaphore(64)
    if raw:

        async def open_raw() -> None:
            nonlocal failed
            async with gate:
                try:
                    ws = await LoadSocket.open(url.replace("http", "ws", 1) + "/")
                    ws.send(_ECHOED)
                    await ws.recv()
                    sockets.append(ws)
                except Exception:
                    failed += 1

        await asyncio.gather(*(open_raw() for _ in range(count)))
        await _held(sockets, failed, pipe, gate)
        return
    async with httpx.AsyncClient(timeout=60) as http:
        tokens: list[str] = []
        for k in range(-(-count // PER_GUEST)):
            r = await http.post(f"{url}/api/guest", json={"name": f"idle {os.getpid()}.{k}"})
            r.raise_for_status()
            tokens.append(r.json()["token"])
        rooms: list[str] = []
        for k in range(-(-count // PER_ROOM)):
            r = await http.post(
                f"{url}/api/rooms",
                json={"game": next(iter(GAMES)), "seats": 4, "public": False},
                headers={"Authorization": f"Bearer {tokens[k % len(tokens)]}"},
            )
            r.raise_for_status()
            rooms.append(r.json()["id"])
    ws_url = url.replace("http", "ws", 1) + "/ws"

    async def open_one(i: int) -> None:
        nonlocal failed
        async with gate:
            try:
                ws = await LoadSocket.open(ws_url)
                ws.send(_encode({"type": "auth", "token": tokens[i // PER_GUEST]}))
                while _decode(await ws.recv())["type"] != "hello":
                    pass
                ws.send(_encode({"type": "join", "room": rooms[i // PER_ROOM]}))
                while _decode(await ws.recv())["type"] != "snapshot":
                    pass
                sockets.append(ws)
            except Exception:
                failed += 1

    await asyncio.gather(*(open_one(i) for i in range(count)))
    await _held(sockets, failed, pipe, gate)


async def _held(
    sockets: list[LoadSocket], failed: int, pipe: Connection, gate: asyncio.Semaphore
) -> None:
    """Report the sockets opened, hold them until told, then close them."""
    pipe.send((len(sockets), failed))
    await asyncio.get_running_loop().run_in_executor(None, pipe.recv)
    closed = sum(ws.closed for ws in sockets)  # closed by the node meanwhile

    async def close(ws: LoadSocket) -> None:
        async with gate:
            with contextlib.suppress(Exception):
                await ws.close()

    await asyncio.gather(*(close(ws) for ws in sockets))
    pipe.send(closed)


def _holder(url: str, count: int, pipe: Connection, raw: bool = False) -> None:
    _more_files()
    asyncio.run(_hold(url, count, pipe, raw))


@dataclass(frozen=True)
class Idle:
    """Idle sockets held on a node: its memory before and after, and a small game played
    meanwhile (the latency probe)."""

    sockets: int
    failed: int
    closed_by_node: int
    rss_before: int | None
    rss_after: int | None
    probe: Report | None

    @property
    def bytes_per_socket(self) -> float | None:
        if self.rss_before is None or self.rss_after is None or not self.sockets:
            return None
        return (self.rss_after - self.rss_before) / self.sockets


def hold_idle(
    node: Node,
    count: int,
    probe: Plan | None,
    processes: int,
    pool: ProcessPoolExecutor | None,
    raw: bool = False,
) -> Idle:
    """``count`` idle sockets over ``processes`` holder processes; while they are all open,
    the node's memory, then the ``probe`` plan played against it (if any). ``raw``: the
    node is the raw-limit server (each socket echoes one frame, no sign-in)."""
    context = get_context("spawn")
    rss_before = memory(node.pid) if node.pid else None
    count_p = max(1, min(processes, count))
    holders = []
    for k in range(count_p):
        mine, theirs = context.Pipe()
        share = count // count_p + (1 if k < count % count_p else 0)
        process = context.Process(target=_holder, args=(node.url, share, theirs, raw), daemon=True)
        process.start()
        holders.append((process, mine))
    try:
        opened = failed = 0
        for _, pipe in holders:
            ok, lost = pipe.recv()
            opened += ok
            failed += lost
        time.sleep(2.0)  # let the node settle (its writers, its presence notices)
        rss_after = memory(node.pid) if node.pid else None
        report = None
        if probe is not None:
            report = run(replace(probe, urls=(node.url,)), processes, pool=pool)
        for _, pipe in holders:
            pipe.send("release")
        closed = sum(int(pipe.recv()) for _, pipe in holders)
    finally:
        for process, _ in holders:
            process.join(60)
            if process.is_alive():
                process.kill()
    return Idle(opened, failed, closed, rss_before, rss_after, report)


# -- the whole run -------------------------------------------------------------------------------


def run(
    plan: Plan,
    processes: int | None = None,
    node_env: dict[str, str] | None = None,
    pool: ProcessPoolExecutor | None = None,
) -> Report:
    """Play ``plan``; without ``plan.urls`` against a node started for it (``node_env``:
    environment for that node). ``pool``: client processes to use (else started here)."""
    check(plan)
    count = max(1, min(plan.rooms, processes or os.cpu_count() or 1))
    if not plan.urls:
        with own_node(node_env) as node:
            report = run(replace(plan, urls=(node.url,)), count, pool=pool)
        return Report(report.plan, report.processes, report.tally, started_node=True)
    chunks = [list(range(plan.rooms))[k::count] for k in range(count)]
    tally = Tally()
    with contextlib.ExitStack() as stack:
        if pool is None:
            pool = stack.enter_context(_pool(count))
        manager = stack.enter_context(get_context("spawn").Manager())
        barrier = manager.Barrier(count)  # every process's rooms set up before any starts
        for part in pool.map(_worker, [plan] * count, chunks, [barrier] * count):
            tally.add(part)
    return Report(plan, count, tally, started_node=False)


def _pool(count: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(count, mp_context=get_context("spawn"))


def check(plan: Plan) -> None:
    if plan.game not in GAMES:
        raise ValueError(f"no game {plan.game!r}; known: {', '.join(sorted(GAMES))}")
    if plan.players not in GAMES[plan.game].seats:
        raise ValueError(f"{plan.game} is not for {plan.players} players")


@dataclass(frozen=True)
class Options:
    """What a whole run measures besides the games of ``Plan``."""

    steps: tuple[int, ...] = ()  # rooms per load step (empty: just ``plan.rooms``)
    raw_seconds: float = 5.0  # how long the raw limit is measured (0: not measured)
    raw_sockets: int = 0  # echo clients (0: as many as the biggest step has, at most 400)
    idle: int = 0  # idle sockets held (memory per socket, and a probe meanwhile)
    probe_rooms: int = 4
    workers: int | None = None  # node processes of a node started here (None: serve's default)
    processes: int | None = None  # client processes (None: the number of cores)
    report: Path | None = None  # the HTML report
    # A git revision (or a folder holding another revision's checkout) whose node is
    # started beside this one and played at every step too, alternately: before/after.
    against: str | None = None
    against_workers: int | None = None  # its node's processes (None: its own default)
    # Idle sockets held on the raw-limit server (one process) with per-message deflate on,
    # then off: what compression costs per socket, apart from everything else of a node.
    idle_deflate: int = 0


@dataclass(frozen=True)
class Step:
    """One load step played against one node, and what the node spent on it."""

    report: Report
    rss: int | None  # the node's memory after the step (None: a node given by URL)
    cpu: float | None  # CPU seconds the node's processes used during the step
    redis_cpu: float | None  # CPU seconds Redis used during the step
    load: float  # the machine's 1-minute load average at the end of the step
    # The node's own view (its /metrics, over the step): name -> (p50 bound, p99 bound, n)
    # for "step" (a move frame's arrival to its answer) and "fan-out" (a step's notice to
    # its frames written to a socket).
    server: dict[str, tuple[float, float, int]] = field(default_factory=dict)
    # The archive records not yet in Postgres when the games were over (None: not known),
    # and the seconds until there were none (waited for before the CPU was read).
    backlog: int | None = None
    drained_in: float = 0.0

    def per_move_ms(self, seconds: float | None) -> float | None:
        moves = self.report.tally.moves
        return None if seconds is None or not moves else seconds * 1000 / moves

    def lines(self) -> list[str]:
        out = self.report.lines()
        sockets = self.report.plan.rooms * self.report.plan.players
        spent = []
        if self.rss is not None:
            spent.append(f"memory after the step {self.rss / 2**20:.0f} MiB ({sockets} sockets)")
        node_ms, redis_ms = self.per_move_ms(self.cpu), self.per_move_ms(self.redis_cpu)
        if node_ms is not None:
            spent.append(f"CPU {node_ms:.2f} ms per move")
        if redis_ms is not None:
            spent.append(f"Redis CPU {redis_ms:.2f} ms per move")
        spent.append(f"load average {self.load:.1f}")
        out.append("node: " + ", ".join(spent))
        if self.backlog is not None:
            out.append(
                f"archive: {self.backlog} records not yet in Postgres when the games were "
                f"over, all archived {self.drained_in:.1f} s later (node CPU includes it)"
            )
        for name, (p50, p99, n) in self.server.items():
            out.append(
                f"node's own {name} latency (its /metrics; bucket bounds): p50 <= "
                f"{p50 * 1000:g} ms, p99 <= {p99 * 1000:g} ms (n={n})"
            )
        return out


def best(steps: Sequence[Step]) -> Step | None:
    """The step with the most moves per second: the node's saturation."""
    return max(steps, key=lambda s: s.report.moves_per_second, default=None)


@dataclass
class Campaign:
    """Every step of one run, the raw limit and the idle measurement; with ``against``,
    every step played against the other revision's node too."""

    plan: Plan
    options: Options
    steps: list[Step] = field(default_factory=list)
    raw: Raw | None = None
    idle: Idle | None = None
    started_node: bool = False
    label: str = "working tree"
    against: str | None = None  # the other node's label (its short revision)
    against_steps: list[Step] = field(default_factory=list)
    deflate: dict[bool, Idle] = field(default_factory=dict)  # on / off -> raw idle sockets

    @property
    def finished(self) -> bool:
        reports = [s.report for s in self.steps + self.against_steps]
        reports += [self.idle.probe] if self.idle and self.idle.probe else []
        return all(r.tally.finished == r.tally.rooms for r in reports)

    @property
    def best(self) -> Report | None:
        """The step with the most moves per second."""
        step = best(self.steps)
        return step.report if step is not None else None

    def lines(self) -> list[str]:
        out: list[str] = []
        for k, step in enumerate(self.steps):
            if len(self.steps) > 1 or self.against:
                out.append(f"-- step {k + 1}/{len(self.steps)}: {step.report.plan.rooms} rooms")
            if self.against:
                other = self.against_steps[k]
                out += [f"[{self.against}] {line}" for line in other.lines()]
                out += [f"[{self.label}] {line}" for line in step.lines()]
            else:
                out += step.lines()
        mine, theirs = best(self.steps), best(self.against_steps)
        if self.against and mine is not None and theirs is not None:
            a, b = theirs.report.moves_per_second, mine.report.moves_per_second
            out.append(
                f"saturation: [{self.against}] {a:.1f} moves/s ({theirs.report.plan.rooms} "
                f"rooms), [{self.label}] {b:.1f} moves/s ({mine.report.plan.rooms} rooms): "
                + (f"{b / a:.2f}x" if a else "no baseline moves")
            )
            cpu_a = _mean_per_move(self.against_steps, "cpu")
            cpu_b = _mean_per_move(self.steps, "cpu")
            if cpu_a and cpu_b:
                out.append(
                    f"node CPU per move over every step: [{self.against}] {cpu_a:.2f} ms, "
                    f"[{self.label}] {cpu_b:.2f} ms: {cpu_a / cpu_b:.2f}x less"
                )
            redis_a = _mean_per_move(self.against_steps, "redis_cpu")
            redis_b = _mean_per_move(self.steps, "redis_cpu")
            if redis_a and redis_b:
                out.append(
                    f"Redis CPU per move over every step: [{self.against}] {redis_a:.2f} ms, "
                    f"[{self.label}] {redis_b:.2f} ms: {redis_a / redis_b:.2f}x less"
                )
        if self.raw is not None:
            raw, top = self.raw, self.best
            out.append(
                f"raw limit (websocket echo + one Redis compare-and-set per message, same "
                f"uvicorn and deflate setting, {self.options.workers or os.cpu_count()} "
                f"worker(s), {raw.sockets} sockets): {raw.per_second:.0f} messages/s"
                + (f" ({raw.errors} sockets failed)" if raw.errors else "")
            )
            if top is not None and raw.per_second:
                out.append(
                    f"ratio: {top.moves_per_second:.0f} moves/s ({top.plan.rooms} rooms) = "
                    f"{top.moves_per_second / raw.per_second:.2f} of the raw limit"
                )
                out.append(
                    f"per frame: the node carried {top.frames_per_second:.0f} frames/s in and "
                    f"out at that step, {top.frames_per_second / (2 * raw.per_second):.2f} of "
                    f"the raw limit's {2 * raw.per_second:.0f} (two frames per echo)"
                )
            if theirs is not None and raw.per_second:
                speed = theirs.report.moves_per_second
                out.append(
                    f"ratio [{self.against}]: {speed:.0f} moves/s = "
                    f"{speed / raw.per_second:.2f} of the raw limit"
                )
        if self.idle is not None:
            idle = self.idle
            per = idle.bytes_per_socket
            out.append(
                f"idle sockets: {idle.sockets} open ({idle.failed} failed to open, "
                f"{idle.closed_by_node} closed by the node)"
                + (
                    f"; node memory {idle.rss_before / 2**20:.0f} -> "
                    f"{idle.rss_after / 2**20:.0f} MiB: {per / 1024:.1f} KB per socket"
                    if per is not None and idle.rss_before and idle.rss_after
                    else ""
                )
            )
            if idle.probe is not None:
                out += ["probe while idle: " + line for line in idle.probe.lines()[1:]]
        for on, held in sorted(self.deflate.items(), reverse=True):
            per = held.bytes_per_socket
            out.append(
                f"raw-limit server, per-message deflate {'on' if on else 'off'}: "
                f"{held.sockets} idle sockets ({held.failed} failed)"
                + (f", {per / 1024:.1f} KB per socket" if per is not None else "")
            )
        return out


def _mean_per_move(steps: Sequence[Step], what: str) -> float | None:
    """CPU milliseconds per move over all ``steps`` (``what``: "cpu" or "redis_cpu")."""
    spent: list[float | None] = [getattr(s, what) for s in steps]
    moves = sum(s.report.tally.moves for s in steps)
    if not moves or any(x is None for x in spent):
        return None
    return sum(x or 0.0 for x in spent) * 1000 / moves


@contextlib.contextmanager
def checkout_of(against: str) -> Iterator[tuple[Path, str]]:
    """A source tree of ``against`` and its label (short revision): the folder itself if it
    is one, else a detached ``git worktree`` of the revision for the run (then removed)."""
    root = Path(__file__).resolve().parents[1]

    def short(folder: Path) -> str:
        done = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
        )
        return done.stdout.strip() or folder.name

    folder = Path(against)
    if folder.is_dir():
        yield folder.resolve(), short(folder)
        return
    tree = Path(tempfile.mkdtemp(prefix="tortuga-against-")) / "tree"
    subprocess.run(
        ["git", "-C", str(root), "worktree", "add", "--detach", str(tree), against],
        check=True,
        capture_output=True,
    )
    try:
        yield tree, short(tree)
    finally:
        subprocess.run(
            ["git", "-C", str(root), "worktree", "remove", "--force", str(tree)],
            capture_output=True,
        )
        shutil.rmtree(tree.parent, ignore_errors=True)


POOL_FOR_OLDER = 2000  # an older revision's Redis pool (it raised at 100), set by URL


def _against_env(env: dict[str, str], database: str) -> dict[str, str]:
    """The other revision's node: its own key space and database; its Redis pool raised by
    URL (older revisions' pools raised instead of waiting when they ran out)."""
    from server.redis_pool import is_cluster

    url = env["TORTUGA_REDIS_URL"]
    if not is_cluster(url) and "max_connections=" not in url:
        url += ("&" if "?" in url else "?") + f"max_connections={POOL_FOR_OLDER}"
    prefix = env.get("TORTUGA_REDIS_PREFIX", os.environ.get("TORTUGA_REDIS_PREFIX", ""))
    return {
        **env,
        "TORTUGA_REDIS_URL": url,
        "TORTUGA_REDIS_PREFIX": f"{prefix}against:",
        "TORTUGA_DATABASE_URL": database,
    }


def campaign(plan: Plan, options: Options, node_env: dict[str, str] | None = None) -> Campaign:
    """The raw limit, then the idle sockets with their probe, then each load step, against
    one node (started here unless ``plan.urls``); with ``options.against``, that revision's
    node is started too and each step is played against both, one after the other (which
    goes first alternates). The HTML report if asked for."""
    check(plan)
    result = Campaign(plan, options, started_node=not plan.urls)
    env = dict(node_env or {})
    steps = options.steps or (plan.rooms,)
    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        if "TORTUGA_REDIS_URL" not in env and not os.environ.get("TORTUGA_REDIS_URL"):
            from server import embedded  # one Redis for the nodes and the raw limit

            env["TORTUGA_REDIS_URL"] = embedded.start_redis(folder)
            stack.callback(embedded.stop)
        redis_url = env.get("TORTUGA_REDIS_URL") or os.environ["TORTUGA_REDIS_URL"]
        env["TORTUGA_REDIS_URL"] = redis_url
        against_env: dict[str, str] | None = None
        checkout: Path | None = None
        if options.against:
            checkout, result.against = stack.enter_context(checkout_of(options.against))
            database = env.get("TORTUGA_DATABASE_URL") or os.environ.get("TORTUGA_DATABASE_URL")
            if not database:
                from server import embedded  # one Postgres, a database for each node

                database = embedded.start_postgres(folder)
                env["TORTUGA_DATABASE_URL"] = database
                stack.callback(embedded.stop)
            against_env = _against_env(
                env, stack.enter_context(scratch_database(database, "tortuga_against"))
            )
        processes = options.processes or os.cpu_count() or 1
        pool = stack.enter_context(_pool(processes))
        for future in [pool.submit(_ready) for _ in range(processes)]:
            future.result()  # the client processes are up (and warm) before any timing
        raw = RawServer(env, options.workers) if options.raw_seconds > 0 else None
        if raw is not None:
            stack.callback(raw.stop)
        if plan.urls:
            nodes = [Node(url, None) for url in plan.urls]
            with contextlib.suppress(Exception):  # a node that does not answer fails later
                plan = replace(plan, legacy=legacy_protocol(plan.urls[0]))
        else:
            nodes = [stack.enter_context(own_node(env, workers=options.workers))]
            plan = replace(plan, urls=(nodes[0].url,))
        other: tuple[Plan, Node] | None = None
        if against_env is not None:
            node = stack.enter_context(
                own_node(against_env, checkout=checkout, workers=options.against_workers)
            )
            legacy = legacy_protocol(node.url)
            other = (replace(plan, urls=(node.url,), legacy=legacy), node)
        if raw is not None:  # measured while the nodes idle, and stopped before the games
            sockets = options.raw_sockets or min(400, max(steps) * plan.players)
            result.raw = raw.measure(sockets, options.raw_seconds, pool, processes)
            raw.stop()
        if options.idle > 0:
            probe = replace(plan, rooms=options.probe_rooms)
            result.idle = hold_idle(nodes[0], options.idle, probe, processes, pool)
        for on in (True, False) if options.idle_deflate > 0 else ():
            server = RawServer(env, 1, deflate=on)
            try:
                node = server.ready()
                time.sleep(1.0)  # its imports and first allocations settle
                held = hold_idle(node, options.idle_deflate, None, processes, None, raw=True)
                result.deflate[on] = held
            finally:
                server.stop()
        # Redis's own CPU is read only when the node runs here (on the Redis given to it).
        redis_of_node = redis_url if result.started_node else None
        for k, rooms in enumerate(steps):
            turns = [(plan, nodes[0], result.steps)]
            if other is not None:
                turns.append((other[0], other[1], result.against_steps))
                if k % 2 == 0:
                    turns.reverse()  # the older node first at odd steps, last at even ones
            for node_plan, node, into in turns:
                into.append(
                    _step(replace(node_plan, rooms=rooms), node, redis_of_node, processes, pool)
                )
    if options.report is not None:
        options.report.write_text(html_report(result))
    return result


def _step(
    plan: Plan, node: Node, redis_url: str | None, processes: int, pool: ProcessPoolExecutor
) -> Step:
    """One load step against ``node``, with the CPU it and Redis spent meanwhile."""
    cpu = cpu_seconds(node.pid) if node.pid else None
    redis_cpu = redis_cpu_seconds(redis_url) if redis_url else None
    scraped = scrape(node.url) if node.pid else None
    report = run(plan, processes, pool=pool)
    server: dict[str, tuple[float, float, int]] = {}
    after = scrape(node.url) if scraped is not None else None
    for label, name in (("step", "tortuga_step_seconds"), ("fan-out", "tortuga_fanout_seconds")):
        if after is not None and name in after:
            p50 = histogram_quantile((scraped or {}).get(name), after[name], 0.5)
            p99 = histogram_quantile((scraped or {}).get(name), after[name], 0.99)
            if p50 is not None and p99 is not None:
                server[label] = (p50[0], p99[0], p99[1])
    if node.pid:
        report = replace(report, started_node=True)
    backlog, drained_in = wait_archived(node.url) if scraped is not None else (None, 0.0)
    spent = cpu_seconds(node.pid) - cpu if node.pid and cpu is not None else None
    redis_after = redis_cpu_seconds(redis_url) if redis_url else None
    redis_spent = (
        redis_after - redis_cpu if redis_after is not None and redis_cpu is not None else None
    )
    rss = memory(node.pid) if node.pid else None
    return Step(report, rss, spent, redis_spent, os.getloadavg()[0], server, backlog, drained_in)


# -- the HTML report ---------------------------------------------------------------------------


def _svg_chart(
    title: str,
    labels: Sequence[str],
    series: Sequence[tuple[str, str, Sequence[float | None]]],
    unit: str,
    line: tuple[str, float] | None = None,
) -> str:
    """A line chart: one point per step (evenly spaced), one polyline per series."""
    width, height, left, right, top, bottom = 640, 300, 60, 150, 30, 40
    values = [v for _, _, vs in series for v in vs if v is not None]
    if line is not None:
        values.append(line[1])
    top_value = max(values, default=1.0) * 1.1 or 1.0
    plot_w, plot_h = width - left - right, height - top - bottom
    n = len(labels)

    def x(i: int) -> float:
        return left + (plot_w * (i + 0.5) / n if n else 0)

    def y(v: float) -> float:
        return top + plot_h * (1 - v / top_value)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'role="img" aria-label="{html.escape(title)}">',
        f'<text x="{left}" y="18" font-weight="bold">{html.escape(title)}</text>',
        f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" '
        'stroke="#444"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#444"/>',
    ]
    for k in range(5):
        v = top_value * k / 4
        parts.append(
            f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end" font-size="11">'
            f"{v:.0f}</text>"
            f'<line x1="{left}" y1="{y(v):.1f}" x2="{left + plot_w}" y2="{y(v):.1f}" '
            'stroke="#ddd"/>'
        )
    parts.append(
        f'<text x="12" y="{top + plot_h / 2}" font-size="11" '
        f'transform="rotate(-90 12 {top + plot_h / 2})" text-anchor="middle">{unit}</text>'
    )
    for i, label in enumerate(labels):
        parts.append(
            f'<text x="{x(i):.1f}" y="{top + plot_h + 16}" text-anchor="middle" '
            f'font-size="11">{html.escape(label)}</text>'
        )
    if line is not None:
        name, value = line
        parts.append(
            f'<line x1="{left}" y1="{y(value):.1f}" x2="{left + plot_w}" y2="{y(value):.1f}" '
            'stroke="#999" stroke-dasharray="6 4"/>'
            f'<text x="{left + plot_w + 6}" y="{y(value) + 4:.1f}" font-size="11">'
            f"{html.escape(name)}</text>"
        )
    for k, (name, colour, vs) in enumerate(series):
        points = [(x(i), y(v)) for i, v in enumerate(vs) if v is not None]
        if points:
            path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
            parts.append(
                f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{path}"/>'
            )
            parts += [
                f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="{colour}"/>' for px, py in points
            ]
        parts.append(
            f'<rect x="{left + plot_w + 6}" y="{top + 14 * k}" width="10" height="10" '
            f'fill="{colour}"/><text x="{left + plot_w + 20}" y="{top + 9 + 14 * k}" '
            f'font-size="11">{html.escape(name)}</text>'
        )
    parts.append("</svg>")
    return "\n".join(parts)


def html_report(result: Campaign) -> str:
    """One self-contained page: the latency-over-load curve and moves/s per step (inline
    SVG; with ``against``, the other revision's too), the table of every step, the raw
    limit, idle memory, and the text report."""
    reports = [s.report for s in result.steps]
    others = [s.report for s in result.against_steps]
    labels = [f"{r.plan.rooms} rooms" for r in reports]

    def pct(values: list[float], p: float) -> float | None:
        return percentile(values, p) if values else None

    series = [
        ("move p50", "#1f77b4", [pct(r.tally.move_ms, 50) for r in reports]),
        ("move p99", "#d62728", [pct(r.tally.move_ms, 99) for r in reports]),
        ("reveal fan-out p99", "#2ca02c", [pct(r.tally.fanout_ms, 99) for r in reports]),
    ]
    speeds = [("moves/s", "#9467bd", [r.moves_per_second for r in reports])]
    if result.against:
        name = result.against
        series.append((f"move p99 [{name}]", "#ff9896", [pct(r.tally.move_ms, 99) for r in others]))
        speeds.append((f"moves/s [{name}]", "#c5b0d5", [r.moves_per_second for r in others]))
    latency = _svg_chart("Latency over load", labels, series, "ms")
    raw = result.raw.per_second if result.raw is not None else None
    throughput = _svg_chart(
        "Moves per second", labels, speeds, "moves/s", line=("raw limit", raw) if raw else None
    )
    rows = []
    labelled = [(result.label, s) for s in result.steps]
    labelled += [(result.against or "", s) for s in result.against_steps]
    for label, step in labelled:
        report, t = step.report, step.report.tally

        def cell(values: list[float], p: float) -> str:
            return f"{percentile(values, p):.1f}" if values else "-"

        errors = ", ".join(f"{c} {n}" for c, n in sorted(t.errors.items())) or "none"
        cpu = step.per_move_ms(step.cpu)
        rows.append(
            "<tr>"
            + "".join(
                f"<td>{html.escape(str(v))}</td>"
                for v in (
                    label,
                    f"{report.plan.rooms} ({report.plan.rooms * report.plan.players})",
                    f"{t.finished}/{t.rooms}",
                    f"{report.moves_per_second:.1f}",
                    cell(t.move_ms, 50),
                    cell(t.move_ms, 95),
                    cell(t.move_ms, 99),
                    cell(t.fanout_ms, 50),
                    cell(t.fanout_ms, 99),
                    "-" if step.rss is None else f"{step.rss / 2**20:.0f}",
                    "-" if cpu is None else f"{cpu:.2f}",
                    f"{step.load:.1f}",
                    errors,
                )
            )
            + "</tr>"
        )
    head = (
        "node",
        "rooms (sockets)",
        "games over",
        "moves/s",
        "move p50 ms",
        "move p95 ms",
        "move p99 ms",
        "fan-out p50 ms",
        "fan-out p99 ms",
        "node MiB",
        "node CPU ms/move",
        "load average",
        "errors",
    )
    text = "\n".join(result.lines())
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tortuga load test</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:4px 8px;text-align:right}}pre{{background:#f6f6f6;padding:1em}}
</style></head><body>
<h1>Tortuga load test</h1>
<p>{html.escape(result.plan.game)}, {result.plan.players} seats per room, pace
{result.plan.pace:g} s, {time.strftime("%Y-%m-%d %H:%M:%S")}</p>
{latency}
{throughput}
<table><tr>{"".join(f"<th>{html.escape(h)}</th>" for h in head)}</tr>
{"".join(rows)}</table>
<h2>Report</h2>
<pre>{html.escape(text)}</pre>
</body></html>
"""
