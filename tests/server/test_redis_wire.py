"""The store's hot path to Redis (server/redis/wire.py): pipelined commands on one
connection, raw replies in order, retries over a lost connection, scripts loaded when the
server forgot them, a Redis that stops answering given up, and a cluster's slots followed."""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path
from typing import Any

import pytest
from own_services import OwnRedis

from server.redis.pubsub import WireSubscriber
from server.redis.wire import CommandError, Endpoint, Script, Wire, WireTimeout, parse_url


def test_urls_name_the_servers_and_the_database() -> None:
    """The same URL forms as the rest of the node (README: TORTUGA_REDIS_URL)."""
    assert parse_url("redis://127.0.0.1:6380/3") == ([Endpoint("127.0.0.1", 6380, db=3)], False)
    assert parse_url("redis://:secret@h/0")[0][0].password == "secret"
    assert parse_url("rediss://u:p@h:7000")[0][0] == Endpoint("h", 7000, None, 0, "u", "p", True)
    assert parse_url("unix:///run/r.sock?db=2") == ([Endpoint(path="/run/r.sock", db=2)], False)
    seeds, cluster = parse_url("redis+cluster://a:1,b:2")
    assert cluster and [(e.host, e.port) for e in seeds] == [("a", 1), ("b", 2)]
    with pytest.raises(ValueError):
        parse_url("http://example.com")


async def test_commands_issued_together_leave_in_one_write(redis_url: str) -> None:
    """ "Every command issued in the same turn of the event loop leaves in one write": 200
    commands at once, replies matched to their callers in order."""
    wire = Wire.from_url(redis_url, retries=3)
    key = f"test-{secrets.token_hex(4)}:wire:{{k}}"
    try:
        await wire.call("DEL", key, key=key)
        link = next(iter(wire._links.values()))
        assert link.transport is not None
        writes = 0
        write = link.transport.write

        def counted(data: Any) -> None:
            nonlocal writes
            writes += 1
            write(data)

        link.transport.write = counted  # type: ignore[method-assign]
        replies = await asyncio.gather(*(wire.call("RPUSH", key, i, key=key) for i in range(200)))
        assert replies == list(range(1, 201))  # each caller got its own reply
        assert writes == 1
        assert await wire.call("LRANGE", key, 0, 2, key=key) == [b"0", b"1", b"2"]
    finally:
        await wire.call("DEL", key, key=key)
        await wire.close()


async def test_an_error_reply_is_raised_and_the_next_replies_stay_in_order(
    redis_url: str,
) -> None:
    wire = Wire.from_url(redis_url, retries=3)
    key = f"test-{secrets.token_hex(4)}:wire:{{k}}"
    try:
        await wire.call("SET", key, "text", key=key)
        wrong, after = await asyncio.gather(
            wire.call("LPUSH", key, "x", key=key),
            wire.call("GET", key, key=key),
            return_exceptions=True,
        )
        assert isinstance(wrong, CommandError) and "WRONGTYPE" in str(wrong)
        assert after == b"text"
        with pytest.raises(CommandError):
            await wire.many(("GET", key), ("HGETALL", key), key=key)
        assert await wire.many(("GET", key), ("STRLEN", key), key=key) == [b"text", 4]
    finally:
        await wire.call("DEL", key, key=key)
        await wire.close()


async def test_a_script_the_server_forgot_is_loaded_and_run(tmp_path: Path) -> None:
    """A restarted Redis knows no script: NOSCRIPT, then SCRIPT LOAD, then the call."""
    own = OwnRedis(tmp_path)
    own.start()
    wire = Wire.from_url(own.url, retries=20)
    script = Script.of("return {KEYS[1], ARGV[1]}")
    try:
        await own.answers()
        assert await wire.run(script, ["{a}"], [7]) == [b"{a}", b"7"]
        await wire.call("SCRIPT", "FLUSH")
        assert await wire.run(script, ["{b}"], ["x"]) == [b"{b}", b"x"]
    finally:
        await wire.close()
        own.kill()


