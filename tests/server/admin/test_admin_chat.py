"""Chat moderation, standing announcements and what the rooms list says:
"Moderate chat: hide a message (kept in the audit), mute a user"; announcements a player
still sees after a reload; "See all live rooms ...: last activity, pending deadlines;
filter and search". Players on nodes a and b, the admin on either."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from admin_helpers import admin_token, bearer
from test_admin_moderation import _code, _get, _post, _refused_without_admin, _two
from test_protocol import started
from tortuga_client import Client, seat_players

from server.admin import audit
from server.archive.db import Database


@pytest.mark.cluster
async def test_a_hidden_message_leaves_every_chat_and_stays_in_the_audit(
    start: Any, admin_url: str, admin_name: str, admin_db: Database
) -> None:
    nodes = await _two(start, admin_url)
    table = await seat_players(nodes, 2)
    host, rude = table.clients
    assert (await rude.call("chat", text="the host cheats, ask me how"))["type"] == "ok"
    assert (await host.call("chat", text="glhf"))["type"] == "ok"
    for c in table.clients:
        await c.seen(lambda f: f["type"] == "chat" and f["text"] == "glhf")
    token = await admin_token(nodes[0], admin_name)
    kept = (await _get(nodes[0], token, f"/rooms/{table.id}/chat"))["messages"]
    assert [m["text"] for m in kept] == ["the host cheats, ask me how", "glhf"]
    bad = kept[0]["id"]
    path = f"/rooms/{table.id}/chat/hide"
    await _refused_without_admin(nodes[0], path, {"id": bad, "reason": "abuse"})
    assert _code(await _post(nodes[0], token, path, {"id": bad, "reason": ""})) == (
        400,
        "reason-required",
    )
    assert _code(await _post(nodes[0], token, path, {"id": "nope", "reason": "x"})) == (
        404,
        "no-such-message",
    )
    assert await audit.search(admin_db, target=table.id) == []

    r = await _post(nodes[0], token, path, {"id": bad, "reason": "abuse"})
    assert r.status_code == 200, r.text
    for c in table.clients:  # on node a and on node b
        gone = await c.of("chat_hidden")
        assert gone == {"type": "chat_hidden", "room": table.id, "id": bad}
    # Gone from the kept chat: a reload (a new socket's snapshot) no longer has it.
    reloaded = await Client.connect(nodes[1], token=rude.token, user=rude.user)
    await reloaded.send("join", room=table.id)
    snapshot = await reloaded.of("snapshot")
    assert [m["text"] for m in snapshot["chat"]] == ["glhf"]
    assert _code(await _post(nodes[1], token, path, {"id": bad, "reason": "abuse"})) == (
        404,
        "no-such-message",
    )
    # The audit keeps what was hidden, and finds it by its text.
    [entry] = await audit.search(admin_db, target=table.id)
    assert (entry["action"], entry["reason"]) == ("hide-chat", "abuse")
    assert entry["details"]["text"] == "the host cheats, ask me how"
    assert entry["details"]["user"] == rude.user["id"]
    found = await audit.search(admin_db, admin=admin_name, text="ASK ME HOW")
    assert [e["id"] for e in found] == [entry["id"]]


@pytest.mark.cluster
async def test_muted_in_one_room_or_on_the_whole_site_until_unmuted(
    start: Any, admin_url: str, admin_name: str, admin_db: Database
) -> None:
    nodes = await _two(start, admin_url)
    one = await seat_players(nodes, 2)
    loud = one.clients[1]  # on node b
    user = loud.user["id"]
    elsewhere = await Client.connect(nodes[0], token=loud.token, user=loud.user)
    other = await seat_players(nodes, 2)
    await elsewhere.send("join", room=other.id)
    await elsewhere.of("snapshot")
    token = await admin_token(nodes[0], admin_name)
    mute = f"/users/{user}/mute"
    unmute = f"/users/{user}/unmute"
    await _refused_without_admin(nodes[0], mute, {"reason": "spam"})
    assert _code(await _post(nodes[0], token, mute, {"reason": "spam", "minutes": 0})) == (
        400,
        "bad-request",
    )
    assert _code(await _post(nodes[0], token, unmute, {"reason": "x"})) == (409, "not-muted")

    r = await _post(nodes[0], token, mute, {"reason": "spam", "room": one.id, "minutes": 30})
    assert r.status_code == 200 and r.json()["scope"] == "room" and r.json()["until"]
    refused = await loud.call("chat", text="BUY GOLD")
    assert refused["code"] == "muted" and "room" in refused["message"]
    assert (await elsewhere.call("chat", text="hi")) == {"type": "ok"}  # another room
    room = (await _get(nodes[1], token, f"/rooms/{one.id}"))["room"]
    assert [m["user"] for m in room["muted"]] == [user]
    lift = {"reason": "promised to stop", "room": one.id}
    assert (await _post(nodes[1], token, unmute, lift)).status_code == 200
    assert (await loud.call("chat", text="sorry")) == {"type": "ok"}

    r = await _post(nodes[1], token, mute, {"reason": "spam again", "name": "player1"})
    assert r.status_code == 200 and r.json() == {
        "user": user,
        "scope": "site",
        "room": None,
        "until": None,
    }
    for c in (loud, elsewhere):
        assert (await c.call("chat", text="BUY GOLD"))["code"] == "muted"
    listed = (await _get(nodes[0], token, "/moderation"))["mutes"]
    assert [(m["user"], m["name"], m["until"]) for m in listed] == [(user, "player1", None)]
    assert (await _post(nodes[0], token, unmute, {"reason": "ok"})).status_code == 200
    assert (await elsewhere.call("chat", text="thanks")) == {"type": "ok"}
    found = await audit.search(admin_db, admin=admin_name, text=user)
    assert [e["action"] for e in found] == ["unmute", "mute", "unmute", "mute"]
    assert found[-1]["target"] == one.id and found[-1]["details"]["minutes"] == 30


@pytest.mark.cluster
async def test_an_announcement_stands_across_a_reload_until_cleared(
    start: Any, admin_url: str, admin_name: str, admin_db: Database
) -> None:
    nodes = await _two(start, admin_url)
    table = await seat_players(nodes, 2)
    token = await admin_token(nodes[0], admin_name)
    player = table.clients[1]

    async def reload() -> Any:
        c = await Client.connect(nodes[1], token=player.token, user=player.user)
        await c.send("join", room=table.id)
        shown = (await c.of("snapshot"))["announce"]
        await c.close()
        return shown

    assert await reload() is None
    body = {"room": table.id, "text": "Tournament final at 20:00", "minutes": 30}
    r = await _post(nodes[0], token, "/announce", body)
    assert r.status_code == 200 and r.json()["until"]
    live = await player.of("announce")
    assert live["text"] == "Tournament final at 20:00" and live["until"] == r.json()["until"]
    shown = await reload()
    assert shown["text"] == "Tournament final at 20:00" and shown["until"] == live["until"]
    # One to every room stands too; the more recent one is shown.
    assert (await _post(nodes[1], token, "/announce", {"text": "Restart at 03:00"})).is_success
    assert (await reload())["text"] == "Restart at 03:00"
    assert (await _post(nodes[1], token, "/announce", {"clear": True})).is_success
    await player.of("unannounce")
    assert (await reload())["text"] == "Tournament final at 20:00"
    assert (await _post(nodes[0], token, "/announce", {"clear": True, "room": table.id})).is_success
    assert await reload() is None
    actions = [e["action"] for e in await audit.search(admin_db, admin=admin_name)]
    assert actions[:4] == ["clear-announcement", "clear-announcement", "announce", "announce"]


async def test_the_rooms_list_shows_last_activity_pending_deadlines_and_finds_a_user(
    start: Any, admin_url: str, admin_name: str
) -> None:
    nodes = await _two(start, admin_url)
    table = await started(nodes, 2, options={"rounds": 1}, deadlines={"commit": 600})
    token = await admin_token(nodes[1], admin_name)
    room = (await _get(nodes[1], token, f"/rooms/{table.id}"))["room"]
    assert room["last_activity"] is not None
    pending = room["pending"]
    assert pending["stage"] == "commit" and pending["owe"] == [0, 1]
    assert pending["deadline"] == room["deadline"] and pending["deadline"] > room["last_activity"]
    before = room["last_activity"]
    assert (await table.clients[1].call("chat", text="gl")) == {"type": "ok"}
    room = (await _get(nodes[1], token, f"/rooms/{table.id}"))["room"]
    assert room["last_activity"] >= before
    # Search by a seated user's id (from a chat line or the audit); a filter that excludes it.
    async with httpx.AsyncClient(base_url=nodes[0].url) as http:
        user = table.clients[1].user["id"]
        r = await http.get("/admin/api/rooms", params={"q": user}, headers=bearer(token))
        assert [x["id"] for x in r.json()["rooms"]] == [table.id]
        r = await http.get(
            "/admin/api/rooms", params={"q": user, "status": "lobby"}, headers=bearer(token)
        )
        assert r.json()["rooms"] == []
