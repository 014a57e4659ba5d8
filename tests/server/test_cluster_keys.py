"""Key placement for a Redis Cluster (docs/ARCHITECTURE.md, "Redis Cluster"): the clock is
spread so that no slot carries the site, a room's clock members stay together, and the URL
form that selects cluster mode is read as documented in the README."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import pytest
from redis.crc import key_slot

from server.redis.keys import ARCHIVE_STREAMS, CLOCK_BUCKETS, Keys, member, spread_tags
from server.redis.pool import cluster_nodes, is_cluster


def test_the_clock_buckets_fall_in_equal_ranges_of_the_slot_space() -> None:
    """ "The clock ... 8 buckets, their hash tags chosen so that their slots fall in 8 equal
    ranges of the slot space": on an evenly split cluster, different primaries."""
    keys = Keys("site:")
    slots = [key_slot(k.encode()) for k in keys.clock_buckets]
    assert len(set(keys.clock_buckets)) == CLOCK_BUCKETS
    assert [slot // (16384 // CLOCK_BUCKETS) for slot in slots] == list(range(CLOCK_BUCKETS))
    assert spread_tags("c", CLOCK_BUCKETS) == spread_tags("c", CLOCK_BUCKETS)  # stable


def test_a_rooms_clock_members_share_a_bucket_and_rooms_spread_over_all() -> None:
    keys = Keys()
    names = [
        member("move", "ROOM1", 4),
        member("grace", "ROOM1", 2, "1.000"),
        member("idle", "ROOM1", "2.5"),
    ]
    assert len({keys.clock_of(n) for n in names}) == 1
    used = {keys.clock_of(member("move", f"R{i:04d}", 1)) for i in range(200)}
    assert used == set(keys.clock_buckets)


def test_the_archive_streams_fall_in_equal_ranges_and_a_room_keeps_to_one() -> None:
    """ "Spread like the clock": no slot carries the site's archive traffic; all of one
    room's records (checkpoints, then the final one) in one stream, so in order."""
    keys = Keys("site:")
    slots = [key_slot(k.encode()) for k in keys.archive_streams]
    assert len(set(keys.archive_streams)) == ARCHIVE_STREAMS
    assert [slot // (16384 // ARCHIVE_STREAMS) for slot in slots] == list(range(ARCHIVE_STREAMS))
    assert keys.archive_of("ROOM1") == keys.archive_of("ROOM1")
    used = {keys.archive_of(f"R{i:04d}") for i in range(200)}
    assert used == set(keys.archive_streams)


def test_each_archive_stream_and_its_dead_letters_share_a_slot() -> None:
    """The archiver moves an entry to the dead letters in one transaction: one slot."""
    keys = Keys("site:")
    for stream in keys.archive_streams:
        assert key_slot(stream.encode()) == key_slot(keys.archive_dead(stream).encode())


def test_a_prefix_with_braces_is_refused() -> None:
    """Its braces would be every key's hash tag: the whole site in one slot."""
    with pytest.raises(ValueError):
        Keys("site{1}:")


def test_the_cluster_url_form() -> None:
    """README: ``redis+cluster://host:port[,host:port...]`` (``rediss+cluster://``: TLS)."""
    url = "redis+cluster://user:pw@10.0.0.5:7000,10.0.0.6:7001"
    assert is_cluster(url) and is_cluster("rediss+cluster://h:1")
    assert not is_cluster("redis://127.0.0.1:6379/0")
    assert cluster_nodes(url) == [("10.0.0.5", 7000), ("10.0.0.6", 7001)]
    with pytest.raises(ValueError):
        cluster_nodes("redis+cluster://10.0.0.5")


async def test_a_fresh_cluster_client_routes_its_first_commands_by_key(
    redis_cluster_url: str,
) -> None:
    """A node's first commands come many at once (every archive lane, the clock, the first
    sockets). redis-py 8 decides how to route a command before it has learnt the slot map:
    those sent before would go to a random primary and be MOVED, and every fifth MOVED made
    the client close all its connections, failing every command in flight ("Connection
    closed by server" in CI). The node's client learns the map first: none is MOVED."""
    from redis.asyncio.cluster import NodesManager

    from server.redis.pool import connect

    prefix = f"test-{secrets.token_hex(4)}:"
    client = connect(redis_cluster_url, size=50, wait_seconds=10.0, retries=3)
    moved: list[int] = []
    original = NodesManager.move_slot

    async def counted(self: NodesManager, e: Any) -> None:
        moved.append(e.slot_id)
        await original(self, e)

    NodesManager.move_slot = counted  # type: ignore[method-assign]
    try:
        streams = [f"{prefix}s:{{t{i}}}" for i in range(30)]
        await asyncio.gather(
            *(client.xgroup_create(s, "g", id="0", mkstream=True) for s in streams),
            *(client.hset(f"{prefix}h:{{t{i}}}", "f", "v") for i in range(30)),
        )
        assert moved == []
        assert len({key_slot(s.encode()) for s in streams}) == 30  # spread over the primaries
    finally:
        NodesManager.move_slot = original  # type: ignore[method-assign]
        for i in range(30):
            await client.delete(f"{prefix}s:{{t{i}}}", f"{prefix}h:{{t{i}}}")
        await client.aclose()
