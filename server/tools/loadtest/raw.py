"""The raw limit: ``server.tools.rawlimit`` in a child process and echo clients over the client
processes, measuring echoes per second."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from server.tools.load_socket import LoadSocket
from server.tools.loadtest.nodes import Node, _free_port, _stop, _wait_ready


@dataclass(frozen=True)
class Raw:
    """Echoes (each after one compare-and-set in Redis) per second, as many sockets at once."""

    sockets: int
    echoes: int
    seconds: float
    errors: int

    @property
    def per_second(self) -> float:
        return self.echoes / self.seconds if self.seconds else 0.0


_ECHOED = json.dumps({"type": "act", "move": {"card": "parrot-7"}, "version": 12})


async def _echo(url: str, sockets: int, start_at: float, seconds: float) -> tuple[int, int]:
    """``sockets`` clients each sending and awaiting echoes; those that come back between
    ``start_at`` (wall clock, the same for every client process) and ``seconds`` later
    count: (echoes, sockets that failed or were not connected by ``start_at``)."""
    done, failed = 0, 0
    end = start_at + seconds

    async def one() -> None:
        nonlocal done, failed
        try:
            ws = await LoadSocket.open(url)
        except Exception:
            failed += 1
            return
        try:
            if time.time() > start_at:
                failed += 1  # too late to count
                return
            await asyncio.sleep(start_at - time.time())
            while True:
                ws.send(_ECHOED)
                await ws.recv()
                if time.time() > end:
                    return
                done += 1
        except Exception:
            failed += 1
        finally:
            await ws.close()

    await asyncio.gather(*(one() for _ in range(sockets)))
    return done, failed


def _echo_worker(url: str, sockets: int, start_at: float, seconds: float) -> tuple[int, int]:
    return asyncio.run(_echo(url, sockets, start_at, seconds))


def _ready() -> None:
    """Nothing: run once in each pool process so that they are all up before timing."""


class RawServer:
    """``server.tools.rawlimit`` in a child process with ``env`` (its Redis) and as many workers as
    the node; started at once, waited for when needed (it starts while the node does)."""

    def __init__(self, env: dict[str, str], workers: int | None, deflate: bool = False) -> None:
        self.port = _free_port()
        self.data = Path(tempfile.mkdtemp(prefix="tortuga-rawlimit-"))
        command = [sys.executable, "-m", "server.tools.rawlimit", "--port", str(self.port)]
        command += ["--workers", str(workers or os.cpu_count() or 1)]
        if deflate:
            command.append("--deflate")
        self.log = (self.data / "raw.log").open("wb")
        self.process = subprocess.Popen(
            command, env={**os.environ, **env}, stdout=self.log, stderr=subprocess.STDOUT
        )

    def measure(
        self, sockets: int, seconds: float, pool: ProcessPoolExecutor, processes: int
    ) -> Raw:
        """``sockets`` echo clients over ``processes`` client processes for ``seconds``."""
        self.ready()
        count = max(1, min(processes, sockets))
        parts = [sockets // count + (1 if k < sockets % count else 0) for k in range(count)]
        echoes = failed = 0
        start_at = time.time() + 1.0 + sockets / 200  # every socket connected by then
        url = f"ws://127.0.0.1:{self.port}/"
        for done, lost in pool.map(
            _echo_worker, [url] * count, parts, [start_at] * count, [seconds] * count
        ):
            echoes += done
            failed += lost
        return Raw(sockets, echoes, seconds, failed)

    def ready(self) -> Node:
        """Wait until it answers; the server as a node (its URL and process)."""
        _wait_ready(self.process, f"http://127.0.0.1:{self.port}/", self.data / "raw.log", 180)
        return Node(f"http://127.0.0.1:{self.port}", self.process.pid)

    def stop(self) -> None:
        _stop(self.process)
        self.log.close()
        shutil.rmtree(self.data, ignore_errors=True)
