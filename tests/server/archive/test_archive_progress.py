"""History through the real server, its archiver and Postgres: a long game is archived
while it is played (a "playing" game with no seed, up to its last checkpoint), then whole;
an abandoned game is stored marked so and not rated; and a node refuses an unmigrated
database unless it migrates it itself."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from sqlalchemy import func, select
from tortuga_client import SECRET, autoplay, seat_players

from server.app import create_app
from server.archive import history
from server.archive.commands import check_schema, verify
from server.archive.db import Database
from server.archive.models import Event, Game, Rating
from server.settings import Settings


async def eventually(check: Callable[[], Awaitable[bool]], timeout: float = 20.0) -> None:
    for _ in range(int(timeout / 0.1)):
        if await check():
            return
        await asyncio.sleep(0.1)
    raise AssertionError("timed out")


async def stored(db: Database, game_id: str) -> tuple[Game | None, list[int]]:
    async with db.session() as s:
        game = await s.get(Game, game_id)
        versions = (
            await s.scalars(
                select(Event.version).where(Event.game_id == game_id).order_by(Event.version)
            )
        ).all()
    return game, list(versions)


def last_view(frames: list[dict[str, Any]]) -> int:
    """Where to pick up playing: the index of the last frame with a view."""
    return max(i for i, f in enumerate(frames) if f.get("view") is not None)


async def test_a_long_game_is_archived_while_it_is_played(
    start: Any, archive_url: str, db: Database
) -> None:
    nodes = [
        await start("a", database_url=archive_url, archive_every_versions=1000),
        await start("b", database_url=archive_url, archive_every_versions=1000),
    ]
    table = await seat_players(nodes, 3, options={"rounds": 3})
    game_id = f"{table.id}-1"
    marks = [len(c.frames) for c in table.clients]
    assert (await table.clients[0].call("start"))["type"] == "ok"
    stop = 9  # in the second round: its bids (a checkpoint) are behind us
    await asyncio.wait_for(
        asyncio.gather(
            *(
                autoplay(c, "skull-king", m, stop_at=stop)
                for c, m in zip(table.clients, marks, strict=True)
            )
        ),
        30,
    )
    host = table.clients[0]
    checkpoint = max(f["version"] for f in host.frames if f["type"] == "sealed")
    assert 1 < checkpoint < stop

    async def caught_up() -> bool:
        game, versions = await stored(db, game_id)
        return game is not None and versions[-1:] == [checkpoint]

    await eventually(caught_up)
    await asyncio.sleep(0.3)  # nothing beyond the checkpoint comes
    game, versions = await stored(db, game_id)
    assert game is not None and game.status == "playing" and game.seed is None
    assert game.ended_at is None and game.outcome is None and game.rated_at is None
    assert versions == list(range(1, checkpoint + 1)) and game.last_version == checkpoint
    async with db.session() as s:
        shown = await history.game_record(s, game_id)
    assert shown["seed"] is None and shown["status"] == "playing"

    # The rest of the game: it ends finished, whole, verified, one row.
    await asyncio.wait_for(
        asyncio.gather(*(autoplay(c, "skull-king", last_view(c.frames)) for c in table.clients)),
        60,
    )
    end = max(f["version"] for f in host.frames if f["type"] == "event")

    async def finished() -> bool:
        game, _ = await stored(db, game_id)
        return game is not None and game.status == "finished"

    await eventually(finished)
    game, versions = await stored(db, game_id)
    assert game is not None and game.seed is not None and game.outcome is not None
    assert versions == list(range(1, end + 1)) and game.rated_at is not None
    report = await verify(archive_url, game_id)
    assert report.ok, report.message
    async with db.session() as s:
        rows = await s.scalar(select(func.count()).select_from(Game).where(Game.room == table.id))
    assert rows == 1


async def test_an_abandoned_game_is_stored_marked_so_and_not_rated(
    start: Any, archive_url: str, db: Database
) -> None:
    """The host (seat 0) ends it: the record ranks the host last (ending a game under way
    is the ender's loss), but its players are fresh guests, so nobody is rated."""
    strict = {"rated_min_games": 3, "rated_min_age_seconds": 86400.0}
    nodes = [
        await start("a", database_url=archive_url, **strict),
        await start("b", database_url=archive_url, **strict),
    ]
    table = await seat_players(nodes, 3, options={"rounds": 3})
    game_id = f"{table.id}-1"
    marks = [len(c.frames) for c in table.clients]
    assert (await table.clients[0].call("start"))["type"] == "ok"
    await asyncio.wait_for(
        asyncio.gather(
            *(
                autoplay(c, "skull-king", m, stop_at=7)
                for c, m in zip(table.clients, marks, strict=True)
            )
        ),
        30,
    )
    assert (await table.clients[0].call("abandon"))["type"] == "ok"
    seed = (await table.clients[1].has_version(8))["event"]["seed"]

    async def abandoned() -> bool:
        game, _ = await stored(db, game_id)
        return game is not None and game.status == "abandoned"

    await eventually(abandoned)
    game, versions = await stored(db, game_id)
    assert game is not None and game.seed == seed and game.ended_at is not None
    assert game.rated_at is None
    assert game.outcome is not None and game.outcome["ranks"][0] == 3
    assert versions == list(range(1, 8))  # the abandon itself changes no state
    users = [c.user["id"] for c in table.clients]
    async with db.session() as s:
        rated = (await s.scalars(select(Rating).where(Rating.user_id.in_(users)))).all()
        record = await history.game_record(s, game_id)
    assert rated == [] and record["rated"] is False
    assert all(seat["rating_after"] is None for seat in record["seats"])
    report = await verify(archive_url, game_id)
    assert report.ok, report.message


def _settings(redis_url: str, prefix: str, database_url: str, migrate: bool) -> Settings:
    return Settings(
        redis_url=redis_url,
        redis_prefix=prefix,
        secret=SECRET,
        database_url=database_url,
        migrate_on_start=migrate,
    )


async def test_a_node_refuses_an_unmigrated_database_unless_it_migrates(
    redis_url: str, redis_prefix: str, fresh_database: str
) -> None:
    app = create_app(_settings(redis_url, redis_prefix, fresh_database, migrate=False))
    with pytest.raises(RuntimeError, match="run `tortuga migrate`") as refused:
        async with app.router.lifespan_context(app):
            pass
    assert "no schema yet" in str(refused.value)
    assert await check_schema(fresh_database) is not None  # still untouched

    app = create_app(_settings(redis_url, redis_prefix, fresh_database, migrate=True))
    async with app.router.lifespan_context(app):
        assert app.state.db is not None
        await app.state.db.ping()
    assert await check_schema(fresh_database) is None

    # Migrated: now it starts with migrate_on_start off as well.
    app = create_app(_settings(redis_url, redis_prefix, fresh_database, migrate=False))
    async with contextlib.AsyncExitStack() as stack:
        await stack.enter_async_context(app.router.lifespan_context(app))
        assert app.state.db is not None
