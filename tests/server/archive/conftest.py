"""Fixtures of the archive tests: a migrated history database for the session."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.archive.commands import migrate
from server.archive.db import Database


@pytest.fixture(scope="session")
async def archive_url(database_url: str) -> str:
    """The session database, migrated to head (tests use distinct game and user ids)."""
    await migrate(database_url)
    return database_url


@pytest.fixture(scope="session")
async def db(archive_url: str) -> AsyncIterator[Database]:
    database = await Database.connect(archive_url)
    yield database
    await database.close()
