"""A SIGKILLed ``tortuga serve`` leaves nothing running, and starts again on its data folder.

Each test runs the real command with two workers and the embedded Redis and Postgres in a
fresh data folder, waits until both workers heartbeat, creates a room, and SIGKILLs the
process -- ``python -m server.cli serve`` itself, or ``./tortuga serve`` (the wrapper,
which execs the server: its pid is the server's). Then, within a bounded wait:

* every process it had started is gone: the workers (SIGTERM from the kernel as their
  parent died: each drains and shuts its node down), multiprocessing's resource tracker,
  the redis-server, the watchdog (server/ops/lifeline.py), which stopped Redis and
  Postgres once the workers were gone; and every process working in the data folder (the
  postmaster, pg_ctl started it detached, and its backends);
* nothing answers on the port; the workers' temporary folders are removed.

Then a new ``serve`` on the same folder becomes ready, still has the room, plays a game
with a bot to its end, says Postgres is up, and stops on SIGTERM leaving nothing behind.

``test_a_restart_at_once_after_sigkill_keeps_the_services_it_finds``: a new ``serve``
started while the killed one's worker still drains (a socket held open on it) uses the
Redis and Postgres still running, and the killed one's watchdog leaves them running for it.

``test_a_start_clears_what_an_unclean_stop_left`` fakes what a SIGKILL of everything
(watchdog included) leaves: a ``postmaster.pid`` and socket lock naming a pid that is now
another process, pgserver's user count naming that process and a dead one, Redis's socket
file. The embedded services start, and stop, all the same, and that other process lives on;
a second process on the folder shares them, and its stop leaves them to the first.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis as redis_sync
from test_serve_shutdown import ROOT, wait_ready
from test_serve_workers import Port, _hello_node, alive
from tortuga_client import autoplay, create_room, free_port, guest, seat_players

DEADLINE = 60  # seconds for everything to go: the workers' drain and shutdown, then Postgres

ENV = {
    "TORTUGA_BOT_DELAY": "0",
    "TORTUGA_HEARTBEAT_SECONDS": "0.2",
    "TORTUGA_GUESTS_PER_ADDRESS_PER_HOUR": "0",
    "TORTUGA_MAX_PUBLIC_ROOMS_PER_ADDRESS": "0",
    "TORTUGA_RESUME_ADDRESS_BURST": "0",
    "TORTUGA_MAX_PENDING_PER_ADDRESS": "0",
    "TORTUGA_RESUME_BURST": "0",
}


def _stat(pid: int) -> list[str] | None:
    """/proc/PID/stat's fields after the name (state first), None if gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def descendants(pid: int) -> set[int]:
    """Live processes under ``pid`` (children, theirs, ...)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat(int(entry.name))) and fields[0] != "Z":
            parents[int(entry.name)] = int(fields[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def working_in(folder: Path) -> set[int]:
    """Live processes whose working directory is in ``folder`` or whose command line names
    it: its Redis and Postgres servers (both work in their data folders), Postgres' backends."""
    found: set[int] = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if (cwd == str(folder) or cwd.startswith(f"{folder}/") or str(folder) in cmdline) and (
            _stat(int(entry.name)) or ["Z"]
        )[0] != "Z":
            found.add(int(entry.name))
    return found


def name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:120]
    except OSError:
        return "?"


def _server(pid: int) -> bool:
    """A Redis server or Postgres' postmaster (its command line names its data folder with
    -D), not one of Postgres' backends or helpers ("postgres: ...")."""
    command = name(pid)
    return "redis-server" in command or (" -D " in f" {command} " and "postgres:" not in command)


def environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    return dict(e.decode().split("=", 1) for e in raw.split(b"\0") if b"=" in e)


