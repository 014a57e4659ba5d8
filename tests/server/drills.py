"""Players for the drain test and the fault drills: websocket clients that play a seat at a
chosen pace, follow the server's ``reconnect`` hint (and come back by themselves when their
node dies), and remember every move they sent -- so a test can hold the room's log against
them: nothing they sent lost, nothing applied twice, every version received once.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import random
import time
from collections.abc import Callable
from typing import Any

import websockets
from tortuga_client import Client, Node, choose, final_records, salted, seat_players

from engines.rng import Rng
from server.table.reveal import digest

# Refusals a player may get when it sends again what its dead node may have handled: the
# move is in already, or the moment has passed (the phase was resolved meanwhile).
RESENT = {"stale-version", "already-committed", "already-revealed", "not-sealed", "wrong-phase"}


class Player:
    """One seat, played by a websocket client that moves on to ``elsewhere()`` (a node)
    when told to reconnect or when its socket dies, and resumes from its last version.

    ``resend``: after a socket died (not after a hint), a move sent but not seen applied
    is sent again -- the node may have died before it read it.

    ``tolerant``: a ``RESENT`` refusal is recorded and not raised even on a socket that
    did not die -- a command retried after a Redis restart may have run already (its reply
    was lost), and the mover hears ``stale-version`` for the move that is in; the test
    then proves from the log that the move is there, once."""

    def __init__(
        self,
        client: Client,
        room_id: str,
        seat: int,
        elsewhere: Callable[[], Node],
        game_id: str = "skull-king",
        pace: float = 0.0,
        tolerant: bool = False,
    ) -> None:
        self.client = client
        self.room_id = room_id
        self.seat = seat
        self.elsewhere = elsewhere
        self.game_id = game_id
        self.pace = pace
        self.tolerant = tolerant
        self.rng = Rng(hashlib.sha256(client.user["id"].encode()).digest(), "drill")
        self.view: dict[str, Any] | None = None
        self.version = 0
        self.versions: list[int] = []  # every event version received, over all its sockets
        self.acts: dict[int, Any] = {}  # version -> the open move sent at it
        self.sealed: dict[str, tuple[Any, str]] = {}  # phase -> (move, salt)
        self.committed: set[str] = set()
        self.revealed: set[str] = set()
        self.errors: list[dict[str, Any]] = []
        self.hops = 0  # sockets it moved to
        self.hinted = 0  # of which after a ``reconnect`` frame
        self.latencies: list[tuple[float, float]] = []  # (sent at, seconds to its event)
        self._sent_at: dict[int, float] = {}
        # Since the last socket died: what was sent again (each once), and how many of those
        # may still be answered with a ``RESENT`` refusal (the first one was in after all).
        self._resent: set[tuple[str, Any]] = set()
        self._owed = 0
        # Set by a drill: no move at or after this version until the event is set (every
        # room held at the same point, so that none is over before the fault).
        self.hold: tuple[int, asyncio.Event] | None = None

    # -- playing --------------------------------------------------------------------------
    async def play(self, timeout: float = 60.0) -> dict[str, Any]:
        """Play until the game is over; the last view."""
        return await asyncio.wait_for(self._play(), timeout)

    async def _play(self) -> dict[str, Any]:
        index = 0
        resend = False
        while True:
            client = self.client
            while index >= len(client.frames):
                if client.closed is not None:
                    break
                client._changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(client._changed.wait(), 5)
            if index >= len(client.frames):  # the socket died (its node was killed)
                await self._move_on(hinted=False)
                index, resend = 0, True
                continue
            frame = client.frames[index]
            index += 1
            kind = frame["type"]
            if kind == "reconnect":
                await asyncio.sleep(random.random() * frame["within_ms"] / 1000)
                await self._move_on(hinted=True)
                index, resend = 0, False
                continue
            if kind == "error":
                self.errors.append(frame)
                if frame["code"] not in RESENT or not (self._owed or self.tolerant):
                    raise AssertionError(f"seat {self.seat} refused: {frame}")
                self._owed = max(0, self._owed - 1)
                continue
            if kind in ("snapshot", "event") and frame.get("view") is not None:
                if kind == "event":
                    self.versions.append(frame["version"])
                    sent = self._sent_at.pop(frame["version"] - 1, None)
                    if sent is not None:
                        self.latencies.append((sent, time.monotonic() - sent))
                self.view, self.version = frame["view"], frame["version"]
                if self.view["outcome"] is not None:
                    return self.view
                await self._open_move(again=False)
            elif kind == "resumed":
                await self._open_move(again=resend)
                resend = False  # what the resume showed is sent again; the rest is new
            elif kind == "sealed" and self.view is not None and frame["version"] == self.version:
                if self.seat not in frame["seats"]:
                    continue
                phase = frame["phase"]
                if str(self.seat) not in frame["committed"]:
                    await self._commit(phase, again=resend)
                elif frame["open"] and self.seat not in frame["revealed"]:
                    await self._reveal(phase, again=resend)
            elif kind == "open":
                await self._reveal(frame["phase"], again=False)

    async def _open_move(self, again: bool) -> None:
        view = self.view
        if view is None or view["outcome"] is not None:
            return
        prompt = view["prompt"]
        if prompt["sealed"] or self.seat not in prompt["seats"] or not view["legal"]:
            return
        if self.version in self.acts and not self._again(again, ("act", self.version)):
            return
        if self.version not in self.acts:
            await self._held()
            if self.pace:
                await asyncio.sleep(self.pace)
            self.acts[self.version] = choose(self.game_id, view, self.rng)
        self._sent_at[self.version] = time.monotonic()
        await self._send("act", move=self.acts[self.version], version=self.version)

    async def _commit(self, phase: str, again: bool) -> None:
        if phase in self.committed and not self._again(again, ("commit", phase)):
            return
        if phase not in self.sealed:
            assert self.view is not None
            await self._held()
            if self.pace:
                await asyncio.sleep(self.pace)
            move = choose(self.game_id, self.view, self.rng)
            salt, _ = salted(phase, self.seat, move)
            self.sealed[phase] = (move, salt)
        move, salt = self.sealed[phase]
        self.committed.add(phase)
        await self._send("commit", phase=phase, digest=digest(phase, self.seat, move, salt))

    async def _reveal(self, phase: str, again: bool) -> None:
        if phase not in self.sealed or (
            phase in self.revealed and not self._again(again, ("reveal", phase))
        ):
            return
        move, salt = self.sealed[phase]
        self.revealed.add(phase)
        await self._send("reveal", phase=phase, move=move, salt=salt)

    async def _held(self) -> None:
        if self.hold is not None and self.version >= self.hold[0]:
            await self.hold[1].wait()

    def _again(self, again: bool, key: tuple[str, Any]) -> bool:
        """Whether to send ``key`` (sent before) again: after a socket died, once."""
        if not again or key in self._resent:
            return False
        self._resent.add(key)
        self._owed += 1
        return True

    async def _send(self, type_: str, **fields: Any) -> None:
        """Send on the current socket; if it died meanwhile, the reader finds it closed and
        the move is sent again on the next socket (``resend``)."""
        with contextlib.suppress(websockets.ConnectionClosed, OSError):
            await self.client.send(type_, **fields)

    async def _move_on(self, hinted: bool) -> None:
        """Close this socket (if it is still open) and resume on another node."""
        old = self.client
        with contextlib.suppress(Exception):
            await old.close()
        self.hops += 1
        self.hinted += hinted
        for attempt in range(100):
            try:
                self.client = await Client.connect(self.elsewhere(), token=old.token, user=old.user)
                break
            except Exception:
                await asyncio.sleep(min(0.05 * 2**attempt, 0.5))
        else:
            raise AssertionError(f"seat {self.seat} found no node to resume on")
        self._sent_at.clear()
        self._resent.clear()
        await self.client.send("resume", room=self.room_id, version=self.version)


async def tables(
    node: Node | list[Node],
    rooms: int,
    elsewhere: Callable[[], Node],
    seats: int = 3,
    rounds: int = 3,
    bots: dict[int, str] | None = None,
    pace: float = 0.0,
    tolerant: bool = False,
) -> list[tuple[str, list[Player]]]:
    """``rooms`` rooms of Skull King created on ``node`` (the first, if a list), every
    human seat a ``Player``; with a list of nodes, seat i connects to node i % len."""
    nodes = node if isinstance(node, list) else [node]

    async def one() -> tuple[str, list[Player]]:
        table = await seat_players(nodes, seats, options={"rounds": rounds}, bots=bots)
        humans = [s for s in range(seats) if s not in (bots or {})]
        players = [
            Player(c, table.id, s, elsewhere, pace=pace, tolerant=tolerant)
            for c, s in zip(table.clients, humans, strict=True)
        ]
        return table.id, players

    made = await asyncio.gather(*(one() for _ in range(rooms)))
    return list(made)


async def start_all(made: list[tuple[str, list[Player]]]) -> None:
    answers = await asyncio.gather(*(players[0].client.call("start") for _, players in made))
    assert [a for a in answers if a["type"] != "ok"] == []


async def entries(redis: Any, prefix: str, room_id: str) -> list[dict[str, Any]]:
    """The room's log: version, kind, moves (seat -> move), defaults, proxies, status."""
    out = []
    for _, f in await redis.xrange(f"{prefix}room:{{{room_id}}}:log"):
        out.append(
            {
                "v": int(f[b"v"]),
                "kind": f[b"kind"].decode(),
                "phase": f[b"phase"].decode() if b"phase" in f else None,
                "moves": json.loads(f[b"moves"]),
                "defaults": json.loads(f[b"defaults"]),
                "proxies": json.loads(f.get(b"proxies", b"[]")),
                "status": f[b"status"].decode(),
            }
        )
    return out


