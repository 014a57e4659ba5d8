"""The operators' hand on players: kick or ban a user from a room or from the site,
replace a seat with a bot, hide a chat message, mute a user -- each through the admin API
on node a while the players' sockets are on node b too, each audited first (who, what,
which room, why), each refused without a live admin session or a reason (and then nothing
is written, nothing changes)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
import websockets
from admin_helpers import admin_token, bearer
from test_protocol import started
from tortuga_client import Client, Node, autoplay, guest, open_socket, seat_players

from server.admin import audit
from server.archive.db import Database


async def _post(node: Node, token: str | None, path: str, body: dict[str, Any]) -> httpx.Response:
    headers = bearer(token) if token else {}
    async with httpx.AsyncClient(base_url=node.url) as http:
        return await http.post(f"/admin/api{path}", json=body, headers=headers)


async def _get(node: Node, token: str, path: str) -> Any:
    async with httpx.AsyncClient(base_url=node.url) as http:
        r = await http.get(f"/admin/api{path}", headers=bearer(token))
    assert r.status_code == 200, r.text
    return r.json()


def _code(r: httpx.Response) -> tuple[int, str]:
    return r.status_code, r.json()["error"]["code"] if r.status_code >= 400 else ""


async def _refused_without_admin(node: Node, path: str, body: dict[str, Any]) -> None:
    """No token, a player's token, an unknown admin token: 401 ``not-admin``."""
    player, _ = await guest(node, "Mallory")
    for token in (None, player, "adm_" + "x" * 43):
        assert _code(await _post(node, token, path, body)) == (401, "not-admin")


async def _closed(client: Client, timeout: float = 10.0) -> None:
    for _ in range(int(timeout / 0.05)):
        if client.closed is not None:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"still open: {client.tail()}")


async def _two(start: Any, admin_url: str, **settings: Any) -> list[Node]:
    return [
        await start("a", database_url=admin_url, **settings),
        await start("b", database_url=admin_url, **settings),
    ]


async def test_kick_in_the_lobby_frees_the_seat_and_tells_the_player_why(
    start: Any, admin_url: str, admin_name: str, admin_db: Database
) -> None:
    nodes = await _two(start, admin_url)
    table = await seat_players(nodes, 2)
    host, victim = table.clients  # victim on node b
    user = victim.user["id"]
    token = await admin_token(nodes[0], admin_name)
    path = f"/rooms/{table.id}/kick"
    await _refused_without_admin(nodes[0], path, {"user": user, "reason": "spam"})
    assert _code(await _post(nodes[0], token, path, {"user": user, "reason": " "})) == (
        400,
        "reason-required",
    )
    assert await audit.search(admin_db, target=table.id) == []  # refusals write nothing

    r = await _post(nodes[0], token, path, {"user": user, "reason": "rude name"})
    assert r.status_code == 200, r.text
    assert r.json() == {"room": table.id, "user": user, "seat": 1, "bot": None, "ban": False}
    told = await victim.of("kicked")
    assert told == {"type": "kicked", "room": table.id, "ban": False, "reason": "rude name"}
    await victim.of("left", reason="kicked")
    await host.wait(lambda f: f["type"] == "room" and f["room_state"]["seats"][1]["user"] is None)
    [entry] = await audit.search(admin_db, target=table.id)
    assert (entry["admin"], entry["action"], entry["reason"]) == (admin_name, "kick", "rude name")
    assert entry["details"]["user"] == user and entry["details"]["seat"] == 1
    # A kick is not a ban: the player may come back and sit again.
    await victim.send("join", room=table.id)
    await victim.of("snapshot")
    assert (await victim.call("sit", seat=1))["type"] == "ok"


@pytest.mark.cluster
async def test_kick_mid_game_gives_the_seat_to_a_bot_that_plays_on(
    start: Any, admin_url: str, admin_name: str, admin_db: Database
) -> None:
    nodes = await _two(start, admin_url)
    table = await started(nodes, 2, options={"rounds": 1})
    host, victim = table.clients
    token = await admin_token(nodes[0], admin_name)
    r = await _post(
        nodes[0], token, f"/rooms/{table.id}/kick", {"user": victim.user["id"], "reason": "afk"}
    )
    assert r.status_code == 200, r.text
    bot = r.json()["bot"]
    assert r.json()["seat"] == 1 and bot
    await victim.of("kicked")
    await victim.of("left", reason="kicked")
    told = await host.of("replaced")
    assert (told["seat"], told["name"], told["bot"], told["by"]) == (1, bot, "heuristic", "admin")
    # The kicked player plays no more; the bot plays the seat to the end of the game.
    assert (await victim.call("act", move={"bid": 0}))["code"] == "not-in-room"
    final = await autoplay(host, "skull-king")
    assert final["outcome"] is not None
    room = (await _get(nodes[0], token, f"/rooms/{table.id}"))["room"]
    assert room["status"] == "finished" and room["seats"][1]["bot"] == "heuristic"


