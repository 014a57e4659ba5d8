"""A room: its shape in Redis (``Room``, ``SeatInfo``, ``parse_room``), its statuses,
the refusals every room operation raises (``RoomError``), reading it from the store
(``RoomReader``) and the hooks by which the rest of the node hears of it (``Hooks``).

No module here changes a room: the lobby's seats (server/table/seats.py), the steps
(server/table/steps.py), the end of a game (server/table/game_end.py), presence
(server/table/presence.py)
and chat (server/table/chat.py) do, each through server/redis/store.py. This module imports none of
them, so each of them (and the archive record, server/table/record.py) can import it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

from engines.core import Prompt
from engines.registry import GAMES, AnyGame
from server import protocol as p
from server.redis.store import Store
from server.table import room_codes
from server.table.entry import Entry

log = logging.getLogger("tortuga.rooms")

LOBBY = "lobby"
PLAYING = "playing"
FINISHED = "finished"
ABANDONED = "abandoned"

RETRIES = 50  # lost compare-and-set races before giving up (``busy``)
SEAL_DEFAULT = "default"  # the commitment recorded for a seat that missed its commit deadline


class RoomError(Exception):
    """A refused request: ``code`` is one of server/protocol/'s error codes."""

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
    # never shown before the start (server/table/seeding.py).
    entropy: str | None = None
    # Its device's key and signature of it (server/table/chain.py, kind ``entropy``), if
    # the player's client signed it.
    entropy_key: str | None = None
    entropy_sig: str | None = None
    # A player's bot account sits here (server/http/bots.py): the player who owns it.
    owner: str | None = None
    owner_name: str | None = None

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
    # The deal seed's inputs (server/table/seeding.py): the server seed (secret until the game is
    # over), its commitment (published when the room is set up) and, from the start, every
    # seat's contribution ``{seat, entropy, by}``.
    server_seed: str | None = None
    seed_commitment: str | None = None
    contributions: list[dict[str, Any]] | None = None
    absent: str = "bot"
    player_bots: bool = True  # players' bot accounts may sit here (the host's choice)
    deadline: int | None = None  # epoch ms: when the prompt of this version times out
    paused_at: int | None = None  # epoch ms: an admin paused the room's clocks (server/admin/)
    game_no: int = 0  # the room's game (1 once dealt): its archive id is ``<room>-<n>``
    archived: bool = False  # the game's final record is on the archive stream
    checkpoint: int = 0  # the version of the game's last "playing" record (0: none yet)
    ended_reason: str | None = None  # abandoned games: "host" or "idle"
    abandoned_by: int | None = None  # the seat whose player ended the game under way
    host_name: str = ""  # the host's name when the room was made
    connected: set[int] = field(default_factory=set)
    away: set[int] = field(default_factory=set)  # seats taken over after the grace time
    # Seats a slow game waits for past the grace time: their player is told by a push
    # (server/table/deadlines.py, ``Clock.fire``), and no stand-in plays them.
    held: set[int] = field(default_factory=set)
    active_at: int | None = None  # epoch ms of the last step, lobby change or chat message
    # Moderation (server/table/moderation.py): user id -> JSON ``{by, reason, at, ...}`` of the
    # users an operator banned from this room (fields ``ban:<user>``) or muted in it
    # (``mute:<user>``); the operators' announcement to this room (``announce``).
    banned: dict[str, str] = field(default_factory=dict)
    # address mark -> JSON ``{by, reason, at, user}``: a room ban's address (``banmark:<mark>``)
    banned_marks: dict[str, str] = field(default_factory=dict)
    muted: dict[str, str] = field(default_factory=dict)
    announcement: str | None = None
    # Admins looked at this game's hidden state (server/admin/routes.py, ``reveal``):
    # ``{count, at: [ISO times, the last INSPECTED_KEPT]}``, or None.
    inspected: dict[str, Any] | None = None
    # The head of the game's move chain (server/table/chain.py): the hash of its last event.
    head: str | None = None
    # "Play again": the room whose game this one follows, and the players of that game it
    # invites (their devices are pushed an invitation, server/archive/push.py).
    again_of: str | None = None
    invited: list[str] = field(default_factory=list)

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
            "player_bots": self.player_bots,
            "host": self.host,
            "status": self.status,
            "paused": self.paused_at is not None,  # an admin stopped the clocks
            "version": self.version,
            "game_id": self.game_id,
            "invite": f"{base_url}/r/{self.id}",
            "again_of": self.again_of,
            "created_at": self.created_at,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "seed_digest": self.seed_digest,
            "seed": self.seed if self.status in (FINISHED, ABANDONED) else None,
            "seed_commitment": self.seed_commitment,
            "server_seed": self.server_seed if self.status in (FINISHED, ABANDONED) else None,
            "contributions": self.contributions,
            "reason": self.ended_reason,
            # That an admin looked at this game's hidden state, how often and when: never
            # who, why or what (kept with the room, so a player who was away learns of it).
            "inspected": self.inspected,
            "seats": [
                {
                    "seat": i,
                    "user": s.user,
                    "name": s.name,
                    "bot": s.bot,
                    # a player's bot account: marked, with the player who owns it
                    "owner": {"id": s.owner, "name": s.owner_name} if s.owner else None,
                    "ready": s.ready,
                    "contributed": s.entropy is not None,
                    "connected": s.bot is not None or i in self.connected,
                    "away": i in self.away,
                    "held": i in self.held,
                }
                for i, s in enumerate(self.seats)
            ],
        }


