"""Failover drills (README, "Fault drills"): a Redis Cluster primary killed, and a node's
network to Redis taken away for a while (``test_redis_unreachable_for_a_while_under_load``:
a TCP proxy of the test's own, tests/server/tcp_proxy.py, cut or paused for 3 s).

``test_a_primary_killed_under_load``: a cluster of its own (3 primaries, a replica each,
``cluster-node-timeout`` 1 s: a replica is promoted 2-4 s after its primary dies), two
nodes in this process, rooms of Skull King played at a quick pace by websocket players
(``drills.Player``). Once every game is under way one primary -- the one owning the most
rooms' slots -- is SIGKILLed, and more tables are made and joined during the outage
(a table that plays its next game joins a new room then). What must hold:

- rooms whose slots live on the other primaries keep playing: none of their moves sent
  during the outage waits longer than ``OTHERS_STALL`` (the bug stalled every room for the
  whole failover);
- rooms on the dead primary resume once its replica is promoted;
- both nodes' subscriptions of those rooms' channels move to the new primary;
- 0 lost moves (every move a player sent is in its room's log once, ``check_room``), 0
  dead tables (no refusal but a retried move's, every game finishes, each final record on
  the archive stream once), the tables made during the outage too;
- ``/readyz`` says ``redis: degraded`` and names the dead primary while it is down (still
  200: the rooms on the others play on), and ``redis: up`` once the replica took over.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis
from drills import Player, archived_once, latencies, percentiles, start_all, tables
from own_services import OwnRedis
from redis.crc import key_slot
from redis_cluster import OwnCluster
from tcp_proxy import TcpProxy
from test_drills import _check_all, _play_all, _report, _under_way
from tortuga_client import Node, start_node

from server.redis.pool import connect
from server.redis.store import Keys

pytestmark = pytest.mark.drill

ROOMS = 12  # rooms under way when the primary dies
OUTAGE = 3.0  # seconds the network between nodes and Redis is gone
LATE = 4  # tables made and joined during the outage
PROMOTION = 4.0  # seconds after the kill before the replica may take over
OTHERS_STALL = 2.0  # seconds a move of a room on a live primary may wait, at most
KNOBS = {
    "clock_poll_seconds": 0.05,
    "archive_rescue_seconds": 1.0,
    "heartbeat_seconds": 0.5,
}


@pytest.fixture
def failing_cluster(tmp_path: Path) -> Iterator[OwnCluster]:
    cluster = OwnCluster(tmp_path, node_timeout=1000)
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


async def replica_of(ports: list[int], primary: int) -> int:
    """The port of ``primary``'s replica."""
    for port in ports:
        client = aioredis.Redis(port=port, socket_timeout=1.0)
        try:
            reply = await client.execute_command("CLUSTER", "SLOTS")
        except Exception:
            continue
        finally:
            await client.aclose()
        return next(int(row[3][1]) for row in reply if int(row[2][1]) == primary)
    raise AssertionError("no server of the cluster answered CLUSTER SLOTS")


async def config(port: int, name: str, value: str) -> None:
    client = aioredis.Redis(port=port, socket_timeout=1.0)
    try:
        await client.config_set(name, value)
    finally:
        await client.aclose()


async def slot_owners(ports: list[int]) -> list[tuple[int, int, int]]:
    """(first slot, last slot, primary's port) from the first server that answers."""
    for port in ports:
        client = aioredis.Redis(port=port, socket_timeout=1.0)
        try:
            reply = await client.execute_command("CLUSTER", "SLOTS")
        except Exception:
            continue
        finally:
            await client.aclose()
        return [(int(row[0]), int(row[1]), int(row[2][1])) for row in reply]
    raise AssertionError("no server of the cluster answered CLUSTER SLOTS")


def owner(owners: list[tuple[int, int, int]], slot: int) -> int:
    return next(port for first, last, port in owners if first <= slot <= last)


def hub_of(node: Node) -> Any:
    return node.server.config.app.state.services.hub  # type: ignore[attr-defined]