async def test_replace_a_seat_with_a_bot_mid_game_everyone_is_told(
    start: Any, admin_url: str, admin_name: str, admin_db: Database
) -> None:
    nodes = await _two(start, admin_url)
    table = await started(nodes, 3, options={"rounds": 1})
    token = await admin_token(nodes[1], admin_name)
    path = f"/rooms/{table.id}/replace"
    await _refused_without_admin(nodes[1], path, {"seat": 2, "reason": "left for good"})
    bad = await _post(nodes[1], token, path, {"seat": 2, "reason": "x", "level": "grandmaster"})
    assert _code(bad) == (400, "bad-bot-level")
    assert _code(await _post(nodes[1], token, path, {"seat": 9, "reason": "x"})) == (
        409,
        "seat-empty",
    )
    assert await audit.search(admin_db, target=table.id) == []
    r = await _post(nodes[1], token, path, {"seat": 2, "reason": "left for good"})
    assert r.status_code == 200, r.text
    for c in table.clients:  # on node a and node b
        told = await c.of("replaced")
        assert told["seat"] == 2 and told["bot"] == "heuristic" and told["by"] == "admin"
        await c.seen(
            lambda f: f["type"] == "room" and f["room_state"]["seats"][2]["bot"] == "heuristic"
        )
    # The replaced player is a spectator now: no seat, no moves.
    assert (await table.clients[2].call("act", move={"bid": 0}))["code"] == "not-seated"
    [entry] = await audit.search(admin_db, target=table.id)
    assert entry["action"] == "replace" and entry["details"]["seat"] == 2
    assert entry["details"]["user"] == table.clients[2].user["id"]
    views = await asyncio.gather(*(autoplay(c, "skull-king") for c in table.clients[:2]))
    assert all(v["outcome"] is not None for v in views)


@pytest.mark.cluster
async def test_a_room_ban_keeps_the_user_out_until_lifted(
    start: Any, admin_url: str, admin_name: str, admin_db: Database
) -> None:
    nodes = await _two(start, admin_url)
    table = await seat_players(nodes, 2)
    victim = table.clients[1]
    user = victim.user["id"]
    token = await admin_token(nodes[0], admin_name)
    body = {"reason": "harassment", "room": table.id, "name": "player1"}
    await _refused_without_admin(nodes[0], f"/users/{user}/ban", body)
    r = await _post(nodes[0], token, f"/users/{user}/ban", body)
    assert r.status_code == 200 and r.json()["ban"] is True
    assert (await victim.of("kicked"))["ban"] is True
    await victim.of("left", reason="kicked")
    for frame in ("join", "resume"):
        extra = {"version": 0} if frame == "resume" else {}
        answer = await victim.call(frame, room=table.id, **extra)
        assert answer["code"] == "banned-from-room", answer
    again = await Client.connect(nodes[0], token=victim.token, user=victim.user)
    assert (await again.call("join", room=table.id))["code"] == "banned-from-room"
    room = (await _get(nodes[1], token, f"/rooms/{table.id}"))["room"]
    assert [b["user"] for b in room["banned"]] == [user]
    assert room["banned"][0]["reason"] == "harassment"

    lift = {"reason": "appeal accepted", "room": table.id}
    assert (await _post(nodes[1], token, f"/users/{user}/unban", lift)).status_code == 200
    assert _code(await _post(nodes[1], token, f"/users/{user}/unban", lift)) == (409, "not-banned")
    await again.send("join", room=table.id)
    await again.of("snapshot")
    actions = [e["action"] for e in await audit.search(admin_db, target=table.id)]
    assert actions == ["unban", "ban"]


