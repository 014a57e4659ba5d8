"""Postgres going away delays archiving but loses nothing, and nothing is archived twice.

The archiver reaches the real Postgres through a gate (pg_gate.py) that the test closes and
opens: first it cannot connect at all, later its pooled connections are cut mid-life."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Awaitable, Callable

import redis.asyncio as aioredis
from archive_helpers import play_record, put, stream_state
from pg_gate import PgGate
from sqlalchemy import func, select

from server.archive.archiver import Archiver
from server.archive.db import Database
from server.archive.models import Event, Game, Rating


async def eventually(check: Callable[[], Awaitable[bool]], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not await check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def archived(db: Database, game_ids: list[str]) -> dict[str, int]:
    """game id -> number of stored events, for the games that are in the archive."""
    async with db.session() as s:
        rows = await s.execute(
            select(Game.id, func.count(Event.version))
            .join(Event, Event.game_id == Game.id)
            .where(Game.id.in_(game_ids))
            .group_by(Game.id)
        )
        return {game_id: count for game_id, count in rows.all()}


async def games_played(db: Database, users: list[str]) -> dict[str, int]:
    async with db.session() as s:
        rows = await s.execute(
            select(Rating.user_id, Rating.games).where(Rating.user_id.in_(users))
        )
        return {user: games for user, games in rows.all()}


async def pending(redis: aioredis.Redis, prefix: str) -> tuple[int, int]:
    return await stream_state(redis, prefix)


async def test_postgres_outage_delays_archiving_and_loses_nothing(
    redis_client: aioredis.Redis, redis_prefix: str, archive_url: str, db: Database
) -> None:
    users: list[str | None] = [f"u-{secrets.token_hex(4)}" for _ in range(3)]
    humans = [u for u in users if u]
    gate = await PgGate(archive_url).start()  # closed: Postgres is unreachable
    archiver = Archiver(
        redis_client,
        gate.url,
        redis_prefix,
        consumer="outage",
        block_ms=50,
        backoff_min=0.05,
        backoff_max=0.2,
    )
    archiver.start()
    try:
        first = [play_record(players=3, rounds=2, users=users) for _ in range(4)]
        for record in first:
            await put(redis_client, redis_prefix, record)

        # Postgres down: the archiver has taken the entries, failed, and keeps them pending.
        await eventually(lambda: _true(archiver.failures >= 3))
        ids = [r["game_id"] for r in first]
        assert await archived(db, ids) == {}
        await _nothing_acked(redis_client, redis_prefix, 4)

        # Back: every game arrives, once, with its whole log; ratings moved once per game.
        gate.open()
        await eventually(
            lambda: _is(archived(db, ids), {r["game_id"]: len(r["events"]) for r in first})
        )
        await eventually(lambda: _is(pending(redis_client, redis_prefix), (0, 0)))
        assert await games_played(db, humans) == {u: 4 for u in humans}
        assert archiver.failures == 0

        # Down again, with connections in the pool: they are cut under the archiver.
        gate.close()
        second = [play_record(players=3, rounds=1, users=users) for _ in range(2)]
        for record in second:
            await put(redis_client, redis_prefix, record)
        await put(redis_client, redis_prefix, first[0])  # and a duplicate of an archived game
        failures = archiver.failures
        await eventually(lambda: _true(archiver.failures >= failures + 2))
        assert await archived(db, [r["game_id"] for r in second]) == {}
        await _nothing_acked(redis_client, redis_prefix, 3)

        gate.open()
        await eventually(lambda: _is(pending(redis_client, redis_prefix), (0, 0)))
        every = first + second
        assert await archived(db, [r["game_id"] for r in every]) == {
            r["game_id"]: len(r["events"]) for r in every
        }
        assert await games_played(db, humans) == {u: 6 for u in humans}
    finally:
        await archiver.stop()
        await gate.stop()


async def _nothing_acked(redis: aioredis.Redis, prefix: str, entries: int) -> None:
    """Every entry is still in the stream; those the archiver took are pending (it may not
    have taken all: while its pending ones fail it reads no new ones)."""
    length, taken = await pending(redis, prefix)
    assert length == entries and 1 <= taken <= entries


async def _true(value: bool) -> bool:
    return value


async def _is(value: Awaitable[object], expected: object) -> bool:
    return await value == expected