async def test_a_lost_connection_is_made_again_and_the_command_retried(tmp_path: Path) -> None:
    """A Redis killed and started again: the commands sent meanwhile wait (with backoff)
    and then run, as redis-py's pool did (server/redis/pool.py: "a Redis restart")."""
    own = OwnRedis(tmp_path)
    own.start()
    wire = Wire.from_url(own.url, retries=20)
    try:
        await own.answers()
        await wire.call("SET", "{k}", "1")
        own.kill()
        pending = asyncio.gather(*(wire.call("INCR", "{k}") for _ in range(5)))
        await asyncio.sleep(0.3)
        own.start()
        assert sorted(await asyncio.wait_for(pending, 30)) == [2, 3, 4, 5, 6]  # AOF kept "1"
    finally:
        await wire.close()
        own.kill()


async def test_a_redis_that_stops_answering_is_given_up() -> None:
    """A server that takes commands and never answers: the connection is dropped after the
    timeout and, the retries spent, the caller hears ``WireTimeout`` (not a hang)."""
    seen: list[bytes] = []

    async def mute(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await reader.read(100))
        await asyncio.sleep(30)

    server = await asyncio.start_server(mute, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    wire = Wire([Endpoint("127.0.0.1", port)], retries=1, timeout=0.2)
    try:
        with pytest.raises(WireTimeout):
            await asyncio.wait_for(wire.call("PING"), 10)
        assert seen and seen[0].startswith(b"*1\r\n$4\r\nPING")
    finally:
        await wire.close()
        server.close()


@pytest.mark.cluster
async def test_keys_of_every_slot_reach_their_primary(redis_url: str, redis_prefix: str) -> None:
    """On a cluster each command goes to its key's primary (no MOVED left unfollowed); on
    one Redis the same calls simply work."""
    wire = Wire.from_url(redis_url, retries=3)
    try:
        keys = [f"{redis_prefix}{{t{i}}}" for i in range(50)]
        await asyncio.gather(*(wire.call("SET", k, k, key=k) for k in keys))
        assert await asyncio.gather(*(wire.call("GET", k, key=k) for k in keys)) == [
            k.encode() for k in keys
        ]
        script = Script.of("return redis.call('GET', KEYS[1])")
        assert await wire.run(script, [keys[7]], []) == keys[7].encode()
    finally:
        await wire.close()


async def test_the_wire_subscriber_subscribes_again_after_a_restart(tmp_path: Path) -> None:
    """One Redis: the hub's pub/sub connection (server/redis/pubsub.py, ``WireSubscriber``) hands
    on each message; a Redis restart makes it connect again and subscribe every channel
    again -- the hub hears ``subscribe`` once more (its cue to catch sockets up)."""
    own = OwnRedis(tmp_path)
    own.start()
    wire = Wire.from_url(own.url, retries=20)
    subscriber = WireSubscriber(wire.seeds[0])

    async def next_of(kind: str) -> dict[str, Any]:
        for _ in range(200):
            message = await subscriber.get_message(timeout=0.1)
            if message is not None and message["type"] == kind:
                return message
        raise AssertionError(f"no {kind}")

    try:
        await own.answers()
        await subscriber.subscribe("site")
        await subscriber.follow("room:{A}")
        assert {(await next_of("subscribe"))["channel"] for _ in range(2)} == {
            b"site",
            b"room:{A}",
        }
        await wire.call("PUBLISH", "room:{A}", b"v1")
        assert (await next_of("message"))["data"] == b"v1"
        await subscriber.unfollow("room:{A}")
        await next_of("unsubscribe")
        await subscriber.follow("room:{B}")
        await next_of("subscribe")
        own.kill()
        await asyncio.sleep(0.3)
        own.start()
        again = {(await next_of("subscribe"))["channel"] for _ in range(2)}
        assert again == {b"site", b"room:{B}"}  # not A: no longer followed
        await wire.call("PUBLISH", "room:{B}", b"v2")
        assert (await next_of("message"))["data"] == b"v2"
        assert await subscriber.get_message(timeout=0.05) is None
    finally:
        await subscriber.aclose()
        await wire.close()
        own.kill()