@pytest.mark.cluster
async def test_a_site_ban_closes_the_users_sockets_and_every_route_refuses_them(
    start: Any, admin_url: str, admin_name: str, admin_db: Database
) -> None:
    nodes = await _two(start, admin_url)
    table = await seat_players(nodes, 2)
    victim = table.clients[1]  # on node b
    user = victim.user["id"]
    token = await admin_token(nodes[0], admin_name)
    r = await _post(nodes[0], token, f"/users/{user}/ban", {"reason": "cheating ring"})
    assert r.status_code == 200 and r.json()["scope"] == "site"
    error = await victim.wait(lambda f: f["type"] == "error")
    assert error["code"] == "banned" and "cheating ring" in error["message"]
    await _closed(victim)
    assert victim.closed is not None and victim.closed[0] == 4010
    headers = bearer(victim.token)
    for node in nodes:
        async with httpx.AsyncClient(base_url=node.url) as http:
            for method, path, body in (
                ("GET", "/api/me/rooms", None),
                ("GET", f"/api/rooms/{table.id}", None),
                ("POST", "/api/rooms", {"game": "skull-king"}),
                ("GET", f"/api/history/users/{user}/games", None),
            ):
                r = await http.request(method, path, json=body, headers=headers)
                assert _code(r) == (403, "banned"), (path, r.text)
    # A new socket, on either node: refused at its first frame, closed with 4010.
    for node in nodes:
        ws = await open_socket(node.ws_url, victim.token)
        refused = json.loads(await ws.recv())
        assert refused["type"] == "error" and refused["code"] == "banned"
        with pytest.raises(websockets.ConnectionClosed):
            await ws.recv()
        assert ws.close_code == 4010
    listed = await _get(nodes[1], token, "/moderation")
    assert [b["user"] for b in listed["bans"]] == [user]
    lift = {"reason": "ban served"}
    assert (await _post(nodes[1], token, f"/users/{user}/unban", lift)).status_code == 200
    assert _code(await _post(nodes[1], token, f"/users/{user}/unban", lift)) == (409, "not-banned")
    back = await Client.connect(nodes[1], token=victim.token, user=victim.user)
    await back.send("join", room=table.id)
    await back.of("snapshot")
    found = await audit.search(admin_db, admin=admin_name, text=user)
    assert [e["action"] for e in found] == ["unban", "ban"]


async def _guest_from(node: Node, address: str, name: str) -> httpx.Response:
    """``POST /api/guest`` as from ``address`` (the test's nodes trust 127.0.0.1 as a proxy:
    its X-Forwarded-For is the client's address)."""
    async with httpx.AsyncClient(base_url=node.url) as http:
        return await http.post(
            "/api/guest", json={"name": name}, headers={"X-Forwarded-For": address}
        )


async def test_a_site_ban_with_the_address_refuses_new_guests_from_it(
    start: Any, admin_url: str, admin_name: str, admin_db: Database
) -> None:
    """A banned guest must not simply become another: a site ban with ``address`` refuses
    new guests from the address the banned guest was made from (403 ``banned``, on every
    node), not from others; the site keeps only a keyed hash of it, and the audit never the
    address. Refused and changing nothing: an address not known (409 ``no-address``), with a
    room ban (400). The unban lifts it."""
    nodes = await _two(start, admin_url, forwarded_allow_ips="127.0.0.1")
    made = await _guest_from(nodes[0], "203.0.113.7", "Mallory")
    assert made.status_code == 200
    user = made.json()["user"]["id"]
    token = await admin_token(nodes[0], admin_name)
    path = f"/users/{user}/ban"
    unknown = await _post(nodes[0], token, "/users/g_nobody0/ban", {"reason": "x", "address": True})
    assert _code(unknown) == (409, "no-address")
    table = await seat_players(nodes, 2)
    in_room = await _post(nodes[0], token, path, {"reason": "x", "room": table.id, "address": True})
    assert _code(in_room) == (400, "bad-request")
    assert (await _get(nodes[0], token, "/moderation"))["bans"] == []
    assert await audit.search(admin_db, admin=admin_name, action="ban") == []

    r = await _post(nodes[0], token, path, {"reason": "ban evasion", "address": True})
    assert r.status_code == 200 and r.json()["address"] is True
    for node in nodes:
        again = await _guest_from(node, "203.0.113.7", "Not Mallory")
        assert _code(again) == (403, "banned"), again.text
    assert (await _guest_from(nodes[1], "198.51.100.2", "Bystander")).status_code == 200
    [listed] = (await _get(nodes[1], token, "/moderation"))["bans"]
    assert listed["user"] == user and listed["address"] is True
    [entry] = await audit.search(admin_db, admin=admin_name, action="ban")
    assert entry["details"]["address"] is True and "203.0.113.7" not in json.dumps(entry)
    store = nodes[0].server.config.app.state.services.rooms.store  # type: ignore[attr-defined]
    marks = await store.redis.hgetall(store.keys.banned_addresses)
    assert len(marks) == 1 and b"203.0.113.7" not in b"".join([*marks, *marks.values()])

    lift = {"reason": "second chance"}
    assert (await _post(nodes[1], token, f"/users/{user}/unban", lift)).status_code == 200
    assert (await _guest_from(nodes[0], "203.0.113.7", "Mallory again")).status_code == 200
