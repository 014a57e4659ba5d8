"""The console sees every room on every node and closes a game: an admin on
node a lists a private room whose players are on nodes a and b (seats, who is connected,
spectators), the live nodes, and closes the game -- written to the audit first, then
ended through the abandon path, so every player, on either node, gets the last version
(reason ``admin``, the seed revealed) and the archive record says abandoned."""

from __future__ import annotations

from typing import Any

import httpx
from admin_helpers import admin_token, bearer
from test_protocol import started
from tortuga_client import Client, Node, create_room, guest, latest

from server.admin import audit
from server.archive.db import Database


async def _get(node: Node, token: str, path: str, **params: str) -> Any:
    async with httpx.AsyncClient(base_url=node.url) as http:
        r = await http.get(path, params=params, headers=bearer(token))
    assert r.status_code == 200, r.text
    return r.json()


async def test_rooms_on_every_node_are_listed_and_closed(
    start: Any, admin_url: str, admin_name: str, admin_db: Database
) -> None:
    nodes = [
        await start("a", database_url=admin_url),
        await start("b", database_url=admin_url),
    ]
    table = await started(nodes, 3, public=False)
    watcher = await Client.connect(nodes[1], "Watcher")
    await watcher.send("join", room=table.id, **{"as": "spectator"})
    await watcher.wait(lambda f: f["type"] == "snapshot")
    token = await admin_token(nodes[0], admin_name)

    listed = (await _get(nodes[0], token, "/admin/api/rooms", status="playing"))["rooms"]
    assert table.id in [r["id"] for r in listed]
    room = (await _get(nodes[0], token, f"/admin/api/rooms/{table.id}"))["room"]
    assert room["status"] == "playing" and room["public"] is False
    assert [s["connected"] for s in room["seats"]] == [True, True, True]
    assert room["spectators"] >= 1
    assert "state" not in room and "seed" not in room  # no hidden state in the console
    # Search by a seat's name; a filter that excludes it.
    found = (await _get(nodes[0], token, "/admin/api/rooms", q="HOST"))["rooms"]
    assert table.id in [r["id"] for r in found]
    lobbies = (await _get(nodes[0], token, "/admin/api/rooms", status="lobby"))["rooms"]
    assert table.id not in [r["id"] for r in lobbies]
    live = (await _get(nodes[0], token, "/admin/api/nodes"))["nodes"]
    assert len([n for n in live if n["alive"]]) >= 2

    async with httpx.AsyncClient(base_url=nodes[0].url) as http:
        # No reason: refused, nothing changes, nothing audited.
        r = await http.post(
            f"/admin/api/rooms/{table.id}/close", json={"reason": " "}, headers=bearer(token)
        )
        assert r.status_code == 400 and r.json()["error"]["code"] == "reason-required"
        assert await audit.search(admin_db, target=table.id) == []
        r = await http.post(
            f"/admin/api/rooms/{table.id}/close",
            json={"reason": "reported for cheating"},
            headers=bearer(token),
        )
        assert r.status_code == 200, r.text
    entries = await audit.search(admin_db, target=table.id)
    assert [(e["action"], e["admin"], e["reason"]) for e in entries] == [
        ("close", admin_name, "reported for cheating")
    ]
    for c in [*table.clients, watcher]:  # players on node a and on node b, and a spectator
        end = await c.wait(
            lambda f: f.get("type") == "event" and f["event"].get("kind") == "abandon"
        )
        assert end["event"]["reason"] == "admin" and end["event"]["seed"]
    room = (await _get(nodes[0], token, f"/admin/api/rooms/{table.id}"))["room"]
    assert room["status"] == "abandoned" and room["reason"] == "admin"
    async with httpx.AsyncClient(base_url=nodes[1].url) as http:
        r = await http.post(
            f"/admin/api/rooms/{table.id}/close", json={"reason": "again"}, headers=bearer(token)
        )
    assert r.status_code == 409  # over already: refused, from the other node too


async def test_announcements_reach_one_room_or_every_room_on_every_node(
    start: Any, admin_url: str, admin_name: str, admin_db: Database
) -> None:
    nodes = [
        await start("a", database_url=admin_url),
        await start("b", database_url=admin_url),
    ]
    one = await started(nodes, 2)
    other = await started(nodes, 2)
    token = await admin_token(nodes[0], admin_name)

    def told(text: str) -> Any:
        return lambda f: f.get("type") == "announce" and f.get("text") == text

    async with httpx.AsyncClient(base_url=nodes[0].url) as http:
        r = await http.post(
            "/admin/api/announce", json={"text": "  \u202e "}, headers=bearer(token)
        )
        assert r.status_code == 400  # control characters only: refused, nothing sent
        r = await http.post(
            "/admin/api/announce",
            json={"room": one.id, "text": "This table closes in 5 minutes"},
            headers=bearer(token),
        )
        assert r.status_code == 200 and r.json()["rooms"] == 1
        r = await http.post(
            "/admin/api/announce",
            json={"text": "Maintenance at 10:00 UTC"},
            headers=bearer(token),
        )
        assert r.status_code == 200 and r.json()["rooms"] >= 2
    for c in one.clients:  # on node a and node b
        frame = await c.wait(told("This table closes in 5 minutes"))
        assert frame["room"] == one.id
        await c.wait(told("Maintenance at 10:00 UTC"))
    for c in other.clients:
        await c.wait(told("Maintenance at 10:00 UTC"))
        assert not [f for f in c.frames if told("This table closes in 5 minutes")(f)]
    actions = [(e["action"], e["target"]) for e in await audit.search(admin_db, admin=admin_name)]
    assert actions[:2] == [("announce", None), ("announce", one.id)]


