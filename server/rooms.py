"""The room service: create, sit, start, step -- the only caller of the engines' ``step``.

Every change goes through Redis (server/store.py) as a compare-and-set and is retried on a
lost race with the fresh room, so any node may serve any room and nothing lives only in a
node's memory. Players, bots and the clock (server/clock.py) all reach the game through
``act``, ``play_default`` and the sealed-phase service (server/reveal.py), with the same
checks.

Deadlines: when a step opens a prompt and the room has a deadline for it, the writer puts
it on the clock (before writing: see ``advance``), stores the due time (epoch ms) with the
state (``deadline``) and publishes it in the entry. The version's winner computed it once;
that is the time every client is shown and the clock goes by.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec

from engines.core import BadOptions, MoveError, Prompt
from engines.registry import GAMES, AnyGame
from server import protocol as p
from server import room_codes, seeding
from server.bot_names import bot_name
from server.entry import (
    ABANDON,
    MOVE,
    START,
    TAKEBACK,
    Entry,
    Published,
    from_fields,
    now_iso,
    pack,
    step_notice,
    to_fields,
)
from server.record import build_record
from server.store import Store, member

if TYPE_CHECKING:
    from server.quotas import Quotas

DEADLINE_KINDS = ("move", "commit", "reveal")  # an open move, a sealed commit, an opening
MAX_DEADLINE = 30 * 24 * 3600.0  # seconds: a month (slow games set none at all)
ABSENT_MODES = ("bot", "default")  # who plays a seat whose player is gone past the grace

log = logging.getLogger("tortuga.rooms")

LOBBY = "lobby"
PLAYING = "playing"
FINISHED = "finished"
ABANDONED = "abandoned"

RETRIES = 50  # lost compare-and-set races before giving up (``busy``)
SEAL_DEFAULT = "default"  # the commitment recorded for a seat that missed its commit deadline
MY_ROOMS_LISTED = 50  # rooms in a user's "my rooms"


class _Unset:
    """``advance``'s deadline when the writer does not choose it (computed from the room)."""


UNSET = _Unset()


class RoomError(Exception):
    """A refused request: ``code`` is one of server/protocol.py's error codes."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class SeatInfo(msgspec.Struct, kw_only=True):
    """Who sits in a seat: a user, a bot, or nobody (all None)."""

    user: str | None = None
    name: str | None = None
    bot: str | None = None
    ready: bool = False
    # The seat's contribution to the deal seed (hex of 32 bytes, sent with ``ready``);
    # never shown before the start (server/seeding.py).
    entropy: str | None = None

    @property
    def empty(self) -> bool:
        return self.user is None and self.bot is None


@dataclass(slots=True)
class Room:
    """A room as read from its Redis hash."""

    id: str
    engine: str
    options: dict[str, Any]
    players: int
    public: bool
    spectators: bool
    deadlines: dict[str, Any]
    takeback: bool
    host: str
    status: str
    version: int
    rev: int
    seats: list[SeatInfo]
    created_at: str
    started_at: str | None = None
    ended_at: str | None = None
    state: bytes | None = None
    seed: str | None = None
    seed_digest: str | None = None
    # The deal seed's inputs (server/seeding.py): the server seed (secret until the game is
    # over), its commitment (published when the room is set up) and, from the start, every
    # seat's contribution ``{seat, entropy, by}``.
    server_seed: str | None = None
    seed_commitment: str | None = None
    contributions: list[dict[str, Any]] | None = None
    absent: str = "bot"
    deadline: int | None = None  # epoch ms: when the prompt of this version times out
    paused_at: int | None = None  # epoch ms: an admin paused the room's clocks (server/admin/)
    game_no: int = 0  # the room's game (1 once dealt): its archive id is ``<room>-<n>``
    archived: bool = False  # the game's final record is on the archive stream
    ended_reason: str | None = None  # abandoned games: "host" or "idle"
    abandoned_by: int | None = None  # the seat whose player ended the game under way
    host_name: str = ""  # the host's name when the room was made
    connected: set[int] = field(default_factory=set)
    away: set[int] = field(default_factory=set)  # seats taken over after the grace time

    @property
    def game(self) -> AnyGame:
        return GAMES[self.engine]

    def seat_of(self, user_id: str) -> int | None:
        for i, seat in enumerate(self.seats):
            if seat.user == user_id:
                return i
        return None

    @property
    def game_id(self) -> str | None:
        """The archive id of the room's game (None before the deal)."""
        return f"{self.id}-{self.game_no}" if self.game_no else None

    def users(self) -> set[str]:
        """The users seated here."""
        return {s.user for s in self.seats if s.user is not None}

    def summary(self, base_url: str = "") -> dict[str, Any]:
        """What anyone may know about the room (no state, no seed before the end)."""
        return {
            "id": self.id,
            "game": self.engine,
            "title": self.game.title,
            "options": self.options,
            "players": self.players,
            "public": self.public,
            "spectators": self.spectators,
            "deadlines": self.deadlines,
            "absent": self.absent,
            "takeback": self.takeback,
            "host": self.host,
            "status": self.status,
            "paused": self.paused_at is not None,  # an admin stopped the clocks
            "version": self.version,
            "game_id": self.game_id,
            "invite": f"{base_url}/r/{self.id}",
            "created_at": self.created_at,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "seed_digest": self.seed_digest,
            "seed": self.seed if self.status in (FINISHED, ABANDONED) else None,
            "seed_commitment": self.seed_commitment,
            "server_seed": self.server_seed if self.status in (FINISHED, ABANDONED) else None,
            "contributions": self.contributions,
            "reason": self.ended_reason,
            "seats": [
                {
                    "seat": i,
                    "user": s.user,
                    "name": s.name,
                    "bot": s.bot,
                    "ready": s.ready,
                    "contributed": s.entropy is not None,
                    "connected": s.bot is not None or i in self.connected,
                    "away": i in self.away,
                }
                for i, s in enumerate(self.seats)
            ],
        }


