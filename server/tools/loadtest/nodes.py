"""A node of its own (``tortuga serve`` in a child process) and what is read of a node: its
``/metrics``, its protocol, its processes' CPU time and memory, Redis's CPU time."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _more_files() -> None:
    """Raise this process's open-files limit to its hard limit (thousands of sockets)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


@dataclass(frozen=True)
class Node:
    url: str
    pid: int | None  # the process started here (None: a node given by URL)


def _wait_ready(process: subprocess.Popen[bytes], url: str, log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"{url} did not start: " + log.read_text()[-2000:])
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url, timeout=2).status_code == 200:
                return
        if time.monotonic() > deadline:
            raise RuntimeError(f"{url} did not answer in time")
        time.sleep(0.2)


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def interpreter(checkout: Path | None) -> str:
    """The Python a node of ``checkout`` runs on: the checkout's own environment when it
    has one (``.venv``, as ``uv sync`` makes it: a folder given to ``--against`` with
    another Python or other packages, compared in one run), else this one's (a worktree
    made for the run has none)."""
    if checkout is not None:
        own = checkout / ".venv" / "bin" / "python"
        if own.exists():
            return str(own)
    return sys.executable


@contextlib.contextmanager
def own_node(
    env: dict[str, str] | None = None,
    timeout: float = 180.0,
    workers: int | None = None,
    checkout: Path | None = None,
) -> Iterator[Node]:
    """``tortuga serve`` in a child process on a free port while it runs, then SIGTERM (it
    stops its embedded servers too) and its temporary data folder removed. ``checkout``:
    serve from that source tree (another revision's worktree: the baseline of
    ``--against``), with its own environment if it has one (``interpreter``)."""
    port = _free_port()
    data = Path(tempfile.mkdtemp(prefix="tortuga-loadtest-"))
    environment = {
        **os.environ,
        "TORTUGA_DATA_DIR": str(data),
        "TORTUGA_GUESTS_PER_ADDRESS_PER_HOUR": "0",  # every client comes from here
        "TORTUGA_MAX_PUBLIC_ROOMS_PER_ADDRESS": "0",
        "TORTUGA_RESUME_ADDRESS_BURST": "0",
        "TORTUGA_MAX_PENDING_PER_ADDRESS": "0",
        "TORTUGA_PUBLIC_URL": f"http://127.0.0.1:{port}/",
        "TORTUGA_METRICS_TOKEN": METRICS_TOKEN,  # the node's own latencies, per step
        **(env or {}),
    }
    if checkout is not None:
        environment["PYTHONPATH"] = str(checkout)
    command = [interpreter(checkout), "-m", "server.cli", "serve", "--host", "127.0.0.1"]
    command += ["--port", str(port)]
    if workers is not None:
        command += ["--workers", str(workers)]
    log = (data / "serve.log").open("wb")
    process = subprocess.Popen(
        command,
        env=environment,
        stdout=log,
        stderr=subprocess.STDOUT,
        preexec_fn=_more_files,
        cwd=checkout,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(process, f"{url}/readyz", data / "serve.log", timeout)
        yield Node(url, process.pid)
    finally:
        _stop(process)
        log.close()
        shutil.rmtree(data, ignore_errors=True)


METRICS_TOKEN = "loadtest-" + os.urandom(16).hex()  # for the nodes started here


def _metrics(url: str) -> str | None:
    """The node's ``/metrics`` page, or None when it has none (an older revision) or
    refuses."""
    try:
        r = httpx.get(
            f"{url}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=30
        )
    except httpx.HTTPError:
        return None
    return r.text if r.status_code == 200 else None


def scrape(url: str) -> dict[str, dict[float, float]] | None:
    """The node's latency histograms (``/metrics``, summed over its workers): for
    ``tortuga_step_seconds`` and ``tortuga_fanout_seconds``, cumulative count by bucket
    bound. None when the node has no such page (an older revision) or refuses."""
    page = _metrics(url)
    if page is None:
        return None
    out: dict[str, dict[float, float]] = {}
    for line in page.splitlines():
        for name in ("tortuga_step_seconds", "tortuga_fanout_seconds"):
            if line.startswith(name + "_bucket{"):
                bound = line.split('le="', 1)[1].split('"', 1)[0]
                le = float("inf") if bound == "+Inf" else float(bound)
                counts = out.setdefault(name, {})
                counts[le] = counts.get(le, 0.0) + float(line.rsplit(" ", 1)[1])
    return out


def archive_backlog(url: str) -> int | None:
    """The site's archive records not yet in Postgres (``tortuga_archive_backlog`` of the
    node's /metrics), or None when the node has no such page."""
    page = _metrics(url)
    if page is None:
        return None
    for line in page.splitlines():
        if line.startswith("tortuga_archive_backlog "):
            return int(float(line.split()[1]))
    return None


def archived_finals(url: str) -> int | None:
    """Games' final records the node's archivers have stored so far (its workers'
    ``tortuga_archived_records`` of kind ``final``, summed), or None when it counts none (an
    older revision, or no /metrics)."""
    page = _metrics(url)
    if page is None or "tortuga_archived_records" not in page:
        return None
    total = 0.0
    for line in page.splitlines():
        if line.startswith("tortuga_archived_records_total{") and 'kind="final"' in line:
            total += float(line.rsplit(" ", 1)[1])
    return int(total)


DRAIN_WAIT = 120.0  # seconds a step waits, at most, for the archive to catch up
DRAIN_LOOK = 0.1  # seconds between two looks


def wait_archived(
    url: str, finals_before: int | None = None, games: int = 0
) -> tuple[int | None, float]:
    """The archive backlog when the games are over, and the seconds until the step's
    records were all written (at most ``DRAIN_WAIT``): until the backlog is 0 and -- on a
    node that counts them -- the archivers have stored a final record for each of the
    step's ``games`` since ``finals_before``. The backlog alone can read 0 too early: a
    game's final record goes on the archive stream once the loop is calm after its last
    step (``GameEnd.later``; the archiver also waits for a calm loop: server/ops/busy.py)."""
    first = archive_backlog(url)
    started = time.monotonic()

    def done() -> bool:
        if archive_backlog(url):
            return False
        if finals_before is None:
            return True
        finals = archived_finals(url)
        return finals is None or finals - finals_before >= games

    while not done() and time.monotonic() - started < DRAIN_WAIT:
        time.sleep(DRAIN_LOOK)
    return first, time.monotonic() - started


def histogram_quantile(
    before: dict[float, float] | None, after: dict[float, float], q: float
) -> tuple[float, int] | None:
    """The bucket bound under which ``q`` (0..1) of the observations made between two
    scrapes fall (as Prometheus's histogram_quantile, without interpolation), and how
    many there were."""
    counts = {le: n - (before or {}).get(le, 0.0) for le, n in after.items()}
    total = counts.get(float("inf"), 0.0)
    if total <= 0:
        return None
    for le in sorted(counts):
        if counts[le] >= q * total:
            return le, int(total)
    return None


def legacy_protocol(url: str) -> bool:
    """Whether the node at ``url`` speaks the older protocol (the token in the socket's URL,
    answered with ``hello`` at once); today's refuses a token there (``auth`` frame)."""

    async def probe() -> bool:
        async with httpx.AsyncClient(timeout=30) as http:
            r = await http.post(f"{url}/api/guest", json={"name": "protocol probe"})
            r.raise_for_status()
            token = r.json()["token"]
        ws_url = url.replace("http", "ws", 1) + f"/ws?token={token}"
        async with connect(ws_url) as ws:
            first = json.loads(await asyncio.wait_for(ws.recv(), 10))
        return bool(first.get("type") == "hello")

    return asyncio.run(probe())


def _tree(pid: int) -> set[int]:
    """``pid`` and its descendants."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = (entry / "stat").read_text()
                parents[int(entry.name)] = int(stat[stat.rindex(")") + 2 :].split()[1])
    tree, grew = {pid}, True
    while grew:
        more = {child for child, parent in parents.items() if parent in tree} - tree
        tree |= more
        grew = bool(more)
    return tree


def _python(pid: int) -> bool:
    return Path(f"/proc/{pid}/comm").read_text().startswith("python")


def cpu_seconds(pid: int, members: set[int] | None = None) -> float:
    """CPU time (user + system) used so far by the Python processes of ``pid``'s tree (a
    node and its workers; not the Redis or Postgres it may have started); ``members``: the
    tree as read before (a sampler reads it once)."""
    total = 0
    for member_pid in members if members is not None else _tree(pid):
        with contextlib.suppress(OSError, IndexError, ValueError):
            if _python(member_pid):
                stat = Path(f"/proc/{member_pid}/stat").read_text()
                fields = stat[stat.rindex(")") + 2 :].split()
                total += int(fields[11]) + int(fields[12])  # utime, stime (clock ticks)
    return total / os.sysconf("SC_CLK_TCK")


class Sampler:
    """The CPU time of nodes' processes, and Redis's CPU time and commands (when
    ``redis_url``), read every ``every`` seconds in a thread while a step is played: what
    they were at a given wall-clock instant (``at``), e.g. when the step's first game started
    -- the set-up before it (guests, keys, rooms, seats) is then not counted as the games'."""

    def __init__(self, pids: list[int], redis_url: str | None, every: float = 0.2) -> None:
        import threading

        self.pids, self.redis_url, self.every = pids, redis_url, every
        self.members = [_tree(pid) for pid in pids]
        self.samples: list[tuple[float, float, float | None, int | None]] = []
        self.by_server: list[dict[str, float]] = []  # each sample's Redis CPU by server
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._sample()
        self._thread.start()

    def _sample(self) -> None:
        split: dict[str, float] = {}
        redis = redis_counts(self.redis_url, split) if self.redis_url else None
        self.by_server.append(split)
        cpu = sum(cpu_seconds(p, m) for p, m in zip(self.pids, self.members, strict=True))
        self.samples.append(
            (time.time(), cpu, redis[0] if redis else None, redis[1] if redis else None)
        )

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self._sample()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()  # the last: when the step's work was done

    def _index(self, when: float) -> int:
        """The last sample taken no later than wall-clock ``when`` (the first if none was)."""
        return max(0, sum(1 for s in self.samples if s[0] <= when) - 1)

    def at(self, when: float) -> tuple[float, float | None, int | None]:
        """(nodes' CPU seconds, Redis CPU seconds, Redis commands) at wall-clock ``when``."""
        return self.samples[self._index(when)][1:]

    def redis_split(self, when: float) -> dict[str, float]:
        """Redis CPU seconds each server spent from ``when`` to the last sample."""
        first, last = self.by_server[self._index(when)], self.by_server[-1]
        return {server: last[server] - first.get(server, 0.0) for server in sorted(last)}


