"""An admin can "see nodes: which are alive (heartbeats in Redis), their socket and room
counts, versions and uptime."

Two in-process nodes share one Redis. Node b holds a player's socket in a room; node a's
``/admin/api/nodes`` lists both alive with what each said in its heartbeat. Node b then
falls silent (its heartbeat loop stops while it still serves: a stalled or dead process):
once its heartbeat expired, node a's console shows it dead, still with its last counts and
version. A node that stops cleanly signs off and leaves the list."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
import pytest
import websockets
from admin_helpers import admin_token, bearer
from test_clock import clock_of, heartbeat_of
from tortuga_client import Client, Node, seat_players

from server.ops.version import version

FAST = {"heartbeat_seconds": 0.1, "node_ttl_seconds": 0.6}


async def _nodes(node: Node, token: str) -> dict[str, dict[str, Any]]:
    async with httpx.AsyncClient(base_url=node.url) as http:
        r = await http.get("/admin/api/nodes", headers=bearer(token))
    assert r.status_code == 200, r.text
    return {n["node"]: n for n in r.json()["nodes"]}


async def _until(node: Node, token: str, ok: Any) -> dict[str, dict[str, Any]]:
    """Poll the nodes route (heartbeats come every 0.1 s) until ``ok(nodes)``."""
    for _ in range(200):
        nodes = await _nodes(node, token)
        if ok(nodes):
            return nodes
        await asyncio.sleep(0.05)
    raise AssertionError(nodes)


async def test_nodes_show_sockets_rooms_version_uptime_and_death(
    start: Any, admin_url: str, admin_name: str
) -> None:
    before = int(time.time() * 1000)
    a = await start("a", database_url=admin_url, **FAST)
    b = await start("b", database_url=admin_url, **FAST)
    # Seat 0 (the host) on node a, seat 1 on node b: each node has one socket in the room.
    table = await seat_players([a, b], 2)
    token = await admin_token(a, admin_name)

    nodes = await _until(
        a, token, lambda n: n.get("b", {}).get("sockets") == 1 and n["a"]["sockets"] == 1
    )
    for name in ("a", "b"):
        n = nodes[name]
        assert n["alive"] is True
        assert n["rooms"] == 1  # the room its socket follows
        assert n["version"] == version() and n["version"]
        assert before - 1000 <= n["started_at"] <= int(time.time() * 1000)
        assert n["uptime_seconds"] >= 0
        assert n["instance"].startswith(f"{name}.")

    # Node b stops beating but keeps serving: after its heartbeat expired it is dead.
    clock_of(b)._stop.set()
    heartbeat_of(b)._stop.set()
    nodes = await _until(a, token, lambda n: "b" in n and not n["b"]["alive"])
    assert nodes["a"]["alive"] is True
    dead = nodes["b"]
    assert dead["sockets"] == 1 and dead["version"] == version()  # its last word kept
    assert dead["last_beat"] is not None and dead["last_beat"] >= dead["started_at"]
    assert next(iter((await _nodes(a, token)).values()))["node"] == "a"  # alive first

    # A node that stops cleanly signs off: it is no longer listed at all.
    for c in table.clients:
        await c.ws.close()
    await b.stop()
    c = await start("c", database_url=admin_url, **FAST)
    await _until(a, token, lambda n: "c" in n)
    c_view = await _nodes(a, token)
    await c.stop()
    gone = await _until(a, token, lambda n: "c" not in n)
    assert c_view["c"]["alive"] is True and set(gone) >= {"a"}


async def test_an_admin_drains_a_node_from_another_node(
    start: Any, admin_url: str, admin_name: str, admin_db: Any
) -> None:
    """An admin can "drain a node (it tells its sockets to reconnect elsewhere and takes no new
    ones)": the request reaches node a; node b sees its field of ``nodes:draining`` within a
    heartbeat (server/realtime/drain.py), sends its socket ``reconnect``, turns a new socket away
    (``reconnect``, then 1012) and says it is not ready; node a still serves. Audited."""
    from server.admin import audit

    a = await start("a", database_url=admin_url, **FAST)
    b = await start("b", database_url=admin_url, **FAST)
    table = await seat_players([a, b], 2)
    token = await admin_token(a, admin_name)
    nodes = await _until(a, token, lambda n: n.get("b", {}).get("alive"))
    instance = nodes["b"]["instance"]
    assert nodes["b"]["draining"] is None
    path = f"/admin/api/nodes/{instance}/drain"
    async with httpx.AsyncClient(base_url=a.url) as http:
        for headers in ({}, bearer("adm_" + "y" * 43)):
            r = await http.post(path, json={"reason": "kernel update"}, headers=headers)
            assert r.status_code == 401 and r.json()["error"]["code"] == "not-admin"
        r = await http.post(path, json={"reason": ""}, headers=bearer(token))
        assert r.status_code == 400 and r.json()["error"]["code"] == "reason-required"
        r = await http.post(
            "/admin/api/nodes/zz.000000/drain", json={"reason": "x"}, headers=bearer(token)
        )
        assert r.status_code == 404 and r.json()["error"]["code"] == "no-such-node"
        assert not [e for e in await audit.search(admin_db, admin=admin_name, action="drain")]
        r = await http.post(path, json={"reason": "kernel update"}, headers=bearer(token))
        assert r.status_code == 200, r.text
        assert r.json()["draining"]["by"] == admin_name
        again = await http.post(path, json={"reason": "again"}, headers=bearer(token))
        assert again.status_code == 409 and again.json()["error"]["code"] == "draining"
    moved = table.clients[1]  # its socket is on node b
    hint = await moved.wait(lambda f: f["type"] == "reconnect", timeout=10)
    assert hint["reason"] == "draining" and hint["within_ms"] >= 0
    assert not [f for f in table.clients[0].frames if f["type"] == "reconnect"]  # node a
    async with httpx.AsyncClient(base_url=b.url) as http:
        assert (await http.get("/readyz")).status_code == 503
    ws = await websockets.connect(b.ws_url)  # turned away before its first frame
    assert json.loads(await ws.recv())["type"] == "reconnect"
    with pytest.raises(websockets.ConnectionClosed):
        await ws.recv()
    assert ws.close_code == 1012
    # The player follows the hint to node a and resumes the room there.
    back = await Client.connect(a, token=moved.token, user=moved.user)
    await back.send("join", room=table.id)
    await back.of("snapshot")
    listed = (await _nodes(a, token))["b"]
    assert listed["draining"]["reason"] == "kernel update" and listed["alive"]
    [entry] = await audit.search(admin_db, admin=admin_name, action="drain")
    assert entry["details"] == {"instance": instance} and entry["reason"] == "kernel update"


async def test_the_last_serving_node_is_drained_only_when_forced(
    start: Any, admin_url: str, admin_name: str, admin_db: Any
) -> None:
    """Draining the last live node that is not draining would leave players nowhere to
    reconnect: refused (409 ``last-serving-node``, nothing marked, nothing audited) unless
    the request says ``force: true`` -- then done, and audited as forced. The check holds
    for a node asked to drain itself and for two drains of the only two nodes."""
    from server.admin import audit

    a = await start("a", database_url=admin_url, **FAST)
    await start("b", database_url=admin_url, **FAST)
    token = await admin_token(a, admin_name)
    nodes = await _until(a, token, lambda n: n.get("b", {}).get("alive"))
    ia, ib = nodes["a"]["instance"], nodes["b"]["instance"]
    store = a.server.config.app.state.services.rooms.store  # type: ignore[attr-defined]
    async with httpx.AsyncClient(base_url=a.url) as http:

        async def drain(instance: str, **extra: Any) -> httpx.Response:
            body = {"reason": "maintenance", **extra}
            path = f"/admin/api/nodes/{instance}/drain"
            return await http.post(path, json=body, headers=bearer(token))

        r = await drain(ib)
        assert r.status_code == 200, r.text
        # Node a is now the only one serving: draining it is refused, whoever asks.
        r = await drain(ia)
        assert r.status_code == 409 and r.json()["error"]["code"] == "last-serving-node"
        assert await store.draining_of(ia) is None
        assert len(await audit.search(admin_db, admin=admin_name, action="drain")) == 1
        r = await drain(ia, force="yes")
        assert r.status_code == 400  # force is a boolean
        r = await drain(ia, force=True)
        assert r.status_code == 200, r.text
        assert r.json()["draining"]["force"] is True
    entries = await audit.search(admin_db, admin=admin_name, action="drain")
    assert sorted(e["details"].get("force", False) for e in entries) == [False, True]
    forced = next(e for e in entries if e["details"].get("force"))
    assert forced["details"] == {"instance": ia, "force": True}


async def test_two_drains_at_once_leave_one_node_serving(
    start: Any, admin_url: str, admin_name: str
) -> None:
    """Two admins drain the only two nodes at the same moment: the script that marks a drain
    counts the others serving under one lock (Redis), so one of the two is refused."""
    a = await start("a", database_url=admin_url, **FAST)
    b = await start("b", database_url=admin_url, **FAST)
    token = await admin_token(a, admin_name)
    nodes = await _until(a, token, lambda n: n.get("b", {}).get("alive"))
    store = a.server.config.app.state.services.rooms.store  # type: ignore[attr-defined]
    live = [nodes["a"]["instance"], nodes["b"]["instance"]]
    marks = await asyncio.gather(*(store.drain_node(i, "{}", live) for i in live))
    assert sorted(marks) == [-1, 1]
    assert len(await store.draining_nodes()) == 1
    assert b.settings.node_id == "b"  # both nodes alive throughout


async def _ready_says(node: Node, status: int) -> None:
    """Poll the node's ``/readyz`` (it looks for a drain request every heartbeat) until it
    answers ``status``."""
    async with httpx.AsyncClient(base_url=node.url) as http:
        for _ in range(200):
            if (await http.get("/readyz")).status_code == status:
                return
            await asyncio.sleep(0.05)
        assert (await http.get("/readyz")).status_code == status


async def test_an_admin_lifts_a_drain_and_the_node_serves_again(
    start: Any, admin_url: str, admin_name: str, admin_db: Any
) -> None:
    """A drain asked by an admin can be lifted (``/undrain``, with a reason, audited): the
    node sees its field of ``nodes:draining`` gone within a heartbeat, answers ``/readyz``
    with 200 again and welcomes a new socket (signs it in). Refused: a node not draining
    (409 ``not-draining``), one draining because it is stopping (SIGTERM: 409 ``stopping``,
    nothing changed), no reason, not an admin."""
    from server.admin import audit

    a = await start("a", database_url=admin_url, **FAST)
    b = await start("b", database_url=admin_url, **FAST)
    token = await admin_token(a, admin_name)
    nodes = await _until(a, token, lambda n: n.get("b", {}).get("alive"))
    instance = nodes["b"]["instance"]
    lift = f"/admin/api/nodes/{instance}/undrain"
    async with httpx.AsyncClient(base_url=a.url) as http:
        r = await http.post(lift, json={"reason": "false alarm"}, headers=bearer(token))
        assert r.status_code == 409 and r.json()["error"]["code"] == "not-draining"
        r = await http.post(
            f"/admin/api/nodes/{instance}/drain", json={"reason": "disk"}, headers=bearer(token)
        )
        assert r.status_code == 200 and r.json()["draining"]["kind"] == "admin"
    await _ready_says(b, 503)
    async with httpx.AsyncClient(base_url=a.url) as http:
        r = await http.post(lift, json={"reason": "false alarm"})
        assert r.status_code == 401 and r.json()["error"]["code"] == "not-admin"
        r = await http.post(lift, json={"reason": " "}, headers=bearer(token))
        assert r.status_code == 400 and r.json()["error"]["code"] == "reason-required"
        assert (await _nodes(a, token))["b"]["draining"] is not None  # nothing changed
        r = await http.post(lift, json={"reason": "false alarm"}, headers=bearer(token))
        assert r.status_code == 200 and r.json()["draining"] is None
    assert (await _nodes(a, token))["b"]["draining"] is None
    await _ready_says(b, 200)
    # A new socket on b is welcomed and signed in (no ``reconnect`` hint).
    table = await seat_players([b], 2)
    assert not [f for c in table.clients for f in c.frames if f["type"] == "reconnect"]
    [entry] = await audit.search(admin_db, admin=admin_name, action="undrain")
    assert entry["details"] == {"instance": instance} and entry["reason"] == "false alarm"

    # A node draining because it stops (SIGTERM marks it ``shutdown``) cannot be lifted.
    store = b.server.config.app.state.services.rooms.store  # type: ignore[attr-defined]
    stopping = {"by": "shutdown", "kind": "shutdown", "reason": "", "at": 1}
    await store.mark_draining(instance, json.dumps(stopping))
    async with httpx.AsyncClient(base_url=a.url) as http:
        r = await http.post(lift, json={"reason": "keep it"}, headers=bearer(token))
        assert r.status_code == 409 and r.json()["error"]["code"] == "stopping"
    assert json.loads(await store.draining_of(instance)) == stopping
    assert len(await audit.search(admin_db, admin=admin_name, action="undrain")) == 1
    assert (await _nodes(a, token))["b"]["draining"]["kind"] == "shutdown"  # the console's word
    await store.lift_draining(instance)
