"""An admin pushes a game's deadline ("extend a deadline"): ``POST
/admin/api/rooms/{id}/extend {seconds, reason}``. Refused without a reason, for unknown
rooms and for rooms not playing (nothing changes, nothing audited); otherwise audited, the
room's recorded deadline moves, every player on either node gets a ``deadline`` frame, and
the clock member that comes due at the old time does not fire: it is moved to the new one.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from admin_helpers import admin_token, bearer
from test_clock import FAST, applied, clock_of, fired, wait_fired
from test_protocol import seat_players, started
from tortuga_client import Client

from server.admin import audit
from server.archive.db import Database
from server.redis.store import Keys
from server.table.deadlines import APPLIED, LATER
from server.table.room import now_ms


@pytest.mark.cluster
async def test_extend_pushes_the_deadline_for_every_player_and_the_clock_obeys(
    start: Any,
    admin_url: str,
    admin_name: str,
    admin_db: Database,
    redis_client: Any,
    redis_prefix: str,
) -> None:
    nodes = [
        await start("a", database_url=admin_url, **FAST),
        await start("b", database_url=admin_url, **FAST),
    ]
    deadlines = {"move": 600, "commit": 600, "reveal": 600}
    table = await started(nodes, 3, deadlines=deadlines)
    lobby = await seat_players(nodes, 2)
    rooms = clock_of(nodes[0]).rooms
    room = await rooms.get(table.id)
    turn = await rooms.turns.turn_of(room)
    assert turn is not None and turn["deadline"] is not None
    old = int(turn["deadline"])
    token = await admin_token(nodes[0], admin_name)
    path = f"/admin/api/rooms/{table.id}/extend"
    async with httpx.AsyncClient(base_url=nodes[1].url) as http:
        refused = [
            (path, {"seconds": 60}, 400),  # no reason
            (path, {"seconds": 60, "reason": "  "}, 400),
            (path, {"seconds": 0, "reason": "lag"}, 400),
            ("/admin/api/rooms/NOPE99/extend", {"seconds": 60, "reason": "lag"}, 404),
            (f"/admin/api/rooms/{lobby.id}/extend", {"seconds": 60, "reason": "lag"}, 409),
        ]
        for url, body, status in refused:
            r = await http.post(url, json=body, headers=bearer(token))
            assert r.status_code == status, (url, body, r.text)
        assert await audit.search(admin_db, admin=admin_name, action="extend") == []
        assert (await rooms.turns.turn_of(await rooms.get(table.id)) or {})["deadline"] == old
        r = await http.post(
            path, json={"seconds": 300, "reason": "a player's connection"}, headers=bearer(token)
        )
    assert r.status_code == 200, r.text
    new = old + 300_000
    assert r.json() == {
        "room": table.id,
        "version": room.version,
        "stage": turn["stage"],
        "deadline": new,
        "by": "admin",
    }
    [entry] = await audit.search(admin_db, target=table.id)
    assert (entry["action"], entry["reason"]) == ("extend", "a player's connection")
    assert entry["details"] == {"version": room.version, "seconds": 300}
    assert (await rooms.turns.turn_of(await rooms.get(table.id)) or {})["deadline"] == new
    for c in table.clients:  # players on both nodes
        told = await c.wait(lambda f: f.get("type") == "deadline")
        assert (told["deadline"], told["stage"], told["version"]) == (new, turn["stage"], 1)

    # The old moment comes (the member is made due now): nothing is played, the member
    # moves to the new deadline.
    kind = {"move": "move", "commit": "commit", "reveal": "reveal"}[turn["stage"]]
    name = f"{kind}|{table.id}|{room.version}"
    await redis_client.zadd(Keys(redis_prefix).clock_of(name), {name: now_ms()})
    assert set(await wait_fired(nodes, name)) == {LATER}
    assert (await rooms.get(table.id)).version == room.version
    assert await redis_client.zscore(Keys(redis_prefix).clock_of(name), name) == new


@pytest.mark.cluster
async def test_pause_stops_the_clocks_on_every_node_and_resume_gives_back_the_time_left(
    start: Any,
    admin_url: str,
    admin_name: str,
    admin_db: Database,
    redis_client: Any,
    redis_prefix: str,
) -> None:
    """An admin can "pause and resume a room's clocks". A deadline that comes due during the
    pause does not fire (on either node); the pause lives in Redis (any node resumes it);
    on resume the deadline is the time it had left, counted from the resume."""
    nodes = [
        await start("a", database_url=admin_url, **FAST),
        await start("b", database_url=admin_url, **FAST),
    ]
    deadlines = {"move": 600, "commit": 600, "reveal": 600}
    table = await started(nodes, 3, deadlines=deadlines)
    lobby = await seat_players(nodes, 2)
    rooms = clock_of(nodes[0]).rooms
    room = await rooms.get(table.id)
    turn = await rooms.turns.turn_of(room)
    assert turn is not None and turn["deadline"] is not None
    old = int(turn["deadline"])
    token = await admin_token(nodes[0], admin_name)
    base = f"/admin/api/rooms/{table.id}"
    async with httpx.AsyncClient(base_url=nodes[0].url) as http:

        async def post(url: str, body: dict[str, Any]) -> httpx.Response:
            return await http.post(url, json=body, headers=bearer(token))

        assert (await post(f"{base}/pause", {})).status_code == 400  # no reason
        assert (await post("/admin/api/rooms/NOPE99/pause", {"reason": "x"})).status_code == 404
        r = await post(f"/admin/api/rooms/{lobby.id}/pause", {"reason": "x"})
        assert r.status_code == 409 and r.json()["error"]["code"] == "game-not-started"
        r = await post(f"{base}/resume", {"reason": "x"})
        assert r.status_code == 409 and r.json()["error"]["code"] == "not-paused"
        assert await audit.search(admin_db, target=table.id) == []  # refused: not audited
        r = await post(f"{base}/pause", {"reason": "server upgrade"})
        assert r.status_code == 200, r.text
        paused_at = r.json()["at"]
        assert r.json()["by"] == "admin"
        r = await post(f"{base}/pause", {"reason": "again"})
        assert r.status_code == 409 and r.json()["error"]["code"] == "paused"
        r = await post(f"{base}/extend", {"seconds": 60, "reason": "x"})
        assert r.status_code == 409 and r.json()["error"]["code"] == "paused"
    for c in table.clients:  # players on both nodes are told
        told = await c.wait(lambda f: f.get("type") == "paused")
        assert (told["by"], told["at"]) == ("admin", paused_at)
    late = await Client.connect(nodes[1], "Late")  # joins during the pause: it is told too
    await late.send("join", room=table.id, **{"as": "spectator"})
    snap = await late.wait(lambda f: f["type"] == "snapshot")
    assert snap["room_state"]["paused"] is True

    # The deadline's moment comes during the pause: nothing is played, on either node.
    name = f"{turn['stage']}|{table.id}|{room.version}"
    await redis_client.zadd(Keys(redis_prefix).clock_of(name), {name: now_ms()})
    assert set(await wait_fired(nodes, name)) == {LATER}
    assert (await rooms.get(table.id)).version == room.version
    assert (await rooms.get(table.id)).paused_at == paused_at  # in Redis, for every node

    # Resumed from the other node: the time left at the pause, from now.
    async with httpx.AsyncClient(base_url=nodes[1].url) as http:
        r = await http.post(f"{base}/resume", json={"reason": "done"}, headers=bearer(token))
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["deadline"] - old == body["paused_ms"] > 0
    assert (body["version"], body["stage"]) == (room.version, turn["stage"])
    assert (await rooms.get(table.id)).paused_at is None
    assert (await rooms.turns.turn_of(await rooms.get(table.id)) or {})["deadline"] == body[
        "deadline"
    ]
    assert await redis_client.zscore(Keys(redis_prefix).clock_of(name), name) == body["deadline"]
    for c in table.clients:
        told = await c.wait(lambda f: f.get("type") == "unpaused")
        assert told["deadline"] == body["deadline"]
    actions = [(e["action"], e["reason"]) for e in await audit.search(admin_db, target=table.id)]
    assert actions == [("resume", "done"), ("pause", "server upgrade")]  # refusals: not audited


@pytest.mark.cluster
async def test_a_deadline_that_came_due_during_a_pause_fires_once_after_the_resume(
    start: Any, admin_url: str, admin_name: str, admin_db: Database
) -> None:
    """The deadline (3 s) comes due while paused: nothing is played; after the resume it
    fires exactly once, over both nodes' clocks, with the time it had left."""
    nodes = [
        await start("a", database_url=admin_url, **FAST),
        await start("b", database_url=admin_url, **FAST),
    ]
    # Signed in before the deal: the 3 s start at the deal, and a login (argon2) on a busy
    # machine took longer than that -- the deadline fired before the pause (a flaky test).
    token = await admin_token(nodes[0], admin_name)
    table = await started(nodes, 3, deadlines={"move": 3, "commit": 3, "reveal": 3})
    rooms = clock_of(nodes[0]).rooms
    room = await rooms.get(table.id)
    turn = await rooms.turns.turn_of(room)
    assert turn is not None
    name = f"{turn['stage']}|{table.id}|{room.version}"
    base = f"/admin/api/rooms/{table.id}"
    async with httpx.AsyncClient(base_url=nodes[0].url) as http:
        r = await http.post(f"{base}/pause", json={"reason": "test"}, headers=bearer(token))
        assert r.status_code == 200, r.text
        assert set(await wait_fired(nodes, name)) == {LATER}  # its moment came: paused
        assert (await rooms.get(table.id)).version == room.version
        r = await http.post(f"{base}/resume", json={"reason": "test"}, headers=bearer(token))
        assert r.status_code == 200, r.text
    resumed = r.json()
    assert resumed["deadline"] > turn["deadline"]
    for _ in range(300):
        if APPLIED in fired(nodes, name):
            break
        await asyncio.sleep(0.05)
    assert fired(nodes, name).count(APPLIED) == 1
    assert applied(nodes)[name] == 1
    assert (await rooms.get(table.id)).version > room.version