async def _watch_ready(node: Node, seen: list[tuple[float, int, dict[str, Any]]]) -> None:
    """Poll ``/readyz`` every 0.1 s: (when, status, body)."""
    async with httpx.AsyncClient(base_url=node.url, timeout=5.0) as http:
        while True:
            try:
                answer = await http.get("/readyz")
                seen.append((time.monotonic(), answer.status_code, answer.json()))
            except httpx.HTTPError as exc:
                seen.append((time.monotonic(), 0, {"error": type(exc).__name__}))
            await asyncio.sleep(0.1)


async def test_a_primary_killed_under_load(failing_cluster: OwnCluster) -> None:
    cluster = failing_cluster
    prefix = f"drill-{secrets.token_hex(4)}:"
    keys = Keys(prefix)
    a = await start_node(cluster.url, prefix, "a", **KNOBS)
    b = await start_node(cluster.url, prefix, "b", **KNOBS)
    redis: Any = connect(cluster.url, size=20, wait_seconds=10.0, retries=20)
    watching: asyncio.Task[None] | None = None
    try:
        made = await tables([a, b], ROOMS, lambda: b, rounds=5, pace=0.05, tolerant=True)
        owners = await slot_owners(cluster.ports)
        home = {room: owner(owners, key_slot(keys.room(room).encode())) for room, _ in made}
        counts = {port: list(home.values()).count(port) for _, _, port in owners}
        victim = max(counts, key=lambda port: counts[port])
        on_victim = [(r, ps) for r, ps in made if home[r] == victim]
        elsewhere = [(r, ps) for r, ps in made if home[r] != victim]
        assert on_victim and elsewhere, counts

        await start_all(made)
        released = asyncio.Event()
        for _, ps in made:
            for p in ps:
                p.hold = (3, released)
        plays = asyncio.ensure_future(_play_all(made, 90))
        await _under_way(made, 3)
        ready: list[tuple[float, int, dict[str, Any]]] = []
        watching = asyncio.ensure_future(_watch_ready(a, ready))
        released.set()
        await asyncio.sleep(0.3)  # moves under way everywhere
        # The replica takes over PROMOTION seconds after the kill at the soonest (as on a
        # cluster with a longer cluster-node-timeout): meanwhile the other primaries
        # know the dead one failed (after 1 s) and its slots have no owner.
        replica = await replica_of(cluster.ports, victim)
        await config(replica, "cluster-replica-no-failover", "yes")
        cluster.kill(victim)
        killed = time.monotonic()

        async def allow_promotion() -> None:
            await asyncio.sleep(PROMOTION)
            await config(replica, "cluster-replica-no-failover", "no")

        allowing = asyncio.ensure_future(allow_promotion())

        # Tables made and joined while the primary is down.
        async def late_tables() -> list[tuple[str, list[Player]]]:
            late = await tables([a, b], LATE, lambda: b, rounds=1, pace=0.02, tolerant=True)
            await start_all(late)
            return late

        lates = asyncio.ensure_future(late_tables())
        survivors = [p for p in cluster.ports if p != victim]
        promoted = 0.0
        while time.monotonic() - killed < 30:
            now = await slot_owners(survivors)
            if all(port != victim for _, _, port in now):
                promoted = time.monotonic() - killed
                owners = now
                break
            await asyncio.sleep(0.05)
        assert promoted, "no replica was promoted in 30 s"
        await allowing
        late = await lates
        views = await plays
        late_views = await _play_all(late, 60)
        took = time.monotonic() - killed

        # Rooms on the live primaries kept playing during the outage.
        outage = [
            s
            for _, ps in elsewhere
            for p in ps
            for sent, s in p.latencies
            if killed - 0.5 <= sent <= killed + promoted
        ]
        assert outage, "no move of a room on a live primary was made during the outage"
        stalled_others = max(outage)
        # Rooms on the dead primary resumed once the replica was promoted.
        victim_moves = latencies([p for _, ps in on_victim for p in ps])
        others50, others99 = percentiles(outage, 50, 99)
        print(
            "SLOW",
            sorted(
                (round(sent - killed, 2), round(x, 2), r)
                for r, ps in elsewhere
                for p in ps
                for sent, x in p.latencies
                if x > 0.3
            ),
        )
        _report(
            "primary-killed",
            rooms=len(made) + len(late),
            **{
                "on-dead-primary": len(on_victim),
                "promoted-after-s": f"{promoted:.1f}",
                "others-outage-p50/p99/max-ms": "/".join(
                    f"{x * 1000:.0f}" for x in (others50, others99, stalled_others)
                ),
                "dead-primary-max-wait-s": f"{max(victim_moves):.1f}",
                "finished-after-kill-s": f"{took:.1f}",
            },
        )
        assert max(victim_moves) < promoted + 15

        await _check_all(redis, prefix, made, views)
        await _check_all(redis, prefix, late, late_views)
        await archived_once(redis, prefix, [room for room, _ in [*made, *late]])

        new_owner = {room: owner(owners, key_slot(keys.room(room).encode())) for room, _ in made}
        for node in (a, b):
            followed = hub_of(node).pubsub.owner
            for room, _ in on_victim:
                channel = keys.channel(room)
                if channel in followed:
                    assert followed[channel] == f"127.0.0.1:{new_owner[room]}", followed[channel]

        # Readiness: degraded while the primary was down, ready after.
        during = [
            (t - killed, s, body)
            for t, s, body in ready
            if killed + 0.3 < t < killed + promoted - 0.3
        ]
        after = [(t - killed, s, body) for t, s, body in ready if t > killed + promoted + 3]
        dead = f"127.0.0.1:{victim}"
        assert any(s == 200 and body.get("down") == [dead] for _, s, body in during), during
        assert all(s == 200 for _, s, _ in during), during  # the others play on: still ready
        assert after and after[-1][1:] == (200, {"ok": True, "redis": "up"}), after[-5:]

        assert stalled_others < OTHERS_STALL, (
            f"a room on a live primary waited {stalled_others:.1f} s"
        )
    finally:
        if watching is not None:
            watching.cancel()
            with contextlib.suppress(BaseException):
                await watching
        await redis.aclose()
        await a.stop()
        await b.stop()


