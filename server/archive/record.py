"""The archive record: one game as the room server hands it over (a JSON document on the
archive stream, field ``record``).

    {"game_id": "<room>-<n>", "room": "<room>", "engine": "<game id>", "options": {...},
     "players": 4, "seats": [{"seat": 0, "user": "<id>" | null, "name": "Anne",
                              "bot": null | "heuristic"}, ...],
     "seed": "<hex>" | null, "seed_digest": "<sha256 hex of the seed bytes>",
     "created_at": ISO, "started_at": ISO, "ended_at": ISO | null,
     "status": "finished" | "abandoned" | "playing",
     "outcome": {"scores": [...], "ranks": [...]} | null,
     "events": [{"version": 1, "moves": {}, "defaults": [], "proxies": [], "at": ISO,
                 "digest": hex, "takeback": <version undone> (only on a take-back)}, ...]}

Version 1 is the deal (``game.start``); each later version is ``game.step`` with the logged
moves, or -- a take-back (``takeback: u``) -- the state of version ``u - 1`` again;
``digest`` is sha256 of ``game.encode(state)`` after that step. ``proxies`` are the seats
whose move a stand-in made while their player was away (the grace-time bot, or the default
of ``absent: "default"``); ``defaults`` the seats given the engine's default move. A
``playing`` record (a long game archived progressively) has no seed yet and may arrive
several times; it carries only the events since the checkpoint before it, from
``events_from`` on (absent: 1, every event -- a final record always has every event).
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime
from typing import Any, Literal

import msgspec

from server.archive.models import FINAL

Status = Literal["playing", "finished", "abandoned"]

_HEX64 = re.compile(r"[0-9a-f]{64}")


class RecordError(ValueError):
    """A record that can never be archived as it is (it goes to the dead-letter stream)."""


class SeatRecord(msgspec.Struct, kw_only=True):
    seat: int
    user: str | None = None
    name: str = ""
    bot: str | None = None

    @property
    def human(self) -> bool:
        """A user's seat that no bot played: only these are rated."""
        return self.user is not None and self.bot is None


class EventRecord(msgspec.Struct, kw_only=True, omit_defaults=True):
    version: int
    moves: dict[str, Any] = {}
    defaults: list[int] = []
    proxies: list[int] = []  # seats a stand-in played for (the player was away)
    takeback: int | None = None  # a take-back of this version: the state before it again
    # Its moves are public (a sealed phase's, once revealed); else each is its mover's
    # alone until the game is over.
    moves_public: bool = False
    at: datetime
    digest: str


class OutcomeRecord(msgspec.Struct, kw_only=True):
    scores: list[int]
    ranks: list[int]


