"""A node dies (SIGKILL) in the middle of a sealed bid phase: the other node finishes it.

Node "a" runs as a separate process (tests/server/node_process.py) and is killed after two
seats committed through it and before its bot made its move. Node "b" (in this process)
then: drops a's sockets from presence once a's heartbeat expires, makes the bot move a
scheduled (the "bot due" member on the clock), fires the commit deadline a set and the
reveal deadline that follows. The players reconnect to b, receive ``revealed`` once, and
play the game to its end. Deadlines are seconds; waits are generous.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from test_clock import APPLIED, applied, clock_of, fired, heartbeat_of, log_of
from tortuga_client import (
    SECRET,
    Client,
    advance,
    autoplay,
    choose,
    final_records,
    free_port,
    latest,
    salted,
    seat_players,
)

from engines.rng import Rng
from server.redis.store import Keys

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class NodeProcess:
    """A node in its own process: enough of ``tortuga_client.Node`` for clients."""

    port: int
    process: subprocess.Popen[bytes]
    stderr: Any

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def output(self) -> str:
        self.stderr.seek(0)
        return str(self.stderr.read().decode(errors="replace"))[-4000:]


def _limit_open_files(limit: int) -> Any:
    def limit_them() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

    return limit_them


async def spawn_node(
    redis_url: str,
    prefix: str,
    node_id: str,
    ready_within: float = 15.0,
    open_files: int | None = None,
    **env: str,
) -> NodeProcess:
    """A node process; ``open_files``: its limit on open descriptors (soft and hard)."""
    port = free_port()
    environ = {k: v for k, v in os.environ.items() if not k.startswith("TORTUGA_") or k == "PATH"}
    environ.update(
        PYTHONPATH=str(ROOT),
        TORTUGA_REDIS_URL=redis_url,
        TORTUGA_REDIS_PREFIX=prefix,
        TORTUGA_SECRET=SECRET.hex(),
        TORTUGA_PORT=str(port),
        TORTUGA_NODE_ID=node_id,
        TORTUGA_DATA_DIR=tempfile.gettempdir(),
        # Every test client comes from 127.0.0.1, and joins and resumes faster than people.
        TORTUGA_MAX_PUBLIC_ROOMS_PER_ADDRESS="0",
        TORTUGA_RESUME_ADDRESS_BURST="0",
        TORTUGA_MAX_PENDING_PER_ADDRESS="0",
        TORTUGA_RESUME_BURST="0",
        **env,
    )
    stderr = tempfile.TemporaryFile()  # noqa: SIM115 -- closed by the test, after the node
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "server" / "node_process.py")],
        cwd=ROOT,
        env=environ,
        stdout=stderr,
        stderr=stderr,
        preexec_fn=None if open_files is None else _limit_open_files(open_files),
    )
    node = NodeProcess(port, process, stderr)
    async with httpx.AsyncClient(base_url=node.url) as http:
        for _ in range(int(ready_within / 0.05)):
            if process.poll() is not None:
                raise AssertionError(f"node {node_id} exited: {node.output()}")
            with contextlib.suppress(httpx.TransportError):
                if (await http.get("/healthz")).status_code == 200:
                    return node
            await asyncio.sleep(0.05)
    process.kill()
    raise AssertionError(f"node {node_id} did not start: {node.output()}")


async def test_a_node_dies_mid_phase(
    start: Any, redis_url: str, redis_prefix: str, redis_client: Any
) -> None:
    # b's periodic re-arm (sweep) would also rescue the bot: keep it out of this test.
    b = await start("b", clock_poll_seconds=0.05, heartbeat_seconds=0.2, sweep_seconds=600)
    a = await spawn_node(
        redis_url,
        redis_prefix,
        "a",
        TORTUGA_BOT_DELAY="2.0",  # a's bot thinks 1.5-2.5 s: a dies first
        TORTUGA_BOT_RESCUE_SECONDS="0.5",
        TORTUGA_HEARTBEAT_SECONDS="0.2",
        TORTUGA_NODE_TTL_SECONDS="1.0",
        TORTUGA_CLOCK_POLL_SECONDS="0.05",
    )
    try:
        await _play(a, b, redis_client, redis_prefix)
    except BaseException:
        print(a.output())
        raise
    finally:
        if a.process.poll() is None:
            a.process.kill()
        a.process.wait(10)
        a.stderr.close()


async def _play(a: NodeProcess, b: Any, redis: Any, prefix: str) -> None:
    # Seats 0 and 1 play through a, seat 2 through b, seat 3 is a bot.
    table = await seat_players(
        [a, a, b],  # type: ignore[list-item]
        4,
        options={"rounds": 2},
        bots={3: "heuristic"},
        deadlines={"commit": 4.5, "reveal": 1.5},
    )
    zero, one, two = table.clients
    assert (await zero.call("start"))["type"] == "ok"  # a wins the start: a sets the deadline
    for c in table.clients:
        await c.has_version(1)
    phase = "bid@1"
    kept = {}
    for seat, client in ((0, zero), (1, one)):
        salt, dig = salted(phase, seat, {"bid": 1})
        kept[seat] = salt
        assert (await client.call("commit", phase=phase, digest=dig))["type"] == "ok"
    await two.seen(lambda f: f["type"] == "committed" and f["seat"] == 1)
    assert not [f for f in two.frames if f["type"] == "committed" and f["seat"] == 3]
    a.process.send_signal(signal.SIGKILL)
    a.process.wait(10)
    killed_at = len(two.frames)

    # a's sockets stop counting once its heartbeat expires (b reaps them).
    gone = await two.wait(lambda f: f["type"] == "presence" and f["connected"] == [2], 15)
    assert gone["away"] == []
    # The bot a had scheduled moves anyway: b found its "bot due" member.
    await two.seen(lambda f: f["type"] == "committed" and f["seat"] == 3, timeout=15)
    assert any(f["type"] == "committed" and f["seat"] == 3 for f in two.frames[killed_at:])
    # The players of a come back on b.
    back = []
    for client in (zero, one):
        again = await Client.connect(b, token=client.token, user=client.user)
        await again.send("resume", room=table.id, version=1)
        await again.of("resumed")
        back.append(again)
    zero, one = back
    # Seat 2 never commits: the commit deadline (set by a, fired by b) gives it the marker.
    opened = await two.wait(lambda f: f["type"] == "open", timeout=20)
    assert opened["open_by"] is not None
    late = await two.seen(lambda f: f["type"] == "committed" and f["seat"] == 2)
    assert late["digest"] == "default"
    # Seat 0 opens; seat 1 does not: the reveal deadline opens its default. The bot opens.
    await zero.seen(lambda f: f["type"] in ("open", "sealed") and f.get("open") is not False)
    answer = await zero.call("reveal", phase=phase, move={"bid": 1}, salt=kept[0])
    assert answer["type"] == "ok", answer
    for client in (zero, one, two):
        revealed = await client.seen(lambda f: f["type"] == "revealed", timeout=20)
        assert revealed["phase"] == phase and revealed["defaults"] == [1, 2]
        assert set(revealed["moves"]) == {"0", "1", "2", "3"}
        assert revealed["salts"]["0"] == kept[0] and set(revealed["salts"]) == {"0", "3"}
    # The game goes on to its end on b.
    marks = [next(i for i, f in enumerate(c.frames) if f["type"] == "revealed") for c in back]
    marks.append(next(i for i, f in enumerate(two.frames) if f["type"] == "revealed"))
    views = await asyncio.wait_for(
        asyncio.gather(
            *(autoplay(c, "skull-king", m) for c, m in zip((zero, one, two), marks, strict=True))
        ),
        60,
    )
    assert views[0]["outcome"] == views[2]["outcome"] is not None
    for client in (zero, one, two):
        assert [f["type"] for f in client.frames].count("revealed") == 2  # both rounds' bids
    # Exactly once: no gap or duplicate in the log, one archive record, one of each firing.
    log = await log_of(redis, prefix, table.id)
    assert [e["v"] for e in log] == list(range(1, len(log) + 1))
    assert log[1]["defaults"] == [1, 2] and log[-1]["status"] == "finished"
    for _ in range(100):
        if records := await final_records(redis, prefix):
            break
        await asyncio.sleep(0.05)
    assert len(records) == 1
    counts = applied([b])
    room = table.id
    assert counts[f"commit|{room}|1"] == 1 and counts[f"reveal|{room}|1"] == 1
    assert counts[f"bot|{room}|1|c"] == 1
    assert clock_of(b).fired  # b did the work


async def test_a_node_taken_for_dead_announces_its_sockets_again(
    start: Any, redis_client: Any, redis_prefix: str
) -> None:
    """A node that stalled past its heartbeat is reaped by another while still alive: its
    sockets are dropped from presence. At its next heartbeat it finds itself missing from
    ``nodes`` and records them again."""
    from test_protocol import started

    nodes = [await start("a", heartbeat_seconds=0.1), await start("b", heartbeat_seconds=0.1)]
    table = await started(nodes, 2)
    watcher = table.clients[1]  # on b
    instance = heartbeat_of(nodes[0]).instance
    presence = f"{redis_prefix}room:{{{table.id}}}:presence"
    mine = [k for k in await redis_client.hkeys(presence) if k.decode().startswith(instance)]
    assert len(mine) == 1
    # What a reaper does to a dead node, done to a live one.
    watcher.mark = len(watcher.frames)
    await redis_client.zrem(f"{redis_prefix}nodes", instance)
    await redis_client.hdel(presence, *mine)
    back = await watcher.wait(
        lambda f: f["type"] == "presence" and f["connected"] == [0, 1], timeout=10
    )
    assert back["away"] == []
    assert mine[0] in await redis_client.hkeys(presence)


async def test_a_node_killed_between_the_last_write_and_the_record(
    start: Any, redis_url: str, redis_prefix: str, redis_client: Any
) -> None:
    """Node a (its own process) writes the last move of a game and is SIGKILLed before the
    final record is on the archive stream (TORTUGA_TEST_DIE_BEFORE_ARCHIVE). Node b's clock
    finds ``archive|<room>|<version>`` due, rebuilds the record from the log and puts it
    on the stream: exactly one final record, ``archived`` set, the member gone."""
    b = await start("b", clock_poll_seconds=0.05, archive_rescue_seconds=0.5)
    a = await spawn_node(
        redis_url,
        redis_prefix,
        "a",
        TORTUGA_BOT_DELAY="0",
        TORTUGA_ARCHIVE_RESCUE_SECONDS="0.5",
        TORTUGA_CLOCK_POLL_SECONDS="0.05",
        TORTUGA_TEST_DIE_BEFORE_ARCHIVE="1",
    )
    try:
        table = await seat_players([a], 3, options={"rounds": 1})  # type: ignore[list-item]
        assert (await table.clients[0].call("start"))["type"] == "ok"
        for c in table.clients:
            await c.has_version(1)
        for _ in range(3):  # the bids, two of the three cards: version 4
            version = await advance(table.clients)
        assert version == 4
        view = latest(table.clients[0])["view"]
        (seat,) = view["prompt"]["seats"]
        mover = table.clients[seat]
        move = choose("skull-king", latest(mover)["view"], Rng(b"last", "test"))
        await mover.send("act", move=move, version=version)  # the last card: a dies
        assert await asyncio.to_thread(a.process.wait, 10) == -signal.SIGKILL
        room_key = f"{redis_prefix}room:{{{table.id}}}"
        assert (await redis_client.hget(room_key, "status")) == b"finished"
        assert await redis_client.hget(room_key, "archived") is None

        name = f"archive|{table.id}|5"
        for _ in range(200):
            if await redis_client.hget(room_key, "archived") == b"1":
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(1.0)  # nothing more comes
        assert fired([b], name) == [APPLIED]
        records = await final_records(redis_client, redis_prefix)
        assert len(records) == 1
        record = json.loads(records[0][1][b"record"])
        assert record["status"] == "finished" and record["outcome"] is not None
        assert record["seed"] == (await redis_client.hget(room_key, "seed")).decode()
        assert [e["version"] for e in record["events"]] == [1, 2, 3, 4, 5]
        assert await redis_client.zscore(Keys(redis_prefix).clock_of(name), name) is None
    except BaseException:
        print(a.output())
        raise
    finally:
        if a.process.poll() is None:
            a.process.kill()
        a.process.wait(10)
        a.stderr.close()
