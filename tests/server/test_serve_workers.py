"""``tortuga serve --workers 2``: two node processes on one port, both full nodes.

The real command runs in a process of its own against the test Redis (a key space of its
own) and a fresh database. Two worker processes, children of the serve process, each
heartbeat under their own instance name; a game with a bot is played through the port to
its end; a room's sockets all reach one worker, its home (server/realtime/homes.py), and rooms have
homes on both; one scrape of ``/metrics`` sees both workers; SIGTERM stops both workers -- each
shuts its node down (its heartbeat leaves the ``nodes`` set) -- and leaves no child
process behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families
from test_serve_shutdown import serve, stopper, wait_ready  # noqa: F401 -- stopper: a fixture
from tortuga_client import SECRET, autoplay, free_port, seat_players

from server.realtime.homes import home_index
from server.tools.load_socket import LoadSocket

METRICS_TOKEN = "workers-metrics-token"


class Port:
    """The serve process's one address: enough of ``tortuga_client.Node`` for clients."""

    def __init__(self, port: int) -> None:
        self.url = f"http://127.0.0.1:{port}"
        self.ws_url = f"ws://127.0.0.1:{port}/ws"


def children(pid: int) -> set[int]:
    """Live (not zombie) processes whose parent is ``pid``."""
    found: set[int] = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            found.add(int(entry.name))
    return found


def alive(pids: set[int]) -> set[int]:
    """Those of ``pids`` still running (not zombies)."""
    found: set[int] = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            found.add(pid)
    return found


async def nodes(redis: Any, prefix: str) -> list[str]:
    return sorted(m.decode() for m in await redis.zrange(f"{prefix}nodes", 0, -1))


async def test_two_workers_serve_one_port_and_stop_on_sigterm(
    tmp_path: Path,
    redis_url: str,
    redis_prefix: str,
    redis_client: Any,
    fresh_database: str,
    stopper: list[subprocess.Popen[bytes]],  # noqa: F811
) -> None:
    port = free_port()
    log = tmp_path / "serve.log"
    process = serve(
        {
            "TORTUGA_DATA_DIR": str(tmp_path / "data"),
            "TORTUGA_REDIS_URL": redis_url,
            "TORTUGA_REDIS_PREFIX": redis_prefix,
            "TORTUGA_DATABASE_URL": fresh_database,
            "TORTUGA_SECRET": SECRET.hex(),
            "TORTUGA_NODE_ID": "site",
            "TORTUGA_BOT_DELAY": "0",
            "TORTUGA_HEARTBEAT_SECONDS": "0.2",
            "TORTUGA_GUESTS_PER_ADDRESS_PER_HOUR": "0",
            "TORTUGA_MAX_PUBLIC_ROOMS_PER_ADDRESS": "0",
            "TORTUGA_RESUME_ADDRESS_BURST": "0",
            "TORTUGA_MAX_PENDING_PER_ADDRESS": "0",
            "TORTUGA_RESUME_BURST": "0",
            "TORTUGA_METRICS_TOKEN": METRICS_TOKEN,
        },
        port,
        log,
        "--workers",
        "2",
    )
    stopper.append(process)
    wait_ready(process, port, log)

    # Both workers are up (the port answered for one): each heartbeats as a node of its own.
    for _ in range(600):
        if len(await nodes(redis_client, redis_prefix)) == 2:
            break
        await asyncio.sleep(0.05)
    instances = await nodes(redis_client, redis_prefix)
    # "site.<worker pid>.<suffix>": TORTUGA_NODE_ID with each worker's process id.
    workers = {int(i.split(".")[1]) for i in instances}
    spawned = children(process.pid)  # the workers and multiprocessing's resource tracker
    try:
        assert len(workers) == 2, log.read_text()[-3000:]
        assert workers <= spawned, (instances, spawned)
        code = await _play_and_stop(process, port, redis_client, redis_prefix, spawned)
    finally:
        for pid in alive(spawned):  # a failed test leaves no orphan behind
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    assert code == 128 + signal.SIGTERM, log.read_text()[-3000:]


