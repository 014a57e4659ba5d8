"""Players' bot accounts: made from the player's token, a token shown once, marked at the
table with their owner, refused where the host refuses players' bots, and revoked for good."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest
from tortuga_bot import Player, Refused, Site, play_room
from tortuga_bot.loader import load
from tortuga_client import Client, Node, autoplay, create_room, guest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


async def make_bot(node: Node, owner_token: str, name: str) -> tuple[dict[str, Any], str]:
    async with httpx.AsyncClient(base_url=node.url) as http:
        auth = {"Authorization": f"Bearer {owner_token}"}
        r = await http.post("/api/me/bots", json={"name": name}, headers=auth)
        assert r.status_code == 201, r.text
        return r.json()["bot"], r.json()["token"]


async def test_a_bot_account_plays_marked_with_its_owner(node: Node) -> None:
    """ "A player creates bot accounts from their page (name, owner, a token shown once,
    revocable); bots are marked as bots at the table (and which player owns them)"."""
    owner_token, owner = await guest(node, "Anne")
    account, token = await make_bot(node, owner_token, "Anne's Parrot")
    assert account["id"].startswith("b_") and account["revoked"] is False
    async with httpx.AsyncClient(base_url=node.url) as http:
        listed = await http.get("/api/me/bots", headers={"Authorization": f"Bearer {owner_token}"})
        assert [b["id"] for b in listed.json()["bots"]] == [account["id"]]
        assert "token" not in listed.json()["bots"][0]  # shown once, never again
        # A bot account makes no bot accounts.
        r = await http.post(
            "/api/me/bots", json={"name": "x"}, headers={"Authorization": f"Bearer {token}"}
        )
        assert r.status_code == 403 and r.json()["error"]["code"] == "not-for-bots"
    # A person hosts; the bot (through the library) sits in seat 1 and plays the whole game.
    host = await Client.connect(node, "Host")
    room = await create_room(node, host.token, seats=2, options={"rounds": 1})
    await host.send("join", room=room["id"])
    await host.of("snapshot")
    bot, _ = load(str(EXAMPLES / "skull_king.py"))
    playing = asyncio.create_task(play_room(node.url, bot, room["id"], token=token, seat=1))
    seated = await host.wait(
        lambda f: f["type"] == "room" and f["room_state"]["seats"][1]["user"] is not None
    )
    seat = seated["room_state"]["seats"][1]
    assert seat["name"] == "Anne's Parrot" and seat["bot"] is None
    assert seat["owner"] == {"id": owner["id"], "name": "Anne"}
    assert seated["room_state"]["seats"][0]["owner"] is None
    assert (await host.call("sit", seat=0))["type"] == "ok"
    assert (await host.call("ready", entropy="ab" * 32))["type"] == "ok"
    await host.seen(lambda f: f["type"] == "room" and f["room_state"]["seats"][1]["ready"])
    mark = len(host.frames)
    assert (await host.call("start"))["type"] == "ok"
    await asyncio.wait_for(autoplay(host, "skull-king", mark), 20)
    result = await asyncio.wait_for(playing, 20)
    assert result.status == "finished" and result.seat == 1 and result.seed_check is None


async def test_a_host_may_refuse_players_bots(node: Node) -> None:
    owner_token, _ = await guest(node, "Bea")
    _, token = await make_bot(node, owner_token, "Bea's Bot")
    host_token, _ = await guest(node, "Host")
    room = await create_room(node, host_token, seats=2, player_bots=False)
    assert room["player_bots"] is False
    bot = await Client.connect(node, token=token, user={"id": "", "name": ""})
    await bot.send("join", room=room["id"])
    await bot.of("snapshot")
    refused = await bot.call("sit", seat=1)
    assert refused["code"] == "no-player-bots", refused
    # A person sits there as ever.
    person = await Client.connect(node, "Person")
    await person.send("join", room=room["id"])
    await person.of("snapshot")
    assert (await person.call("sit", seat=1))["type"] == "ok"


async def test_a_revoked_token_is_refused(node: Node) -> None:
    """ "A revoked token is refused": over HTTP, at a socket's sign-in, and the bot's open
    socket is closed; the account stays listed, revoked."""
    owner_token, _ = await guest(node, "Cid")
    account, token = await make_bot(node, owner_token, "Cid's Bot")
    site = Site(node.url, token)
    host_token, _ = await guest(node, "Host")
    room = await create_room(node, host_token, seats=2)
    player = Player(site, lambda turn: turn.legal[0])
    playing = asyncio.create_task(player.play(room["id"], seat=1))
    for _ in range(100):  # the bot has sat down
        if (await site.my_rooms()) if site.user else []:
            break
        await asyncio.sleep(0.05)
    auth = {"Authorization": f"Bearer {owner_token}"}
    async with httpx.AsyncClient(base_url=node.url) as http:
        # Nobody else revokes it.
        other_token, _ = await guest(node, "Eve")
        r = await http.post(
            f"/api/me/bots/{account['id']}/revoke",
            headers={"Authorization": f"Bearer {other_token}"},
        )
        assert r.status_code == 404
        r = await http.post(f"/api/me/bots/{account['id']}/revoke", headers=auth)
        assert r.status_code == 200 and r.json()["bot"]["revoked"] is True
        listed = (await http.get("/api/me/bots", headers=auth)).json()["bots"]
        assert [(b["id"], b["revoked"]) for b in listed] == [(account["id"], True)]
        r = await http.get("/api/me/rooms", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 401 and r.json()["error"]["code"] == "bad-token"
    with pytest.raises(Refused) as open_one:
        await asyncio.wait_for(playing, 10)
    assert open_one.value.code == "bad-token"
    with pytest.raises(Refused):  # and a new socket
        await asyncio.wait_for(Player(Site(node.url, token), lambda t: 0).play(room["id"]), 10)