_seats_codec = msgspec.json.Decoder(list[SeatInfo])
_json = msgspec.json.decode


def parse_room(raw: Mapping[str, bytes], presence: Mapping[str, str] | None = None) -> Room:
    def text(name: str, default: str | None = None) -> str | None:
        value = raw.get(name)
        return value.decode() if value is not None else default

    connected, away = seats_present(presence or {})
    held = seats_held(presence or {})
    # A set difference in C: only a hash with a field not of fixed name can hold a ban or mute.
    moderated = bool(raw.keys() - _PLAIN_FIELDS)
    return Room(
        id=text("id") or "",
        engine=text("engine") or "",
        options=_json(raw["options"]),
        players=int(raw["players"]),
        public=raw.get("public") == b"1",
        spectators=raw.get("spectators") == b"1",
        deadlines=_json(raw.get("deadlines", b"{}")),
        takeback=raw.get("takeback") == b"1",
        player_bots=raw.get("player_bots") != b"0",
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
        contributions=_json(raw["contributions"]) if raw.get("contributions") else None,
        absent=text("absent") or "bot",
        deadline=int(raw["deadline"]) if raw.get("deadline") else None,
        paused_at=int(raw["paused_at"]) if raw.get("paused_at") else None,
        game_no=int(raw.get("game_no") or b"0"),
        archived=raw.get("archived") == b"1",
        checkpoint=int(raw.get("checkpoint") or b"0"),
        ended_reason=text("ended_reason") or None,
        abandoned_by=int(raw["abandoned_by"]) if raw.get("abandoned_by") else None,
        host_name=text("host_name") or "",
        again_of=text("again_of") or None,
        invited=_json(raw["invited"]) if raw.get("invited") else [],
        connected=connected,
        away=away,
        held=held,
        active_at=int(raw["active_at"]) if raw.get("active_at") else None,
        banned=_by_user(raw, BAN_FIELD) if moderated else {},
        banned_marks=_by_user(raw, BAN_MARK_FIELD) if moderated else {},
        muted=_by_user(raw, MUTE_FIELD) if moderated else {},
        announcement=text("announce") or None,
        inspected=_inspected(raw.get("inspected"), int(raw.get("game_no") or b"0")),
        head=text("head") or None,
    )


INSPECTED_KEPT = 20  # the times of an admin's looks at one game a room keeps (the last ones)


def _inspected(raw: bytes | None, game_no: int) -> dict[str, Any] | None:
    """The room's ``inspected`` field as players are shown it: ``{count, at}`` of the room's
    current game (None: no look, or looks at a game before it)."""
    if not raw:
        return None
    try:
        kept = _json(raw)
    except msgspec.DecodeError:
        return None
    if not isinstance(kept, dict) or kept.get("game") != game_no:
        return None
    at = kept.get("at")
    times = [str(t) for t in at] if isinstance(at, list) else []
    return {"count": int(kept.get("count") or len(times)), "at": times}


BAN_FIELD, MUTE_FIELD = "ban:", "mute:"  # room hash fields of moderation, by user id
BAN_MARK_FIELD = "banmark:"  # a room ban's address, by address mark

