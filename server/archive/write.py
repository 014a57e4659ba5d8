"""Write one archive record to Postgres: idempotent upserts keyed by game id.

``save_record`` runs inside the caller's transaction (the archiver commits it, then acks the
stream entry). The rules, so that at-least-once delivery in any order is harmless:

- The game row is locked (``FOR UPDATE``) before anything is decided, so two archivers
  writing the same game serialize.
- A record is *ahead* of what is stored when the game is new, when it is final (finished
  or abandoned) and the stored one is still playing, or when both are playing and it has a
  later version. Only a record that is ahead rewrites the game and its seats; a record that
  is behind (a late, shorter "playing" snapshot, or the same record twice) changes nothing.
- Events are inserted with ``ON CONFLICT DO NOTHING``: the log only ever grows, and a
  version once stored is never rewritten.
- Ratings move when, and only when, this transaction turns the game into a finished one
  (or an abandoned one that a seated player ended: their loss): that happens once per
  game, and ``games.rated_at`` records it. Only established users are rated, and only when
  a game has two of them (``RatingRules``): throwaway guests farm nothing.
- Locks are taken in one order (users by id, the game, ratings by user id), so concurrent
  archivers do not deadlock.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from sqlalchemy import Table, bindparam, case, func, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from server.archive import ratings
from server.archive.ladder import is_ladder_game, rate_ladder
from server.archive.models import FINAL, DeviceKey, Event, Game, Rating, Seat, User
from server.archive.record import ArchiveRecord
from server.table.record import SeatRecord

# What a record is written through: a session (tests, tools) or, lighter, a connection in a
# transaction (the archiver: no ORM bookkeeping around statements that need none).
Executor = AsyncSession | AsyncConnection

EVENT_CHUNK = 1000  # rows per INSERT (9 parameters each; Postgres allows 32767)


class Saved(enum.Enum):
    INSERTED = "inserted"  # a game new to the archive
    UPDATED = "updated"  # the record was ahead of what was stored
    EVENTS = "events"  # behind, but brought versions the log did not have
    UNCHANGED = "unchanged"  # nothing new (a duplicate or an older snapshot)
    GAP = "gap"  # a checkpoint whose predecessor is not stored (yet): nothing written


@dataclass(frozen=True, slots=True)
class RatingRules:
    """Who counts in ratings. A user is *established* when first seen in the archive more
    than ``min_age_seconds`` before the game started and with at least ``min_games``
    finished games before it; a game is rated among its established human seats, when it
    has at least two distinct ones. (The defaults rate everyone: the server passes its
    settings, ``rated_min_games`` and ``rated_min_age_seconds``.)"""

    min_games: int = 0
    min_age_seconds: float = 0.0


def _now() -> datetime:
    return datetime.now(UTC)


def _seen_at(record: ArchiveRecord) -> datetime:
    times = [record.created_at, *(t for t in (record.started_at, record.ended_at) if t)]
    times += [e.at for e in record.events]
    return max(times)


# The statements of a record's write, built once: the rows travel as parameters
# (executemany where there are several), so SQLAlchemy neither builds nor compiles a
# statement per record, and they are Core statements on the tables (no ORM bulk-insert
# machinery). Building them per record cost about 8 ms of CPU per record (py-spy):
# with a checkpoint every round, a third of a node's CPU under load.
_USERS = cast(Table, User.__table__)
_GAMES = cast(Table, Game.__table__)
_SEATS = cast(Table, Seat.__table__)
_EVENTS = cast(Table, Event.__table__)
_KEYS = cast(Table, DeviceKey.__table__)


def _upsert_users_statement() -> Any:
    stmt = insert(_USERS)
    newer = stmt.excluded.last_seen_at >= _USERS.c.last_seen_at
    return stmt.on_conflict_do_update(
        index_elements=[_USERS.c.id],
        set_={
            # The most recent game's name wins; an older record never renames anyone.
            "name": case((newer, stmt.excluded.name), else_=_USERS.c.name),
            "created_at": func.least(_USERS.c.created_at, stmt.excluded.created_at),
            "last_seen_at": func.greatest(_USERS.c.last_seen_at, stmt.excluded.last_seen_at),
        },
    )


def _upsert_seats_statement() -> Any:
    stmt = insert(_SEATS)
    return stmt.on_conflict_do_update(
        index_elements=[_SEATS.c.game_id, _SEATS.c.seat],
        set_={name: stmt.excluded[name] for name in ("user_id", "bot", "name", "score", "rank")},
    )


_UPSERT_USERS = _upsert_users_statement()
_UPSERT_SEATS = _upsert_seats_statement()
_INSERT_GAME = (
    insert(_GAMES).on_conflict_do_nothing(index_elements=[_GAMES.c.id]).returning(_GAMES.c.id)
)
_STORED_GAME = (
    select(_GAMES.c.status, _GAMES.c.last_version, _GAMES.c.rated_at)
    .where(_GAMES.c.id == bindparam("game"))
    .with_for_update()
)
# The SET clause is every column named in the parameters (``_game_values``).
_UPDATE_GAME = update(_GAMES).where(_GAMES.c.id == bindparam("game"))
_LAST_VERSION = (
    update(_GAMES)
    .where(_GAMES.c.id == bindparam("game"))
    .values(last_version=func.greatest(_GAMES.c.last_version, bindparam("upto")))
)
_INSERT_KEY = insert(_KEYS).on_conflict_do_nothing(index_elements=[_KEYS.c.kid])
_INSERT_EVENT = (
    insert(_EVENTS)
    .on_conflict_do_nothing(index_elements=[_EVENTS.c.game_id, _EVENTS.c.version])
    .returning(_EVENTS.c.version)
)


async def _upsert_users(session: Executor, record: ArchiveRecord) -> None:
    seen = _seen_at(record)
    users: dict[str, SeatRecord] = {}
    for seat in record.seats:
        if seat.user is not None:
            users.setdefault(seat.user, seat)
    if not users:
        return
    rows = [
        {
            "id": user,
            "name": seat.name or user,
            "created_at": record.created_at,
            "last_seen_at": seen,
        }
        for user, seat in sorted(users.items())
    ]
    await session.execute(_UPSERT_USERS, rows)


def _game_values(record: ArchiveRecord, now: datetime) -> dict[str, Any]:
    return {
        "room": record.room,
        "engine": record.engine,
        "options": record.options,
        "players": record.players,
        "public": record.is_public,
        "seed_digest": record.seed_digest,
        "seed": record.seed if record.final else None,
        "deal": _deal(record),
        "created_at": record.created_at,
        "started_at": record.started_at,
        "ended_at": record.ended_at,
        "status": record.status,
        "outcome": (
            {"scores": record.outcome.scores, "ranks": record.outcome.ranks}
            if record.outcome is not None
            else None
        ),
        "inspected": (
            {"count": record.inspected.count, "at": [t.isoformat() for t in record.inspected.at]}
            if record.inspected is not None
            else None
        ),
        "archived_at": now,
    }


def _deal(record: ArchiveRecord) -> dict[str, Any] | None:
    """The seed's inputs, the server seed withheld until the game is over."""
    if record.deal is None:
        return None
    return {**record.deal, "server_seed": record.deal.get("server_seed") if record.final else None}


