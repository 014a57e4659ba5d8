"""The node's Redis pool (server/redis_pool.py): at most ``size`` connections; a command
finding them all busy waits for one instead of failing, up to the wait limit."""

from __future__ import annotations

import asyncio

import pytest
from redis.exceptions import ConnectionError

from server.redis_pool import WaitingPool, connect, is_cluster


async def test_commands_wait_for_a_free_connection(redis_url: str, redis_prefix: str) -> None:
    if is_cluster(redis_url):
        pytest.skip("TORTUGA_TEST_REDIS_URL names a cluster: WaitingPool is the one-Redis pool")
    client = connect(redis_url, size=2, wait_seconds=30, retries=0)
    pool = client.connection_pool
    assert isinstance(pool, WaitingPool)
    try:
        # Six blocking pops (each gives up after half a second) on two connections: four
        # wait their turn, none fails, and no third connection is ever made.
        keys = [f"{redis_prefix}pool:{k}" for k in range(6)]
        popped = await asyncio.gather(*(client.blpop([key], timeout=0.5) for key in keys))
        assert popped == [None] * 6
        assert len(pool._available_connections) + len(pool._in_use_connections) == 2
    finally:
        await client.aclose()


async def test_a_command_gives_up_after_the_wait(redis_url: str, redis_prefix: str) -> None:
    if is_cluster(redis_url):
        pytest.skip("TORTUGA_TEST_REDIS_URL names a cluster: WaitingPool is the one-Redis pool")
    client = connect(redis_url, size=1, wait_seconds=0.1, retries=0)
    try:
        holder = asyncio.create_task(client.blpop([f"{redis_prefix}pool:held"], timeout=2))
        await asyncio.sleep(0.2)  # the only connection is taken
        with pytest.raises(ConnectionError, match="No connection available"):
            await client.get(f"{redis_prefix}pool:other")
        assert await holder is None  # the holder timed out on its own, and let go
        assert await client.get(f"{redis_prefix}pool:other") is None  # the pool works again
    finally:
        await client.aclose()
