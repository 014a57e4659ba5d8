""" "My rooms" from the server (any browser with the same token sees the games waiting for
it), whose move it is in ``GET /api/rooms/{code}``, the room's ``game_id``, and the chat
history that snapshots and resumes carry."""

from __future__ import annotations

from typing import Any

import httpx
from test_protocol import refused
from tortuga_client import Client, Node, advance, create_room, latest, salted, seat_players


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def mine(node: Node, client: Client) -> list[dict[str, Any]]:
    async with httpx.AsyncClient(base_url=node.url) as http:
        r = await http.get("/api/me/rooms", headers=auth(client.token))
        assert r.status_code == 200, r.text
        rooms: list[dict[str, Any]] = r.json()["rooms"]
        return rooms


async def room_of(node: Node, client: Client, code: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=node.url) as http:
        r = await http.get(f"/api/rooms/{code}", headers=auth(client.token))
        assert r.status_code == 200, r.text
        body: dict[str, Any] = r.json()
        return body


async def test_my_rooms_and_whose_move(two: list[Node]) -> None:
    a_node, b_node = two
    table = await seat_players(two, 3, options={"rounds": 1}, bots={2: "random"})
    anne, bert = table.clients
    # In the lobby: listed for both (on either node), no game yet, nobody's move.
    for who, node in ((anne, b_node), (bert, a_node)):
        (item,) = await mine(node, who)
        assert item["id"] == table.id and item["status"] == "lobby"
        assert item["turn"] is None and item["game_id"] is None
        assert item["seat"] == table.clients.index(who)
    # A second room of Anne's, more recent: listed first. Standing up drops it.
    other = await create_room(a_node, anne.token, seats=2)
    await anne.send("join", room=other["id"])
    await anne.of("snapshot")
    assert (await anne.call("sit", seat=1))["type"] == "ok"
    assert [r["id"] for r in await mine(a_node, anne)] == [other["id"], table.id]
    assert (await anne.call("stand"))["type"] == "ok"
    assert [r["id"] for r in await mine(a_node, anne)] == [table.id]
    await anne.send("join", room=table.id)  # back to the first room (leaves the other)
    await anne.of("snapshot")

    assert (await anne.call("start"))["type"] == "ok"
    dealt = await anne.has_version(1)
    assert dealt["event"]["game_id"] == f"{table.id}-1"  # the client needs no guess
    await bert.has_version(1)
    # The bids: both humans owe a commit; the bot commits at once.
    for who in (anne, bert):
        (item,) = await mine(b_node, who)
        assert item["status"] == "playing" and item["game_id"] == f"{table.id}-1"
        turn = item["turn"]
        assert turn["sealed"] is True and turn["kind"] == "bid" and turn["stage"] == "commit"
        assert turn["seats"] == [0, 1, 2] and turn["you"] is True
    phase = "bid@1"
    salt, dig = salted(phase, 0, {"bid": 0})
    assert (await anne.call("commit", phase=phase, digest=dig))["type"] == "ok"
    (item,) = await mine(a_node, anne)
    assert item["turn"]["you"] is False and 0 not in item["turn"]["owe"]
    assert (await mine(a_node, bert))[0]["turn"]["you"] is True
    salt_b, dig_b = salted(phase, 1, {"bid": 1})
    assert (await bert.call("commit", phase=phase, digest=dig_b))["type"] == "ok"
    await anne.of("open", phase=phase)
    # The phase is open: each human owes an opening.
    seen = await room_of(b_node, anne, table.id)
    assert seen["turn"]["stage"] == "reveal" and seen["turn"]["you"] is True
    assert seen["turn"]["seat"] == 0 and seen["game_id"] == f"{table.id}-1"
    await anne.send("reveal", phase=phase, move={"bid": 0}, salt=salt)
    await bert.send("reveal", phase=phase, move={"bid": 1}, salt=salt_b)
    await anne.has_version(2)
    # Open play: exactly the seat on turn owes (once the bot, which plays at once, is done).
    while latest(anne)["view"]["prompt"]["seats"] == [2]:
        await anne.has_version(latest(anne)["version"] + 1)
    (owing,) = latest(anne)["view"]["prompt"]["seats"]
    for who in (anne, bert):
        (item,) = await mine(a_node, who)
        assert item["turn"] == {
            "kind": "play",
            "sealed": False,
            "seats": [owing],
            "stage": "move",
            "owe": [owing],
            "deadline": None,
            "seat": item["seat"],
            "you": item["seat"] == owing,
        }
    # A spectator's look at the room: whose move, never "you".
    spy = await Client.connect(b_node, "Spy")
    assert (await room_of(b_node, spy, table.id))["turn"]["you"] is False
    assert await mine(b_node, spy) == []
    # The game ends: it leaves "my rooms".
    clients = [anne, bert]
    while latest(anne)["view"]["outcome"] is None:
        top = latest(anne)["view"]["prompt"]["seats"]
        if top == [2]:
            await anne.has_version(latest(anne)["version"] + 1)
            continue
        await advance_one(clients, top[0])
    assert await mine(a_node, anne) == [] and await mine(b_node, bert) == []
    async with httpx.AsyncClient(base_url=a_node.url) as http:
        assert (await http.get("/api/me/rooms")).status_code == 401
        r = await http.get("/api/me/rooms", headers=auth(anne.token[:-3] + "xyz"))
        assert r.status_code == 401 and r.json()["error"]["code"] == "bad-token"


async def advance_one(clients: list[Client], seat: int) -> None:
    # The seat's own socket may lag the first one's: wait until it has the same version
    # (its older frame would show it no legal move).
    frame = await clients[seat].has_version(latest(clients[0])["version"])
    move = frame["view"]["legal"][0]
    assert (await clients[seat].call("act", move=move, version=frame["version"]))["type"] == "ok"
    await clients[0].has_version(frame["version"] + 1)


async def test_chat_history_in_snapshots_and_resumes(
    start: Any, redis_client: Any, redis_prefix: str
) -> None:
    node = await start("a", chat_history=3, chat_burst=10, chat_per_second=50.0)
    table = await seat_players([node], 3, options={"rounds": 1})
    anne = table.clients[0]
    texts = ["one", "<b>two</b>", "three", "four", "five"]
    for text in texts:
        assert (await anne.call("chat", text=text))["type"] == "ok"
    # A refused chat keeps nothing.
    await refused(anne, redis_client, redis_prefix, "chat-too-long", "chat", text="x" * 501)
    newcomer = await Client.connect(node, "Newcomer")
    await newcomer.send("join", room=table.id, **{"as": "spectator"})
    snap = await newcomer.of("snapshot")
    assert [m["text"] for m in snap["chat"]] == texts[-3:]  # the last three, oldest first
    assert snap["chat"][0]["name"] == "host" and snap["chat"][0]["user"] == anne.user["id"]
    assert all(m["at"] for m in snap["chat"])
    # A reload resumes: the chat comes along.
    assert (await table.clients[0].call("start"))["type"] == "ok"
    await newcomer.has_version(1)
    reloaded = await Client.connect(node, token=newcomer.token, user=newcomer.user)
    await reloaded.send("resume", room=table.id, version=1)
    resumed = await reloaded.of("resumed")
    assert [m["text"] for m in resumed["chat"]] == texts[-3:]
    # The game goes on; the chat stays with the room.
    await advance(table.clients)
    assert (await anne.call("chat", text="six"))["type"] == "ok"
    again = await Client.connect(node, token=newcomer.token, user=newcomer.user)
    await again.send("join", room=table.id)
    snap = await again.of("snapshot")
    assert [m["text"] for m in snap["chat"]] == ["four", "five", "six"]