async def _upsert_seats(session: Executor, record: ArchiveRecord) -> None:
    if not record.seats:
        return
    outcome = record.outcome
    rows = [
        {
            "game_id": record.game_id,
            "seat": seat.seat,
            "user_id": seat.user,
            "bot": seat.bot,
            "name": seat.name,
            "score": outcome.scores[seat.seat] if outcome else None,
            "rank": outcome.ranks[seat.seat] if outcome else None,
        }
        for seat in sorted(record.seats, key=lambda s: s.seat)
    ]
    await session.execute(_UPSERT_SEATS, rows)


async def _insert_events(session: Executor, record: ArchiveRecord, after: int = 0) -> int:
    """Insert the record's events with versions above ``after`` (those below are stored:
    a game's stored events are always every version up to its ``last_version``); how many
    were new. One statement for any number of rows (executemany), compiled once."""
    events = [e for e in record.events if e.version > after]
    added = 0
    for start in range(0, len(events), EVENT_CHUNK):
        rows = [
            {
                "game_id": record.game_id,
                "version": e.version,
                "moves": e.moves,
                "defaults": e.defaults,
                "proxies": e.proxies,
                "takeback": e.undoes,
                "moves_public": e.public_moves,
                "moves_private": e.private_moves,
                "at": e.at,
                "digest": e.digest,
                "head": e.head,
                "chain": e.chain,
            }
            for e in events[start : start + EVENT_CHUNK]
        ]
        added += len((await session.execute(_INSERT_EVENT, rows)).all())
    return added


