"""Fault drills: a fault in the middle of games under load, and nothing lost.

Each drill plays several rooms of Skull King at once (human seats as websocket clients at
a quick pace, ``drills.Player``; some rooms with a bot seat), each with services of its own
where the fault needs them (a node process, a Redis or a Postgres on a spare loopback
port, tests/server/own_services.py), injects the fault mid-game and then holds every
room's log against what its players sent (``drills.check_room``): every game finishes,
every move a player sent is in the log once, where it was sent, and each player received
every version once, in order, over all its sockets.

1. ``test_a_node_killed_under_load``: one of two node processes is SIGKILLed; its players
   come back on the other node and send again what they had not seen applied.
2. ``test_redis_restarted_under_load``: the nodes' Redis (append-only, fsync always) is
   killed and started again on the same files; the nodes reconnect and go on from the
   last acknowledged version.
3. ``test_postgres_down_under_load``: the nodes' Postgres is stopped while games are
   played to their end; afterwards the archive backlog drains, every game stored once.
4. ``test_a_flood_of_bad_frames``: sockets of another process flood a node process with
   malformed and oversized frames while games run there; the flooders are cut off and the
   players play on (their move latency is printed beside a baseline from the same test).

Deadlines are off (a lost move stalls its game: the drill times out); waits are generous,
each drill takes seconds to tens of seconds on a loaded 2-core machine.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis
from drills import (
    Player,
    archived_once,
    check_room,
    entries,
    latencies,
    percentiles,
    start_all,
    tables,
)
from own_services import OwnPostgres, OwnRedis
from sqlalchemy import func, select
from test_node_death import NodeProcess, spawn_node
from tortuga_client import Node, start_node

from server.archive.db import Database
from server.archive.models import Event, Game, Rating
from server.redis.store import Keys

pytestmark = pytest.mark.drill

HERE = Path(__file__).resolve().parent
ROOMS = 10  # rooms played at once in each drill
OUTAGE = 4.0  # seconds Postgres is down at least


def _stop(*nodes: NodeProcess) -> None:
    for node in nodes:
        if node.process.poll() is None:
            node.process.kill()
        node.process.wait(10)
        node.stderr.close()


async def _play_all(
    made: list[tuple[str, list[Player]]],
    timeout: float,
    redis: Any = None,
    prefix: str = "",
) -> list[Any]:
    """Every player plays its game to the end; if one does not within ``timeout``, the
    players not done are named with what they last saw (and their room's seal hash)."""
    players = [p for _, ps in made for p in ps]
    tasks = [asyncio.ensure_future(p._play()) for p in players]
    done, pending = await asyncio.wait(tasks, timeout=timeout, return_when=asyncio.FIRST_EXCEPTION)
    failed = [t for t in done if t.exception() is not None]
    for t in pending if failed else ():
        t.cancel()
    if failed:
        raise failed[0].exception()  # type: ignore[misc]
    if pending:
        for t in pending:
            t.cancel()
        stuck = []
        for p, t in zip(players, tasks, strict=True):
            if t not in pending:
                continue
            seen = [
                {k: v for k, v in f.items() if k not in ("view", "chat")}
                for f in p.client.frames[-30:]
                if f["type"] != "presence"
            ]
            seal = await redis.hgetall(Keys(prefix).seal(p.room_id)) if redis else None
            stuck.append(
                f"room {p.room_id} seat {p.seat} at v{p.version} hops {p.hops} "
                f"committed {p.committed} revealed {p.revealed} errors {p.errors} "
                f"seal {seal}: {seen[-8:]}"
            )
        raise AssertionError(f"not over in {timeout} s:\n" + "\n".join(stuck))
    return [t.result() for t in tasks]


async def _under_way(made: list[tuple[str, list[Player]]], version: int) -> None:
    """Every room has reached ``version`` (its host's socket saw it)."""
    await asyncio.gather(*(ps[0].client.has_version(version, timeout=30) for _, ps in made))


async def _check_all(
    redis: Any, prefix: str, made: list[tuple[str, list[Player]]], views: list[Any]
) -> int:
    """``check_room`` for every room; the number of log entries in all."""
    players = [p for _, ps in made for p in ps]
    total = 0
    for room_id, ps in made:
        mine = [views[players.index(p)] for p in ps]
        total += len(await check_room(redis, prefix, room_id, ps, mine))
    return total


def _cpu_seconds(pid: int) -> float:
    """CPU time (user + system) a process has used so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _report(name: str, **figures: Any) -> None:
    print(f"drill {name}: " + ", ".join(f"{k} {v}" for k, v in figures.items()))


# -- 1. a node dies ------------------------------------------------------------------------
KILLED = {
    "TORTUGA_BOT_DELAY": "0.1",
    "TORTUGA_BOT_RESCUE_SECONDS": "1.0",
    "TORTUGA_HEARTBEAT_SECONDS": "0.3",
    "TORTUGA_NODE_TTL_SECONDS": "1.5",
    "TORTUGA_CLOCK_POLL_SECONDS": "0.05",
    "TORTUGA_ARCHIVE_RESCUE_SECONDS": "1.0",
}


async def test_a_node_killed_under_load(
    start: Any, redis_url: str, redis_prefix: str, redis_client: Any
) -> None:
    """Ten rooms, seats 0 and 2 on node a (a process of its own), seat 1 on node b (four
    rooms have a bot in seat 2, whose runs a may own). a is SIGKILLed once every game is
    under way: its players find their sockets dead, resume on b and send again what they
    had not seen applied (a refusal as ``stale-version``, ``already-committed``,
    ``already-revealed``, ``not-sealed`` or ``wrong-phase`` is what a move that was in
    gets, at most once per move sent again); b's clock makes the bot moves a had
    scheduled, and a sealed phase a left complete but unresolved is resolved when its
    players come back. Every game finishes, nothing lost or made twice, each archived
    once; b's players never moved."""
    began = time.monotonic()
    # a in a process of its own (it is killed), b in this one (starting a process costs
    # seconds of CPU on a loaded machine); the same knobs.
    b = await start(
        "b", **{k.removeprefix("TORTUGA_").lower(): float(v) for k, v in KILLED.items()}
    )
    a = await spawn_node(
        redis_url,
        redis_prefix,
        "a",
        ready_within=60,
        TORTUGA_GUESTS_PER_ADDRESS_PER_HOUR="0",
        **KILLED,
    )
    spawned = time.monotonic() - began
    try:
        nodes: list[Node] = [a, b]  # type: ignore[list-item]
        made = await tables(nodes, ROOMS - 4, lambda: b, rounds=2, pace=0.02)  # type: ignore[arg-type,return-value]
        made += await tables(nodes, 4, lambda: b, rounds=2, bots={2: "heuristic"}, pace=0.02)  # type: ignore[arg-type,return-value]
        await start_all(made)
        players = [p for _, ps in made for p in ps]
        on_a = [p for p in players if p.client.node is a]
        # Every room is held at version 3 (no move made there) until all are: then the
        # moves go out and the node dies with some of them in flight, no game near its end.
        released = asyncio.Event()
        for p in players:
            p.hold = (3, released)
        plays = asyncio.ensure_future(_play_all(made, 60, redis_client, redis_prefix))
        await _under_way(made, 3)
        released.set()
        await asyncio.sleep(0.05)
        killed = time.monotonic()
        a.process.send_signal(signal.SIGKILL)
        assert await asyncio.to_thread(a.process.wait, 10) == -signal.SIGKILL
        views = await plays
        took = time.monotonic() - killed
        total = await _check_all(redis_client, redis_prefix, made, views)
        assert [p.hops for p in on_a] == [1] * len(on_a)  # each came back on b, once
        assert [p.hinted for p in on_a] == [0] * len(on_a)  # no hint: its node just died
        assert all(p.hops == 0 for p in players if p not in on_a)
        refused = [e["code"] for p in players for e in p.errors]
        await archived_once(redis_client, redis_prefix, [room for room, _ in made])
        _report(
            "node-killed",
            rooms=len(made),
            sockets=len(players),
            steps=total,
            moved=len(on_a),
            **{
                "refused-resends": len(refused),
                "finished-after-kill-s": f"{took:.1f}",
                "nodes-started-in-s": f"{spawned:.1f}",
            },
        )
    except BaseException:
        print(a.output())
        raise
    finally:
        _stop(a)


# -- 2. Redis restarts ---------------------------------------------------------------------
async def test_redis_restarted_under_load(own_redis: OwnRedis) -> None:
    """Ten rooms on two nodes (three with a bot) and a Redis of the test's own, append-only
    with fsync always: a kill loses nothing it acknowledged. It is killed once every game
    is under way and started again on the same files 1.5 s later. The nodes' commands
    wait and are retried; their pub/sub subscribes again and catches its sockets up from
    the logs. No socket is closed, every game finishes, nothing is lost or made twice."""
    await own_redis.answers()
    prefix = f"drill-{secrets.token_hex(4)}:"
    knobs = {"clock_poll_seconds": 0.05, "archive_rescue_seconds": 1.0}
    a = await start_node(own_redis.url, prefix, "a", **knobs)
    b = await start_node(own_redis.url, prefix, "b", **knobs)
    redis = aioredis.Redis.from_url(own_redis.url)
    try:
        made = await tables([a, b], ROOMS - 3, lambda: b, rounds=2, pace=0.02, tolerant=True)
        made += await tables(
            [a, b], 3, lambda: b, rounds=2, bots={2: "heuristic"}, pace=0.02, tolerant=True
        )
        await start_all(made)
        players = [p for _, ps in made for p in ps]
        plays = asyncio.ensure_future(_play_all(made, 90))
        await _under_way(made, 3)
        versions = {room: (await entries(redis, prefix, room))[-1]["v"] for room, _ in made}
        own_redis.kill()
        killed = time.monotonic()
        await asyncio.sleep(1.5)
        own_redis.start()
        await own_redis.answers()
        down = time.monotonic() - killed
        await redis.aclose()  # its connection died with the server
        redis = aioredis.Redis.from_url(own_redis.url)
        views = await plays
        took = time.monotonic() - killed
        # Nothing acknowledged was lost: each log still holds what it held at the kill.
        for room, _ in made:
            assert (await entries(redis, prefix, room))[-1]["v"] >= versions[room]
        total = await _check_all(redis, prefix, made, views)
        assert all(p.hops == 0 and p.client.closed is None for p in players)
        refused = [e["code"] for p in players for e in p.errors]
        await archived_once(redis, prefix, [room for room, _ in made])
        _report(
            "redis-restarted",
            rooms=len(made),
            sockets=len(players),
            steps=total,
            **{
                "down-s": f"{down:.1f}",
                "retried-moves-refused-as-in": len(refused),
                "finished-after-kill-s": f"{took:.1f}",
            },
        )
    finally:
        await redis.aclose()
        await a.stop()
        await b.stop()


# -- 3. Postgres goes down -----------------------------------------------------------------
@pytest.fixture
def archive_warnings() -> Iterator[list[str]]:
    """The messages the archivers (of this process's nodes) warn with during the test."""
    seen: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.levelno >= logging.WARNING:
                seen.append(record.getMessage())

    handler = Keep()
    logging.getLogger("tortuga.archive").addHandler(handler)
    yield seen
    logging.getLogger("tortuga.archive").removeHandler(handler)


async def _archive_backlog(redis: Any, prefix: str) -> int:
    """Entries still on the archive streams (an entry is deleted once it is stored)."""
    keys = Keys(prefix)
    return sum([await redis.xlen(stream) for stream in keys.archive_streams])


async def test_postgres_down_under_load(
    own_postgres: OwnPostgres,
    archive_warnings: list[str],
    redis_url: str,
    redis_prefix: str,
    redis_client: Any,
) -> None:
    """Ten rooms on two nodes whose archivers write to a Postgres of the test's own. Once
    every game is under way Postgres is stopped (``immediate``: a crash); the games are
    played to their end meanwhile (play never waits for Postgres), the nodes stay ready
    (``/readyz`` 200, ``postgres`` not up) and the final records wait on the archive
    streams; the archivers' warnings say so in a line each (no SQL or rows in the logs).
    Postgres starts again: the backlog drains, every game is stored once --
    finished, with every version of its log -- and each player's rating counts it once."""
    knobs = {"database_url": own_postgres.url, "archive_rescue_seconds": 1.0}
    a = await start_node(redis_url, redis_prefix, "a", **knobs)  # migrates
    b = await start_node(redis_url, redis_prefix, "b", **knobs)
    db = await Database.connect(own_postgres.url)
    try:
        made = await tables([a, b], ROOMS - 3, lambda: b, rounds=2, pace=0.02)
        made += await tables([a, b], 3, lambda: b, rounds=2, bots={2: "heuristic"}, pace=0.02)
        await start_all(made)
        players = [p for _, ps in made for p in ps]
        plays = asyncio.ensure_future(_play_all(made, 90))
        await _under_way(made, 2)
        await asyncio.to_thread(own_postgres.stop, "immediate")
        stopped = time.monotonic()
        views = await plays
        await asyncio.sleep(OUTAGE - (time.monotonic() - stopped))  # down for a while
        total = await _check_all(redis_client, redis_prefix, made, views)
        rooms = [room for room, _ in made]
        # Play went on; the final records wait on the streams, none of them stored yet.
        await archived_once(redis_client, redis_prefix, rooms)
        async with httpx.AsyncClient(base_url=a.url) as http:
            ready = await http.get("/readyz")
        assert ready.status_code == 200 and ready.json()["postgres"] != "up", ready.text
        backlog = await _archive_backlog(redis_client, redis_prefix)
        down = time.monotonic() - stopped
        await asyncio.to_thread(own_postgres.start)
        assert archive_warnings, "the archivers never met the outage"
        assert max(map(len, archive_warnings)) < 600, max(archive_warnings, key=len)
        restarted = time.monotonic()

        game_ids = [f"{room}-1" for room in rooms]
        logs = {f"{room}-1": len(await entries(redis_client, redis_prefix, room)) for room in rooms}
        stored: dict[str, tuple[str, int]] = {}
        for _ in range(600):
            stored = await _stored(db, game_ids)
            if all(stored.get(g, ("", 0))[0] == "finished" for g in game_ids):
                break
            await asyncio.sleep(0.1)
        drained = time.monotonic() - restarted
        assert stored == {g: ("finished", logs[g]) for g in game_ids}, stored
        await _caught_up(redis_client, redis_prefix)
        users = [p.client.user["id"] for p in players]
        async with db.session() as s:
            rows = await s.execute(
                select(Rating.user_id, Rating.games).where(Rating.user_id.in_(users))
            )
            games = dict(rows.all())
            count = await s.scalar(
                select(func.count()).select_from(Game).where(Game.room.in_(rooms))
            )
        assert games == dict.fromkeys(users, 1)  # each game rated once
        assert count == len(rooms)
        _report(
            "postgres-down",
            rooms=len(made),
            sockets=len(players),
            steps=total,
            **{
                "down-s": f"{down:.1f}",
                "backlog-entries": backlog,
                "drained-after-restart-s": f"{drained:.1f}",
            },
        )
    except BaseException:
        print(own_postgres.log())
        raise
    finally:
        await db.close()
        await a.stop()
        await b.stop()


async def test_postgres_back_while_the_games_go_on(
    own_postgres: OwnPostgres,
    archive_warnings: list[str],
    redis_url: str,
    redis_prefix: str,
    redis_client: Any,
) -> None:
    """Postgres goes away and comes back under load: six rooms on two nodes, Postgres crashed
    once every game is under way and started again while they are still being played. Play
    never waits; the checkpoints and final records written meanwhile wait on the streams and
    are stored once Postgres is back, in order with the ones written after: every game is
    stored once, finished, with every version of its log, nothing is dead-lettered, and each
    player's rating counts the game once."""
    knobs = {"database_url": own_postgres.url, "archive_rescue_seconds": 1.0}
    a = await start_node(redis_url, redis_prefix, "a", **knobs)  # migrates
    b = await start_node(redis_url, redis_prefix, "b", **knobs)
    db = await Database.connect(own_postgres.url)
    try:
        made = await tables([a, b], 6, lambda: b, rounds=6, pace=0.08)
        await start_all(made)
        players = [p for _, ps in made for p in ps]
        plays = asyncio.ensure_future(_play_all(made, 120))
        await _under_way(made, 2)
        await asyncio.to_thread(own_postgres.stop, "immediate")
        await asyncio.sleep(2.0)  # down while the games go on
        assert not plays.done(), "every game ended before Postgres came back: play longer"
        await asyncio.to_thread(own_postgres.start)
        assert archive_warnings, "the archivers never met the outage"
        views = await plays
        await _check_all(redis_client, redis_prefix, made, views)
        rooms = [room for room, _ in made]
        game_ids = [f"{room}-1" for room in rooms]
        logs = {f"{room}-1": len(await entries(redis_client, redis_prefix, room)) for room in rooms}
        stored: dict[str, tuple[str, int]] = {}
        for _ in range(600):
            stored = await _stored(db, game_ids)
            if all(stored.get(g, ("", 0)) == ("finished", logs[g]) for g in game_ids):
                break
            await asyncio.sleep(0.1)
        assert stored == {g: ("finished", logs[g]) for g in game_ids}, stored
        await _caught_up(redis_client, redis_prefix)
        users = [p.client.user["id"] for p in players]
        async with db.session() as s:
            rows = await s.execute(
                select(Rating.user_id, Rating.games).where(Rating.user_id.in_(users))
            )
            assert dict(rows.all()) == dict.fromkeys(users, 1)  # each game rated once
    except BaseException:
        print(own_postgres.log())
        raise
    finally:
        await db.close()
        await a.stop()
        await b.stop()


async def _caught_up(redis: Any, prefix: str) -> None:
    """The archive's backlog drained to nothing, and nothing dead-lettered."""
    for _ in range(100):
        if await _archive_backlog(redis, prefix) == 0:
            break
        await asyncio.sleep(0.1)
    assert await _archive_backlog(redis, prefix) == 0
    for stream in Keys(prefix).archive_streams:  # no dead letters
        assert await redis.xlen(Keys(prefix).archive_dead(stream)) == 0


async def _stored(db: Database, game_ids: list[str]) -> dict[str, tuple[str, int]]:
    """game id -> (status, events stored), for the games in the archive."""
    try:
        async with db.session() as s:
            rows = await s.execute(
                select(Game.id, Game.status, func.count(Event.version))
                .join(Event, Event.game_id == Game.id)
                .where(Game.id.in_(game_ids))
                .group_by(Game.id, Game.status)
            )
            return {game_id: (status, n) for game_id, status, n in rows.all()}
    except Exception:  # not up yet
        return {}


# -- 4. a flood of bad frames --------------------------------------------------------------
async def test_a_flood_of_bad_frames(redis_url: str, redis_prefix: str, redis_client: Any) -> None:
    """A node process with the default limits: 20 messages a second per user (all its
    sockets on the node), a burst of 40; a socket refused 20 times is closed (4008) and its
    user shut out of the node for 30 s; frames over 16 KB refused, over 64 KB cut by
    uvicorn (1009). Six rooms play alone first (the baseline); then six more play while
    another process (tests/server/flooder.py) runs 40 flood tasks of 5 users -- malformed
    JSON, unknown types, bad fields, binary junk, joins of rooms that do not exist, frames
    too large, and for every fourth task frames too large to read, as fast as they can,
    opening a socket again whenever theirs is closed -- and 10 sockets whose first frame is
    junk instead of ``auth``. The players' games all finish with no refusal; every flood
    socket is closed by the node: 4008, 1009, 4001 (no auth), 4009 (a user's sockets at
    their cap), or dropped at once after a frame too large (``reset``). The move latency of
    both phases is printed, not asserted: on a shared 2-core machine it measures the
    neighbours as much as the node."""
    node = await spawn_node(
        redis_url, redis_prefix, "a", ready_within=60, TORTUGA_GUESTS_PER_ADDRESS_PER_HOUR="0"
    )
    try:
        n: Node = node  # type: ignore[assignment]
        quiet = await tables(n, 6, lambda: n, rounds=2, pace=0.03)
        cpu, began = _cpu_seconds(node.process.pid), time.monotonic()
        await start_all(quiet)
        await _play_all(quiet, 90)
        base = latencies([p for _, ps in quiet for p in ps])
        base_cpu = (_cpu_seconds(node.process.pid) - cpu) / (time.monotonic() - began)

        loud = await tables(n, 6, lambda: n, rounds=2, pace=0.03)
        flood = subprocess.Popen(
            [sys.executable, str(HERE / "flooder.py"), node.url, "40", "5", "10", "60"],
            stdin=subprocess.PIPE,  # closed: the flood stops
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            # Flooders are elsewhere in life: here, on the same 2 cores, the flood's own CPU
            # would be taken from the players' clients, which no server can help.
            preexec_fn=lambda: os.nice(19),
        )
        try:
            line = await asyncio.to_thread(flood.stdout.readline)  # type: ignore[union-attr]
            assert line.strip() == b"flooding", line + flood.stderr.read()  # type: ignore[union-attr]
            flooded, cpu = time.monotonic(), _cpu_seconds(node.process.pid)
            await start_all(loud)
            views = await _play_all(loud, 90)
            played = time.monotonic() - flooded
            flood_cpu = (_cpu_seconds(node.process.pid) - cpu) / played
            out, err = await asyncio.to_thread(flood.communicate, timeout=60)
        finally:
            if flood.poll() is None:
                flood.kill()
                flood.wait(10)
        assert flood.returncode == 0 and out.strip(), err.decode(errors="replace")[-3000:]
        report = json.loads(out.splitlines()[-1])
        under = latencies([p for _, ps in loud for p in ps])
        b50, b95 = percentiles(base, 50, 95)
        f50, f95 = percentiles(under, 50, 95)
        closes = report["closes"]
        _report(
            "flood",
            sockets=report["sockets"],
            frames=report["frames"],
            closes=closes,
            refusals=report["errors"],
            **{
                "flood-s": f"{played:.1f}",
                "baseline-p50/p95-ms": f"{b50 * 1000:.0f}/{b95 * 1000:.0f} (n={len(base)})",
                "flooded-p50/p95-ms": f"{f50 * 1000:.0f}/{f95 * 1000:.0f} (n={len(under)})",
                "ratio-p50": f"{f50 / b50:.2f}",
                "node-cpu-baseline/flooded": f"{base_cpu:.2f}/{flood_cpu:.2f}",
            },
        )
        await _check_all(redis_client, redis_prefix, loud, views)
        assert all(p.errors == [] and p.hops == 0 for _, ps in loud for p in ps)
        # Every flood socket was cut off by the node, with a code that says why.
        assert sum(closes.values()) == report["sockets"], report
        assert set(closes) <= {"4008", "1009", "4001", "4009", "reset"}, report
        assert report["resets_before_giant"] == 0, report
        assert closes["4008"] > 0 and closes["4001"] == report["unauthenticated"], report
        assert report["rate_limited"] > 0 and report["connect_errors"] == [], report
        # The node is well.
        async with httpx.AsyncClient(base_url=node.url) as http:
            assert (await http.get("/readyz")).status_code == 200
    except BaseException:
        print(node.output())
        raise
    finally:
        _stop(node)
