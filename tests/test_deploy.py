"""The production shape (docker-compose.yml, deploy/nginx.conf) as Compose itself reads it.

``docker-compose config`` (Debian's package ``docker-compose``, Compose 1.29; .ci/run
installs it) validates the file and prints it resolved -- anchors merged, variables
interpolated -- without a Docker engine. Its output is YAML; it is read with the Python
that runs docker-compose, which has PyYAML because Compose needs it, so the project needs
no YAML dependency of its own.
"""

from __future__ import annotations

import http.server
import json
import os
import re
import shutil
import socket
import subprocess
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SECRET = "5e" * 32
OWNER_PASSWORD, NODE_PASSWORD = "0a" * 16, "0b" * 16
PASSWORDS = {"TORTUGA_DB_OWNER_PASSWORD": OWNER_PASSWORD, "TORTUGA_DB_NODE_PASSWORD": NODE_PASSWORD}
NODES = ("node1", "node2")


def _compose() -> str:
    found = shutil.which("docker-compose")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("docker-compose is missing (.ci/run installs Debian's package)")
        pytest.skip("docker-compose is not installed (apt-get install docker-compose)")
    return found


def _config(
    *, secret: str | None, extra: dict[str, str] | None = None, passwords: bool = True
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORTUGA_")}
    if secret is not None:
        env["TORTUGA_SECRET"] = secret
    if passwords:
        env.update(PASSWORDS)
    env.update(extra or {})
    return subprocess.run(
        [_compose(), "--project-directory", str(ROOT), "-f", "docker-compose.yml", "config"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    """The resolved Compose file, as JSON-like data."""
    return _resolved(_config(secret=SECRET))


def _resolved(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.returncode == 0, done.stderr
    # The interpreter of docker-compose (its shebang) has PyYAML.
    shebang = Path(_compose()).read_text(errors="replace").splitlines()[0]
    python = shebang[2:].strip().split()[0] if shebang.startswith("#!") else "python3"
    as_json = subprocess.run(
        [python, "-c", "import json, sys, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)"],
        input=done.stdout,
        capture_output=True,
        text=True,
        check=True,
    )
    data: dict[str, Any] = json.loads(as_json.stdout)
    return data


def test_the_secret_is_required() -> None:
    """Without TORTUGA_SECRET Compose refuses to start anything (a node would otherwise make
    a secret of its own, and the two nodes would refuse each other's tokens)."""
    done = _config(secret=None)
    assert done.returncode != 0
    assert "TORTUGA_SECRET" in done.stderr


def test_the_database_passwords_are_required() -> None:
    """Postgres takes passwords (no trust): without both, Compose refuses to start."""
    assert "TORTUGA_DB_OWNER_PASSWORD" in _config(secret=SECRET, passwords=False).stderr
    for name in PASSWORDS:
        done = _config(secret=SECRET, passwords=False, extra={name: PASSWORDS[name]})
        assert done.returncode != 0 and (set(PASSWORDS) - {name}).pop() in done.stderr


def test_nodes_connect_as_a_role_that_does_not_own_the_schema(compose: dict[str, Any]) -> None:
    """The migration connects as the schema's owner; the nodes as the role that is not (it
    cannot edit, remove or re-chain the admin audit), and never see the owner's password.
    Postgres creates both roles (deploy/postgres-roles.sql) when it creates its data, asks
    every network login for a password, and the superuser has none."""
    services = compose["services"]

    def login(name: str) -> str:
        url = services[name]["environment"]["TORTUGA_DATABASE_URL"]
        found = re.fullmatch(r"postgresql\+asyncpg://([^:@]+):([^@]+)@postgres:5432/tortuga", url)
        assert found, url
        return f"{found.group(1)}:{found.group(2)}"

    assert login("migrate") == f"tortuga_owner:{OWNER_PASSWORD}"
    for name in NODES:
        assert login(name) == f"tortuga_node:{NODE_PASSWORD}"
        assert OWNER_PASSWORD not in json.dumps(services[name]), name
    postgres = services["postgres"]
    env = postgres["environment"]
    assert "POSTGRES_HOST_AUTH_METHOD" not in env and env["POSTGRES_PASSWORD"]
    assert env["TORTUGA_DB_OWNER_PASSWORD"] == OWNER_PASSWORD
    assert env["TORTUGA_DB_NODE_PASSWORD"] == NODE_PASSWORD
    mounts = {
        (str(v["source"]) if isinstance(v, dict) else v.split(":")[0]): (
            v["target"] if isinstance(v, dict) else v.split(":")[1]
        )
        for v in postgres["volumes"]
    }
    init = {Path(source).name: target for source, target in mounts.items()}
    assert init["postgres-roles.sh"].startswith("/docker-entrypoint-initdb.d/")
    assert init["postgres-roles.sql"] == "/etc/tortuga/postgres-roles.sql"
    script = (ROOT / "deploy" / "postgres-roles.sh").read_text()
    assert "-f /etc/tortuga/postgres-roles.sql" in script
    assert "owner=tortuga_owner" in script and "node=tortuga_node" in script
    assert 'PASSWORD NULL"' in script


def test_services(compose: dict[str, Any]) -> None:
    assert set(compose["services"]) == {"redis", "postgres", "migrate", *NODES, "lb"}


def test_every_service_has_a_health_check(compose: dict[str, Any]) -> None:
    """Every long-running service has a health check; the one-shot migration instead is
    waited for by its exit status (service_completed_successfully) and is never restarted."""
    services = compose["services"]
    one_shots = {
        name
        for service in services.values()
        for name, dep in service.get("depends_on", {}).items()
        if dep.get("condition") == "service_completed_successfully"
    }
    assert one_shots == {"migrate"}
    assert services["migrate"]["restart"] == "no"
    for name, service in services.items():
        if name in one_shots:
            continue
        check = service.get("healthcheck")
        assert check and check.get("test") and not check.get("disable"), name
        assert check["test"][0] in ("CMD", "CMD-SHELL"), name


def test_every_node_has_the_same_secret(compose: dict[str, Any]) -> None:
    """Tokens signed by one node are checked by the other: one secret, the one given."""
    secrets = {compose["services"][n]["environment"]["TORTUGA_SECRET"] for n in NODES}
    assert secrets == {SECRET}
    ids = {compose["services"][n]["environment"]["TORTUGA_NODE_ID"] for n in NODES}
    assert len(ids) == len(NODES)


def test_metrics_and_admin_tokens_reach_every_node() -> None:
    """/metrics takes "a metrics token (TORTUGA_METRICS_TOKEN)" and automation the admin
    token: set in the shell, every node gets them; unset, each is empty (off)."""
    token, admin = "m" * 40, "a" * 40
    done = _config(
        secret=SECRET, extra={"TORTUGA_METRICS_TOKEN": token, "TORTUGA_ADMIN_TOKEN": admin}
    )
    services = _resolved(done)["services"]
    for name in NODES:
        env = services[name]["environment"]
        assert env["TORTUGA_METRICS_TOKEN"] == token and env["TORTUGA_ADMIN_TOKEN"] == admin


def test_the_optional_tokens_default_to_off(compose: dict[str, Any]) -> None:
    for name in NODES:
        env = compose["services"][name]["environment"]
        assert env["TORTUGA_METRICS_TOKEN"] == "" and env["TORTUGA_ADMIN_TOKEN"] == ""


def test_nodes_wait_for_the_migration_and_check_readiness(compose: dict[str, Any]) -> None:
    services = compose["services"]
    for name in NODES:
        node = services[name]
        assert node["depends_on"] == {
            "redis": {"condition": "service_healthy"},
            "postgres": {"condition": "service_healthy"},
            "migrate": {"condition": "service_completed_successfully"},
        }
        assert "/readyz" in " ".join(node["healthcheck"]["test"])
        # The migration ran; a node must refuse an old schema rather than upgrade it.
        assert node["environment"]["TORTUGA_MIGRATE"] == "0"
    assert services["migrate"]["command"][-1] == "migrate"
    assert services["migrate"]["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    assert services["lb"]["depends_on"] == {n: {"condition": "service_healthy"} for n in NODES}


def test_redis_keeps_an_append_only_file(compose: dict[str, Any]) -> None:
    command = compose["services"]["redis"]["command"]
    assert command[command.index("--appendonly") + 1] == "yes"
    assert "redis:/data" in " ".join(compose["services"]["redis"]["volumes"])


def test_nodes_trust_forwarded_addresses_from_nginx_only(compose: dict[str, Any]) -> None:
    lb = compose["services"]["lb"]["networks"]["default"]["ipv4_address"]
    for name in NODES:
        assert compose["services"][name]["environment"]["TORTUGA_FORWARDED_ALLOW_IPS"] == lb


def _nginx() -> str:
    # Comments out: what is checked must be configuration, not prose.
    text = (ROOT / "deploy" / "nginx.conf").read_text()
    return "\n".join(line.split("#", 1)[0] for line in text.splitlines())


def test_nginx_proxies_to_every_node_with_explicit_limits() -> None:
    conf = _nginx()
    assert re.findall(r"server\s+(\w+):8000;", conf) == list(NODES)
    for directive in (
        "client_max_body_size",
        "proxy_connect_timeout",
        "proxy_read_timeout",
        "proxy_send_timeout",
    ):
        assert re.search(rf"^\s*{directive}\s+\S+;", conf, re.M), directive
    assert "proxy_set_header Upgrade $http_upgrade;" in conf


def test_nginx_access_log_has_no_query_strings_or_tokens() -> None:
    """The access log format names the path ($uri) only: not the request line or URI with
    its query string, not the Authorization header, not the Referer."""
    conf = _nginx()
    formats = dict(re.findall(r"log_format\s+(\w+)\s+((?:'[^']*'\s*)+);", conf))
    assert formats, "no log_format"
    logs = re.findall(r"^\s*access_log\s+\S+\s+(\w+);", conf, re.M)
    assert logs and set(logs) <= set(formats), logs
    assert not re.search(r"^\s*access_log\s+\S+\s*;", conf, re.M), "an access_log in nginx's format"
    for name in logs:
        fmt = formats[name]
        assert "$uri" in fmt
        for leak in (
            "$request ",
            '$request"',
            "$request'",
            "$request_uri",
            "$args",
            "$arg_",
            "$query_string",
            "$is_args",
            "$http_authorization",
            "$http_referer",
            "$http_cookie",
        ):
            assert leak not in fmt, (name, leak)


def test_nginx_sends_a_rooms_sockets_to_one_node() -> None:
    """The upstream hashes on the room (consistent hashing), and the room is the code of a
    room's socket (``/ws?room=CODE``, web-client/js/conn.js), nothing for other requests."""
    conf = _nginx()
    upstream = re.search(r"upstream\s+tortuga\s*\{([^}]*)\}", conf)
    assert upstream, "no upstream tortuga"
    assert re.search(r"^\s*hash\s+\$room\s+consistent;", upstream.group(1), re.M)
    room_map = re.search(r"map\s+\$uri\s+\$room\s*\{([^}]*)\}", conf)
    assert room_map, "no map from the request's path to $room"
    entries = dict(re.findall(r"^\s*(\S+)\s+(\S+);", room_map.group(1), re.M))
    assert entries == {"default": '""', "/ws": "$arg_room"}, entries


def _nginx_binary() -> str:
    nginx = shutil.which("nginx") or (
        "/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None
    )
    if nginx is None:
        pytest.skip("nginx is not installed")
    return nginx


def _nginx_config(tmp_path: Path, ports: list[int], listen: int = 80) -> Path:
    """The config as the image includes it (inside ``http {}``), with the node names
    replaced by the addresses given (nginx resolves upstreams when it loads a config)."""
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    for node, port in zip(NODES, ports, strict=True):
        conf = conf.replace(f"{node}:8000", f"127.0.0.1:{port}")
    conf = conf.replace("/var/log/nginx/access.log", str(tmp_path / "access.log"))
    conf = re.sub(r"listen\s+80;", f"listen 127.0.0.1:{listen};", conf)
    (tmp_path / "default.conf").write_text(conf)
    (tmp_path / "nginx.conf").write_text(
        f"pid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/error.log;\nevents {{}}\n"
        f"http {{\n    include {tmp_path}/default.conf;\n}}\n"
    )
    return tmp_path / "nginx.conf"


def test_nginx_accepts_the_config(tmp_path: Path) -> None:
    """``nginx -t`` on the config as the image includes it. Skipped where nginx is not
    installed (Debian: nginx-light)."""
    nginx = _nginx_binary()
    config = _nginx_config(tmp_path, [8001, 8002])
    done = subprocess.run(
        [nginx, "-t", "-p", str(tmp_path), "-c", str(config)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    assert "syntax is ok" in done.stderr


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_nginx_routes_by_room(tmp_path: Path) -> None:
    """nginx itself, in front of two stand-in nodes that answer with their name: every
    request for a room's socket reaches one node, the rooms spread over both, and requests
    naming no room go round-robin. Skipped where nginx is not installed."""
    nginx = _nginx_binary()

    class Named(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = self.server.name.encode()  # type: ignore[attr-defined]
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    nodes = []
    for name in NODES:
        node = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Named)
        node.name = name  # type: ignore[attr-defined]
        threading.Thread(target=node.serve_forever, daemon=True).start()
        nodes.append(node)
    listen = _free_port()
    config = _nginx_config(tmp_path, [n.server_address[1] for n in nodes], listen)
    proxy = subprocess.Popen(
        [nginx, "-p", str(tmp_path), "-c", str(config), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )

    def served_by(path: str) -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{listen}{path}", timeout=5) as reply:
            return str(reply.read().decode())

    try:
        for _ in range(100):
            try:
                served_by("/")
                break
            except OSError:
                assert proxy.poll() is None, proxy.stderr.read() if proxy.stderr else ""
                time.sleep(0.05)
        rooms = [f"R{k:04d}" for k in range(40)]
        homes = {room: served_by(f"/ws?room={room}") for room in rooms}
        for room in rooms:
            for path in (f"/ws?room={room}", f"/ws?v=2&room={room}"):
                assert {served_by(path) for _ in range(3)} == {homes[room]}, room
        assert set(homes.values()) == set(NODES), homes
        assert {served_by("/ws") for _ in range(4)} == set(NODES)
        assert {served_by(f"/rooms?room={rooms[0]}") for _ in range(4)} == set(NODES)
    finally:
        proxy.terminate()
        proxy.wait(timeout=10)
        for node in nodes:
            node.shutdown()
            node.server_close()


def test_the_scale_shape_adds_a_redis_cluster_and_a_read_replica() -> None:
    """deploy/docker-compose.scale.yml over docker-compose.yml (docs/SCALE.md): six Redis
    nodes made one cluster of 3 primaries with a replica each, a Postgres streaming replica,
    and every node and the migration pointed at the cluster, the history read from the
    replica, after both are up."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORTUGA_")}
    env.update(PASSWORDS, TORTUGA_SECRET=SECRET, TORTUGA_DB_REPLICATION_PASSWORD="0c" * 16)
    files = ["-f", "docker-compose.yml", "-f", "deploy/docker-compose.scale.yml"]
    done = subprocess.run(
        [_compose(), "--project-directory", str(ROOT), *files, "config"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    services = _resolved(done)["services"]
    redis = [f"redis-{i}" for i in range(1, 7)]
    assert set(redis) | {"redis-cluster", "postgres-replica"} <= set(services)
    for name in redis:
        command = services[name]["command"]
        assert "--cluster-enabled" in command and "--appendonly" in command
    create = " ".join(services["redis-cluster"]["command"])
    assert "--cluster-replicas 1" in create and all(name in create for name in redis)
    replica = " ".join(services["postgres-replica"]["command"])
    assert "pg_basebackup -h postgres -U replicator" in replica and " -R " in replica
    assert any("postgres-replication.sh" in str(v) for v in services["postgres"]["volumes"]), (
        services["postgres"]["volumes"]
    )
    for name in (*NODES, "migrate"):
        environment = services[name]["environment"]
        assert environment["TORTUGA_REDIS_URL"].startswith("redis+cluster://redis-1:6379,")
        read = environment["TORTUGA_DATABASE_READ_URL"]
        assert (
            read.startswith("postgresql+asyncpg://tortuga_node:") and "@postgres-replica:" in read
        )
        assert environment["TORTUGA_DATABASE_URL"] != read
        depends = services[name]["depends_on"]
        assert depends["redis-cluster"]["condition"] == "service_completed_successfully"
        assert depends["postgres-replica"]["condition"] == "service_healthy"
        assert depends["postgres"]["condition"] == "service_healthy"  # still, from the base
    assert "migrate" in services["node1"]["depends_on"]
    required = {k: v for k, v in env.items() if k != "TORTUGA_DB_REPLICATION_PASSWORD"}
    refused = subprocess.run(
        [_compose(), "--project-directory", str(ROOT), *files, "config"],
        cwd=ROOT,
        env=required,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode != 0 and "TORTUGA_DB_REPLICATION_PASSWORD" in refused.stderr