class ArchiveRecord(msgspec.Struct, kw_only=True):
    game_id: str
    room: str
    engine: str
    options: dict[str, Any] = {}
    players: int
    # Whether the room was public (None, a record from before: a public room's code has 8
    # characters, a private one's 16).
    public: bool | None = None
    seats: list[SeatRecord]
    seed: str | None = None
    seed_digest: str
    created_at: datetime
    started_at: datetime | None = None
    ended_at: datetime | None = None
    status: Status
    outcome: OutcomeRecord | None = None
    # An abandoned game ended by a seated player: that seat (its outcome ranks it last).
    abandoned_by: int | None = None
    # How the seed was made (server/table/seeding.py): {"commitment", "server_seed" (once over),
    # "contributions": [{seat, entropy, by}]}; None in records from before.
    deal: dict[str, Any] | None = None
    # The first version ``events`` start at: a checkpoint carries the events since the one
    # before it (server/table/game_end.py); 1 -- every event -- in a final record.
    events_from: int = 1
    events: list[EventRecord] = []

    @property
    def final(self) -> bool:
        return self.status in FINAL

    @property
    def is_public(self) -> bool:
        return self.public if self.public is not None else len(self.room) < 16

    @property
    def last_version(self) -> int:
        return max((e.version for e in self.events), default=0)

    def seed_bytes(self) -> bytes | None:
        return bytes.fromhex(self.seed) if self.seed is not None else None


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _utc(value: datetime) -> datetime:
    """Naive times are taken as UTC; aware ones are converted."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def decode_record(data: bytes | str) -> ArchiveRecord:
    """Parse and check one record; RecordError says what is wrong with it."""
    try:
        record = msgspec.json.decode(data, type=ArchiveRecord)
    except msgspec.DecodeError as exc:  # ValidationError is a DecodeError
        raise RecordError(f"not an archive record: {exc}") from None
    check_record(record)
    return record


def check_record(record: ArchiveRecord) -> None:
    """Normalize times to UTC and refuse what cannot be stored or makes no sense."""

    def bad(why: str) -> RecordError:
        return RecordError(f"record {record.game_id!r}: {why}")

    if not record.game_id or len(record.game_id) > 100:
        raise bad("game_id is empty or longer than 100 characters")
    if not 1 <= record.players <= 64:
        raise bad(f"players is {record.players}")
    if not _HEX64.fullmatch(record.seed_digest):
        raise bad("seed_digest is not a lowercase sha256 hex digest")
    if record.seed is not None:
        try:
            if not bytes.fromhex(record.seed):
                raise ValueError
        except ValueError:
            raise bad("seed is not a non-empty hex string") from None
    for what, value, most in (("room", record.room, 64), ("engine", record.engine, 40)):
        if not value or len(value) > most:
            raise bad(f"{what} is empty or longer than {most} characters")
    for seat in record.seats:
        if seat.user is not None and not 0 < len(seat.user) <= 64:
            raise bad(f"seat {seat.seat}: a user id has 1 to 64 characters")
        if seat.bot is not None and not 0 < len(seat.bot) <= 32:
            raise bad(f"seat {seat.seat}: a bot level has 1 to 32 characters")
        # A name never costs a game its archive: cut to size, no NUL (Postgres refuses it).
        seat.name = seat.name.replace("\x00", "")[:100]
    seats = [s.seat for s in record.seats]
    if len(set(seats)) != len(seats) or not all(0 <= s < record.players for s in seats):
        raise bad(f"seats {seats} are not distinct seats of {record.players} players")
    if record.status == "finished":
        if record.outcome is None:
            raise bad("a finished game has an outcome")
        if record.seed is None:
            raise bad("a finished game reveals its seed")
    if record.abandoned_by is not None and not (
        record.status == "abandoned" and 0 <= record.abandoned_by < record.players
    ):
        raise bad("abandoned_by names a seat of an abandoned game")
    if record.outcome is not None and not (
        len(record.outcome.scores) == len(record.outcome.ranks) == record.players
    ):
        raise bad("the outcome has a score and a rank per player")
    versions = [e.version for e in record.events]
    if len(set(versions)) != len(versions) or any(v < 1 for v in versions):
        raise bad("event versions are distinct and start at 1")
    if record.events_from < 1 or any(v < record.events_from for v in versions):
        raise bad(f"events_from is {record.events_from}: the events start there")
    if record.final and record.events_from != 1:
        raise bad("a final record has every event (events_from 1)")
    for event in record.events:
        if not _HEX64.fullmatch(event.digest):
            raise bad(f"version {event.version}: digest is not a sha256 hex digest")
        if not all(k.isdigit() for k in event.moves):
            raise bad(f"version {event.version}: moves are keyed by seat number")
        if event.takeback is not None and (event.moves or event.takeback >= event.version):
            raise bad(f"version {event.version}: a take-back has no moves, undoes an earlier one")
        event.at = _utc(event.at)
    record.created_at = _utc(record.created_at)
    if record.started_at is not None:
        record.started_at = _utc(record.started_at)
    if record.ended_at is not None:
        record.ended_at = _utc(record.ended_at)
    record.events.sort(key=lambda e: e.version)


def encode_record(record: ArchiveRecord) -> bytes:
    return msgspec.json.encode(record)
