"""The archive record as the archiver reads it: decoded, checked and normalized before it
is written to Postgres (or sent to the dead-letter stream).

The record's shape is the room server's contract (server/table/record.py): one definition
for the one who writes it and the one who reads it. Here its times are read as datetimes.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import msgspec

from server.table.record import GameRecord

ArchiveRecord = GameRecord[datetime]
"""A record as the archiver reads it: its times parsed."""

_HEX64 = re.compile(r"[0-9a-f]{64}")
_decode = msgspec.json.Decoder(ArchiveRecord).decode


class RecordError(ValueError):
    """A record that can never be archived as it is (it goes to the dead-letter stream)."""


def _utc(value: datetime) -> datetime:
    """Naive times are taken as UTC; aware ones are converted."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def decode_record(data: bytes | str) -> ArchiveRecord:
    """Parse and check one record; RecordError says what is wrong with it."""
    try:
        record = _decode(data)
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
        undoes = event.undoes
        if undoes is not None and (event.moves or undoes >= event.version):
            raise bad(f"version {event.version}: a take-back has no moves, undoes an earlier one")
        if event.head is not None and not _HEX64.fullmatch(event.head):
            raise bad(f"version {event.version}: head is not a sha256 hex digest")
        event.at = _utc(event.at)
    if record.inspected is not None:
        looks = record.inspected
        if looks.count < max(1, len(looks.at)) or len(looks.at) > 100:
            raise bad("inspected counts its looks (at least the times it keeps, at most 100)")
        looks.at = [_utc(t) for t in looks.at]
    for kid, key in record.keys.items():
        if (
            not _HEX64.fullmatch(kid)
            or not isinstance(key.get("key"), str)
            or len(key["key"]) > 100
        ):
            raise bad(
                f"key {kid[:64]!r}: a kid is a sha256 hex digest, its key at most 100 characters"
            )
    record.created_at = _utc(record.created_at)
    if record.started_at is not None:
        record.started_at = _utc(record.started_at)
    if record.ended_at is not None:
        record.ended_at = _utc(record.ended_at)
    record.events.sort(key=lambda e: e.version)