def redis_servers(url: str) -> list[str]:
    """The Redis servers whose CPU a run spends: the one of ``url``, or every primary of a
    Redis Cluster (from ``CLUSTER NODES`` on its first seed), as ``redis://host:port`` URLs."""
    from server.redis.pool import cluster_nodes, is_cluster

    if not is_cluster(url):
        return [url]
    import redis

    host, port = cluster_nodes(url)[0]
    client = redis.Redis(host=host, port=port)
    try:
        nodes: Any = client.execute_command("CLUSTER NODES")  # type: ignore[no-untyped-call]
    finally:
        client.close()
    # redis-py parses the reply: {"host:port": {"flags": "master,...", ...}, ...}
    servers = [
        "redis://" + address.split("@", 1)[0]
        for address, node in nodes.items()
        if "master" in str(node.get("flags", "")).split(",")
    ]
    return sorted(servers)


def redis_counts(url: str, split: dict[str, float] | None = None) -> tuple[float, int] | None:
    """(CPU seconds, commands processed) of Redis so far, summed over a cluster's primaries
    (``INFO``; None when unreachable); ``split``: filled with each server's CPU seconds."""
    import redis

    cpu, commands = 0.0, 0
    try:
        for server in redis_servers(url):
            client = redis.Redis.from_url(server)
            try:
                info: Any = client.info()
            finally:
                client.close()
            spent = float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
            cpu += spent
            if split is not None:
                split[server] = spent
            commands += int(info["total_commands_processed"])
    except redis.RedisError:
        return None
    return cpu, commands


def redis_cpu_seconds(url: str) -> float | None:
    """CPU time Redis used so far (``INFO``, summed over a cluster's primaries; None when
    unreachable)."""
    counts = redis_counts(url)
    return counts[0] if counts is not None else None


def memory(pid: int) -> int:
    """Resident bytes of the Python processes of ``pid``'s tree (a node and its workers; not
    the embedded Redis or Postgres it may have started)."""
    total = 0
    for member_pid in _tree(pid):
        with contextlib.suppress(OSError):
            if not _python(member_pid):
                continue
            for line in Path(f"/proc/{member_pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
    return total
