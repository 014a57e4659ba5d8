"""Quotas per user and per address, lobbies that expire, and the public list's order:
one guest must not be able to make rooms by the thousand and fill the public list, a lobby
expires, and a host with no seat cannot start any number of all-bot games."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from tortuga_client import Client, Node, create_room, guest


async def _post_room(node: Node, token: str, **body: Any) -> httpx.Response:
    body.setdefault("game", "skull-king")
    async with httpx.AsyncClient(base_url=node.url) as http:
        return await http.post(
            "/api/rooms", json=body, headers={"Authorization": f"Bearer {token}"}
        )


async def test_open_rooms_per_user(start: Any) -> None:
    """At most ``max_open_rooms_per_user`` rooms not over per host; an ended one frees its
    place, and another user has places of their own."""
    node = await start("a", max_open_rooms_per_user=3)
    token, user = await guest(node, "Anne")
    rooms = [await create_room(node, token) for _ in range(3)]
    r = await _post_room(node, token)
    assert r.status_code == 429 and r.json()["error"]["code"] == "too-many-rooms"
    async with httpx.AsyncClient(base_url=node.url) as http:
        listed = (await http.get("/api/rooms", headers={"Authorization": f"Bearer {token}"})).json()
    assert {x["id"] for x in listed["rooms"]} == {x["id"] for x in rooms}
    other, _ = await guest(node, "Ben")
    await create_room(node, other)
    # Abandoning one of Anne's games frees a place.
    host = await Client.connect(node, token=token, user=user)
    await host.send("join", room=rooms[0]["id"], **{"as": "spectator"})
    await host.of("snapshot")
    for seat in range(2):
        assert (await host.call("add_bot", seat=seat))["type"] == "ok"
    assert (await host.call("start"))["type"] == "ok"
    assert (await host.call("abandon"))["type"] == "ok"
    await create_room(node, token)
    r = await _post_room(node, token)
    assert r.json()["error"]["code"] == "too-many-rooms"


async def test_all_bot_games_per_host(start: Any) -> None:
    """A host with no seat may have ``max_bot_games_per_user`` games of bots only under
    way; the next start is ``too-many-bot-games`` and changes nothing. A game with a human
    seated is not one of them."""
    node = await start("a", max_bot_games_per_user=2, max_open_rooms_per_user=10)
    token, user = await guest(node, "Anne")
    host = await Client.connect(node, token=token, user=user)
    codes = []
    for _ in range(3):
        room = await create_room(node, token, seats=2, options={"rounds": 10})
        await host.send("join", room=room["id"], **{"as": "spectator"})
        await host.of("snapshot")
        for seat in range(2):
            assert (await host.call("add_bot", seat=seat))["type"] == "ok"
        codes.append((await host.call("start")).get("code", "ok"))
    assert codes == ["ok", "ok", "too-many-bot-games"]
    async with httpx.AsyncClient(base_url=node.url) as http:
        r = await http.get(f"/api/rooms/{room['id']}", headers={"Authorization": f"Bearer {token}"})
    assert r.json()["status"] == "lobby"
    # A table where the host sits with a bot is a game with a human: allowed.
    room = await create_room(node, token, seats=2, options={"rounds": 1})
    await host.send("join", room=room["id"])
    await host.of("snapshot")
    assert (await host.call("sit", seat=0))["type"] == "ok"
    assert (await host.call("ready"))["type"] == "ok"
    assert (await host.call("add_bot", seat=1))["type"] == "ok"
    assert (await host.call("start"))["type"] == "ok"


async def test_guests_per_address_per_hour(start: Any) -> None:
    """At most ``guests_per_address_per_hour`` new guests from one address in an hour."""
    node = await start("a", guests_per_address_per_hour=4)
    async with httpx.AsyncClient(base_url=node.url) as http:
        answers = [await http.post("/api/guest", json={"name": f"g{i}"}) for i in range(6)]
    assert [r.status_code for r in answers] == [200] * 4 + [429] * 2
    assert answers[-1].json()["error"]["code"] == "too-many-guests"


async def test_an_idle_lobby_expires_and_a_game_does_not(
    start: Any, redis_client: Any, redis_prefix: str
) -> None:
    """A lobby with no change and no socket for ``lobby_idle_seconds`` is gone (off the
    public list, "no such room"); a started game's keys do not expire."""
    node = await start("a", lobby_idle_seconds=2)
    token, user = await guest(node, "Anne")
    idle = await create_room(node, token)
    played = await create_room(node, token, seats=2, options={"rounds": 1})
    key = f"{redis_prefix}room:{{{idle['id']}}}"
    assert 0 < await redis_client.ttl(key) <= 2
    host = await Client.connect(node, token=token, user=user)
    await host.send("join", room=played["id"], **{"as": "spectator"})
    await host.of("snapshot")
    for seat in range(2):
        assert (await host.call("add_bot", seat=seat))["type"] == "ok"
    assert (await host.call("start"))["type"] == "ok"
    assert await redis_client.ttl(f"{redis_prefix}room:{{{played['id']}}}") == -1
    auth = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=node.url) as http:
        for _ in range(100):
            r = await http.get(f"/api/rooms/{idle['id']}", headers=auth)
            if r.status_code == 404:
                break
            await asyncio.sleep(0.1)
        assert r.status_code == 404 and r.json()["error"]["code"] == "no-such-room"
        listed = (await http.get("/api/rooms", headers=auth)).json()["rooms"]
    assert idle["id"] not in {x["id"] for x in listed}
    assert await redis_client.exists(f"{redis_prefix}room:{{{played['id']}}}")


