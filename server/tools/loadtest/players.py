"""The clients: one seat's websocket playing with the game's heuristic bot (``Player``), one
room from its guests to its game over (``Table``), and the body of a client process."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import os
import ssl
import time
from collections.abc import Sequence
from typing import Any

import httpx
import msgspec
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from engines.registry import GAMES
from engines.rng import Rng
from server.identity.signing import b64url, kid_of
from server.ops import heap
from server.table.chain import commitment, sig_message
from server.table.reveal import digest
from server.tools.load_socket import LoadSocket
from server.tools.loadtest.nodes import _more_files
from server.tools.loadtest.tally import LAG_EVERY, Plan, Tally

# The clients' JSON: msgspec's, not the standard library's (json.loads of every frame was a
# fifth of a client process's CPU, which the node it measures shares the cores with).
_encode = msgspec.json.encode
_decode = msgspec.json.decode


@functools.cache
def _tls() -> ssl.SSLContext:
    """One TLS context for every table's HTTP client of a process (a node behind
    ``https://``): an ``httpx.AsyncClient`` builds its own otherwise, about 40 ms of CPU,
    20 s of a client process's set-up with 500 tables. (One client shared by the tables
    instead set them up slower: its pool with hundreds of requests at once.)"""
    return ssl.create_default_context()


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
        self.room = ""
        self.last_size = 0  # bytes of the last frame received
        # A device key, as a browser makes one: every move is signed when the node took it
        # (a node of a revision from before signed moves has no such route: unsigned).
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.kid: str | None = None

    async def register(self, http: httpx.AsyncClient) -> None:
        """Register this client's public key with its user (``POST /api/me/keys``)."""
        raw = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        r = await http.post(
            f"{self.table.plan.url(self.seat, self.table.index)}/api/me/keys",
            json={"key": b64url(raw)},
            headers={"Authorization": f"Bearer {self.token}"},
        )
        self.kid = kid_of(raw) if r.status_code == 201 else None

    def sig(self, kind: str, version: int, c: str) -> dict[str, str]:
        """``{"sig"}`` of a move of this seat, or nothing without a registered key."""
        if self.kid is None:
            return {}
        der = self.key.sign(
            sig_message(kind, self.room, version, self.seat, c), ec.ECDSA(hashes.SHA256())
        )
        r, s = decode_dss_signature(der)
        return {"sig": b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))}

    async def connect(self, room: str) -> None:
        """Sign in, with the room named in the socket's URL as a room's page does (under
        ``serve --workers N`` the socket goes to the room's worker: server/realtime/homes.py)."""
        self.room = room
        url = (
            self.table.plan.url(self.seat, self.table.index).replace("http", "ws", 1).rstrip("/")
            + "/ws"
        )
        if not self.table.plan.legacy:
            url += f"?room={room}"
        if self.table.plan.legacy:
            self.ws = await LoadSocket.open(f"{url}?token={self.token}")
        else:
            self.ws = await LoadSocket.open(url)
            keyed = {"key": self.kid} if self.kid else {}
            await self.send("auth", token=self.token, **keyed)
        await self.until(lambda f: f["type"] == "hello")

    async def send(self, type_: str, **fields: Any) -> int:
        """Send a frame; its size in bytes."""
        assert self.ws is not None
        data = _encode({"type": type_, **fields})
        self.ws.send(data)
        return len(data)

    async def send_move(self, type_: str, **fields: Any) -> None:
        """Send a frame of the game under way, counted (the node's frames in, and bytes)."""
        self.table.tally.frames_in += 1
        self.table.tally.bytes_in += await self.send(type_, **fields)

    async def receive(self) -> dict[str, Any]:
        assert self.ws is not None
        data = await self.ws.recv()
        self.last_size = len(data)
        frame: dict[str, Any] = _decode(data)
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
            tally.bytes_out += self.last_size
            kind = frame["type"]
            if kind in ("snapshot", "event") and frame.get("view") is not None:
                view, version = frame["view"], int(frame["version"])
                sent = self.sent_at.pop(version - 1, None)
                if kind == "event" and sent is not None:
                    tally.move_ms.append((now - sent) * 1000)
                    tally.move_at.append(time.time())
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
                    move = self.choose(view)
                    signed: dict[str, Any] = {}
                    if self.kid is not None:
                        salt = os.urandom(16).hex()
                        c = commitment(f"act@{version}", self.seat, move, salt)
                        signed = {"salt": salt, **self.sig("act", version, c)}
                    await self.send_move("act", move=move, version=version, **signed)
            elif kind == "sealed" and view is not None and frame["version"] == version:
                phase = str(frame["phase"])
                mine = self.seat in frame["seats"] and str(self.seat) not in frame["committed"]
                if mine and phase not in self.sealed:
                    await self.think()
                    move = self.choose(view)
                    salt = os.urandom(16).hex()
                    self.sealed[phase] = (move, salt)
                    sealed = digest(phase, self.seat, move, salt)
                    signed = self.sig("commit", version, sealed)
                    await self.send_move("commit", phase=phase, digest=sealed, **signed)
            elif kind == "open" and frame["phase"] in self.sealed:
                phase = str(frame["phase"])
                move, salt = self.sealed[phase]
                await self.think()
                self.table.last_reveal[phase] = time.perf_counter()
                signed = self.sig("reveal", version, digest(phase, self.seat, move, salt))
                await self.send_move("reveal", phase=phase, move=move, salt=salt, **signed)
            elif kind == "revealed":
                sent = self.table.last_reveal.get(str(frame["phase"]))
                if sent is not None:
                    tally.fanout_ms.append((now - sent) * 1000)
                    tally.fanout_at.append(time.time())

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()

    async def leave(self) -> None:
        """Close this room's socket and forget what was measured at it (the table's next
        game is in a new room)."""
        await self.close()
        self.ws = None
        self.sent_at.clear()
        self.sealed.clear()


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
        plan, tally = self.plan, self.tally
        try:
            try:
                code = await asyncio.wait_for(self._set_up(), plan.timeout)
            finally:
                await gate.passed(self.index)  # every room set up (or failed), then its turn
            began = time.time()
            for game in range(plan.games):
                if game:
                    code = await asyncio.wait_for(self._next_room(), plan.timeout)
                await asyncio.wait_for(self._play(code), plan.timeout)
                tally.games_over += 1
            tally.finished += 1
            tally.all_playing = max(tally.all_playing, began)
            tally.one_done = min(tally.one_done, time.time())
        except TimeoutError:
            tally.errors["timeout"] += 1
        except Exception as exc:
            while isinstance(exc, ExceptionGroup):  # a player's failure, from the task group
                exc = exc.exceptions[0]
            tally.errors[_client_error(exc)] += 1
        finally:
            for player in self.players:
                await player.close()

    async def _set_up(self) -> str:
        """Guests, the room, its players joined, seated and ready; the room's code."""
        plan = self.plan
        async with httpx.AsyncClient(timeout=30, verify=_tls()) as http:
            for seat in range(plan.players):
                r = await http.post(
                    f"{plan.url(seat, self.index)}/api/guest",
                    json={"name": f"load {self.index}.{seat}"},
                )
                r.raise_for_status()
                body = r.json()
                self.players.append(Player(self, seat, body["token"], body["user"]["id"]))
                if not plan.legacy:
                    await self.players[-1].register(http)
            code = await self._new_room(http)
        await self._seat_everyone(code)
        return code

    async def _new_room(self, http: httpx.AsyncClient) -> str:
        plan = self.plan
        room: dict[str, Any] = {"game": plan.game, "seats": plan.players, "public": False}
        if plan.rounds is not None:
            room["options"] = {"rounds": plan.rounds}
        r = await http.post(
            f"{plan.url(0, self.index)}/api/rooms",
            json=room,
            headers={"Authorization": f"Bearer {self.players[0].token}"},
        )
        r.raise_for_status()
        return str(r.json()["id"])

    async def _seat_everyone(self, code: str) -> None:
        for player in self.players:
            await player.connect(code)
            await player.send("join", room=code)
            await player.until(lambda f: f["type"] == "snapshot")
            await player.call("sit", seat=player.seat)
            if self.plan.legacy:
                await player.call("ready")
            else:
                entropy = os.urandom(32).hex()
                signed = player.sig("entropy", 0, entropy)
                await player.call("ready", entropy=entropy, **signed)

    async def _next_room(self) -> str:
        """The room of the table's next game, as friends play again: the host makes a new
        room, and each player leaves the last one's socket and sits down in the new one."""
        async with httpx.AsyncClient(timeout=30, verify=_tls()) as http:
            code = await self._new_room(http)
        for player in self.players:
            await player.leave()
        self.last_reveal.clear()
        await self._seat_everyone(code)
        return code

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
    # node's is (server/ops/heap.py).
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
    _more_files()  # thousands of sockets in one client process
    return asyncio.run(_play_rooms(plan, indices, barrier))
