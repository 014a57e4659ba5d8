"""Fixtures of the admin tests: the session database migrated, a node on it, an admin."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from typing import Any

import pytest
from admin_helpers import PASSWORD
from tortuga_client import Node

from server.admin import accounts
from server.archive.commands import migrate
from server.archive.db import Database


@pytest.fixture(scope="session")
async def admin_url(database_url: str) -> str:
    await migrate(database_url)
    return database_url


@pytest.fixture
async def admin_db(admin_url: str) -> AsyncIterator[Database]:
    db = await Database.connect(admin_url)
    yield db
    await db.close()


@pytest.fixture
async def admin_name(admin_db: Database) -> str:
    """A fresh admin account (the session database is shared: names are unique)."""
    name = f"op-{secrets.token_hex(4)}"
    await accounts.create(admin_db, name, PASSWORD)
    return name


@pytest.fixture
async def admin_node(start: Any, admin_url: str) -> Node:
    node: Node = await start("a", database_url=admin_url)
    return node