class Unrated(enum.StrEnum):
    """Why a game over moved nobody's rating (``verdict``), for the players to read."""

    NOT_FINISHED = "not-finished"  # ended before the finish (not by a seated player)
    FEW_PEOPLE = "few-people"  # fewer than two people at the table: bots do not count
    SAME_PERSON = "same-person"  # one person in two seats
    NEW_PLAYERS = "new-players"  # fewer than two of its people established (RatingRules)
    LADDER = "ladder"  # a player's bot sat in it: rated on the bot ladder, not people's


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whom a game over is rated among (``rated``: users), or why nobody (``unrated``); the
    seats of people not established yet at this game (``new``: their ratings do not move
    for it, whether or not the others' do)."""

    unrated: Unrated | None
    rated: tuple[str, ...] = ()
    new: frozenset[int] = frozenset()


async def verdict(
    session: Executor,
    *,
    game_id: str,
    began: datetime,
    finished: bool,
    seats: list[SeatRecord],
    rules: RatingRules,
) -> Verdict:
    """The rating rules applied to a game over (``finished``: it has an outcome to rate):
    ``_rate`` rates by it, and the history says from it why a game was not rated."""
    if not finished:
        return Verdict(Unrated.NOT_FINISHED)
    humans = sorted((s for s in seats if s.human), key=lambda s: str(s.user))
    users = [str(s.user) for s in humans]
    if len(humans) < 2:
        return Verdict(Unrated.FEW_PEOPLE)
    if len(set(users)) != len(users):
        return Verdict(Unrated.SAME_PERSON)
    established = await _established(session, game_id, began, users, rules)
    new = frozenset(s.seat for s in humans if str(s.user) not in established)
    rated = tuple(u for u in users if u in established)
    if len(rated) < 2:
        return Verdict(Unrated.NEW_PLAYERS, new=new)
    return Verdict(None, rated, new)


async def _established(
    session: Executor, game_id: str, began: datetime, users: list[str], rules: RatingRules
) -> set[str]:
    """The users who are not fresh at the game ``game_id``, begun at ``began``
    (``RatingRules``)."""
    if rules.min_games <= 0 and rules.min_age_seconds <= 0:
        return set(users)
    old_enough = began - timedelta(seconds=rules.min_age_seconds)
    aged = set(
        await session.scalars(
            select(User.id).where(User.id.in_(users), User.created_at <= old_enough)
        )
    )
    if rules.min_games <= 0:
        return aged
    played = await session.execute(
        select(Seat.user_id, func.count())
        .join(Game, Game.id == Seat.game_id)
        .where(
            Seat.user_id.in_(sorted(aged)),
            Game.status == "finished",
            Game.id != game_id,
            Game.ended_at <= began,
        )
        .group_by(Seat.user_id)
    )
    return {str(user) for user, count in played.all() if count >= rules.min_games}


async def _rate(
    session: Executor, record: ArchiveRecord, now: datetime, rules: RatingRules
) -> bool:
    """Update the ratings of the established human seats of a finished game (or of an
    abandoned one a seated player ended); False if it is not rated."""
    if is_ladder_game(record):  # a player's bot sat in it: the bot ladder, never people's
        return await rate_ladder(session, record, now)
    judged = await verdict(
        session,
        game_id=record.game_id,
        began=record.started_at or record.created_at,
        finished=record.outcome is not None,
        seats=list(record.seats),
        rules=rules,
    )
    if judged.unrated is not None or record.outcome is None:
        return False
    humans = sorted(
        (s for s in record.seats if s.human and str(s.user) in judged.rated),
        key=lambda s: str(s.user),
    )
    users = [str(s.user) for s in humans]
    rows = await session.execute(
        select(Rating.user_id, Rating.mu, Rating.sigma)
        .where(Rating.engine == record.engine, Rating.user_id.in_(users))
        .order_by(Rating.user_id)
        .with_for_update()
    )
    stored = {user: ratings.Skill(mu, sigma) for user, mu, sigma in rows.all()}
    before = [stored.get(u) or ratings.initial() for u in users]
    after = ratings.rate(before, [record.outcome.ranks[s.seat] for s in humans])
    stmt = insert(Rating).values(
        [
            {
                "user_id": user,
                "engine": record.engine,
                "mu": skill.mu,
                "sigma": skill.sigma,
                "ordinal": skill.ordinal,
                "games": 1,
                "updated_at": now,
            }
            for user, skill in zip(users, after, strict=True)
        ]
    )
    stmt = stmt.on_conflict_do_update(
        index_elements=[Rating.user_id, Rating.engine],
        set_={
            "mu": stmt.excluded.mu,
            "sigma": stmt.excluded.sigma,
            "ordinal": stmt.excluded.ordinal,
            "games": Rating.games + 1,
            "updated_at": stmt.excluded.updated_at,
        },
    )
    await session.execute(stmt)
    for seat, old, new in zip(humans, before, after, strict=True):
        await session.execute(
            update(Seat)
            .where(Seat.game_id == record.game_id, Seat.seat == seat.seat)
            .values(ordinal_before=old.ordinal, ordinal_after=new.ordinal)
        )
    await session.execute(update(Game).where(Game.id == record.game_id).values(rated_at=now))
    return True


async def save_record(
    session: Executor,
    record: ArchiveRecord,
    now: datetime | None = None,
    rules: RatingRules = RatingRules(),
    accept_gap: bool = False,
) -> Saved:
    """Merge ``record`` into the archive, in the caller's transaction.

    A checkpoint carries the events since the one before it (``events_from``). If that one
    is not stored yet (another archiver may be writing it this instant), nothing is written
    and ``Saved.GAP`` says so: the caller tries again a little later. ``accept_gap``: the
    one before will not come (given up waiting): the game is stored without these events
    (they would leave a hole below them), which the final record brings."""
    now = now or _now()
    # The game's row as stored (locked for this transaction), when a checkpoint after the
    # first has looked it up: the insert and the second look-up below are then not needed.
    found = None
    if record.events_from > 1 and not record.final and not accept_gap:
        found = (await session.execute(_STORED_GAME, {"game": record.game_id})).first()
        if found is None or int(found.last_version or 0) < record.events_from - 1:
            return Saved.GAP
    await _upsert_users(session, record)
    if record.keys:  # a key is kept once, as first seen: never replaced by a later record
        rows = [
            {"kid": kid, "user_id": k.get("user"), "public_key": k.get("key")}
            for kid, k in sorted(record.keys.items())
        ]
        await session.execute(_INSERT_KEY, rows)
    values = _game_values(record, now)
    # A game's stored events are every version up to its last_version: none yet when its
    # first record is a checkpoint that starts later (the ones before it are not stored).
    first_up_to = record.last_version if record.events_from == 1 else 0
    row = {"id": record.game_id, "last_version": first_up_to, **values}
    inserted = found is None and (await session.execute(_INSERT_GAME, row)).first() is not None
    rated = False
    stored_up_to = 0  # the versions stored already (every one up to the game's last_version)
    if inserted:
        ahead = True
    else:
        stored = found or (await session.execute(_STORED_GAME, {"game": record.game_id})).one()
        rated = stored.rated_at is not None
        stored_up_to = int(stored.last_version or 0)
        if stored.status in FINAL:
            ahead = False
        elif record.final:
            ahead = True
        else:
            ahead = record.last_version > stored.last_version
        if ahead:
            await session.execute(_UPDATE_GAME, {"game": record.game_id, **values})
    if ahead:
        await _upsert_seats(session, record)
    added = 0
    if record.events_from <= stored_up_to + 1:
        added = await _insert_events(session, record, after=stored_up_to)
    # Else a checkpoint whose predecessor is not stored (yet): its events would leave a gap
    # below them -- they wait for a later record that reaches down (the final one has all).
    if added:
        await session.execute(_LAST_VERSION, {"game": record.game_id, "upto": record.last_version})
    quit_ = record.status == "abandoned" and record.abandoned_by is not None
    if ahead and (record.status == "finished" or quit_) and not rated:
        await _rate(session, record, now, rules)
    if inserted:
        return Saved.INSERTED
    if ahead:
        return Saved.UPDATED
    return Saved.EVENTS if added else Saved.UNCHANGED