async def _hello_node(port: int, token: str, room: str | None) -> tuple[str, LoadSocket]:
    """A socket opened as a room's page opens it (``/ws?room=CODE``), or with no room;
    the node (worker) that signed it in."""
    hint = f"?room={room}" if room else ""
    ws = await LoadSocket.open(f"ws://127.0.0.1:{port}/ws{hint}")
    ws.send(json.dumps({"type": "auth", "token": token}))
    hello = json.loads(await ws.recv())
    assert hello["type"] == "hello", hello
    return str(hello["node"]), ws


async def _rooms_have_homes(port: int, played: str) -> None:
    """ "Each room has a home, worker crc32(room) % N": every socket naming a room reaches
    the same worker, rooms of the two indices reach different workers, a socket naming no
    room (or a room that does not exist) is served too, and a socket at its room's home
    joins it as anywhere."""
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
        token = (await http.post("/api/guest", json={"name": "homes"})).json()["token"]
    codes: dict[int, list[str]] = {0: [], 1: []}
    for n in range(100):
        code = f"HOME{n:04d}"
        if len(codes[home_index(code, 2)]) < 3:
            codes[home_index(code, 2)].append(code)
    homes: dict[int, set[str]] = {0: set(), 1: set()}
    for index, rooms in codes.items():
        for room in rooms:
            seen = set()
            for _ in range(4):  # the kernel hands each to either worker: all end up home
                node, ws = await _hello_node(port, token, room)
                seen.add(node)
                await ws.close()
            assert len(seen) == 1, (room, seen)
            homes[index] |= seen
    assert len(homes[0]) == len(homes[1]) == 1 and homes[0] != homes[1], homes
    node, ws = await _hello_node(port, token, None)
    assert node in homes[0] | homes[1]
    await ws.close()
    node, ws = await _hello_node(port, token, played)
    assert node in homes[home_index(played, 2)]
    ws.send(json.dumps({"type": "join", "room": played, "as": "spectator"}))
    while (frame := json.loads(await ws.recv()))["type"] != "snapshot":
        pass
    assert frame["room"] == played and frame["room_state"]["status"] == "finished"
    await ws.close()


async def _one_scrape_sees_both(port: int, spawned: set[int]) -> None:
    """``/metrics`` answers for every worker, whichever one the scrape reached
    (prometheus-client's multiprocess mode, server/workers.py): both workers' start times,
    and the game's moves counted by whichever worker wrote them."""
    for _ in range(50):  # a worker adds its latest counts at most every 0.5 s (metrics.py)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            r = await http.get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
        assert r.status_code == 200, r.text
        samples = [s for f in text_string_to_metric_families(r.text) for s in f.samples]
        if sum(s.value for s in samples if s.name == "tortuga_moves_total") >= 3:
            break
        await asyncio.sleep(0.1)
    started = {s.labels["node"] for s in samples if s.name == "tortuga_node_start_time_seconds"}
    pids = {int(n.split(".")[1]) for n in started}  # "site.<worker pid>"
    assert len(pids) == 2 and pids <= spawned, (started, spawned)
    moves = sum(s.value for s in samples if s.name == "tortuga_moves_total")
    assert moves >= 3  # a bid and a card for each of the three seats
    assert sum(s.value for s in samples if s.name == "tortuga_rooms") >= 1


async def _play_and_stop(
    process: subprocess.Popen[bytes],
    port: int,
    redis_client: Any,
    redis_prefix: str,
    spawned: set[int],
) -> int:
    table = await seat_players(
        [Port(port)],  # type: ignore[list-item]
        3,
        options={"rounds": 1},
        bots={2: "heuristic"},
    )
    assert (await table.clients[0].call("start"))["type"] == "ok"
    views = await asyncio.gather(*(autoplay(c, "skull-king") for c in table.clients))
    assert all(v["outcome"] is not None for v in views)
    for c in table.clients:
        await c.ws.close()
    await _rooms_have_homes(port, table.id)
    await _one_scrape_sees_both(port, spawned)

    process.send_signal(signal.SIGTERM)
    code = process.wait(timeout=60)
    for _ in range(100):  # the workers were joined; allow /proc to settle
        if not alive(spawned):
            break
        await asyncio.sleep(0.1)
    assert alive(spawned) == set()
    # Each worker shut its node down (a killed one would leave its heartbeat to expire).
    assert await nodes(redis_client, redis_prefix) == []
    return code