_seats_codec = msgspec.json.Decoder(list[SeatInfo])


def parse_room(raw: Mapping[str, bytes], presence: Mapping[str, str] | None = None) -> Room:
    def text(name: str, default: str | None = None) -> str | None:
        value = raw.get(name)
        return value.decode() if value is not None else default

    connected, away = seats_present(presence or {})
    return Room(
        id=text("id") or "",
        engine=text("engine") or "",
        options=json.loads(raw["options"]),
        players=int(raw["players"]),
        public=raw.get("public") == b"1",
        spectators=raw.get("spectators") == b"1",
        deadlines=json.loads(raw.get("deadlines", b"{}")),
        takeback=raw.get("takeback") == b"1",
        host=text("host") or "",
        status=text("status") or LOBBY,
        version=int(raw.get("version", b"0")),
        rev=int(raw.get("rev", b"0")),
        seats=_seats_codec.decode(raw["seats"]),
        created_at=text("created_at") or "",
        started_at=text("started_at") or None,
        ended_at=text("ended_at") or None,
        state=raw.get("state") or None,
        seed=text("seed") or None,
        seed_digest=text("seed_digest") or None,
        server_seed=text("server_seed") or None,
        seed_commitment=text("seed_commitment") or None,
        contributions=json.loads(raw["contributions"]) if raw.get("contributions") else None,
        absent=text("absent") or "bot",
        deadline=int(raw["deadline"]) if raw.get("deadline") else None,
        paused_at=int(raw["paused_at"]) if raw.get("paused_at") else None,
        game_no=int(raw.get("game_no") or b"0"),
        archived=raw.get("archived") == b"1",
        ended_reason=text("ended_reason") or None,
        abandoned_by=int(raw["abandoned_by"]) if raw.get("abandoned_by") else None,
        host_name=text("host_name") or "",
        connected=connected,
        away=away,
    )


def is_socket(field_name: str) -> bool:
    """A presence field naming a socket (not ``drop:<seat>`` / ``away:<seat>``)."""
    return not field_name.startswith(("drop:", "away:"))


def seats_present(presence: Mapping[str, str]) -> tuple[set[int], set[int]]:
    """The seats with at least one socket, and the seats taken over (away)."""
    connected = {int(v) for k, v in presence.items() if is_socket(k) and v != "-"}
    away = {int(k[5:]) for k in presence if k.startswith("away:")}
    return connected, away


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


def now_ms() -> int:
    return int(time.time() * 1000)


def phase_name(prompt: Prompt, version: int) -> str:
    """A sealed phase is named by its prompt kind and the version it stands at: ``bid@7``."""
    return f"{prompt.kind}@{version}"


@dataclass(frozen=True, slots=True)
class NewRoom:
    """What a host asks for (checked by ``RoomService.create``)."""

    game: str
    options: dict[str, Any]
    players: int
    public: bool = True
    spectators: bool = True
    deadlines: dict[str, Any] = field(default_factory=dict)
    takeback: bool = False
    absent: str = "bot"  # a seat gone past the grace time: "bot" plays it, or "default"


Hook = Callable[[str], None]


