"""The schema: Alembic upgrades an empty database to head, downgrades to base and upgrades
again, on the real Postgres; the models and the migrations describe the same schema."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

from server.archive.commands import (
    check_schema,
    current_revision,
    downgrade,
    head_revision,
    migrate,
)
from server.archive.db import Database
from server.archive.models import NAMING, Base

ROOT = Path(__file__).resolve().parents[3]
TABLES = {
    "users",
    "games",
    "seats",
    "events",
    "ratings",
    "ladder_ratings",
    "admin_audit",
    "admin_audit_head",
    "admins",
    "admin_sessions",
    "device_keys",
    "push_subscriptions",
    "passkeys",
    "sign_ins",
}


async def _tables(url: str) -> set[str]:
    db = Database(url)
    try:
        async with db.engine.connect() as conn:
            names = await conn.run_sync(lambda c: set(inspect(c).get_table_names()))
    finally:
        await db.close()
    return names - {"alembic_version"}


def _diff(connection: Connection) -> list[object]:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return list(compare_metadata(context, Base.metadata))


async def test_upgrade_downgrade_upgrade(fresh_database: str) -> None:
    assert await _tables(fresh_database) == set()
    message = await check_schema(fresh_database)
    assert message is not None and "no schema" in message and "tortuga migrate" in message

    await migrate(fresh_database)
    assert await _tables(fresh_database) == TABLES
    assert await current_revision(fresh_database) == (head_revision(),)
    assert await check_schema(fresh_database) is None
    await migrate(fresh_database)  # at head already: nothing to do, no error

    await downgrade(fresh_database, "base")
    assert await _tables(fresh_database) == set()
    assert await current_revision(fresh_database) == ()

    await migrate(fresh_database)
    assert await _tables(fresh_database) == TABLES
    assert await check_schema(fresh_database) is None


async def test_models_match_migrations(fresh_database: str) -> None:
    await migrate(fresh_database)
    db = Database(fresh_database)
    try:
        async with db.engine.connect() as conn:
            assert await conn.run_sync(_diff) == []
            # Constraint names follow the naming convention (from the first revision on).
            names = set(
                await conn.scalars(
                    text(
                        "SELECT conname FROM pg_constraint c JOIN pg_namespace n "
                        "ON n.oid = c.connamespace WHERE n.nspname = 'public'"
                    )
                )
            )
    finally:
        await db.close()
    assert NAMING["pk"] == "pk_%(table_name)s"
    assert {f"pk_{t}" for t in TABLES} <= names
    assert {"fk_seats_game_id_games", "fk_events_game_id_games", "ck_games_status"} <= names


async def test_check_schema_names_the_revisions(fresh_database: str) -> None:
    db = Database(fresh_database)
    try:
        async with db.engine.begin() as conn:
            await conn.execute(text("CREATE TABLE alembic_version (version_num varchar(32))"))
            await conn.execute(text("INSERT INTO alembic_version VALUES ('ffff')"))
    finally:
        await db.close()
    message = await check_schema(fresh_database)
    assert message is not None
    assert "ffff" in message and head_revision() in message and "does not know" in message

    unreachable = "postgresql+asyncpg://nobody:secret@127.0.0.1:1/nothing"
    message = await check_schema(unreachable)
    assert message is not None and "cannot reach" in message and "secret" not in message


async def test_alembic_command_line(fresh_database: str) -> None:
    """`uv run alembic upgrade head` with TORTUGA_DATABASE_URL works too."""
    env = {**os.environ, "TORTUGA_DATABASE_URL": fresh_database}
    done = subprocess.run(
        [sys.executable, "-m", "alembic", "upgrade", "head"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert await current_revision(fresh_database) == (head_revision(),)