async def test_a_locked_lobby_takes_no_new_rooms_on_any_node(
    start: Any, admin_url: str, admin_name: str, admin_db: Database
) -> None:
    nodes = [
        await start("a", database_url=admin_url),
        await start("b", database_url=admin_url),
    ]
    token = await admin_token(nodes[0], admin_name)
    player, _ = await guest(nodes[1], "Anne")

    async def new_room(node: Node) -> httpx.Response:
        async with httpx.AsyncClient(base_url=node.url) as http:
            return await http.post(
                "/api/rooms", json={"game": "skull-king"}, headers=bearer(player)
            )

    async def lock(locked: bool, reason: str) -> httpx.Response:
        async with httpx.AsyncClient(base_url=nodes[0].url) as http:
            return await http.post(
                "/admin/api/lobby",
                json={"locked": locked, "reason": reason},
                headers=bearer(token),
            )

    assert (await lock(True, "")).status_code == 400  # no reason: refused, still open
    assert (await new_room(nodes[1])).status_code == 201
    assert (await lock(True, "upgrading the database")).status_code == 200
    assert (await _get(nodes[1], token, "/admin/api/lobby")) == {
        "locked": True,
        "reason": "upgrading the database",
    }
    for node in nodes:
        r = await new_room(node)
        assert r.status_code >= 400 and r.json()["error"]["code"] == "lobby-locked"
    assert (await lock(False, "done")).status_code == 200
    assert (await new_room(nodes[0])).status_code == 201
    actions = [(e["action"], e["reason"]) for e in await audit.search(admin_db, admin=admin_name)]
    assert actions[:2] == [("unlock-lobby", "done"), ("lock-lobby", "upgrading the database")]


async def test_reveal_needs_a_reason_is_audited_first_and_the_players_are_told(
    start: Any, admin_url: str, admin_name: str, admin_db: Database
) -> None:
    nodes = [
        await start("a", database_url=admin_url),
        await start("b", database_url=admin_url),
    ]
    table = await started(nodes, 3)
    token = await admin_token(nodes[0], admin_name)
    async with httpx.AsyncClient(base_url=nodes[1].url) as http:
        path = f"/admin/api/rooms/{table.id}/reveal"
        r = await http.post(path, json={}, headers=bearer(token))
        assert r.status_code == 400  # no reason: nothing shown, nothing audited
        assert await audit.search(admin_db, target=table.id) == []
        r = await http.post(path, json={"reason": "a player reports a bug"}, headers=bearer(token))
    assert r.status_code == 200, r.text
    body = r.json()
    [entry] = await audit.search(admin_db, target=table.id)
    assert (entry["action"], entry["reason"]) == ("reveal", "a player reports a bug")
    assert entry["details"] == {"version": body["version"]}
    # Each seat's view, exactly what that player was sent (their hand included).
    assert len(body["views"]) == 3
    for seat, c in enumerate(table.clients):
        assert latest(c)["view"] == body["views"][seat]
        told = await c.wait(lambda f: f.get("type") == "inspected")
        assert set(told) == {"type", "room", "at"}  # not who, not why, not what


async def test_a_room_is_found_by_its_code_as_players_read_it_aloud(
    start: Any, admin_url: str, admin_name: str
) -> None:
    """A player reads the code out as it is shown ("K7QX-MH4P"), an operator types it as
    heard: in groups, spaced, in lower case, or a part of it. Each finds the room; a code
    of another room finds nothing."""
    node = await start("a", database_url=admin_url)
    token_, _ = await guest(node, "Reader")
    public = await create_room(node, token_, seats=3)
    private = await create_room(node, token_, seats=3, public=False)
    token = await admin_token(node, admin_name)
    for room in (public, private):
        code = room["id"]
        groups = [code[i : i + 4] for i in range(0, len(code), 4)]
        for typed in (
            "-".join(groups),
            " ".join(groups).lower(),
            " - ".join(groups),
            f"  {'-'.join(groups[:2]).lower()} ",  # the first two groups, as far as heard
        ):
            found = (await _get(node, token, "/admin/api/rooms", q=typed))["rooms"]
            assert code in [r["id"] for r in found], typed
    other = "-".join("2" * 4 for _ in range(2))
    assert (await _get(node, token, "/admin/api/rooms", q=other))["rooms"] == []