async def test_the_public_list_shows_humans_waiting_first(node: Node) -> None:
    """Rooms where humans wait for players come first, then games under way, then lobbies
    nobody sits in; newest first within each."""
    spammer, _ = await guest(node, "Spam")
    token, user = await guest(node, "Anne")
    waiting = await create_room(node, token, seats=3)
    anne = await Client.connect(node, token=token, user=user)
    await anne.send("join", room=waiting["id"])
    await anne.of("snapshot")
    assert (await anne.call("sit", seat=0))["type"] == "ok"
    empties = [await create_room(node, spammer) for _ in range(3)]
    auth = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=node.url) as http:
        listed = [x["id"] for x in (await http.get("/api/rooms", headers=auth)).json()["rooms"]]
    assert listed == [waiting["id"], *reversed([x["id"] for x in empties])]


async def test_open_rooms_per_user_hold_under_concurrent_requests(start: Any) -> None:
    """The open-rooms quota is checked and taken in one step: 20 requests in flight at once
    by one user, with a limit of 5, make exactly 5 rooms; the rest are ``too-many-rooms``."""
    node = await start("a", max_open_rooms_per_user=5)
    token, _ = await guest(node, "Anne")
    answers = await asyncio.gather(*(_post_room(node, token) for _ in range(20)))
    codes = sorted(r.status_code for r in answers)
    assert codes == [201] * 5 + [429] * 15
    refused = [r.json()["error"]["code"] for r in answers if r.status_code == 429]
    assert set(refused) == {"too-many-rooms"}
    async with httpx.AsyncClient(base_url=node.url) as http:
        r = await http.get("/api/rooms", headers={"Authorization": f"Bearer {token}"})
    made = {r.json()["id"] for r in answers if r.status_code == 201}
    assert {x["id"] for x in r.json()["rooms"]} == made


async def _post_from(node: Node, token: str, address: str, **body: Any) -> httpx.Response:
    body.setdefault("game", "skull-king")
    headers = {"Authorization": f"Bearer {token}", "X-Forwarded-For": address}
    async with httpx.AsyncClient(base_url=node.url) as http:
        return await http.post("/api/rooms", json=body, headers=headers)


async def test_one_address_cannot_fill_the_public_list(start: Any) -> None:
    """Many guests from one client address (as the trusted proxy forwards it) hold at most
    ``max_public_rooms_per_address`` public rooms not over, however many ask at once; the
    rest are ``too-many-public-rooms`` and make nothing. Private rooms, and other addresses,
    are not held back; an ended room frees its place."""
    node = await start("a", max_public_rooms_per_address=3)
    guests = [await guest(node, f"g{i}") for i in range(10)]
    spam = "203.0.113.7"
    answers = await asyncio.gather(*(_post_from(node, t, spam) for t, _ in guests))
    assert sorted(r.status_code for r in answers) == [201] * 3 + [429] * 7
    refused = {r.json()["error"]["code"] for r in answers if r.status_code == 429}
    assert refused == {"too-many-public-rooms"}
    async with httpx.AsyncClient(base_url=node.url) as http:
        auth = {"Authorization": f"Bearer {guests[0][0]}"}
        r = await http.get("/api/rooms", headers=auth)
    listed = {x["id"] for x in r.json()["rooms"]}
    made = [r.json() for r in answers if r.status_code == 201]
    assert listed == {x["id"] for x in made}
    # A private room is not in the list: allowed. Another address has places of its own.
    assert (await _post_from(node, guests[5][0], spam, public=False)).status_code == 201
    assert (await _post_from(node, guests[6][0], "198.51.100.2")).status_code == 201
    # The end of one of the address's games frees its place.
    mine = made[0]
    host_token, host_user = next(g for g in guests if g[1]["id"] == mine["host"])
    host = await Client.connect(node, token=host_token, user=host_user)
    await host.send("join", room=mine["id"], **{"as": "spectator"})
    await host.of("snapshot")
    for seat in range(2):
        assert (await host.call("add_bot", seat=seat))["type"] == "ok"
    assert (await host.call("start"))["type"] == "ok"
    assert (await host.call("abandon"))["type"] == "ok"
    assert (await _post_from(node, guests[7][0], spam)).status_code == 201
    r = await _post_from(node, guests[8][0], spam)
    assert r.status_code == 429 and r.json()["error"]["code"] == "too-many-public-rooms"


