"""The lobby's seats: making a room, sitting, standing, readiness, the host's bots and
kicks, and the start (the deal: version 1, through server/table/steps.py); and the operators'
hand on seats (server/admin/): a kick in the lobby, a human's seat given to a bot (mid-game
too).

Every seat change is a compare-and-set on the room's revision (``rev``), retried on a lost
race; the start is one too, so a seat change racing the start makes the start re-check
the seats.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

from engines.core import BadOptions
from engines.registry import GAMES
from server import protocol as p
from server.table import room_codes, seeding
from server.table.bot_names import bot_name
from server.table.entry import START, Published, now_iso, pack
from server.table.quotas import Quotas
from server.table.room import (
    ABANDONED,
    FINISHED,
    LOBBY,
    PLAYING,
    RETRIES,
    Hooks,
    Room,
    RoomError,
    RoomReader,
    SeatInfo,
    check_host,
    check_seat,
    now_ms,
)
from server.table.room_list import PublicList
from server.table.steps import Steps

DEADLINE_KINDS = ("move", "commit", "reveal")  # an open move, a sealed commit, an opening
MAX_DEADLINE = 30 * 24 * 3600.0  # seconds: a month (slow games set none at all)
ABSENT_MODES = ("bot", "default")  # who plays a seat whose player is gone past the grace

log = logging.getLogger("tortuga.rooms")


@dataclass(frozen=True, slots=True)
class NewRoom:
    """What a host asks for (checked by ``Seats.create``)."""

    game: str
    options: dict[str, Any]
    players: int
    public: bool = True
    spectators: bool = True
    deadlines: dict[str, Any] = field(default_factory=dict)
    takeback: bool = False
    absent: str = "bot"  # a seat gone past the grace time: "bot" plays it, or "default"
    player_bots: bool = True  # players' bot accounts may sit (server/http/bots.py)
    held: bool = True  # the room holds a place in its host's quotas (not the ladder's arena)
    address: str | None = None  # the client address's keyed hash: public rooms per address
    # "Play again" (``Seats.again``): the room whose game this one follows, and the players
    # of that game this one invites.
    again_of: str | None = None
    invited: tuple[str, ...] = ()


def check_deadlines(raw: Mapping[str, Any]) -> dict[str, float]:
    """A room's deadlines: seconds for ``move`` / ``commit`` / ``reveal``; a missing or
    null one means no deadline for that kind (slow games set none)."""
    out: dict[str, float] = {}
    for kind, value in raw.items():
        if kind not in DEADLINE_KINDS:
            raise RoomError(p.BAD_DEADLINES, f"deadlines are {', '.join(DEADLINE_KINDS)}")
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise RoomError(p.BAD_DEADLINES, f"{kind}: seconds, or null for none")
        if not 0 < value <= MAX_DEADLINE:
            raise RoomError(p.BAD_DEADLINES, f"{kind}: more than 0, at most {MAX_DEADLINE:.0f}")
        out[kind] = value
    return out


class Seats:
    """Rooms in the lobby: their creation and their seats, up to the deal."""

    def __init__(
        self,
        reader: RoomReader,
        hooks: Hooks,
        listing: PublicList,
        steps: Steps,
        *,
        lobby_idle: int = 0,
        quotas: Quotas | None = None,
    ) -> None:
        self.reader = reader
        self.store = reader.store
        self.base_url = reader.base_url
        self.hooks = hooks
        self.listing = listing
        self.steps = steps
        self.lobby_idle = lobby_idle  # seconds a lobby with no change and no socket lives
        self.quotas = quotas

    async def invitees(self, host_id: str, again_of: str) -> tuple[str, ...]:
        """Whom "Play again" after the game of room ``again_of`` invites: that game's other
        players (people: not bots, nor players' bot accounts). Only a player of that game,
        once it is over, may ask; a room gone since (its keys expired) invites nobody."""
        try:
            before = await self.reader.get(again_of)
        except RoomError as exc:
            if exc.code == p.NO_SUCH_ROOM:
                return ()
            raise
        if before.seat_of(host_id) is None:
            raise RoomError(p.NOT_A_PLAYER, "only a player of that game may invite its players")
        if before.status not in (FINISHED, ABANDONED):
            raise RoomError(p.GAME_NOT_OVER, "that game is not over")
        return tuple(
            s.user
            for s in before.seats
            if s.user is not None and s.user != host_id and s.bot is None and s.owner is None
        )

    async def create(self, host_id: str, host_name: str, ask: NewRoom) -> Room:
        game = GAMES.get(ask.game)
        if game is None:
            raise RoomError("no-such-game", f"no game {ask.game!r}")
        if ask.players not in game.seats:
            raise RoomError(
                "bad-seats", f"{game.title} is for {game.seats.start} to {game.seats.stop - 1}"
            )
        try:
            options = game.options(ask.options)
        except BadOptions as exc:
            raise RoomError("bad-options", str(exc)) from None
        normal = msgspec.to_builtins(options)
        deadlines = check_deadlines(ask.deadlines)
        if ask.absent not in ABSENT_MODES:
            raise RoomError(p.BAD_MESSAGE, f"absent is one of {', '.join(ABSENT_MODES)}")
        seats = [SeatInfo() for _ in range(ask.players)]
        quotas = self.quotas if ask.held else None
        address = ask.address if ask.public else None
        if quotas is not None:
            await quotas.check_new_room()
        for _ in range(5):
            room_id = room_codes.new_code(private=not ask.public)
            if quotas is not None:  # before the room exists: no request at once gets past
                await quotas.take_room(host_id, room_id, address)
            fields = {
                "engine": game.id,
                "options": json.dumps(normal),
                "players": str(ask.players),
                "public": "1" if ask.public else "0",
                "spectators": "1" if ask.spectators else "0",
                "deadlines": json.dumps(deadlines),
                "absent": ask.absent,
                "takeback": "1" if ask.takeback else "0",
                "player_bots": "1" if ask.player_bots else "0",
                "host": host_id,
                "host_name": host_name,
                "status": LOBBY,
                "version": "0",
                "rev": "0",
                "seats": msgspec.json.encode(seats).decode(),
                "created_at": now_iso(),
                **_server_seed(),
            }
            if ask.again_of is not None:
                fields["again_of"] = ask.again_of
                fields["invited"] = json.dumps(list(ask.invited))
            if await self.store.create_room(room_id, fields):
                await self.touch_lobby(room_id)
                room = await self.reader.get(room_id)
                log.info("room created", extra={"room": room_id, "engine": game.id})
                await self.listing.changed(room)
                if ask.invited:
                    self.hooks.invited(room_id, list(ask.invited))
                return room
            if quotas is not None:
                await quotas.release_room(host_id, room_id, address)
        raise RoomError(p.BUSY, "could not find a free room code")

    async def touch_lobby(self, room_id: str) -> None:
        """A room still in the lobby lives ``lobby_idle`` seconds more (its keys' TTL):
        called on its creation, every lobby change and, through ``Clock.arm``, while any
        socket is in it (a join, every sweep). A lobby nobody touches for that long
        expires; the start removes the TTL (``write_step``)."""
        if self.lobby_idle > 0:
            await self.store.touch_lobby(room_id, self.lobby_idle)

    # -- the lobby ----------------------------------------------------------------------
    async def _lobby_change(self, room_id: str, change: Callable[[Room], None]) -> Room:
        """Apply ``change`` to the seats of a room in the lobby, compare-and-set on its
        revision, retried on a lost race. ``change`` raises RoomError to refuse."""
        for _ in range(RETRIES):
            room = await self.reader.get(room_id, presence=True)
            if room.status != LOBBY:
                raise RoomError(p.GAME_STARTED, "the game has started")
            before = room.users()
            change(room)
            room.rev += 1
            payload = pack(Published(k="room", room=room_id, data=room.summary(self.base_url)))
            seats = msgspec.json.encode(room.seats).decode()
            fields = {"seats": seats, "active_at": str(now_ms())}
            if await self.store.write_meta(
                room_id, expected_rev=room.rev - 1, fields=fields, payload=payload, status=LOBBY
            ):
                after = room.users()
                seated = {u: True for u in after} | {u: False for u in before - after}
                await self.store.seat_users(room_id, seated, now_ms())
                await self.touch_lobby(room_id)
                await self.listing.changed(room)
                return room
        raise RoomError(p.BUSY, "the room is busy; try again")

    async def sit(
        self,
        room_id: str,
        user_id: str,
        name: str,
        seat: int,
        owner: tuple[str, str] | None = None,
    ) -> Room:
        """``owner``: (id, name) of the player whose bot account sits (server/http/bots.py)."""

        def change(room: Room) -> None:
            check_seat(room, seat)
            if owner is not None and not room.player_bots:
                raise RoomError(p.NO_PLAYER_BOTS, "this room's host does not allow players' bots")
            if room.seats[seat].user == user_id:
                return
            if not room.seats[seat].empty:
                raise RoomError(p.SEAT_TAKEN, f"seat {seat} is taken")
            old = room.seat_of(user_id)
            if old is not None:
                room.seats[old] = SeatInfo()
            room.seats[seat] = SeatInfo(user=user_id, name=name)
            if owner is not None:
                room.seats[seat].owner, room.seats[seat].owner_name = owner

        return await self._lobby_change(room_id, change)

    async def stand(self, room_id: str, user_id: str) -> Room:
        def change(room: Room) -> None:
            seat = room.seat_of(user_id)
            if seat is None:
                raise RoomError(p.NOT_SEATED, "you have no seat here")
            room.seats[seat] = SeatInfo()

        return await self._lobby_change(room_id, change)

    async def ready(
        self,
        room_id: str,
        user_id: str,
        ready: bool,
        entropy: str | None = None,
        signed: tuple[str, str] | None = None,
    ) -> Room:
        """Mark the seat ready (or not); ``entropy``: the player's contribution to the deal
        seed (the latest one sent counts); ``signed``: its device's (kid, signature) of it,
        checked by the socket (server/realtime/signed.py)."""
        if entropy is not None:
            try:
                seeding.entropy(entropy)
            except seeding.BadDeal as exc:
                raise RoomError(p.BAD_MESSAGE, str(exc)) from None

        def change(room: Room) -> None:
            seat = room.seat_of(user_id)
            if seat is None:
                raise RoomError(p.NOT_SEATED, "you have no seat here")
            room.seats[seat].ready = ready
            if entropy is not None:
                room.seats[seat].entropy = entropy
                room.seats[seat].entropy_key, room.seats[seat].entropy_sig = signed or (None, None)

        return await self._lobby_change(room_id, change)

    async def add_bot(self, room_id: str, user_id: str, seat: int, level: str) -> Room:
        def change(room: Room) -> None:
            check_host(room, user_id)
            check_seat(room, seat)
            if level not in room.game.bot_levels:
                levels = ", ".join(room.game.bot_levels)
                raise RoomError(p.BAD_BOT_LEVEL, f"bot levels: {levels}")
            if not room.seats[seat].empty:
                raise RoomError(p.SEAT_TAKEN, f"seat {seat} is taken")
            taken = {s.name for s in room.seats if s.name}
            room.seats[seat] = SeatInfo(
                name=bot_name(seat, taken, room.game.card_titles), bot=level, ready=True
            )

        return await self._lobby_change(room_id, change)

    async def remove_bot(self, room_id: str, user_id: str, seat: int) -> Room:
        def change(room: Room) -> None:
            check_host(room, user_id)
            check_seat(room, seat)
            if room.seats[seat].bot is None:
                raise RoomError(p.NOT_A_BOT, f"seat {seat} is not a bot")
            room.seats[seat] = SeatInfo()

        return await self._lobby_change(room_id, change)

    async def kick(self, room_id: str, user_id: str, seat: int) -> Room:
        def change(room: Room) -> None:
            check_host(room, user_id)
            check_seat(room, seat)
            if room.seats[seat].empty:
                raise RoomError(p.SEAT_EMPTY, f"seat {seat} is empty")
            if room.seats[seat].user == user_id:
                raise RoomError(p.CANNOT_KICK_SELF, "the host cannot kick their own seat")
            room.seats[seat] = SeatInfo()

        return await self._lobby_change(room_id, change)

    # -- the operators (server/admin/) ----------------------------------------------------
    async def vacate(self, room_id: str, seat: int) -> Room:
        """An operator frees a human's seat in the lobby (a kick, not the host's)."""

        def change(room: Room) -> None:
            check_seat(room, seat)
            if room.seats[seat].user is None:
                raise RoomError(p.SEAT_EMPTY, f"seat {seat} holds no player")
            room.seats[seat] = SeatInfo()

        return await self._lobby_change(room_id, change)

    async def to_bot(self, room_id: str, seat: int, level: str) -> tuple[Room, SeatInfo]:
        """An operator gives a human's seat to a bot: in the lobby it sits there ready; in a
        game under way it plays the seat from now on (the bots are told at once: a move it
        owes is made, a commitment its player made but cannot open any more is opened as
        the default). A compare-and-set on the room's revision and status, so a start (or
        an end) racing it makes it read again. The room, and who sat there before."""
        for _ in range(RETRIES):
            room = await self.reader.get(room_id, presence=True)
            check_seat(room, seat)
            if room.status not in (LOBBY, PLAYING):
                raise RoomError(p.GAME_OVER, "the game is over")
            if level not in room.game.bot_levels:
                levels = ", ".join(room.game.bot_levels)
                raise RoomError(p.BAD_BOT_LEVEL, f"bot levels: {levels}")
            before = room.seats[seat]
            if before.user is None:
                raise RoomError(p.SEAT_EMPTY, f"seat {seat} holds no player")
            taken = {s.name for i, s in enumerate(room.seats) if s.name and i != seat}
            room.seats[seat] = SeatInfo(
                name=bot_name(seat, taken, room.game.card_titles), bot=level, ready=True
            )
            room.away.discard(seat)
            room.held.discard(seat)  # a slow game held it for its player: a bot's now
            room.rev += 1
            payload = pack(Published(k="room", room=room_id, data=room.summary(self.base_url)))
            fields = {"seats": msgspec.json.encode(room.seats).decode(), "active_at": str(now_ms())}
            if await self.store.write_meta(
                room_id,
                expected_rev=room.rev - 1,
                fields=fields,
                payload=payload,
                status=room.status,
            ):
                await self.store.clear_seat_presence(room_id, seat)
                await self.store.seat_users(room_id, {before.user: False}, now_ms())
                await self.listing.changed(room)
                if room.status == LOBBY:
                    await self.touch_lobby(room_id)
                else:
                    self.hooks.turn(room_id)  # the bot plays now if the seat owes a move
                return room, before
        raise RoomError(p.BUSY, "the room is busy; try again")

    # -- the game -----------------------------------------------------------------------
    async def start(self, room_id: str, user_id: str) -> Room:
        """Deal: version 1, status playing. A compare-and-set on the lobby revision, so a
        seat change racing the start makes the start retry (and re-check the seats)."""
        held = False  # a place among the host's games of bots only
        for _ in range(RETRIES):
            room = await self.reader.get(room_id)
            check_host(room, user_id)
            if room.status != LOBBY:
                raise RoomError(p.GAME_STARTED, "the game has started")
            if any(s.empty for s in room.seats):
                raise RoomError(p.SEATS_EMPTY, "every seat needs a player or a bot")
            if not all(s.ready for s in room.seats if s.bot is None):
                raise RoomError(p.NOT_READY, "every player must be ready")
            if self.quotas is not None:
                seats = [msgspec.to_builtins(s) for s in room.seats]
                held = await self.quotas.take_bot_game(user_id, room_id, seats) or held
            game = room.game
            server_seed = _committed_seed(room)
            # Bots, and players who sent none, get the server's bytes for their seat: fixed
            # by the commitment, not drawn now that the players' bytes are known.
            sent = [s.entropy if s.bot is None else None for s in room.seats]
            contributions = seeding.contributions(server_seed, sent)
            for c in contributions:  # a device's signature of its bytes, when it signed them
                if c["by"] == seeding.PLAYER and room.seats[c["seat"]].entropy_sig is not None:
                    c["key"] = room.seats[c["seat"]].entropy_key
                    c["sig"] = room.seats[c["seat"]].entropy_sig
            seed = seeding.derive(server_seed, [bytes.fromhex(c["entropy"]) for c in contributions])
            # The options as stored: a room made before its game had editions of the rules
            # plays (and its record replays) edition 1 (docs/ENGINES.md).
            state = game.start(game.recorded_options(room.options), room.players, seed)
            room.seed = seed.hex()
            room.seed_digest = hashlib.sha256(seed).hexdigest()
            room.started_at = now_iso()
            room.contributions = contributions
            won = await self.steps.advance(
                room,
                state,
                kind=START,
                moves={},
                defaults=[],
                expected_rev=room.rev,
                extra={
                    "seed": room.seed,
                    "seed_digest": room.seed_digest,
                    "contributions": contributions,
                    "server_seed": room.server_seed,
                    "seed_commitment": room.seed_commitment,
                },
            )
            if won:
                self.hooks.started(room_id)
                return await self.reader.get(room_id)
        if held and self.quotas is not None:
            await self.quotas.release_bot_game(user_id, room_id)
        raise RoomError(p.BUSY, "the room is busy; try again")


def _server_seed() -> dict[str, str]:
    """A new room's server seed and the commitment it publishes (server/table/seeding.py)."""
    server_seed = secrets.token_bytes(seeding.SIZE)
    return {"server_seed": server_seed.hex(), "seed_commitment": seeding.commitment(server_seed)}


def _committed_seed(room: Room) -> bytes:
    """The room's server seed, which must match the commitment it published when it was set
    up: a room without one cannot start (no commitment, no game)."""
    if room.server_seed is None or room.seed_commitment is None:
        raise RoomError(
            p.NO_COMMITMENT,
            "this room published no seed commitment before the players contributed: "
            "set up a new room",
        )
    server_seed = bytes.fromhex(room.server_seed)
    if seeding.commitment(server_seed) != room.seed_commitment:
        raise RoomError(p.NO_COMMITMENT, "this room's server seed does not match its commitment")
    return server_seed
