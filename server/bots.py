"""Seats played by the engines' bot policies, through the same service path as players.

A bot sees only ``game.view(state, its_seat)`` and ``game.legal(state, its_seat)``; its
policy is ``game.bot(level)``. Its randomness comes from a key of its own, derived from the
server secret (never from the game seed), the room, the version and the seat, so a bot's
choices reveal nothing about future deals -- and any node computes the same move and salt
for the same moment. That is what lets a bot commit on one node and reveal on another
without its move being stored anywhere before everyone has committed.

After every accepted write the winning node calls ``schedule``; a bot that owes a move acts
after ``bot_delay``. Duplicate runs are harmless: ``act`` carries the version it saw, and a
second commit or reveal is refused by the seal hash.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
from typing import Any

from engines.rng import Rng
from server.reveal import Sealing, digest
from server.rooms import PLAYING, RoomError, RoomService, phase_name

log = logging.getLogger("tortuga.bots")


class BotDriver:
    def __init__(self, rooms: RoomService, sealing: Sealing, secret: bytes, delay: float) -> None:
        self.rooms = rooms
        self.sealing = sealing
        self.delay = delay
        self._key = hmac.new(secret, b"tortuga-bots", hashlib.sha256).digest()
        self._tasks: set[asyncio.Task[None]] = set()

    def schedule(self, room_id: str) -> None:
        task = asyncio.create_task(self._run(room_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

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

    async def _run(self, room_id: str) -> None:
        if self.delay:
            await asyncio.sleep(self.delay)
        try:
            room = await self.rooms.get(room_id)
            if room.status != PLAYING or room.state is None:
                return
            game = room.game
            state = game.decode(room.state)
            prompt = game.prompt(state)
            bots = [s for s in prompt.seats if room.seats[s].bot is not None]
            if not bots:
                return
            if not prompt.sealed:
                for seat in bots:
                    level = room.seats[seat].bot or "random"
                    move = self.choose(game, state, room_id, room.version, seat, level)
                    await self._quietly(
                        self.rooms.act(room_id, seat, move.to_json(), version=room.version)
                    )
                return
            phase = phase_name(prompt, room.version)
            seal = await self.rooms.store.load_seal(room_id)
            same = seal.get("phase") == phase
            for seat in bots:
                level = room.seats[seat].bot or "random"
                move = self.choose(game, state, room_id, room.version, seat, level).to_json()
                salt = self.salt(room_id, phase, seat)
                if not same or f"c:{seat}" not in seal:
                    sealed = digest(phase, seat, move, salt)
                    await self._quietly(self.sealing.commit(room_id, seat, phase, sealed))
                elif seal.get("open") == "1" and f"r:{seat}" not in seal:
                    await self._quietly(self.sealing.reveal(room_id, seat, phase, move, salt))
        except RoomError:
            return
        except Exception:
            log.exception("bot failed", extra={"room": room_id})

    @staticmethod
    async def _quietly(call: Any) -> None:
        """A refused bot move is a duplicate or a moment that passed: not an error."""
        try:
            await call
        except RoomError as exc:
            log.debug("bot move refused", extra={"code": exc.code})