async def test_all_bot_games_hold_under_concurrent_starts(start: Any) -> None:
    """The all-bot games quota is checked and taken in one step: five starts at once, with a
    limit of 2, start exactly 2 games; the others stay in the lobby."""
    node = await start("a", max_bot_games_per_user=2, max_open_rooms_per_user=10)
    token, user = await guest(node, "Anne")
    hosts = []
    for _ in range(5):
        room = await create_room(node, token, seats=2, options={"rounds": 10})
        host = await Client.connect(node, token=token, user=user)
        await host.send("join", room=room["id"], **{"as": "spectator"})
        await host.of("snapshot")
        for seat in range(2):
            assert (await host.call("add_bot", seat=seat))["type"] == "ok"
        hosts.append(host)
    answers = await asyncio.gather(*(h.call("start") for h in hosts))
    codes = sorted(a.get("code", "ok") for a in answers)
    assert codes == ["ok"] * 2 + ["too-many-bot-games"] * 3


async def test_a_public_lobby_its_host_left_drops_off_the_list_until_they_return(
    start: Any, redis_client: Any, redis_prefix: str
) -> None:
    """Only the host starts a lobby: one whose host has had no socket in it for
    ``lobby_host_away_seconds`` is nobody's table to join. It leaves the public list (the
    pages watching the list are told), its link still works, and it is listed again when
    the host comes back. A room whose host never opened it goes at the list's next read;
    a lobby whose host stays is listed all along."""
    node = await start("a", lobby_host_away_seconds=1.0, grace_seconds=600.0)
    token, user = await guest(node, "Anne")
    left = await create_room(node, token, seats=3)
    never_token, _ = await guest(node, "Ghost")
    never = await create_room(node, never_token, seats=3)
    stay_token, stay_user = await guest(node, "Carl")
    stays = await create_room(node, stay_token, seats=3)
    carl = await Client.connect(node, token=stay_token, user=stay_user)
    await carl.send("join", room=stays["id"])
    await carl.of("snapshot")
    assert (await carl.call("sit", seat=0))["type"] == "ok"
    anne = await Client.connect(node, token=token, user=user)
    await anne.send("join", room=left["id"])
    await anne.of("snapshot")
    assert (await anne.call("sit", seat=0))["type"] == "ok"
    watcher_token, watcher_user = await guest(node, "Watcher")
    watcher = await Client.connect(node, token=watcher_token, user=watcher_user)
    await watcher.send("watch_rooms")
    full = await watcher.of("rooms", full=True)
    assert {left["id"], never["id"], stays["id"]} <= {r["id"] for r in full["rooms"]}
    listed_key = f"{redis_prefix}rooms:open"

    await anne.close()  # the host leaves; nobody else is in the room
    removed = await watcher.wait(
        lambda f: f["type"] == "rooms" and left["id"] in f.get("removed", []), timeout=20
    )
    assert removed["full"] is False
    assert await redis_client.zscore(listed_key, left["id"]) is None
    auth = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=node.url, headers=auth) as http:
        listed = {r["id"] for r in (await http.get("/api/rooms")).json()["rooms"]}
        assert left["id"] not in listed and never["id"] not in listed  # never: gone at the read
        assert stays["id"] in listed  # its host is there
        assert (await http.get(f"/api/rooms/{left['id']}")).status_code == 200  # the link works
    assert await redis_client.zscore(listed_key, never["id"]) is None

    anne = await Client.connect(node, token=token, user=user)  # the host is back
    await anne.send("join", room=left["id"])
    await anne.of("snapshot")
    back = await watcher.wait(
        lambda f: f["type"] == "rooms" and left["id"] in [r["id"] for r in f.get("changed", [])],
        timeout=20,
    )
    assert back["full"] is False
    async with httpx.AsyncClient(base_url=node.url, headers=auth) as http:
        listed = {r["id"] for r in (await http.get("/api/rooms")).json()["rooms"]}
    assert {left["id"], stays["id"]} <= listed
    for client in (anne, carl, watcher):
        await client.close()


async def test_with_no_host_away_time_a_lobby_stays_listed(start: Any) -> None:
    """``lobby_host_away_seconds`` 0: a lobby whose host never came stays listed until it
    is gone; a node with the setting on takes it off at its next read of the list."""
    off = await start("a", lobby_host_away_seconds=0.0)
    on = await start("b", lobby_host_away_seconds=1.0)
    token, _ = await guest(off, "Anne")
    room = await create_room(off, token, seats=3)
    await asyncio.sleep(1.2)
    auth = {"Authorization": f"Bearer {token}"}
    for node, listed in ((off, True), (on, False)):
        async with httpx.AsyncClient(base_url=node.url, headers=auth) as http:
            rooms = (await http.get("/api/rooms")).json()["rooms"]
        assert (room["id"] in {x["id"] for x in rooms}) is listed, node.url