class RoomService:
    """Every room operation, on top of the store. ``on_turn`` hooks run (with the room id)
    whenever a seat may owe something new: the game started, a step was written, a sealed
    phase opened, a seat was taken over. Bots listen there. ``on_started`` hooks run once
    when the game is dealt, ``on_seat_dropped`` ones when a seat's last socket left (the
    clock listens to both, for the grace time), ``on_visit`` ones when a socket joins (the
    clock re-arms what a node that died may have left undone). ``before_step`` hooks name
    the clock members (name, due ms) a step about to be written will need (bots' rescues)."""

    def __init__(
        self,
        store: Store,
        *,
        base_url: str = "",
        room_ttl: int = 0,
        chat_keep: int = 50,
        archive_every: int = 50,
        archive_rescue: float = 5.0,
        lease: float = 15.0,
        lobby_idle: int = 0,
        quotas: Quotas | None = None,
    ) -> None:
        self.store = store
        self.lobby_idle = lobby_idle  # seconds a lobby with no change and no socket lives
        self.quotas = quotas
        self.base_url = base_url
        self.room_ttl = room_ttl
        self.chat_keep = chat_keep
        self.archive_every = archive_every
        self.archive_rescue_ms = int(archive_rescue * 1000)
        self.lease_ms = int(lease * 1000)
        self.on_turn: list[Hook] = []
        self.on_started: list[Hook] = []
        self.on_visit: list[Hook] = []
        self.before_step: list[Callable[[Room, Any, int], list[tuple[str, int]]]] = []
        self.on_seat_dropped: list[Callable[[str, int, float], None]] = []

    # -- reading ------------------------------------------------------------------------
    async def get(self, room_id: str, *, presence: bool = False) -> Room:
        seen: dict[str, str] | None = None
        if presence:
            raw, seen = await self.store.load_room_and_presence(room_id)
        else:
            raw = await self.store.load_room(room_id)
        if raw is None or "engine" not in raw:
            raise RoomError(p.NO_SUCH_ROOM, "there is no such room")
        return parse_room(raw, seen)

    async def find(self, code: str, *, presence: bool = False) -> Room:
        """The room a person's code names: as written, else (typed in lower case or in
        groups, ``k7qx-mh4p``) its canonical form (server/room_codes.py)."""
        for candidate in room_codes.spoken_forms(code):
            try:
                return await self.get(candidate, presence=presence)
            except RoomError:
                continue
        raise RoomError(p.NO_SUCH_ROOM, "there is no such room")

    async def list_public(self, limit: int) -> list[dict[str, Any]]:
        out = []
        for room_id in await self.store.list_open(limit):
            try:
                room = await self.get(room_id, presence=True)
            except RoomError:
                await self.store.set_open(room_id, None)
                continue
            out.append(room.summary(self.base_url))
        return out

    # -- creating -----------------------------------------------------------------------
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
        if self.quotas is not None:
            await self.quotas.check_new_room(host_id)
        for _ in range(5):
            room_id = room_codes.new_code(private=not ask.public)
            fields = {
                "engine": game.id,
                "options": json.dumps(normal),
                "players": str(ask.players),
                "public": "1" if ask.public else "0",
                "spectators": "1" if ask.spectators else "0",
                "deadlines": json.dumps(deadlines),
                "absent": ask.absent,
                "takeback": "1" if ask.takeback else "0",
                "host": host_id,
                "host_name": host_name,
                "status": LOBBY,
                "version": "0",
                "rev": "0",
                "seats": msgspec.json.encode(seats).decode(),
                "created_at": now_iso(),
                **_server_seed(),
            }
            if await self.store.create_room(room_id, fields):
                await self.touch_lobby(room_id)
                if self.quotas is not None:
                    await self.quotas.note_room(host_id, room_id)
                room = await self.get(room_id)
                log.info("room created", extra={"room": room_id, "engine": game.id})
                await self._list_changed(room)
                return room
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
            room = await self.get(room_id, presence=True)
            if room.status != LOBBY:
                raise RoomError(p.GAME_STARTED, "the game has started")
            before = room.users()
            change(room)
            room.rev += 1
            payload = pack(Published(k="room", room=room_id, data=room.summary(self.base_url)))
            seats = msgspec.json.encode(room.seats).decode()
            if await self.store.write_meta(
                room_id, expected_rev=room.rev - 1, fields={"seats": seats}, payload=payload
            ):
                after = room.users()
                seated = {u: True for u in after} | {u: False for u in before - after}
                await self.store.seat_users(room_id, seated, now_ms())
                await self.touch_lobby(room_id)
                await self._list_changed(room)
                return room
        raise RoomError(p.BUSY, "the room is busy; try again")

    async def sit(self, room_id: str, user_id: str, name: str, seat: int) -> Room:
        def change(room: Room) -> None:
            _check_seat(room, seat)
            if room.seats[seat].user == user_id:
                return
            if not room.seats[seat].empty:
                raise RoomError(p.SEAT_TAKEN, f"seat {seat} is taken")
            old = room.seat_of(user_id)
            if old is not None:
                room.seats[old] = SeatInfo()
            room.seats[seat] = SeatInfo(user=user_id, name=name)

        return await self._lobby_change(room_id, change)

    async def stand(self, room_id: str, user_id: str) -> Room:
        def change(room: Room) -> None:
            seat = room.seat_of(user_id)
            if seat is None:
                raise RoomError(p.NOT_SEATED, "you have no seat here")
            room.seats[seat] = SeatInfo()

        return await self._lobby_change(room_id, change)

    async def ready(
        self, room_id: str, user_id: str, ready: bool, entropy: str | None = None
    ) -> Room:
        """Mark the seat ready (or not); ``entropy``: the player's contribution to the deal
        seed (the latest one sent counts)."""
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

        return await self._lobby_change(room_id, change)

    async def add_bot(self, room_id: str, user_id: str, seat: int, level: str) -> Room:
        def change(room: Room) -> None:
            _check_host(room, user_id)
            _check_seat(room, seat)
            if level not in room.game.bot_levels:
                levels = ", ".join(room.game.bot_levels)
                raise RoomError(p.BAD_BOT_LEVEL, f"bot levels: {levels}")
            if not room.seats[seat].empty:
                raise RoomError(p.SEAT_TAKEN, f"seat {seat} is taken")
            taken = {s.name for s in room.seats if s.name}
            room.seats[seat] = SeatInfo(name=bot_name(seat, taken), bot=level, ready=True)

        return await self._lobby_change(room_id, change)

    async def remove_bot(self, room_id: str, user_id: str, seat: int) -> Room:
        def change(room: Room) -> None:
            _check_host(room, user_id)
            _check_seat(room, seat)
            if room.seats[seat].bot is None:
                raise RoomError(p.NOT_A_BOT, f"seat {seat} is not a bot")
            room.seats[seat] = SeatInfo()

        return await self._lobby_change(room_id, change)

    async def kick(self, room_id: str, user_id: str, seat: int) -> Room:
        def change(room: Room) -> None:
            _check_host(room, user_id)
            _check_seat(room, seat)
            if room.seats[seat].empty:
                raise RoomError(p.SEAT_EMPTY, f"seat {seat} is empty")
            if room.seats[seat].user == user_id:
                raise RoomError(p.CANNOT_KICK_SELF, "the host cannot kick their own seat")
            room.seats[seat] = SeatInfo()

        return await self._lobby_change(room_id, change)

    # -- the game -----------------------------------------------------------------------
    async def start(self, room_id: str, user_id: str) -> Room:
        """Deal: version 1, status playing. A compare-and-set on the lobby revision, so a
        seat change racing the start makes the start retry (and re-check the seats)."""
        for _ in range(RETRIES):
            room = await self.get(room_id)
            _check_host(room, user_id)
            if room.status != LOBBY:
                raise RoomError(p.GAME_STARTED, "the game has started")
            if any(s.empty for s in room.seats):
                raise RoomError(p.SEATS_EMPTY, "every seat needs a player or a bot")
            if not all(s.ready for s in room.seats if s.bot is None):
                raise RoomError(p.NOT_READY, "every player must be ready")
            if self.quotas is not None:
                seats = [msgspec.to_builtins(s) for s in room.seats]
                await self.quotas.check_bot_game(user_id, room_id, seats)
            game = room.game
            if room.server_seed is None:  # a room set up before seeds were committed
                fresh = _server_seed()
                room.server_seed = fresh["server_seed"]
                room.seed_commitment = fresh["seed_commitment"]
            contributions = _contributions(room.seats)
            seed = seeding.derive(
                bytes.fromhex(room.server_seed),
                [bytes.fromhex(c["entropy"]) for c in contributions],
            )
            state = game.start(game.options(room.options), room.players, seed)
            room.seed = seed.hex()
            room.seed_digest = hashlib.sha256(seed).hexdigest()
            room.started_at = now_iso()
            room.contributions = contributions
            won = await self.advance(
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
                for hook in self.on_started:
                    hook(room_id)
                return await self.get(room_id)
        raise RoomError(p.BUSY, "the room is busy; try again")

    async def act(
        self,
        room_id: str,
        seat: int,
        move_json: Any,
        version: int | None = None,
        *,
        proxy: bool = False,
    ) -> int:
        """One open move by ``seat``; the version it produced. The engine checks it against
        the fresh state on every try: a lost race is retried unless the mover named the
        version it saw (then ``stale-version``). ``proxy``: a stand-in (the grace-time bot)
        moves for the seat's absent player; the step lists the seat in ``proxies``."""
        for _ in range(RETRIES):
            room = await self.get(room_id)
            game, state = playing(room)
            if version is not None and version != room.version:
                raise RoomError(p.STALE_VERSION, f"the room is at version {room.version}")
            prompt = game.prompt(state)
            if prompt.sealed and seat in prompt.seats:
                raise RoomError(p.SEALED_PHASE, "this phase is sealed: commit, then reveal")
            try:
                move = game.decode_move(move_json)
                game.validate(state, seat, move)
                new = game.step(state, {seat: move})
            except MoveError as exc:
                raise RoomError(exc.code, exc.message) from None
            moves = {str(seat): move.to_json()}
            proxies = [seat] if proxy else []
            if await self.advance(room, new, kind=MOVE, moves=moves, defaults=[], proxies=proxies):
                return room.version + 1
            if version is not None:
                raise RoomError(p.STALE_VERSION, "another move came first")
        raise RoomError(p.BUSY, "the room is busy; try again")

    async def play_default(
        self, room_id: str, seat: int, version: int, *, proxy: bool = False
    ) -> bool:
        """The hook for deadlines (the clock) and absent players: the engine's default
        move for ``seat`` at ``version`` of an open prompt. False if the moment has passed
        (the version moved, the game ended, or the seat owes nothing). Sealed prompts:
        ``server.reveal.Sealing.default``. ``proxy``: made because the player is away
        (``absent: "default"``), listed in ``proxies`` as well as ``defaults``."""
        room = await self.get(room_id)
        if room.status != PLAYING or room.state is None:
            return False
        game, state = playing(room)
        prompt = game.prompt(state)
        if room.version != version or prompt.sealed or seat not in prompt.seats:
            return False
        move = game.default(state, seat)
        new = game.step(state, {seat: move})
        moves = {str(seat): move.to_json()}
        proxies = [seat] if proxy else []
        return await self.advance(
            room, new, kind=MOVE, moves=moves, defaults=[seat], proxies=proxies
        )

    async def takeback(self, room_id: str, seat: int, version: int) -> int:
        """``seat`` takes back its open move that produced ``version``: a new version whose
        state is the one before that move (versions only grow). Allowed only in a room that
        allows it, while ``version`` is still the latest (nobody acted since), for the
        seat's own open move (not a default, not a stand-in's, not a sealed resolution),
        and when the move revealed nothing new to anyone (``reveals_nothing``). The
        prompt's deadline is the one the state had before the move: taking back does not
        buy time. The version written."""
        room = await self.get(room_id)
        if not room.takeback:
            raise RoomError(p.TAKEBACK_OFF, "this room does not allow taking moves back")
        game, state = playing(room)
        if version != room.version:
            raise RoomError(p.TAKEBACK_TOO_LATE, "the game has moved on since that move")
        if version < 2:
            raise RoomError(p.TAKEBACK_NOT_YOURS, "the deal is nobody's move")
        entries = dict(await self.store.log_range(room_id, version - 1, version))
        if version - 1 not in entries or version not in entries:
            raise RoomError(p.TAKEBACK_TOO_LATE, "that move is no longer in the log")
        before, last = from_fields(entries[version - 1]), from_fields(entries[version])
        if last.kind != MOVE or last.seats != [seat] or last.defaults or last.proxies:
            raise RoomError(p.TAKEBACK_NOT_YOURS, "the last step was not a move you made")
        prompt = game.prompt(state)
        if prompt.sealed:
            seal = await self.store.load_seal(room_id)
            if seal.get("phase") == phase_name(prompt, version) and seal.get("commits", "0") != "0":
                raise RoomError(p.TAKEBACK_TOO_LATE, "someone has acted since that move")
        restored = game.decode(before.state)
        if not reveals_nothing(game, restored, state, seat, room.players):
            raise RoomError(p.TAKEBACK_REVEALS, "that move revealed something new: it stands")
        if not await self.advance(
            room,
            restored,
            kind=TAKEBACK,
            moves={},
            defaults=[],
            seats=[seat],
            undoes=version,
            deadline=before.deadline,
        ):
            raise RoomError(p.TAKEBACK_TOO_LATE, "someone acted first")
        return version + 1

    async def advance(
        self,
        room: Room,
        state: Any,
        *,
        kind: str,
        moves: dict[str, Any],
        defaults: list[int],
        proxies: list[int] | None = None,
        seats: list[int] | None = None,
        undoes: int | None = None,
        deadline: int | _Unset | None = UNSET,
        expected_rev: int | None = None,
        extra: dict[str, Any] | None = None,
    ) -> bool:
        """Write the state after ``room.version`` (compare-and-set); True if this call won.

        The deadline of the prompt the step opens (if the room has one for it; or the one
        given: a take-back restores the deadline the state had) and the ``before_step``
        members go on the clock first; the winner announces the turn (bots), keeps the
        seated users' "my rooms" in order, and when the game is over it reveals the seed
        and puts the game's record on the archive stream."""
        game = room.game
        extra = dict(extra or {})
        version = room.version + 1
        outcome = game.outcome(state)
        status = FINISHED if outcome is not None else PLAYING
        blob = game.encode(state)
        due: int | None = None
        clock_kind = ""
        # Bots are told of the turn only when the new prompt is theirs: a bot seat owes
        # something, or a seat that owes is taken over (the write says: ``away_seats``).
        # At a table of people who are all here, a step starts no bot work at all.
        bots_owe = False
        away_seats: list[int] = []
        if status == PLAYING:
            prompt = game.prompt(state)
            bots_owe = any(room.seats[s].bot is not None for s in prompt.seats)
            away_seats = [] if bots_owe else list(prompt.seats)
            clock_kind = "commit" if prompt.sealed else "move"
            seconds = room.deadlines.get(clock_kind)
            if not isinstance(deadline, _Unset):
                due = deadline
            elif seconds and not prompt.over:
                due = now_ms() + int(seconds * 1000)
        fields: dict[str, bytes | str] = {
            "version": str(version),
            "state": blob,
            "status": status,
            "deadline": "" if due is None else str(due),
        }
        if kind == START:
            fields.update(
                started_at=room.started_at or now_iso(),
                seed=extra["seed"],
                seed_digest=extra["seed_digest"],
                server_seed=extra["server_seed"],
                seed_commitment=extra["seed_commitment"],
                contributions=json.dumps(extra["contributions"], separators=(",", ":")),
                game_no="1",
            )
        seed = extra.pop("seed", None)
        if status == FINISHED:
            seed = room.seed or seed
            fields["ended_at"] = now_iso()
        entry = Entry(
            room=room.id,
            engine=room.engine,
            version=version,
            kind=kind,
            seats=seats if seats is not None else sorted(int(s) for s in moves),
            moves=moves,
            defaults=defaults,
            proxies=sorted(proxies or []),
            at=now_iso(),
            state=blob,
            status=status,
            phase=extra.get("phase"),
            salts=extra.get("salts"),
            opened=extra.get("opened"),
            private=bool(extra.get("private")),
            seed_digest=extra.get("seed_digest"),
            seed=seed if status == FINISHED else None,
            server_seed=room.server_seed if status == FINISHED else None,
            contributions=extra.get("contributions"),
            seed_commitment=extra.get("seed_commitment"),
            deadline=due,
            undoes=undoes,
            game_id=f"{room.id}-{room.game_no or 1}"
            if kind == START or status == FINISHED
            else None,
        )
        # What this step will need later goes on the clock before the step exists, so that
        # it is there even if this node dies right after winning. An attempt that loses the
        # race (or is never written) leaves a member that fires as a no-op.
        # When the step ends the game, that includes the rescue of its final record
        # (``_archive_end``).
        later = [(member(clock_kind, room.id, version), due)] if due is not None else []
        rescue = self._archive_member(room.id, version)
        if status == PLAYING:
            for hook in self.before_step:
                later.extend(hook(room, state, version))
        else:
            later.append(rescue)
        if later:
            await self.store.schedule_many(later)
        won = await self.store.write_step(
            room.id,
            expected_version=room.version,
            expected_rev=expected_rev,
            fields=fields,
            log_fields=to_fields(entry),
            new_version=version,
            payload=step_notice(room.id, version),
            ttl=self.room_ttl if status == FINISHED else 0,
            away_seats=away_seats,
        )
        if not won:
            return False
        log.info(
            "step",
            extra={"room": room.id, "version": version, "kind": kind, "seats": entry.seats},
        )
        if kind == START or status == FINISHED:
            await self._list_changed(await self.get(room.id))
        await self.store.seat_users(
            room.id, {u: status != FINISHED for u in room.users()}, now_ms()
        )
        if status == FINISHED:
            await self._archive_end(rescue)
        else:
            if self._checkpoint(game, state, version):
                await self._archive(room.id, checkpoint=version)
            if bots_owe or won == 2:
                self.turn(room.id)
        return True

    def _checkpoint(self, game: AnyGame, state: Any, version: int) -> bool:
        """Whether the game under way is archived progressively at ``version`` (a "playing"
        record): when the new state opens a sealed prompt (a natural break: in Skull King
        each round's bids, so each round end), and at least every ``archive_every``
        versions. The server knows no rules: only the prompt and the version."""
        if self.archive_every > 0 and version % self.archive_every == 0:
            return True
        return game.prompt(state).sealed

    async def abandon(self, room_id: str, user_id: str | None, reason: str) -> Room:
        """End the game under way without finishing it: status ``abandoned``, a last
        version (kind ``abandon``, the state unchanged) that every socket receives with
        the seed revealed, and the record on the archive stream marked so. ``user_id``: the
        host asking (``reason`` "host"); None: the clock (``reason`` "idle")."""
        for _ in range(RETRIES):
            room = await self.get(room_id)
            if user_id is not None:
                _check_host(room, user_id)
            playing(room)
            # A seated host who ends the game under way takes it as their loss (ratings).
            quitter = room.seat_of(user_id) if user_id is not None else None
            version = room.version + 1
            blob = room.state or b""
            ended = now_iso()
            rescue = self._archive_member(room.id, version)
            await self.store.schedule_many([rescue])  # before the write: see ``_archive_end``
            entry = Entry(
                room=room.id,
                engine=room.engine,
                version=version,
                kind=ABANDON,
                seats=[],
                moves={},
                defaults=[],
                at=ended,
                state=blob,
                status=ABANDONED,
                seed=room.seed,
                server_seed=room.server_seed,
                game_id=room.game_id,
                reason=reason,
            )
            won = await self.store.write_step(
                room.id,
                expected_version=room.version,
                expected_rev=None,
                fields={
                    "version": str(version),
                    "status": ABANDONED,
                    "ended_at": ended,
                    "ended_reason": reason,
                    "abandoned_by": "" if quitter is None else str(quitter),
                    "deadline": "",
                },
                log_fields=to_fields(entry),
                new_version=version,
                payload=step_notice(room.id, version),
                ttl=self.room_ttl,
            )
            if not won:
                continue
            log.info("abandoned", extra={"room": room.id, "version": version, "kind": reason})
            await self._list_changed(await self.get(room.id))
            await self.store.seat_users(room.id, {u: False for u in room.users()}, now_ms())
            await self._archive_end(rescue)
            return await self.get(room.id)
        raise RoomError(p.BUSY, "the room is busy; try again")

    def turn(self, room_id: str) -> None:
        """Tell the listeners (bots) that seats of ``room_id`` may owe a move."""
        for hook in self.on_turn:
            hook(room_id)

    def visit(self, room_id: str) -> None:
        """A socket joined ``room_id``: a safety net for triggers lost with a dead node --
        the clock re-arms the current deadline and, where bots or stand-ins play, tells
        the bots (``Clock.arm``)."""
        for hook in self.on_visit:
            hook(room_id)

    def _archive_member(self, room_id: str, version: int) -> tuple[str, int]:
        """The clock member that puts the final record on the archive stream if the node
        that ended the game at ``version`` dies first (``archive|<room>|<version>``), and
        when it is due."""
        return member("archive", room_id, version), now_ms() + self.archive_rescue_ms

    async def _archive_end(self, rescue: tuple[str, int]) -> None:
        """The winner of the game's last version (finished or abandoned) archives it.

        The stream is in another slot than the room (Redis Cluster), so the final record
        cannot be written by the step's script. Instead the step's writer put ``rescue``
        (``archive|<room>|<version>``, due ``archive_rescue_seconds`` later) on the clock
        before writing: if this node dies before the record is on the stream, any node's
        clock writes it (``archive_overdue``). Here the writer first takes that member
        (leases it to itself, as a claim would) so that no clock writes the record while
        it does; if a clock claimed it first (this node stalled past its due time), the
        record is that clock's to write. Then the record, ``archived=1``, and the member
        goes. (A racing attempt at the same version added it first: its earlier score
        still counts as unclaimed.)"""
        name, due = rescue
        room_id = name.split("|")[1]
        lease_end = now_ms() + self.lease_ms
        if not await self.store.take(name, due, lease_end):
            log.warning("final record left to the clock", extra={"room": room_id})
            return
        await self._archive(room_id)
        await self.store.done(self.store.keys.clock_of(name), name, lease_end)

    async def archive_overdue(self, room_id: str, version: int) -> bool:
        """The clock's ``archive|<room>|<version>`` member came due: the node that ended
        the game at ``version`` died (or stalled) before its final record was on the
        archive stream. Rebuild the record from the room and its log and put it there.
        False if there is nothing to do: the game did not end at ``version`` (the member of
        an attempt that lost its race) or its record is there (``archived``)."""
        room = await self.get(room_id)
        over = room.status in (FINISHED, ABANDONED)
        if not over or room.version != version or room.archived:
            return False
        await self._archive(room_id)
        log.warning("final record written by the clock", extra={"room": room_id})
        return True

    async def _archive(self, room_id: str, checkpoint: int | None = None) -> None:
        """The game's record onto the archive stream: the whole game once it is over
        (finished or abandoned; then ``archived=1`` on the room), or a "playing" record at
        the checkpoint version ``checkpoint`` (no seed, no outcome, the events up to it --
        the game may have moved on meanwhile; if it ended, its final record is the one that
        counts). A duplicate is harmless (the archiver's writes are upserts by game id) but
        the final one is written once in effect: see ``_archive_end``."""
        room = await self.get(room_id)
        if checkpoint is not None and room.status != PLAYING:
            return
        entries = await self.store.log_range(room_id, 1, checkpoint or room.version)
        record = build_record(room, [e for _, e in entries])
        await self.store.archive(json.dumps(record, separators=(",", ":")).encode())
        if room.status in (FINISHED, ABANDONED):
            await self.store.set_fields(room_id, {"archived": "1"})
        log.info("archived", extra={"room": room_id, "version": room.version, "kind": room.status})

    # -- presence -----------------------------------------------------------------------
    async def arrive(self, room_id: str, conn_id: str, seat: int | None) -> None:
        await self.store.presence(room_id, conn_id, seat, joining=True, at=time.time())
        await self.presence_changed(room_id)

    async def depart(self, room_id: str, conn_id: str, seat: int | None) -> None:
        """A socket left (or its node was found dead). When it was the seat's last one the
        seat's grace time starts: ``on_seat_dropped`` hooks run with the time."""
        at = time.time()
        left = await self.store.presence(room_id, conn_id, seat, joining=False, at=at)
        if left < 0:
            return  # already gone: a second reaper, or the reaper came first
        if seat is not None and left == 0:
            log.info("seat dropped", extra={"room": room_id, "seat": seat})
            for hook in self.on_seat_dropped:
                hook(room_id, seat, at)
        await self.presence_changed(room_id)

    async def take_over(self, room_id: str, seat: int, drop_stamp: str) -> bool:
        """The grace time of ``seat`` (dropped at ``drop_stamp``) is over: from now on the
        room's ``absent`` player (a bot, or the default move) plays it until its player
        returns. False if the player came back (or the seat was taken over already)."""
        if not await self.store.mark_away(room_id, seat, drop_stamp, time.time()):
            return False
        log.info("seat taken over", extra={"room": room_id, "seat": seat})
        await self.presence_changed(room_id)
        self.turn(room_id)
        return True

    async def presence_changed(self, room_id: str) -> None:
        seen = await self.store.load_presence(room_id)
        connected, away = seats_present(seen)
        watchers = sum(1 for k, v in seen.items() if is_socket(k) and v == "-")
        data = {"connected": sorted(connected), "watchers": watchers, "away": sorted(away)}
        payload = pack(Published(k="presence", room=room_id, data=data))
        await self.store.publish(self.store.keys.channel(room_id), payload)

    async def chat(self, room_id: str, user_id: str, name: str, text: str) -> None:
        """Publish a chat message and keep it among the room's last ``chat_keep``."""
        data = {"user": user_id, "name": name, "text": text, "at": now_iso()}
        payload = pack(Published(k="chat", room=room_id, data=data))
        kept = json.dumps(data, separators=(",", ":")).encode()
        if not await self.store.chat(room_id, kept, self.chat_keep, payload):
            raise RoomError(p.NO_SUCH_ROOM, "there is no such room")

    async def chat_history(self, room_id: str) -> list[dict[str, Any]]:
        """The room's recent chat, oldest first (what snapshots and resumes carry)."""
        out = []
        for raw in await self.store.chat_history(room_id):
            try:
                out.append(json.loads(raw))
            except ValueError:
                continue
        return out

    # -- whose move ---------------------------------------------------------------------
    async def turn_of(self, room: Room, user_id: str | None = None) -> dict[str, Any] | None:
        """Whose move it is in a game under way (None otherwise): the prompt's ``kind``,
        ``sealed`` and ``seats``; ``stage`` (``move``, or ``commit`` / ``reveal`` in a
        sealed phase), the seats that still ``owe`` something at this stage, the
        ``deadline`` (epoch ms) and, for ``user_id``, its ``seat`` and whether ``you`` owe."""
        if room.status != PLAYING or room.state is None:
            return None
        game = room.game
        prompt = game.prompt(game.decode(room.state))
        owe = list(prompt.seats)
        stage = "move"
        deadline = room.deadline
        if prompt.sealed:
            seal = await self.store.load_seal(room.id)
            same = seal.get("phase") == phase_name(prompt, room.version)
            if same and seal.get("open") == "1":
                stage = "reveal"
                owe = [
                    s
                    for s in prompt.seats
                    if f"r:{s}" not in seal and seal.get(f"c:{s}") != SEAL_DEFAULT
                ]
                deadline = int(seal["open_by"]) if seal.get("open_by") else None
            else:
                stage = "commit"
                owe = [s for s in prompt.seats if not (same and f"c:{s}" in seal)]
        seat = room.seat_of(user_id) if user_id is not None else None
        return {
            "kind": prompt.kind,
            "sealed": prompt.sealed,
            "seats": list(prompt.seats),
            "stage": stage,
            "owe": owe,
            "deadline": deadline,
            "seat": seat,
            "you": seat is not None and seat in owe,
        }

    async def my_rooms(self, user_id: str) -> list[dict[str, Any]]:
        """The rooms ``user_id`` sits in, in the lobby or playing, most recent activity
        first, each with whose move it is (``turn``) and the user's ``seat``. Rooms that
        are gone, over, or where the user no longer sits are dropped from the set."""
        out = []
        for room_id in await self.store.user_room_ids(user_id, MY_ROOMS_LISTED):
            try:
                room = await self.get(room_id, presence=True)
            except RoomError:
                room = None
            seat = room.seat_of(user_id) if room is not None else None
            if room is None or seat is None or room.status not in (LOBBY, PLAYING):
                await self.store.forget_user_room(user_id, room_id)
                continue
            item = room.summary(self.base_url)
            item["seat"] = seat
            item["turn"] = await self.turn_of(room, user_id)
            out.append(item)
        return out

    # -- the public room list -----------------------------------------------------------
    async def _list_changed(self, room: Room) -> None:
        if not room.public:
            return
        if room.status in (FINISHED, ABANDONED):
            await self.store.set_open(room.id, None)
            data: dict[str, Any] = {"removed": [room.id]}
        else:
            await self.store.set_open(room.id, list_score(room))
            data = {"changed": [room.summary(self.base_url)]}
        payload = pack(Published(k="rooms", data=data))
        await self.store.publish(self.store.keys.rooms_channel, payload)


def list_score(room: Room) -> float:
    """A public room's place in the list (highest first): rooms where humans wait for
    players (in the lobby, a human seated, a seat free) first, then games under way, then
    other lobbies (nobody seated yet, bots only, or full); newest first within each."""
    created = dt.datetime.fromisoformat(room.created_at).timestamp() if room.created_at else 0
    if room.status == LOBBY:
        humans = any(s.user is not None for s in room.seats)
        waiting = humans and any(s.empty for s in room.seats)
        tier = 2 if waiting else 0
    else:
        tier = 1
    return tier * 1e10 + created


def _server_seed() -> dict[str, str]:
    """A new room's server seed and the commitment it publishes (server/seeding.py)."""
    server_seed = secrets.token_bytes(seeding.SIZE)
    return {"server_seed": server_seed.hex(), "seed_commitment": seeding.commitment(server_seed)}


def _contributions(seats: list[SeatInfo]) -> list[dict[str, Any]]:
    """Every seat's contribution to the deal seed, in seat order: the one its player sent,
    else bytes the server draws (marked ``server``)."""
    out: list[dict[str, Any]] = []
    for i, seat in enumerate(seats):
        if seat.bot is None and seat.entropy is not None:
            out.append({"seat": i, "entropy": seat.entropy, "by": seeding.PLAYER})
        else:
            drawn = secrets.token_bytes(seeding.SIZE).hex()
            out.append({"seat": i, "entropy": drawn, "by": seeding.SERVER})
    return out


def reveals_nothing(game: AnyGame, before: Any, after: Any, mover: int, players: int) -> bool:
    """Whether the step ``before`` -> ``after`` by ``mover`` revealed nothing new to anyone
    but the card(s) the move itself showed (engine contract: ``hidden``, ``zones``).

    The mover learned nothing (their hidden set is the same: no card of another hand, the
    ghost's pile or the stock came into view, no new hand was dealt), and every other
    viewer (the other seats and a spectator) only learned cards that the mover could see
    and that the step moved -- the card played."""
    if game.hidden(before, mover) != game.hidden(after, mover):
        return False
    where = {c: z for z, cards in game.zones(before).items() for c in cards}
    now = {c: z for z, cards in game.zones(after).items() for c in cards}
    shown = {c for c, z in where.items() if now.get(c) != z} - game.hidden(before, mover)
    for viewer in [*range(players), None]:
        if viewer == mover:
            continue
        learned = game.hidden(before, viewer) - game.hidden(after, viewer)
        if not learned <= shown:
            return False
    return True


def playing(room: Room) -> tuple[AnyGame, Any]:
    """The game and its decoded state; RoomError unless the game is under way."""
    if room.status == LOBBY or room.state is None:
        raise RoomError(p.GAME_NOT_STARTED, "the game has not started")
    if room.status != PLAYING:
        raise RoomError(p.GAME_OVER, "the game is over")
    game = room.game
    return game, game.decode(room.state)


def _check_seat(room: Room, seat: int) -> None:
    if not 0 <= seat < room.players:
        raise RoomError(p.NO_SUCH_SEAT, f"seats are 0 to {room.players - 1}")


def _check_host(room: Room, user_id: str) -> None:
    if room.host != user_id:
        raise RoomError(p.NOT_HOST, "only the host may do that")
