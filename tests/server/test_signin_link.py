"""One identity on every device: a one-time sign-in link (server/http/signin.py).

It signs another device in as the same user (its games, its history); it works once --
even when two devices race for it --, expires, dies with "sign out everywhere", and a
refused link changes nothing (no token, no device listed). Links are rate-limited."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from tortuga_client import Client, Node, create_room

PHONE = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/131.0 Mobile"


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def make_link(node: Node, token: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=node.url) as http:
        return await http.post("/api/me/signin-link", headers=auth(token))


async def use(node: Node, link_token: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=node.url, headers={"User-Agent": PHONE}) as http:
        return await http.post("/api/signin/link", json={"token": link_token})


async def sign_ins(node: Node, token: str) -> list[dict[str, Any]]:
    async with httpx.AsyncClient(base_url=node.url) as http:
        r = await http.get("/api/me/devices", headers=auth(token))
        assert r.status_code == 200, r.text
        found: list[dict[str, Any]] = r.json()["sign_ins"]
        return found


def token_of(url: str) -> str:
    assert "/signin#" in url, "the token rides in the fragment, never the request line"
    return url.split("#", 1)[1]


async def test_a_link_signs_another_device_in_once(start: Any, database_url: str) -> None:
    a = await start("a", database_url=database_url)
    b = await start("b", database_url=database_url)
    anne = await Client.connect(a, "Anne")
    room = await create_room(a, anne.token, seats=2)
    await anne.send("join", room=room["id"])
    await anne.of("snapshot")
    assert (await anne.call("sit", seat=0))["type"] == "ok"
    r = await make_link(a, anne.token)
    assert r.status_code == 201, r.text
    link = r.json()
    assert link["url"].startswith(a.url + "/signin#")
    assert link["qr"].startswith("data:image/svg+xml"), "the QR code, as an SVG image"
    assert link["seconds"] == 300
    # The other device (on the other node) uses it: it is Anne there, with her rooms.
    used = await use(b, token_of(link["url"]))
    assert used.status_code == 200, used.text
    assert used.json()["user"] == {"id": anne.user["id"], "name": "Anne"}
    phone = used.json()["token"]
    async with httpx.AsyncClient(base_url=b.url) as http:
        mine = (await http.get("/api/me/rooms", headers=auth(phone))).json()["rooms"]
        assert [x["id"] for x in mine] == [room["id"]]
    listed = await sign_ins(a, anne.token)
    assert [(s["how"], s["device"]) for s in listed] == [("link", "Chrome on Android")]
    # Used: refused after, and the refusal changes nothing.
    again = await use(a, token_of(link["url"]))
    assert again.status_code == 400
    assert again.json()["error"] == {
        "code": "bad-link",
        "message": "this sign-in link was already used or has expired",
    }
    assert len(await sign_ins(a, anne.token)) == 1
    # Sign out everywhere: the phone's token dies like every other.
    async with httpx.AsyncClient(base_url=a.url) as http:
        assert (await http.post("/api/me/signout", headers=auth(phone))).status_code == 200
        r = await http.get("/api/me/rooms", headers=auth(anne.token))
        assert r.status_code == 401 and r.json()["error"]["code"] == "bad-token"


async def test_two_devices_racing_for_one_link(start: Any, database_url: str) -> None:
    a = await start("a", database_url=database_url)
    b = await start("b", database_url=database_url)
    anne = await Client.connect(a, "Anne")
    link = token_of((await make_link(a, anne.token)).json()["url"])
    answers = await asyncio.gather(*(use(node, link) for node in (a, b, a, b)))
    assert sorted(r.status_code for r in answers) == [200, 400, 400, 400]


async def test_expired_forged_and_signed_out_links_are_refused(
    start: Any, database_url: str
) -> None:
    a = await start("a", database_url=database_url, signin_link_seconds=1)
    anne = await Client.connect(a, "Anne")
    expired = token_of((await make_link(a, anne.token)).json()["url"])
    await asyncio.sleep(1.5)
    assert (await use(a, expired)).json()["error"]["code"] == "bad-link"
    assert (await use(a, "x" * 43)).json()["error"]["code"] == "bad-link"
    assert (await use(a, "short")).json()["error"]["code"] == "bad-link"
    # A link made before its user signed out everywhere dies with the old tokens.
    a2 = await start("a2", database_url=database_url)
    ben = await Client.connect(a2, "Ben")
    before = token_of((await make_link(a2, ben.token)).json()["url"])
    async with httpx.AsyncClient(base_url=a2.url) as http:
        assert (await http.post("/api/me/signout", headers=auth(ben.token))).status_code == 200
    assert (await use(a2, before)).json()["error"]["code"] == "bad-link"
    async with httpx.AsyncClient(base_url=a2.url) as http:
        r = await http.post("/api/signin/link", json={"token": before, "extra": 1})
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad-message"
    assert await sign_ins(a, anne.token) == []


async def test_links_are_rate_limited(start: Any, database_url: str) -> None:
    a = await start("a", database_url=database_url)
    anne = await Client.connect(a, "Anne")
    codes = [(await make_link(a, anne.token)).status_code for _ in range(6)]
    assert codes == [201] * 5 + [429]
    r = await make_link(a, anne.token)
    assert r.json()["error"]["code"] == "too-many-links"
    async with httpx.AsyncClient(base_url=a.url) as http:
        assert (await http.post("/api/me/signin-link")).status_code == 401