def start(how: str, data: Path, port: int, log: Path, **env: str) -> subprocess.Popen[bytes]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("TORTUGA_")}
    command = ["./tortuga"] if how == "wrapper" else [sys.executable, "-m", "server.cli"]
    with log.open("ab") as out:
        return subprocess.Popen(
            [*command, "serve", "--port", str(port), "--workers", "2"],
            cwd=ROOT,
            env={**base, **ENV, **env, "TORTUGA_DATA_DIR": str(data)},
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def until(condition: Callable[[], object], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"not within {seconds} s: {what}")
        time.sleep(0.1)


def heartbeats(data: Path) -> int:
    client = redis_sync.Redis(unix_socket_path=str(data / "redis" / "redis.sock"))
    try:
        return int(client.zcard("nodes"))
    except redis_sync.RedisError:
        return 0
    finally:
        client.close()


def answers(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


@pytest.fixture
def leftovers() -> Iterator[tuple[list[subprocess.Popen[Any]], set[int], list[Path]]]:
    """What the test started -- ``serve`` processes, other pids seen, data folders -- gone
    at the end whatever happened (a passed test leaves none of them running): the processes
    killed, then a while for their watchdogs to clean up, then whatever is left killed."""
    processes: list[subprocess.Popen[Any]] = []
    pids: set[int] = set()
    folders: list[Path] = []
    yield processes, pids, folders
    for process in processes:
        if process.poll() is None:
            pids |= descendants(process.pid)
            process.kill()
        process.wait()

    def left() -> set[int]:
        return alive(pids) | {p for folder in folders for p in working_in(folder)}

    deadline = time.monotonic() + DEADLINE
    while left() and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in left():
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def serve_until_ready(
    how: str, data: Path, port: int, log: Path, started: list[subprocess.Popen[Any]], **env: str
) -> subprocess.Popen[bytes]:
    process = start(how, data, port, log, **env)
    started.append(process)
    wait_ready(process, port, log)
    until(lambda: heartbeats(data) == 2, 120, f"both workers heartbeat:\n{log.read_text()[-3000:]}")
    return process


@pytest.mark.parametrize("how", ["python", "wrapper"])
async def test_sigkill_of_serve_leaves_nothing_running_and_it_starts_again(
    how: str,
    tmp_path: Path,
    leftovers: tuple[list[subprocess.Popen[Any]], set[int], list[Path]],
) -> None:
    started, seen, folders = leftovers
    data = tmp_path / "data"
    folders.append(data)
    port = free_port()
    log = tmp_path / "serve.log"
    first = serve_until_ready(how, data, port, log, started)
    token, _ = await guest(Port(port), "before")  # type: ignore[arg-type]
    room = (await create_room(Port(port), token))["id"]  # type: ignore[arg-type]

    tree = descendants(first.pid)
    services = working_in(data)
    seen |= tree | services
    names = {pid: name(pid) for pid in tree | services}
    # ./tortuga exec'd the server: its pid is Python's, no shell or uv process in between.
    assert "python" in os.readlink(f"/proc/{first.pid}/exe"), name(first.pid)
    assert any("redis-server" in n for n in names.values()), names
    assert any("postgres -D" in n for n in names.values()), names
    assert any("server.ops.watchdog" in n for n in names.values()), names
    workers = {pid for pid, n in names.items() if "multiprocessing" in n and "spawn_main" in n}
    assert len(workers) >= 2, names
    folders_made = {
        environ(pid)[variable]
        for pid in workers
        for variable in ("TORTUGA_HOMES_DIR", "PROMETHEUS_MULTIPROC_DIR")
    }
    assert all(Path(f).is_dir() for f in folders_made), folders_made

    os.kill(first.pid, signal.SIGKILL)
    assert first.wait(10) == -signal.SIGKILL
    until(
        lambda: not alive(tree | services) and not working_in(data),
        DEADLINE,
        "its processes gone: "
        + repr({p: names.get(p) or name(p) for p in alive(tree | services) | working_in(data)}),
    )
    assert not answers(port)
    assert not [f for f in folders_made if Path(f).exists()]
    text = log.read_text()
    assert (
        "tortuga watchdog: process" in text and "could not" not in text and "killed" not in text
    ), text[-3000:]

    # The same folder, the same port: ready, the room kept, a game played, Postgres up.
    second = serve_until_ready(how, data, port, log, started)
    client = redis_sync.Redis(unix_socket_path=str(data / "redis" / "redis.sock"))
    assert client.exists(f"room:{{{room}}}") == 1
    client.close()
    table = await seat_players([Port(port)], 3, options={"rounds": 1}, bots={2: "heuristic"})  # type: ignore[list-item]
    assert (await table.clients[0].call("start"))["type"] == "ok"
    views = await asyncio.gather(*(autoplay(c, "skull-king") for c in table.clients))
    assert all(v["outcome"] is not None for v in views)
    for c in table.clients:
        await c.ws.close()
    ready = httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=5).json()
    assert ready.get("postgres") == "up", ready

    tree = descendants(second.pid)
    services = working_in(data)
    seen |= tree | services
    second.send_signal(signal.SIGTERM)
    assert second.wait(60) == 128 + signal.SIGTERM, log.read_text()[-3000:]
    until(lambda: not alive(tree | services) and not working_in(data), 15, "a clean stop")


async def test_a_restart_at_once_after_sigkill_keeps_the_services_it_finds(
    tmp_path: Path,
    leftovers: tuple[list[subprocess.Popen[Any]], set[int], list[Path]],
) -> None:
    """Started again while the dead one's workers still drain (a socket is held open on
    one), the new node uses the Redis and Postgres still running, and the dead one's
    watchdog, once that worker is gone, leaves them running for it: it no longer counts
    among their users, the new node does."""
    started, seen, folders = leftovers
    data = tmp_path / "data"
    folders.append(data)
    port = free_port()
    log = tmp_path / "serve.log"
    first = serve_until_ready("python", data, port, log, started, TORTUGA_DRAIN_SECONDS="30")
    token, _ = await guest(Port(port), "held")  # type: ignore[arg-type]
    _, held = await _hello_node(port, token, None)  # its worker drains until it closes
    tree = descendants(first.pid)
    services = working_in(data)
    seen |= tree | services
    watchdog = {pid for pid in tree if "server.ops.watchdog" in name(pid)}
    assert len(watchdog) == 1, {pid: name(pid) for pid in tree}

    os.kill(first.pid, signal.SIGKILL)
    first.wait(10)
    assert alive(watchdog) == watchdog  # waiting for the draining worker
    second = serve_until_ready("python", data, port, log, started)
    # Redis and Postgres kept, not restarted: their servers (a Postgres backend of the dead
    # node's connections ends with them, as it should).
    servers = {pid for pid in services if _server(pid)}
    assert servers and alive(servers) == servers, {p: name(p) for p in services}
    await held.close()
    await asyncio.sleep(0.1)  # the loop closes its end (the checks below block it)
    tree -= services
    until(
        lambda: not alive(tree),
        DEADLINE,
        "the dead node's workers and watchdog gone: "
        + repr({p: name(p) for p in alive(tree)})
        + log.read_text()[-3000:],
    )
    assert alive(servers) == servers  # the dead one's watchdog left them to the new node
    ready = httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=5).json()
    assert ready.get("redis") == "up" and ready.get("postgres") == "up", ready
    token, _ = await guest(Port(port), "after")  # type: ignore[arg-type]
    await create_room(Port(port), token)  # type: ignore[arg-type]

    tree = descendants(second.pid)
    seen |= tree | working_in(data)
    second.send_signal(signal.SIGTERM)
    assert second.wait(60) == 128 + signal.SIGTERM, log.read_text()[-3000:]
    until(lambda: not alive(tree) and not working_in(data), 15, "a clean stop")