# The room hash's fields of fixed name: none is a moderation field, so ``parse_room`` looks
# for those only among the rest (one pass over every field per prefix was a third of its
# time, and it runs on every read of a room). A field missing here is only looked at.
_PLAIN_FIELDS = frozenset(
    {
        "id", "engine", "options", "players", "public", "spectators", "deadlines",
        "takeback", "host", "status", "version", "rev", "seats", "created_at", "started_at",
        "ended_at", "state", "seed", "seed_digest", "server_seed", "seed_commitment",
        "contributions", "absent", "deadline", "paused_at", "paused_by", "game_no",
        "archived", "checkpoint", "ended_reason", "abandoned_by", "host_name", "active_at",
        "announce", "resolved_by", "inspected", "head", "player_bots", "again_of", "invited",
    }
)  # fmt: skip


def _by_user(raw: Mapping[str, bytes], prefix: str) -> dict[str, str]:
    """The moderation fields ``prefix<user id>`` of ``raw``, by user id, in the hash's order."""
    return {k[len(prefix) :]: v.decode() for k, v in raw.items() if k.startswith(prefix)}


def is_socket(field_name: str) -> bool:
    """A presence field naming a socket (not ``drop:`` / ``away:`` / ``held:<seat>``)."""
    return not field_name.startswith(("drop:", "away:", "held:"))


def seats_present(presence: Mapping[str, str]) -> tuple[set[int], set[int]]:
    """The seats with at least one socket, and the seats taken over (away)."""
    connected = {int(v) for k, v in presence.items() if is_socket(k) and v != "-"}
    away = {int(k[5:]) for k in presence if k.startswith("away:")}
    return connected, away


def seats_held(presence: Mapping[str, str]) -> set[int]:
    """The seats a slow game waits for (past the grace time, their player told by a push)."""
    return {int(k[5:]) for k in presence if k.startswith("held:")}


def now_ms() -> int:
    return int(time.time() * 1000)


def phase_name(prompt: Prompt, version: int) -> str:
    """A sealed phase is named by its prompt kind and the version it stands at: ``bid@7``."""
    return f"{prompt.kind}@{version}"


def playing(room: Room) -> tuple[AnyGame, Any]:
    """The game and its decoded state; RoomError unless the game is under way."""
    if room.status == LOBBY or room.state is None:
        raise RoomError(p.GAME_NOT_STARTED, "the game has not started")
    if room.status != PLAYING:
        raise RoomError(p.GAME_OVER, "the game is over")
    game = room.game
    return game, game.decode(room.state)


def check_seat(room: Room, seat: int) -> None:
    if not 0 <= seat < room.players:
        raise RoomError(p.NO_SUCH_SEAT, f"seats are 0 to {room.players - 1}")


def check_host(room: Room, user_id: str) -> None:
    if room.host != user_id:
        raise RoomError(p.NOT_HOST, "only the host may do that")


Hook = Callable[[str], None]


