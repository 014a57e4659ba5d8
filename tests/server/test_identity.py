"""Tokens expire, are refreshed while used, die when their user signs out everywhere, and
never travel in a URL; websocket upgrades from foreign pages are refused."""

from __future__ import annotations

import base64
import json
import time
from typing import Any

import httpx
import pytest
import websockets
from tortuga_client import SECRET, Client, Node, guest, open_socket

from server.identity.tokens import Tokens, User


async def _hello_or_error(node: Node, token: str, **options: Any) -> dict[str, Any]:
    ws = await open_socket(node.ws_url, token, **options)
    try:
        return json.loads(await ws.recv())  # type: ignore[no-any-return]
    finally:
        await ws.close()


async def _me_rooms(node: Node, token: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=node.url) as http:
        return await http.get("/api/me/rooms", headers={"Authorization": f"Bearer {token}"})


async def test_a_token_carries_an_expiry_and_an_expired_one_is_refused(node: Node) -> None:
    """ "Tokens carry an expiry": past it, HTTP answers 401 and the socket closes 4001."""
    token, user = await guest(node, "Anne")
    body = token.split(".")[0]
    payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    assert payload["e"] - payload["t"] == node.settings.token_ttl_seconds
    old = Tokens(SECRET, ttl=60).issue(User(user["id"], user["name"]), now=time.time() - 61)
    r = await _me_rooms(node, old)
    assert r.status_code == 401 and r.json()["error"]["code"] == "bad-token"
    assert "expired" in r.json()["error"]["message"]
    frame = await _hello_or_error(node, old)
    assert frame["code"] == "bad-token"
    assert (await _me_rooms(node, token)).status_code == 200


async def test_a_token_in_use_is_refreshed(start: Any) -> None:
    """ "Tokens ... are refreshed while used": once older than the refresh age, an HTTP
    answer carries a fresh token (X-Tortuga-Token) and so does the socket's hello."""
    node = await start("a", token_refresh_seconds=3600.0)
    issued = time.time() - 7200
    user = User("g_refresh_me", "Rita")
    token = Tokens(SECRET).issue(user, now=issued)
    r = await _me_rooms(node, token)
    fresh = r.headers["X-Tortuga-Token"]
    claims = Tokens(SECRET).claims(fresh)
    assert claims.user == user and claims.issued > issued
    hello = await _hello_or_error(node, token)
    assert hello["type"] == "hello" and Tokens(SECRET).claims(hello["token"]).user == user
    # A young token is not reissued on every request.
    young = await _me_rooms(node, fresh)
    assert "X-Tortuga-Token" not in young.headers


async def test_sign_out_everywhere_revokes_every_earlier_token(two: list[Node]) -> None:
    """ "a user can sign out everywhere (revocation by a per-user generation number in
    Redis)": after it, the old token is refused on every node, HTTP and websocket; the
    token the sign-out answered with works."""
    token, user = await guest(two[0], "Sam")
    open_tabs = [await Client.connect(node, token=token, user=user) for node in two]
    async with httpx.AsyncClient(base_url=two[0].url) as http:
        r = await http.post("/api/me/signout", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200
    new = r.json()["token"]
    # The sockets already open with the old token are told and closed, on every node.
    for tab in open_tabs:
        await tab._reader
        assert tab.closed is not None and tab.closed[0] == 4001
        assert any(f.get("code") == "bad-token" for f in tab.frames)
    for node in two:
        refused = await _me_rooms(node, token)
        assert refused.status_code == 401 and "signed out" in refused.json()["error"]["message"]
        assert (await _hello_or_error(node, token))["code"] == "bad-token"
        assert (await _me_rooms(node, new)).status_code == 200
    c = await Client.connect(two[1], token=new, user=user)
    assert c.frames[0]["user"] == user
    await c.close()


async def test_the_token_never_travels_in_the_url(node: Node) -> None:
    """ "the socket authenticates in its first frame ..., not the query string": a token in
    the URL is refused, even a genuine one."""
    token, _user = await guest(node, "Ursula")
    async with websockets.connect(f"{node.ws_url}?token={token}") as ws:
        frame = json.loads(await ws.recv())
        assert frame["code"] == "bad-token" and "first frame" in frame["message"]
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await ws.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4001
    # A first frame that is not auth is refused too.
    async with websockets.connect(node.ws_url) as ws:
        await ws.send(json.dumps({"type": "ping", "t": 1}))
        assert json.loads(await ws.recv())["code"] == "bad-token"


async def test_websocket_upgrades_from_foreign_origins_are_refused(start: Any) -> None:
    """ "Check the Origin of websocket upgrades against the site's public URL (configurable
    list)"."""
    node = await start("a", public_url="https://tortuga.example")
    token, _user = await guest(node, "Olga")
    with pytest.raises(websockets.InvalidStatus) as refused:
        await open_socket(node.ws_url, token, origin="https://evil.example")
    assert refused.value.response.status_code == 403
    hello = await _hello_or_error(node, token, origin="https://tortuga.example")
    assert hello["type"] == "hello"
    listed = await start("b", allowed_origins=("https://a.example", "https://b.example"))
    assert (await _hello_or_error(listed, token, origin="https://b.example"))["type"] == "hello"
    with pytest.raises(websockets.InvalidStatus):
        await open_socket(listed.ws_url, token, origin="https://tortuga.example")
