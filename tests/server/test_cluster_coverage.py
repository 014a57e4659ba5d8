"""A node names, when it starts, the Redis Cluster primaries that keep Redis's default
``cluster-require-full-coverage yes`` (server/redis/coverage.py): with it a failover stalls
every room, not only the dead primary's (README, "Redis Cluster and Postgres at scale")."""

from __future__ import annotations

import logging
import secrets

import redis.asyncio as aioredis
from tortuga_client import start_node

from server.redis import wire as redis_wire
from server.redis.coverage import SETTING, stalling_primaries


async def test_the_primaries_that_would_stall_every_room_are_named(
    redis_cluster_url: str,
) -> None:
    wire = redis_wire.connect(redis_cluster_url, retries=2)
    try:
        assert await stalling_primaries(wire) == [], "the test cluster runs with 'no'"
        one = sorted(await wire.primaries())[0]
        host, port = one.rsplit(":", 1)
        server = aioredis.Redis(host=host, port=int(port))
        await server.config_set(SETTING, "yes")
        try:
            assert await stalling_primaries(wire) == [one]
            # A node that starts on that cluster says so in its log.
            # (the node's loggers do not propagate: a handler of the test's own hears them)
            heard: list[logging.LogRecord] = []
            handler = logging.Handler(logging.WARNING)
            handler.emit = heard.append  # type: ignore[method-assign]
            logging.getLogger("tortuga.app").addHandler(handler)
            try:
                node = await start_node(redis_cluster_url, f"test-{secrets.token_hex(4)}:", "a")
                await node.stop()
            finally:
                logging.getLogger("tortuga.app").removeHandler(handler)
            said = [r.getMessage() for r in heard]
            assert any(one in line and "cluster-require-full-coverage yes" in line for line in said)
        finally:
            await server.config_set(SETTING, "no")
            await server.aclose()
    finally:
        await wire.close()