@dataclass(slots=True)
class Hooks:
    """Who hears of what happens to rooms (wired in server/app.py). ``on_turn`` hooks run
    (with the room id) whenever a seat may owe something new: the game started, a step was
    written, a sealed phase opened, a seat was taken over. Bots listen there. ``on_started``
    hooks run once when the game is dealt, ``on_seat_dropped`` ones when a seat's last
    socket left (the clock listens to both, for the grace time), ``on_visit`` ones when a
    socket joins (the clock re-arms what a node that died may have left undone).
    ``before_step`` hooks name the clock members (name, due ms) a step about to be written
    will need (bots' rescues). ``reachable`` answers whether a user can be told of their
    turn while no tab of theirs is open (a device that wants "your move" pushes: a slow game
    then holds their seat past the grace time, ``on_seat_held``); ``on_invited`` hooks hear
    of the users a new room invites (its host's "Play again")."""

    on_turn: list[Hook] = field(default_factory=list)
    on_started: list[Hook] = field(default_factory=list)
    on_visit: list[Hook] = field(default_factory=list)
    before_step: list[Callable[[Room, Any, int], list[tuple[str, int]]]] = field(
        default_factory=list
    )
    on_seat_dropped: list[Callable[[str, int, float], None]] = field(default_factory=list)
    # A step this node is about to write (room, version), then the outcome (its log entry,
    # or None: the write lost or failed): the hub keeps the entry for its own sockets
    # instead of reading it back from the log, and a socket told of the version before the
    # writer heard its reply waits for it rather than reading the log.
    on_writing: list[Callable[[str, int], None]] = field(default_factory=list)
    on_written: list[Callable[[str, int, Entry | None], None]] = field(default_factory=list)
    reachable: list[Callable[[str], Awaitable[bool]]] = field(default_factory=list)
    on_seat_held: list[Callable[[str, int], None]] = field(default_factory=list)
    on_invited: list[Callable[[str, list[str]], None]] = field(default_factory=list)
    on_quiet_over: list[Callable[[str, int], None]] = field(default_factory=list)

    def writing(self, room_id: str, version: int) -> None:
        """This node is about to try to write ``version`` of ``room_id``."""
        for hook in self.on_writing:
            hook(room_id, version)

    def written(self, room_id: str, version: int, entry: Entry | None) -> None:
        """This node's try at ``version`` of ``room_id`` is over: it won with ``entry``, or
        (None) it lost or failed. Called once after every ``writing``."""
        for hook in self.on_written:
            hook(room_id, version, entry)

    def turn(self, room_id: str) -> None:
        """Tell the listeners (bots) that seats of ``room_id`` may owe a move."""
        for hook in self.on_turn:
            hook(room_id)

    def started(self, room_id: str) -> None:
        """The game of ``room_id`` was dealt."""
        for hook in self.on_started:
            hook(room_id)

    def visit(self, room_id: str) -> None:
        """A socket joined ``room_id``: a safety net for triggers lost with a dead node --
        the clock re-arms the current deadline and, where bots or stand-ins play, tells
        the bots (``Clock.arm``)."""
        for hook in self.on_visit:
            hook(room_id)

    def seat_dropped(self, room_id: str, seat: int, at: float) -> None:
        """The last socket of ``seat`` left at ``at``: its grace time starts."""
        for hook in self.on_seat_dropped:
            hook(room_id, seat, at)

    async def can_reach(self, user_id: str) -> bool:
        """Whether ``user_id`` has a device that wants "your move" pushes. False when no
        one can say (no pushes on this site) or asking fails: the seat is taken over then,
        as it always was."""
        for ask in self.reachable:
            try:
                if await ask(user_id):
                    return True
            except Exception:
                log.warning("reachable: no answer", exc_info=True)
        return False

    def seat_held(self, room_id: str, seat: int) -> None:
        """A slow game waits for ``seat``'s player past the grace time."""
        for hook in self.on_seat_held:
            hook(room_id, seat)

    def quiet_over(self, room_id: str, seat: int) -> None:
        """The quiet hours of the device a turn of ``seat``'s player was kept from are over
        (the clock's ``quiet`` member)."""
        for hook in self.on_quiet_over:
            hook(room_id, seat)

    def invited(self, room_id: str, users: list[str]) -> None:
        """The new room ``room_id`` invites ``users``."""
        for hook in self.on_invited:
            hook(room_id, users)


class RoomReader:
    """Reading rooms from the store (every part of the room service reads through one)."""

    def __init__(self, store: Store, base_url: str = "") -> None:
        self.store = store
        self.base_url = base_url

    async def get(self, room_id: str, *, presence: bool = False) -> Room:
        seen: dict[str, str] | None = None
        if presence:
            raw, seen = await self.store.load_room_and_presence(room_id)
        else:
            raw = await self.store.load_room(room_id)
        if raw is None or "engine" not in raw:
            raise RoomError(p.NO_SUCH_ROOM, "there is no such room")
        return parse_room(raw, seen)

    async def get_with_seal(self, room_id: str) -> tuple[Room, dict[str, str]]:
        """The room and its seal hash (the sealed phase under way), in one round trip."""
        raw, seal = await self.store.load_room_and_seal(room_id)
        if raw is None or "engine" not in raw:
            raise RoomError(p.NO_SUCH_ROOM, "there is no such room")
        return parse_room(raw), seal

    async def find(self, code: str, *, presence: bool = False) -> Room:
        """The room a person's code names: as written, else (typed in lower case or in
        groups, ``k7qx-mh4p``) its canonical form (server/table/room_codes.py)."""
        for candidate in room_codes.spoken_forms(code):
            try:
                return await self.get(candidate, presence=presence)
            except RoomError:
                continue
        raise RoomError(p.NO_SUCH_ROOM, "there is no such room")