# -- a node loses its connection to Redis ---------------------------------------------------
@pytest.mark.parametrize("how", ["cut", "pause"])
async def test_redis_unreachable_for_a_while_under_load(own_redis: OwnRedis, how: str) -> None:
    """Ten rooms on two nodes whose Redis is reached through a TCP proxy of the test's own
    (tests/server/tcp_proxy.py). Once every game is under way the network goes for 3 s:
    ``cut`` resets every connection and refuses new ones, ``pause`` holds every byte (no
    error: the commands wait). The nodes' commands wait and are retried; their pub/sub
    comes back and catches their sockets up. No socket is closed, every game finishes,
    nothing is lost or made twice, each is archived once, and ``/readyz`` is 200 after."""
    await own_redis.answers()
    proxy = TcpProxy(own_redis.port)
    await proxy.start()
    prefix = f"drill-{secrets.token_hex(4)}:"
    knobs = {"clock_poll_seconds": 0.05, "archive_rescue_seconds": 1.0}
    a = await start_node(proxy.url, prefix, "a", **knobs)
    b = await start_node(proxy.url, prefix, "b", **knobs)
    redis = aioredis.Redis.from_url(own_redis.url)  # the test's own view: no proxy
    try:
        made = await tables([a, b], 10, lambda: b, rounds=2, pace=0.02, tolerant=True)
        await start_all(made)
        players = [p for _, ps in made for p in ps]
        plays = asyncio.ensure_future(_play_all(made, 90))
        await _under_way(made, 3)
        if how == "cut":
            await proxy.cut()
        else:
            proxy.pause()
        lost = time.monotonic()
        await asyncio.sleep(OUTAGE)
        await proxy.restore()
        views = await plays
        took = time.monotonic() - lost
        total = await _check_all(redis, prefix, made, views)
        assert all(p.hops == 0 and p.client.closed is None for p in players)
        await archived_once(redis, prefix, [room for room, _ in made])
        async with httpx.AsyncClient(base_url=a.url, timeout=10.0) as http:
            assert (await http.get("/readyz")).status_code == 200
        _report(
            f"redis-{how}",
            rooms=len(made),
            steps=total,
            **{"outage-s": OUTAGE, "finished-after-loss-s": f"{took:.1f}"},
        )
    finally:
        await proxy.restore()  # the nodes sign off through it
        await a.stop()
        await b.stop()
        await proxy.close()
        await redis.aclose()
