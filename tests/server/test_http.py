"""HTTP: guests, games, rooms, health -- against a running node and a real Redis."""

from __future__ import annotations

from typing import Any

import httpx
from tortuga_client import Client, Node, create_room, guest


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_health(node: Node) -> None:
    async with httpx.AsyncClient(base_url=node.url) as http:
        assert (await http.get("/healthz")).json()["ok"] is True
        ready = await http.get("/readyz")
        assert ready.status_code == 200 and ready.json()["redis"] == "up"


async def test_guest_tokens(node: Node) -> None:
    async with httpx.AsyncClient(base_url=node.url) as http:
        r = await http.post("/api/guest", json={"name": "  Anne   Bonny "})
        body = r.json()
        assert body["user"]["name"] == "Anne Bonny" and body["user"]["id"].startswith("g_")
        for bad in ({"name": ""}, {"name": "x" * 33}, {"name": "a\x07b"}, {"nom": "x"}):
            r = await http.post("/api/guest", json=bad)
            assert r.status_code == 400, bad
        assert (await http.post("/api/guest", content=b"{")).json()["error"]["code"] == "bad-json"
        # Every other route needs a token this site signed.
        assert (await http.get("/api/rooms")).status_code == 401
        token = body["token"]
        tampered = token[:-2] + ("AA" if token[-2:] != "AA" else "BB")
        r = await http.get("/api/rooms", headers=auth(tampered))
        assert r.status_code == 401 and r.json()["error"]["code"] == "bad-token"
        assert (await http.get("/api/rooms", headers=auth(token))).status_code == 200


async def test_games_and_options(node: Node) -> None:
    token, _ = await guest(node, "Host")
    async with httpx.AsyncClient(base_url=node.url, headers=auth(token)) as http:
        games = {g["id"]: g for g in (await http.get("/api/games")).json()["games"]}
        assert {"skull-king", "bid-tricks"} <= set(games)
        sk = games["skull-king"]
        assert sk["seats"]["min"] == 2 and "heuristic" in sk["bot_levels"]
        assert sk["options"]["rounds"]["default"] == 10
        # Where a ghost hand joins, from each engine (the lobby's hint): nowhere else.
        ghosts = {g: games[g]["seats"]["ghost_hand_at"] for g in games}
        assert ghosts == {
            "skull-king": [2],
            "bid-tricks": [2],
            "loon-tricks": [],
            "pirate-king": [],
            "pearates": [],
        }

        async def create(**body: Any) -> httpx.Response:
            return await http.post("/api/rooms", json=body)

        assert (await create(game="chess")).json()["error"]["code"] == "no-such-game"
        r = await create(game="skull-king", options={"rounds": 11})
        assert r.json()["error"]["code"] == "bad-options"
        r = await create(game="skull-king", options={"speed": 2})
        assert r.json()["error"]["code"] == "bad-options"
        r = await create(game="skull-king", seats=9)
        assert r.json()["error"]["code"] == "bad-seats"
        r = await create(game="skull-king", seats=3, colour="red")
        assert r.json()["error"]["code"] == "bad-message"
        r = await create(
            game="bid-tricks",
            seats=3,
            options={"rounds": 4},
            deadlines={"move": 30, "commit": 20},
            takeback=True,
        )
        assert r.status_code == 201
        room = r.json()
        assert room["options"] == {"rounds": 4} and room["deadlines"] == {"move": 30, "commit": 20}
        assert room["takeback"] is True and room["status"] == "lobby"
        assert room["invite"].endswith(f"/r/{room['id']}")


async def test_public_and_private_rooms(node: Node) -> None:
    token, user = await guest(node, "Host")
    watcher = await Client.connect(node, "Watcher")
    await watcher.send("watch_rooms")
    first = await watcher.of("rooms")
    assert first["full"] is True and first["rooms"] == []
    public = await create_room(node, token, seats=3)
    private = await create_room(node, token, seats=3, public=False)
    assert len(private["id"]) >= 16 and len(public["id"]) >= 8
    live = await watcher.of("rooms")
    assert [r["id"] for r in live["changed"]] == [public["id"]]
    async with httpx.AsyncClient(base_url=node.url, headers=auth(token)) as http:
        listed = [r["id"] for r in (await http.get("/api/rooms")).json()["rooms"]]
        assert listed == [public["id"]]
        # The private room is reachable by its code only.
        got = (await http.get(f"/api/rooms/{private['id']}")).json()
        assert got["id"] == private["id"] and got["public"] is False
        assert (await http.get("/api/rooms/nosuchroom")).status_code == 404
        assert (await http.get("/api/rooms/a*b{c}")).status_code == 404
    # Seat changes of a public room reach the watchers.
    host = await Client.connect(node, token=token, user=user)
    await host.send("join", room=public["id"])
    await host.of("snapshot")
    await host.send("sit", seat=1)
    changed = await watcher.of("rooms")
    assert changed["changed"][0]["seats"][1]["user"] == user["id"]


async def test_the_client_is_served(node: Node) -> None:
    async with httpx.AsyncClient(base_url=node.url) as http:
        page = await http.get("/r/someroom")
        assert page.status_code == 200 and "html" in page.headers["content-type"]
