"""The final archive record of a game survives the death of the node that ended it.

The final record goes on the archive stream just after the game's last compare-and-set (a
Redis Cluster forbids it inside the room's script). So that a node dying in between loses
nothing, the writer puts ``archive|<room>|<version>`` on the clock before the write; in the
normal path it takes that member, writes the record, sets ``archived=1`` and removes it
(the clock never fires it); if the writer died, another node's clock rebuilds the record
from the log and writes it, exactly once. Here "died" is a node whose ``_archive_end`` does
nothing (it stops right after the final write) and which is then stopped; the SIGKILL of a
node in its own process is in test_node_death.py.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from test_abandon import room_hash
from test_clock import APPLIED, fired
from test_protocol import started
from tortuga_client import Client, Node, advance, final_records

from server.redis.store import Keys
from server.table.game_end import GameEnd

RESCUE = 0.6  # archive_rescue_seconds
KNOBS = {"clock_poll_seconds": 0.05, "archive_rescue_seconds": RESCUE}


def ending_of(node: Node) -> GameEnd:
    """The node's end of games (whose ``archive_end`` the tests replace)."""
    return node.server.config.app.state.services.rooms.ending  # type: ignore[attr-defined,no-any-return]


async def end_game(clients: list[Client], how: str, redis: Any, prefix: str, room: str) -> int:
    """Play one round to its end (``finished``), or let the host abandon it after the bids
    (``abandoned``). The last version."""
    version = await advance(clients)
    if how == "abandoned":
        assert (await clients[0].call("abandon"))["type"] == "ok"
        version += 1
        for c in clients:
            await c.has_version(version)
        return version
    while (await room_hash(redis, prefix, room))["status"] == "playing":
        version = await advance(clients)
    return version


async def archive_members(redis: Any, prefix: str) -> list[bytes]:
    members = [m for key in Keys(prefix).clock_buckets for m in await redis.zrange(key, 0, -1)]
    return [m for m in members if m.startswith(b"archive|")]


async def wait_for(pred: Any, timeout: float = 10.0) -> None:
    for _ in range(int(timeout / 0.05)):
        if await pred():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("timed out")


@pytest.mark.parametrize("how", ["finished", "abandoned"])
async def test_the_writer_archives_once_and_the_clock_never_fires(
    start: Any, redis_client: Any, redis_prefix: str, how: str
) -> None:
    nodes = [await start("a", **KNOBS), await start("b", **KNOBS)]
    table = await started(nodes, 3, options={"rounds": 1})
    version = await end_game(table.clients, how, redis_client, redis_prefix, table.id)
    # The players see the last version (published by the write) before it is archived.
    await wait_for(lambda: _has_archived(redis_client, redis_prefix, table.id))
    assert (await room_hash(redis_client, redis_prefix, table.id))["status"] == how
    name = f"archive|{table.id}|{version}"
    await asyncio.sleep(RESCUE * 2.5)  # well past the rescue's due time
    records = await final_records(redis_client, redis_prefix)
    assert [json.loads(f[b"record"])["status"] for _, f in records] == [how]
    assert await archive_members(redis_client, redis_prefix) == []
    assert fired(nodes, name) == []  # taken and removed by the writer: never due
    # A socket joining the room over (the safety net re-arms) changes nothing.
    late = await Client.connect(nodes[1], "Late")
    await late.send("join", room=table.id, **{"as": "spectator"})
    await late.of("snapshot")
    await asyncio.sleep(RESCUE * 2)
    assert len(await final_records(redis_client, redis_prefix)) == 1
    await late.close()


@pytest.mark.parametrize("how", ["finished", "abandoned"])
async def test_a_node_dead_before_the_record_is_rescued_by_another(
    start: Any, redis_client: Any, redis_prefix: str, how: str, monkeypatch: Any
) -> None:
    """Node a writes the last version and "dies" before the record is on the stream; b's
    clock puts exactly one final record there (rebuilt from the log, the same as a's
    would have been) and sets ``archived``."""
    a, b = await start("a", **KNOBS), await start("b", **KNOBS)
    died: list[tuple[str, int]] = []

    async def die(rescue: tuple[str, int]) -> None:
        died.append(rescue)

    monkeypatch.setattr(ending_of(a), "archive_end", die)
    table = await started([a], 3, options={"rounds": 1})
    version = await end_game(table.clients, how, redis_client, redis_prefix, table.id)
    name = f"archive|{table.id}|{version}"
    await wait_for(lambda: _true(bool(died)))
    assert [n for n, _ in died] == [name]
    for c in table.clients:
        await c.close()
    await a.stop()
    assert "archived" not in await room_hash(redis_client, redis_prefix, table.id)
    assert await final_records(redis_client, redis_prefix) == []
    assert await archive_members(redis_client, redis_prefix) == [name.encode()]

    await wait_for(lambda: _has_archived(redis_client, redis_prefix, table.id))
    await asyncio.sleep(RESCUE * 2)  # nothing more comes
    assert fired([b], name) == [APPLIED] and fired([a], name) == []
    assert await archive_members(redis_client, redis_prefix) == []
    records = await final_records(redis_client, redis_prefix)
    assert len(records) == 1
    record = json.loads(records[0][1][b"record"])
    room = await room_hash(redis_client, redis_prefix, table.id)
    assert record["status"] == how and record["game_id"] == f"{table.id}-1"
    assert record["seed"] == room["seed"] and record["ended_at"] == room["ended_at"]
    # Finished, or ended by the seated host: their loss, also in a rescued record.
    assert record["outcome"] is not None
    assert record.get("abandoned_by") == (0 if how == "abandoned" else None)
    last = version if how == "finished" else version - 1  # the abandon entry is no event
    assert [e["version"] for e in record["events"]] == list(range(1, last + 1))


async def test_a_writer_that_stalls_past_the_rescue_leaves_the_record_to_the_clock(
    start: Any, redis_client: Any, redis_prefix: str, monkeypatch: Any
) -> None:
    """The writer comes back to archive after a clock claimed the member: it finds the
    member taken and writes nothing; the stream has the clock's record only."""
    node = await start("a", **KNOBS)
    ending = ending_of(node)
    original = ending.archive_end
    stalled: list[str] = []

    async def slow(rescue: tuple[str, int]) -> None:
        await asyncio.sleep(RESCUE * 3)
        stalled.append(rescue[0])
        await original(rescue)

    monkeypatch.setattr(ending, "archive_end", slow)
    table = await started([node], 3, options={"rounds": 1})
    version = await advance(table.clients)
    assert (await table.clients[0].call("abandon"))["type"] == "ok"
    name = f"archive|{table.id}|{version + 1}"
    await wait_for(lambda: _has_archived(redis_client, redis_prefix, table.id))
    assert fired([node], name) == [APPLIED]
    await wait_for(lambda: _true(stalled == [name]))
    await asyncio.sleep(0.3)
    assert len(await final_records(redis_client, redis_prefix)) == 1
    assert await archive_members(redis_client, redis_prefix) == []


async def _true(value: bool) -> bool:
    return value


async def _has_archived(redis: Any, prefix: str, room_id: str) -> bool:
    return (await room_hash(redis, prefix, room_id)).get("archived") == "1"
