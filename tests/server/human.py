"""A test player whose socket drops and comes back, on any node, like a browser tab that
reloads: it keeps its sealed moves and salts (the web client keeps them across a reload),
resumes from the last version it saw, and plays with an engine bot policy from the view and
legal moves the server sent it.

Races with the clock and the grace-time bot are part of the game: a commit or move that
lost to them is refused (``already-committed``, ``stale-version``, ...) and the player goes
on. Anything else refused is a failure.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import secrets
from collections.abc import Callable
from typing import Any

from tortuga_client import Client, Node, choose, salted

from engines.rng import Rng
from server.table.reveal import digest

# Refusals that a player who races the clock, the grace bot or its own old socket may get.
RACES = {
    "stale-version",
    "not-your-turn",
    "already-committed",
    "already-revealed",
    "wrong-phase",
    "not-sealed",
    "not-open",
    "game-over",
    "sealed-phase",
}


class Human:
    def __init__(
        self, token: str, user: dict[str, str], room_id: str, game_id: str, seat: int
    ) -> None:
        self.token = token
        self.user = user
        self.room_id = room_id
        self.game_id = game_id
        self.seat = seat
        self.rng = Rng(hashlib.sha256(user["id"].encode()).digest(), "human")
        self.client: Client | None = None
        self.version = 0  # the last version this player saw
        self.view: dict[str, Any] | None = None  # and its view (a resume may send none)
        self.sealed: dict[str, tuple[Any, str]] = {}  # phase -> (move, salt), kept
        self.sent: dict[int, Any] = {}  # version -> the open move sent at it
        self.refs: dict[str, str] = {}  # ref -> phase of a commit or reveal
        self.contested: set[str] = set()  # phases where a commit of ours was refused
        self.hold = asyncio.Event()  # cleared: the player waits before acting
        self.hold.set()
        self.over = False

    async def connect(self, node: Node, *, join: bool = False) -> Client:
        """Open a socket on ``node``: ``join`` (first time), else ``resume``."""
        self.client = await Client.connect(node, token=self.token, user=self.user)
        if join:
            await self.client.send("join", room=self.room_id)
        else:
            await self.client.send("resume", room=self.room_id, version=self.version)
        return self.client

    async def drop(self) -> None:
        if self.client is not None:
            await self.client.close()
            self.client = None

    async def play(self, drop: Callable[[], bool] = lambda: False, timeout: float = 60.0) -> str:
        """Play on this socket until the game is over ("over") or ``drop()`` says to let
        the socket go ("dropped"; the socket is closed)."""
        client = self.client
        assert client is not None
        index = 0
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            while index >= len(client.frames):
                if client.closed is not None:
                    raise AssertionError(f"closed {client.closed}: {client.tail()}")
                client._changed.clear()
                left = end - loop.time()
                if left <= 0:
                    raise AssertionError(f"seat {self.seat} timed out: {client.tail()}")
                try:
                    await asyncio.wait_for(client._changed.wait(), min(left, 5))
                except TimeoutError:
                    continue
            frame = client.frames[index]
            index += 1
            kind = frame["type"]
            if kind == "error":
                self._refused(frame)
                continue
            view = self.view
            if kind in ("snapshot", "event") and frame.get("view") is not None:
                view = self.view = frame["view"]
                self.version = frame["version"]
                if view["outcome"] is not None:
                    self.over = True
                    return "over"
                prompt = view["prompt"]
                if not prompt["sealed"] and self.seat in prompt["seats"] and view["legal"]:
                    await self.hold.wait()
                    move = choose(self.game_id, view, self.rng)
                    self.sent[self.version] = move
                    await client.send("act", move=move, version=self.version)
            elif kind == "sealed" and view is not None and frame["version"] == self.version:
                phase = frame["phase"]
                if self.seat not in frame["seats"]:
                    continue
                if str(self.seat) not in frame["committed"]:
                    await self.hold.wait()
                    await self._commit(client, phase, view)
                elif frame["open"] and self.seat not in frame["revealed"]:
                    await self._reveal(client, phase)
            elif kind == "open":
                await self._reveal(client, frame["phase"])
            if drop() and not self.over:
                await self.drop()
                return "dropped"

    async def _commit(self, client: Client, phase: str, view: dict[str, Any]) -> None:
        if phase not in self.sealed:
            move = choose(self.game_id, view, self.rng)
            salt, _ = salted(phase, self.seat, move)
            self.sealed[phase] = (move, salt)
        move, salt = self.sealed[phase]
        ref = secrets.token_hex(4)
        self.refs[ref] = phase
        await client.send(
            "commit", phase=phase, digest=digest(phase, self.seat, move, salt), ref=ref
        )

    async def _reveal(self, client: Client, phase: str) -> None:
        if phase in self.sealed:
            await self.hold.wait()
            move, salt = self.sealed[phase]
            ref = secrets.token_hex(4)
            self.refs[ref] = phase
            await client.send("reveal", phase=phase, move=move, salt=salt, ref=ref)

    def _refused(self, frame: dict[str, Any]) -> None:
        code = frame["code"]
        phase = self.refs.get(str(frame.get("ref")))
        if code == "already-committed" and phase is not None:
            # Our own commit sent before a drop, or the grace bot's (or the clock's) first:
            # only the reveal can tell.
            self.contested.add(phase)
        elif code == "digest-mismatch" and phase in self.contested:
            self.sealed.pop(phase, None)  # the bot committed for this seat: it opens it
        elif code not in RACES:
            raise AssertionError(f"seat {self.seat} refused: {frame}")


def chance(p: float, rng: random.Random) -> Callable[[], bool]:
    return lambda: rng.random() < p
