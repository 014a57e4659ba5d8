"""The bot ladder's arena: players' bots matched against each other and the server's bots.

A bot account tells the site it is ready for some games' ladders (``POST /api/ladder/ready``,
server/http/bots.py: for 30 s, renewed by the bot library's ``ladder`` command). One node at
a time (a lease in Redis) runs the arena: every ``ladder_every_seconds`` it

1. looks at its tables: a lobby whose seats are all ready is started (host: the arena); one
   whose bots did not get ready within ``ladder_lobby_seconds`` is given up (its bots stood
   up; the lobby expires); a game over is forgotten;
2. for each game with fewer than ``ladder_tables`` tables, seats ready bots that play none
   of its tables -- up to all seats but one, the others the server's ``heuristic`` bots --
   in a shuffled order in a new public room, every move under ``ladder_move_seconds``.

A ladder game is an ordinary room: the bots join it from their "my rooms", contribute to the
deal seed as people do (the same committed-seed scheme), get the same views and clocks (a
missed deadline is the default move), and see only the names at the table -- the seat order
is drawn at random. Its record goes to the archive, which rates it on the bot ladder
(server/archive/ladder.py); its replay is the history's, like any game's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random

from engines.registry import GAMES
from server.redis.store import Store
from server.settings import Settings
from server.table.room import ABANDONED, FINISHED, LOBBY, Room, RoomError, now_ms
from server.table.rooms import RoomService
from server.table.seats import NewRoom

log = logging.getLogger("tortuga.ladder")

ARENA = "s_arena"  # the arena's user id: the host of its rooms (no person, no token)
ARENA_NAME = "Arena"
SERVER_LEVEL = "heuristic"


class Arena:
    def __init__(self, rooms: RoomService, settings: Settings, holder: str) -> None:
        self.rooms = rooms
        self.store: Store = rooms.store
        self.settings = settings
        self.holder = holder  # this node's instance: who holds the lease
        self.random = random.SystemRandom()

    async def run(self) -> None:
        """Forever: a round every ``ladder_every_seconds`` while this node holds the lease."""
        every = self.settings.ladder_every_seconds
        while True:
            try:
                if await self.store.ladder_lease(self.holder, every * 3):
                    await self.round()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the arena's round failed")
            await asyncio.sleep(every)

    async def round(self) -> list[str]:
        """One look at the tables and the waiting bots; the rooms made."""
        counts: dict[str, int] = {}
        busy: set[str] = set()
        for room_id in await self.store.ladder_tables():
            room = await self._room(room_id)
            if room is None or room.status in (FINISHED, ABANDONED):
                await self.store.ladder_table(room_id, None)
                continue
            if room.status == LOBBY and not await self._lobby(room):
                continue
            counts[room.engine] = counts.get(room.engine, 0) + 1
            busy |= room.users()
        made = []
        for engine in GAMES:
            while counts.get(engine, 0) < self.settings.ladder_tables:
                waiting = await self.store.ladder_waiting(engine, now_ms())
                free = [b for b in waiting if b not in busy]
                if not free:
                    break
                new = await self._match(engine, free)
                if new is None:
                    break
                room = await self.rooms.get(new)
                busy |= room.users()
                counts[engine] = counts.get(engine, 0) + 1
                made.append(new)
        return made

    async def _room(self, room_id: str) -> Room | None:
        try:
            return await self.rooms.get(room_id)
        except RoomError:
            return None  # expired (a lobby given up) or gone

    async def _lobby(self, room: Room) -> bool:
        """Start a table whose seats are ready; give up one left waiting too long (False)."""
        if all(s.bot is not None or (s.user is not None and s.ready) for s in room.seats):
            try:
                await self.rooms.seats.start(room.id, ARENA)
                log.info("ladder game started", extra={"room": room.id, "engine": room.engine})
                return True
            except RoomError as exc:
                log.info("ladder start refused: %s", exc.code, extra={"room": room.id})
        made = await self._made_at(room.id)
        if made is not None and now_ms() - made > self.settings.ladder_lobby_seconds * 1000:
            for seat, info in enumerate(room.seats):
                if info.user is not None:
                    with contextlib.suppress(RoomError):
                        await self.rooms.seats.vacate(room.id, seat)
            await self.store.ladder_table(room.id, None)
            log.info("ladder table given up", extra={"room": room.id})
            return False
        return True

    async def _made_at(self, room_id: str) -> int | None:
        score = await self.store.wire.call("ZSCORE", self.store.keys.ladder_tables, room_id)
        return int(float(score)) if score is not None else None

    async def _match(self, engine: str, free: list[str]) -> str | None:
        """A new table of ``engine``: some of the ``free`` bots and the server's bots."""
        game = GAMES[engine]
        players = min(max(self.settings.ladder_players, game.seats.start), game.seats.stop - 1)
        accounts = []
        for bot_id in self.random.sample(free, len(free)):
            account = await self.store.bot_account(bot_id)
            if account is None or account.get("revoked"):
                await self.store.ladder_not_ready(engine, bot_id)
                continue
            accounts.append(account)
            if len(accounts) == players - 1:
                break
        if not accounts:
            return None
        seats = list(range(players))
        self.random.shuffle(seats)  # nobody can tell whose bot sits where but by its name
        seconds = self.settings.ladder_move_seconds
        ask = NewRoom(
            game=engine,
            options=dict(self.settings.ladder_options.get(engine) or {}),
            players=players,
            public=True,
            deadlines={"move": seconds, "commit": seconds, "reveal": seconds},
            absent="default",
            held=False,
        )
        room = await self.rooms.seats.create(ARENA, ARENA_NAME, ask)
        await self.store.ladder_table(room.id, now_ms())
        for seat, account in zip(seats, accounts, strict=False):
            owner = (str(account["owner"]), str(account["owner_name"]))
            await self.rooms.seats.sit(room.id, account["id"], account["name"], seat, owner)
        for seat in seats[len(accounts) :]:
            await self.rooms.seats.add_bot(room.id, ARENA, seat, SERVER_LEVEL)
        log.info("ladder table made", extra={"room": room.id, "engine": engine})
        return room.id