async def check_room(
    redis: Any, prefix: str, room_id: str, players: list[Player], views: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Every game finished alike for its players; the log holds versions 1..N once each;
    every move a player sent is the one the log applied after the version it saw (nothing
    lost, nothing made twice), and no move was a default or a stand-in's; each player got
    every version from its first event on exactly once, in order, over all its sockets."""
    assert all(v["outcome"] is not None for v in views)
    assert all(v["outcome"] == views[0]["outcome"] for v in views)
    log = await entries(redis, prefix, room_id)
    assert [e["v"] for e in log] == list(range(1, len(log) + 1))
    assert log[-1]["status"] == "finished"
    by_version = {e["v"]: e for e in log}
    for p in players:
        for version, move in p.acts.items():
            entry = by_version[version + 1]
            assert entry["kind"] == "move" and entry["moves"] == {str(p.seat): move}, (
                p.seat,
                entry,
            )
        for phase, (move, _) in p.sealed.items():
            (entry,) = [e for e in log if e["phase"] == phase]
            assert entry["moves"][str(p.seat)] == move
        mine = [e for e in log if str(p.seat) in e["moves"] and e["kind"] == "move"]
        assert len(mine) == len(p.acts)  # every open move of the seat is one it sent
        first = p.versions[0]
        assert p.versions == list(range(first, len(log) + 1)), (p.seat, p.versions)
    assert all(e["defaults"] == [] and e["proxies"] == [] for e in log)
    return log


async def archived_once(redis: Any, prefix: str, room_ids: list[str], timeout: float = 20) -> None:
    """Each room's game is on the archive stream as a final record exactly once."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        counts = {r: 0 for r in room_ids}
        for _, fields in await final_records(redis, prefix):
            room = json.loads(fields[b"record"])["room"]
            if room in counts:
                counts[room] += 1
        if all(n >= 1 for n in counts.values()) or loop.time() > end:
            break
        await asyncio.sleep(0.05)
    assert counts == dict.fromkeys(room_ids, 1), counts


def percentiles(samples: list[float], *points: float) -> list[float]:
    """The given percentiles (0-100) of ``samples`` (nearest rank); NaN when empty."""
    ordered = sorted(samples)
    if not ordered:
        return [float("nan")] * len(points)
    return [ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] for p in points]


def latencies(players: list[Player]) -> list[float]:
    """Every open move's time from sending it to its event, over ``players`` (seconds)."""
    return [seconds for p in players for _, seconds in p.latencies]
