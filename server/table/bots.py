"""Seats played by the engines' bot policies, through the same service path as players.

A bot sees only ``game.view(state, its_seat)`` and ``game.legal(state, its_seat)``; its
policy is ``game.bot(level)``. Its randomness comes from a key of its own, derived from the
server secret (never from the game seed), the room, the version and the seat, so a bot's
choices reveal nothing about future deals -- and any node computes the same move and salt
for the same moment. That is what lets a bot commit on one node and reveal on another
without its move being stored anywhere before everyone has committed.

Who the driver plays for: bot seats, and seats taken over after their player's grace time
(``away``, server/table/deadlines.py): the room's ``absent`` option says whether a heuristic bot
plays
them or the engine's default move. A player who comes back takes the seat back at once (the
driver reads presence right before it acts); if the bot had committed for them in a sealed
phase, the bot still opens that commitment (the player cannot: they never knew the salt).

After every accepted write the winning node calls ``schedule``; a bot that owes a move acts
after ``bot_delay``. A run that wakes to find the room at another version or stage than the
one it planned for does nothing: that step started a run of its own, so each bot move is
paced by its own delay however many triggers (visits, sweeps) fired.

So that a bot still acts when that node dies first, a "bot due" member
(``bot|room|version|stage``) waits in the clock set, due ``bot_rescue_seconds`` after the
longest delay: the step's writer adds it before writing the step (``before_step``), a run
for a new stage (a phase opened, a seat taken over) adds it itself. The run removes it once
it acted; any node's clock that finds it due runs the bot at once. Duplicate runs are
harmless: ``act`` carries the version it saw, and a second commit or reveal is refused by
the seal hash.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import random
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any

from engines.rng import Rng
from server.redis.store import member
from server.table.reveal import DEFAULT, Sealing, digest
from server.table.room import PLAYING, Room, RoomError, now_ms, phase_name
from server.table.rooms import RoomService

log = logging.getLogger("tortuga.bots")

AWAY_LEVEL = "heuristic"  # the bot that plays for an absent player
DEFAULT_PLAYER = "=default"  # "plays" a seat with the engine's default move


@dataclass(frozen=True, slots=True)
class Action:
    """One thing the driver will do: ``act``, ``default`` (open prompt), ``commit``,
    ``reveal``, ``seal-default`` (a missed commit or opening)."""

    kind: str
    seat: int
    move: Any = None
    salt: str = ""
    digest: str = ""


class BotDriver:
    def __init__(
        self,
        rooms: RoomService,
        sealing: Sealing,
        secret: bytes,
        delay: float,
        rescue: float,
        concurrency: int,
    ) -> None:
        self.rooms = rooms
        # Runs that read or write Redis at once on this node (their think time is free):
        # the rest wait their turn, instead of draining the connection pool in a burst.
        self._limit = asyncio.Semaphore(max(1, concurrency))
        self.sealing = sealing
        self.store = rooms.store
        self.delay = delay
        self.rescue = rescue
        self._key = hmac.new(secret, b"tortuga-bots", hashlib.sha256).digest()
        self._tasks: set[asyncio.Task[None]] = set()
        self.scheduled = 0  # runs asked for (tests: a table without bots asks for none)
        self.settling = False  # the node stops: runs asked for are handed over

    def schedule(self, room_id: str) -> None:
        self.scheduled += 1
        run = self._hand_over(room_id) if self.settling else self.run(room_id)
        task = asyncio.create_task(run)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def settle(self, timeout: float) -> None:
        """The node stops (server/realtime/drain.py): the runs under way finish (up to ``timeout``);
        a run asked for from now on is handed over instead (``_hand_over``)."""
        self.settling = True
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=timeout)

    async def _hand_over(self, room_id: str) -> None:
        """Leave a move this node would have made to any node's clock: its "bot due" member
        is made due now (instead of ``bot_rescue_seconds`` later)."""
        try:
            room = await self.rooms.get(room_id, presence=True)
            stage, actions = await self._plan(room)
            if actions:
                name, _ = self.due(room_id, room.version, stage)
                if not await self.store.schedule(name, now_ms()):
                    await self.store.reschedule(name, now_ms())
        except RoomError:
            return
        except Exception:
            log.exception("bot hand-over failed", extra={"room": room_id})

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def choose(
        self, game: Any, state: Any, room_id: str, version: int, seat: int, level: str
    ) -> Any:
        """The bot's move: a function of its own view, its legal moves and its own rng."""
        rng = Rng(self._key, f"move:{room_id}:{version}:{seat}")
        return game.bot(level)(game.view(state, seat), game.legal(state, seat), rng)

    def salt(self, room_id: str, phase: str, seat: int) -> str:
        return hmac.new(self._key, f"salt:{room_id}:{phase}:{seat}".encode(), "sha256").hexdigest()

    # -- who plays a seat ---------------------------------------------------------------
    @staticmethod
    def player(room: Room, seat: int) -> str | None:
        """The bot level playing ``seat``, ``DEFAULT_PLAYER``, or None (its player)."""
        info = room.seats[seat]
        if info.bot is not None:
            return info.bot
        if seat in room.away:
            return AWAY_LEVEL if room.absent == "bot" else DEFAULT_PLAYER
        return None

    def due(self, room_id: str, version: int, stage: str) -> tuple[str, int]:
        """The "bot due" clock member of a stage, and when it rescues a bot that did not
        act (the longest delay, plus ``bot_rescue_seconds``)."""
        wait = self.delay * 1.25 + self.rescue
        return member("bot", room_id, version, stage), now_ms() + int(wait * 1000)

    def before_step(self, room: Room, state: Any, version: int) -> list[tuple[str, int]]:
        """``Hooks.before_step``: the step about to be written gives bot seats a
        move; its rescue member goes on the clock before the step exists."""
        prompt = room.game.prompt(state)
        if not any(room.seats[s].bot is not None for s in prompt.seats):
            return []
        return [self.due(room.id, version, "c" if prompt.sealed else "m")]

    # -- one run ------------------------------------------------------------------------
    async def run(self, room_id: str, *, rescue: bool = True) -> None:
        """Make every move the driver owes in ``room_id`` now. ``rescue``: this is the
        node's own trigger (not the clock's rescue): wait ``bot_delay`` first and leave a
        "bot due" member on the clock while waiting."""
        try:
            async with self._limit:
                room = await self.rooms.get(room_id, presence=True)
                stage, actions = await self._plan(room)
                if not actions:
                    return
                due, at = self.due(room_id, room.version, stage)
                wait = 0.0
                if rescue:
                    wait = self.delay * random.uniform(0.75, 1.25) if self.delay else 0.0
                    await self.store.schedule(due, at)  # there already, unless a new stage
            if wait:
                await asyncio.sleep(wait)
            async with self._limit:
                if wait:
                    # The world may have moved on: a player came back, a move was made.
                    planned = (room.version, stage)
                    room = await self.rooms.get(room_id, presence=True)
                    stage, actions = await self._plan(room)
                    if (room.version, stage) != planned:
                        # Another run (a socket's visit, the sweep, a second trigger) moved
                        # the room on while this one slept. The new step or stage started a
                        # run of its own, with its own delay: acting now would play the next
                        # bot's move at once, and runs left over like this would keep bots
                        # moving far faster than ``bot_delay``.
                        await self.store.unschedule(due)
                        return
                for action in actions:
                    await self._quietly(self._do(room, action))
                if rescue:
                    await self.store.unschedule(due)
        except RoomError:
            return
        except Exception:
            log.exception("bot failed", extra={"room": room_id})

    async def _plan(self, room: Room) -> tuple[str, list[Action]]:
        """The stage of the room (``m``: an open move, ``c``: commits, ``r``: openings) and
        what the driver owes there."""
        if room.status != PLAYING or room.state is None or room.paused_at is not None:
            return "", []  # paused (an admin): bots and stand-ins wait for the resume
        game = room.game
        state = game.decode(room.state)
        prompt = game.prompt(state)
        if not prompt.sealed:
            actions = []
            for seat in prompt.seats:
                level = self.player(room, seat)
                if level == DEFAULT_PLAYER:
                    actions.append(Action("default", seat))
                elif level is not None:
                    move = self.choose(game, state, room.id, room.version, seat, level)
                    actions.append(Action("act", seat, move.to_json()))
            return "m", actions
        phase = phase_name(prompt, room.version)
        seal = await self.store.load_seal(room.id)
        same = seal.get("phase") == phase
        opened = same and seal.get("open") == "1"
        out: list[Action] = []
        for seat in prompt.seats:
            level = self.player(room, seat)
            committed = seal.get(f"c:{seat}") if same else None
            if committed is None:
                if level == DEFAULT_PLAYER:
                    out.append(Action("seal-default", seat))
                elif level is not None:
                    out.append(self._sealed(game, state, room, phase, seat, level, "commit"))
                continue
            if not opened or f"r:{seat}" in seal or committed == DEFAULT:
                continue
            if level == DEFAULT_PLAYER:
                out.append(Action("seal-default", seat))
                continue
            mine = self._sealed(game, state, room, phase, seat, level or AWAY_LEVEL, "reveal")
            if committed == mine.digest:
                out.append(mine)  # the bot's own commitment (also for a player back since)
            elif level is not None:
                out.append(Action("seal-default", seat))  # the absent player's own commit
        return ("r" if opened else "c"), out

    def _sealed(
        self, game: Any, state: Any, room: Room, phase: str, seat: int, level: str, kind: str
    ) -> Action:
        move = self.choose(game, state, room.id, room.version, seat, level).to_json()
        salt = self.salt(room.id, phase, seat)
        return Action(kind, seat, move, salt, digest(phase, seat, move, salt))

    def _do(self, room: Room, action: Action) -> Awaitable[Any]:
        seat = action.seat
        # A seat that is not a bot seat is played for its absent player: a stand-in move,
        # flagged in the log, the frames and the archive (``proxies``).
        proxy = room.seats[seat].bot is None
        if action.kind == "act":
            return self.rooms.steps.act(
                room.id, seat, action.move, version=room.version, proxy=proxy
            )
        if action.kind == "default":
            return self.rooms.steps.play_default(room.id, seat, room.version, proxy=proxy)
        game = room.game
        assert room.state is not None
        phase = phase_name(game.prompt(game.decode(room.state)), room.version)
        if action.kind == "commit":
            return self.sealing.commit(room.id, seat, phase, action.digest, proxy=proxy)
        if action.kind == "reveal":
            return self.sealing.reveal(room.id, seat, phase, action.move, action.salt, proxy=proxy)
        return self.sealing.default(room.id, seat, phase, proxy=proxy)

    @staticmethod
    async def _quietly(call: Awaitable[Any]) -> None:
        """A refused bot move is a duplicate or a moment that passed: not an error."""
        try:
            await call
        except RoomError as exc:
            log.debug("bot move refused", extra={"code": exc.code})
