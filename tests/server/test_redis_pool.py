"""The node's Redis pool (server/redis/pool.py, redis-py's ``BlockingConnectionPool``): at
most ``size`` connections; a command finding them all busy waits for one instead of failing,
up to the wait limit."""

from __future__ import annotations

import asyncio

import pytest
from redis.asyncio import BlockingConnectionPool
from redis.exceptions import ConnectionError

from server.redis.pool import blocking_pool, connect, is_cluster


async def test_commands_wait_for_a_free_connection(redis_url: str, redis_prefix: str) -> None:
    if is_cluster(redis_url):
        pytest.skip("TORTUGA_TEST_REDIS_URL names a cluster: the blocking pool is one Redis's")
    client = connect(redis_url, size=2, wait_seconds=30, retries=0)
    pool = client.connection_pool
    assert isinstance(pool, BlockingConnectionPool)
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
        pytest.skip("TORTUGA_TEST_REDIS_URL names a cluster: the blocking pool is one Redis's")
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


async def test_a_write_the_socket_takes_needs_no_task(
    redis_url: str, redis_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pool's connections write a command without ``asyncio.wait_for`` (a task and a
    timer per command) when the socket takes it at once, and a command waiting for a busy
    pool's connection waits without one either; replies are the same."""
    if is_cluster(redis_url):
        pytest.skip("TORTUGA_TEST_REDIS_URL names a cluster: the blocking pool is one Redis's")
    client = connect(redis_url, size=1, wait_seconds=5, retries=0)
    try:
        await client.ping()  # connected before wait_for is watched
        calls: list[object] = []
        real = asyncio.wait_for

        def counted(aw: object, timeout: float | None) -> object:
            calls.append(aw)
            return real(aw, timeout)  # type: ignore[arg-type]

        monkeypatch.setattr(asyncio, "wait_for", counted)
        key = f"{redis_prefix}pool:plain"
        assert await client.set(key, "x") is True
        pipe = client.pipeline()
        pipe.get(key).delete(key)
        assert await pipe.execute() == [b"x", 1]
        # Four commands at once on one connection: three wait for it.
        assert await asyncio.gather(*(client.incr(key) for _ in range(4))) == [1, 2, 3, 4]
        await client.delete(key)
        assert calls == []
    finally:
        await client.aclose()


async def test_a_write_redis_does_not_read_times_out() -> None:
    """A write that stays in the buffer (the server has stopped reading) still gives up
    after ``socket_timeout`` with redis-py's TimeoutError, and the connection is dropped."""
    from redis.exceptions import TimeoutError as RedisTimeout

    held: list[asyncio.StreamWriter] = []
    deaf = asyncio.Event()

    async def server_side(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Answers the connection's set-up (+OK to each command), then reads no more."""
        held.append(writer)
        stop = asyncio.ensure_future(deaf.wait())
        while True:
            read = asyncio.ensure_future(reader.read(65536))
            done, _ = await asyncio.wait({read, stop}, return_when=asyncio.FIRST_COMPLETED)
            if read not in done:
                read.cancel()
                return
            data = read.result()
            if not data:
                return
            commands = data.count(b"\r\n*") + data.startswith(b"*")
            writer.write(b"+OK\r\n" * commands)

    server = await asyncio.start_server(server_side, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    pool = blocking_pool(f"redis://127.0.0.1:{port}/0", socket_timeout=0.5)
    conn = pool.make_connection()
    try:
        await conn.connect_check_health(check_health=False)
        deaf.set()
        await asyncio.sleep(0.05)
        big = b"x" * (64 << 20)  # more than the kernel's buffers take
        started = asyncio.get_running_loop().time()
        with pytest.raises(RedisTimeout, match="Timeout writing"):
            await conn.send_packed_command([big], check_health=False)
        assert asyncio.get_running_loop().time() - started < 5
        assert not conn.is_connected
    finally:
        await conn.disconnect()
        for writer in held:
            writer.close()
        server.close()
        await server.wait_closed()
