"""Alembic's environment: async (asyncpg), the URL from the caller or TORTUGA_DATABASE_URL.

Two ways in:
- ``tortuga migrate`` (server/archive/commands.py) opens the connection itself and passes
  it as ``config.attributes["connection"]``; the migrations run on it, inside its transaction.
- ``uv run alembic ...`` at the top of the repository: the URL is ``sqlalchemy.url`` if set,
  else TORTUGA_DATABASE_URL.
"""

from __future__ import annotations

import asyncio
import os
from logging.config import fileConfig

from alembic import context
from sqlalchemy import pool
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from server.archive.db import async_url
from server.archive.models import Base

config = context.config
if config.config_file_name is not None and not config.attributes.get("connection"):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = Base.metadata


def database_url() -> str:
    url = config.get_main_option("sqlalchemy.url") or os.environ.get("TORTUGA_DATABASE_URL")
    if not url:
        raise SystemExit("set TORTUGA_DATABASE_URL to the Postgres to migrate")
    return async_url(url).render_as_string(hide_password=False)


def configure(**kwargs: object) -> None:
    context.configure(target_metadata=target_metadata, compare_type=True, **kwargs)  # type: ignore[arg-type]


def run_migrations_offline() -> None:
    """``alembic upgrade head --sql``: print the SQL instead of running it."""
    configure(url=database_url(), literal_binds=True, dialect_opts={"paramstyle": "named"})
    with context.begin_transaction():
        context.run_migrations()


def run_on(connection: Connection) -> None:
    configure(connection=connection)
    with context.begin_transaction():
        context.run_migrations()


async def run_async() -> None:
    engine = create_async_engine(database_url(), poolclass=pool.NullPool)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(run_on)
    finally:
        await engine.dispose()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        run_on(connection)
    else:
        asyncio.run(run_async())


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
