"""README, "Redis Cluster and Postgres at scale": "history routes read from
``TORTUGA_DATABASE_READ_URL`` when it is set, else from the primary". Here the "replica" is
a second connection URL to the same test database: what the routes read shows which one."""

from __future__ import annotations

from typing import Any

import httpx
from archive_helpers import play_record, store

from server.archive.db import Database
from server.settings import Settings


def state_of(node: Any) -> Any:
    return node.server.config.app.state


async def test_history_routes_read_from_the_read_url_when_set(
    start: Any, archive_url: str, db: Database
) -> None:
    record = play_record(players=3, rounds=1)
    await store(db, record)
    read_url = f"{archive_url}?prepared_statement_cache_size=64"  # the same database
    node = await start("a", database_url=archive_url, database_read_url=read_url)
    state = state_of(node)
    assert state.read_db is not state.db
    assert state.read_db.url.query == {"prepared_statement_cache_size": "64"}
    assert state.read_db.engine.pool.checkedin() == 0  # nothing read yet

    async with httpx.AsyncClient(base_url=node.url) as http:
        got = await http.get(f"/api/history/games/{record['game_id']}")
    assert got.status_code == 200 and got.json()["seed"] == record["seed"]
    assert state.read_db.engine.pool.checkedin() >= 1  # the read went through it


async def test_without_a_read_url_history_is_read_from_the_primary(
    start: Any, archive_url: str
) -> None:
    node = await start("a", database_url=archive_url)
    state = state_of(node)
    assert state.read_db is state.db


def test_the_read_url_comes_from_the_environment(monkeypatch: Any) -> None:
    monkeypatch.setenv("TORTUGA_DATABASE_READ_URL", "postgresql://replica.example/tortuga")
    assert Settings.from_env().database_read_url == "postgresql://replica.example/tortuga"
    monkeypatch.delenv("TORTUGA_DATABASE_READ_URL")
    assert Settings.from_env().database_read_url is None
