"""Two real server nodes on one real Redis, sharing a secret and a fresh key space per test."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from own_services import OwnPostgres, OwnRedis
from tortuga_client import Node, start_node

StartNode = Callable[..., Awaitable[Node]]


@pytest.fixture
async def start(redis_url: str, redis_prefix: str) -> AsyncIterator[StartNode]:
    """Start nodes on demand (``await start("a", **settings)``); all stop after the test."""
    started: list[Node] = []

    async def go(node_id: str = "a", **changes: Any) -> Node:
        node = await start_node(redis_url, redis_prefix, node_id, **changes)
        started.append(node)
        return node

    yield go
    for node in started:
        await node.stop()


@pytest.fixture
async def node(start: StartNode) -> Node:
    return await start("a")


@pytest.fixture
async def two(start: StartNode) -> list[Node]:
    return [await start("a"), await start("b")]


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[OwnRedis]:
    """A Redis of the test's own (append-only, on a spare port) that it may kill and restart
    (tests/server/own_services.py); killed after the test."""
    server = OwnRedis(tmp_path)
    server.start()
    try:
        yield server
    finally:
        with contextlib.suppress(Exception):
            server.kill()


@pytest.fixture
async def own_postgres() -> AsyncIterator[OwnPostgres]:
    """A Postgres of the test's own (tests/server/own_services.py) that it may stop and
    start again; removed after the test."""
    server = await asyncio.to_thread(OwnPostgres)
    try:
        await asyncio.to_thread(server.start)
        yield server
    finally:
        await asyncio.to_thread(server.close)