# The embedded services of a process of its own (not this one's: ``embedded.stop`` here
# would stop the test session's own, when they are embedded): started, a line of JSON
# said, stopped when standard input closes.
HOLDER = """
import json, os, sys
from pathlib import Path
from server.ops import embedded
data = Path(sys.argv[1])
urls = [embedded.start_redis(data) if "redis" in sys.argv[2:] else ""]
urls.append(embedded.start_postgres(data))
print(json.dumps({"pid": os.getpid(), "urls": urls}), flush=True)
sys.stdin.read()
embedded.stop()
"""


def hold(data: Path, *services: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(data), *services],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def said(holder: subprocess.Popen[str]) -> dict[str, object]:
    assert holder.stdout is not None
    line = holder.stdout.readline()
    assert line, "the holder process failed (its error is above)"
    return json.loads(line)  # type: ignore[no-any-return]


def release(holder: subprocess.Popen[str]) -> None:
    assert holder.stdin is not None
    holder.stdin.close()
    assert holder.wait(60) == 0


def test_a_start_clears_what_an_unclean_stop_left(
    tmp_path: Path, leftovers: tuple[list[subprocess.Popen[Any]], set[int], list[Path]]
) -> None:
    started, seen, folders = leftovers
    data = tmp_path / "data"
    folders.append(data)
    pg = data / "postgres"
    sock = data / "redis" / "redis.sock"
    first = hold(data)  # the folder initialized, then cleanly stopped
    started.append(first)
    said(first)
    release(first)
    assert not working_in(data)

    other = subprocess.Popen(["sleep", "600"])  # now holds the pid the dead server had
    started.append(other)
    dead = subprocess.Popen(["true"])
    dead.wait()
    (pg / "postmaster.pid").write_text(
        f"{other.pid}\n{pg}\n{int(time.time())}\n5432\n{pg}\n\n  5432001 0\nready   \n"
    )
    (pg / ".s.PGSQL.5432.lock").write_text(f"{other.pid}\n{pg}\n{int(time.time())}\n5432\n{pg}\n")
    (pg / ".handle_pids.json").write_text(json.dumps([dead.pid, other.pid]))
    sock.parent.mkdir(parents=True)
    with socket.socket(socket.AF_UNIX) as stale:  # bound, never listened on, not removed
        stale.bind(str(sock))

    holder = hold(data, "redis")
    started.append(holder)
    try:
        state = said(holder)
        redis_url, postgres_url = state["urls"]  # type: ignore[misc]
        assert redis_sync.Redis.from_url(redis_url).ping()
        running = working_in(data)
        seen |= running
        postmaster = int((pg / "postmaster.pid").read_text().split()[0])
        assert postmaster != other.pid and postmaster in running
        assert json.loads((pg / ".handle_pids.json").read_text()) == [state["pid"]]
        # A second process on the folder shares the running servers, and its stop leaves
        # them running for the first: nothing of a running server is cleared.
        redis_pids = {p for p in running if "redis" in name(p)}
        second = hold(data, "redis")
        started.append(second)
        assert said(second)["urls"] == [redis_url, postgres_url]
        release(second)
        assert int((pg / "postmaster.pid").read_text().split()[0]) == postmaster
        assert alive({postmaster} | redis_pids) == {postmaster} | redis_pids
        assert redis_sync.Redis.from_url(redis_url).ping()
        assert [u[0] for u in json.loads((sock.parent / "users.json").read_text())] == [
            state["pid"]
        ]
    finally:
        release(holder)
    until(lambda: not working_in(data), 30, "the embedded servers stopped")
    assert other.poll() is None  # the process that had the stale pid was not touched
