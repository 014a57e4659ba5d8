"""``tortuga serve`` stops the embedded Redis and Postgres it started when it is stopped with
SIGTERM (what ``kill``, ``timeout``, systemd and docker send), as it does after Ctrl-C.

Each test starts the real command in a process of its own with a fresh data folder and
looks for the servers it started by their command lines (they name the data folder):
before the signal they run, after it none is left. One test embeds Redis (Postgres is the
test's own database), the other embeds Postgres (Redis is the test's own key space).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def processes_naming(folder: Path) -> dict[int, str]:
    """Live processes (not zombies) whose command line mentions ``folder``: pid -> name."""
    found: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # gone meanwhile
        state = stat.rsplit(")", 1)[1].split()[0]
        if str(folder) in cmdline and state != "Z":
            found[int(entry.name)] = cmdline.split(" ", 1)[0].rsplit("/", 1)[-1]
    return found


def serve(env: dict[str, str], port: int, log: Path, *args: str) -> subprocess.Popen[bytes]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("TORTUGA_")}
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "server.cli", "serve", "--port", str(port), *args],
            cwd=ROOT,
            env={**base, **env},
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def wait_ready(process: subprocess.Popen[bytes], port: int, log: Path) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"tortuga serve exited early:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    pytest.fail(f"tortuga serve did not answer /healthz:\n{log.read_text()[-3000:]}")


@pytest.fixture
def stopper() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Kills what a failed test left behind (the serve process; its servers are found by
    their folder in the test)."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait()


def sigterm_and_check(process: subprocess.Popen[bytes], data: Path, expect: str) -> None:
    before = processes_naming(data)
    assert expect in before.values(), before
    process.send_signal(signal.SIGTERM)
    code = process.wait(timeout=60)
    deadline = time.monotonic() + 10  # the servers were waited for; allow /proc to settle
    while processes_naming(data) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = processes_naming(data)
    for pid in left:  # do not leave them running for the next test, then fail
        os.kill(pid, signal.SIGKILL)
    assert left == {}, f"still running after SIGTERM: {left}"
    # 143: SystemExit(128 + SIGTERM) after a clean shutdown, not killed by the signal (-15).
    assert code == 128 + signal.SIGTERM, code


def test_sigterm_stops_the_embedded_redis(
    tmp_path: Path, fresh_database: str, stopper: list[subprocess.Popen[bytes]]
) -> None:
    data = tmp_path / "data"
    port = _free_port()
    process = serve(
        {"TORTUGA_DATA_DIR": str(data), "TORTUGA_DATABASE_URL": fresh_database},
        port,
        tmp_path / "serve.log",
    )
    stopper.append(process)
    wait_ready(process, port, tmp_path / "serve.log")
    sigterm_and_check(process, data, "redis-server")
    assert not (data / "redis" / "redis.sock").exists()


def test_sigterm_stops_the_embedded_postgres(
    tmp_path: Path, redis_url: str, redis_prefix: str, stopper: list[subprocess.Popen[bytes]]
) -> None:
    data = tmp_path / "data"
    port = _free_port()
    process = serve(
        {
            "TORTUGA_DATA_DIR": str(data),
            "TORTUGA_REDIS_URL": redis_url,
            "TORTUGA_REDIS_PREFIX": redis_prefix,
        },
        port,
        tmp_path / "serve.log",
    )
    stopper.append(process)
    wait_ready(process, port, tmp_path / "serve.log")
    sigterm_and_check(process, data, "postgres")
