"""What a ban covers beyond the banned user's own id: a site ban with the address reaches every
guest made from that address (before the ban too) and every request and socket coming from
it; a room ban keeps a fresh guest from the banned user's address out of that room; and with
the default settings nobody can name a client address with X-Forwarded-For."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import websockets
from admin_helpers import admin_token, bearer
from tortuga_client import Client, Node, create_room, open_socket, seat_players

from server.http.forwarded import Forwarded
from server.settings import Settings

TROUBLE, ELSEWHERE = "203.0.113.7", "198.51.100.2"
PROXY = {"forwarded_allow_ips": "127.0.0.1"}  # the test nodes' proxy is this host


async def _post(node: Node, token: str, path: str, body: dict[str, Any]) -> httpx.Response:
    async with httpx.AsyncClient(base_url=node.url) as http:
        return await http.post(f"/admin/api{path}", json=body, headers=bearer(token))


async def _guest_from(node: Node, address: str, name: str) -> tuple[str, dict[str, str]]:
    async with httpx.AsyncClient(base_url=node.url) as http:
        r = await http.post("/api/guest", json={"name": name}, headers={"X-Forwarded-For": address})
    assert r.status_code == 200, r.text
    body = r.json()
    return body["token"], body["user"]


async def _my_rooms(node: Node, token: str, address: str) -> tuple[int, str]:
    async with httpx.AsyncClient(base_url=node.url) as http:
        r = await http.get("/api/me/rooms", headers={**bearer(token), "X-Forwarded-For": address})
    return r.status_code, r.json()["error"]["code"] if r.status_code >= 400 else ""


async def _socket_from(node: Node, token: str, user: dict[str, str], address: str) -> Client:
    ws = await open_socket(node.ws_url, token, additional_headers={"X-Forwarded-For": address})
    client = Client(node, token, user, ws)
    await client.wait(lambda f: f["type"] in ("hello", "error"))
    return client


async def _refused_socket(node: Node, token: str, address: str) -> None:
    ws = await open_socket(node.ws_url, token, additional_headers={"X-Forwarded-For": address})
    refused = json.loads(await ws.recv())
    assert refused["type"] == "error" and refused["code"] == "banned", refused
    with pytest.raises(websockets.ConnectionClosed):
        await ws.recv()
    assert ws.close_code == 4010


async def test_an_address_ban_reaches_guests_made_there_before_it_and_requests_from_there(
    start: Any, admin_url: str, admin_name: str
) -> None:
    """Mallory made a second guest from her address before the ban: it is refused after the
    ban (on HTTP and sockets, from there or from anywhere else: its token carries the
    address's mark), its open socket is closed; a guest made elsewhere is refused while it
    comes from the banned address, and welcome from elsewhere; the unban lifts it all."""
    nodes = [
        await start("a", database_url=admin_url, **PROXY),
        await start("b", database_url=admin_url, **PROXY),
    ]
    _, mallory = await _guest_from(nodes[0], TROUBLE, "Mallory")
    spare_token, spare = await _guest_from(nodes[1], TROUBLE, "Spare")
    other_token, _ = await _guest_from(nodes[0], ELSEWHERE, "Bystander")
    assert await _my_rooms(nodes[0], spare_token, TROUBLE) == (200, "")
    open_spare = await _socket_from(nodes[1], spare_token, spare, ELSEWHERE)
    assert open_spare.frames[-1]["type"] == "hello"

    admin = await admin_token(nodes[0], admin_name)
    body = {"reason": "ban evasion", "address": True}
    r = await _post(nodes[0], admin, f"/users/{mallory['id']}/ban", body)
    assert r.status_code == 200 and r.json()["address"] is True

    error = await open_spare.wait(lambda f: f["type"] == "error")
    assert error["code"] == "banned"
    for node in nodes:
        for address in (TROUBLE, ELSEWHERE):
            assert await _my_rooms(node, spare_token, address) == (403, "banned")
        await _refused_socket(node, spare_token, ELSEWHERE)
        assert await _my_rooms(node, other_token, TROUBLE) == (403, "banned")
        await _refused_socket(node, other_token, TROUBLE)
        assert await _my_rooms(node, other_token, ELSEWHERE) == (200, "")

    lift = {"reason": "second chance"}
    assert (await _post(nodes[1], admin, f"/users/{mallory['id']}/unban", lift)).status_code == 200
    assert await _my_rooms(nodes[0], spare_token, TROUBLE) == (200, "")
    assert await _my_rooms(nodes[1], other_token, TROUBLE) == (200, "")


async def test_a_room_ban_keeps_a_fresh_guest_from_the_same_address_out_of_that_room(
    start: Any, admin_url: str, admin_name: str
) -> None:
    """The banned player makes a new guest from the same address: it cannot join that room
    (``banned-from-room``), though it may play elsewhere; a guest from another address may
    join; the unban lets the address back in."""
    nodes = [
        await start("a", database_url=admin_url, **PROXY),
        await start("b", database_url=admin_url, **PROXY),
    ]
    table = await seat_players(nodes, 2)
    troll_token, troll = await _guest_from(nodes[0], TROUBLE, "Troll")
    first = await _socket_from(nodes[1], troll_token, troll, TROUBLE)
    await first.send("join", room=table.id)
    await first.of("snapshot")

    admin = await admin_token(nodes[0], admin_name)
    body = {"reason": "harassment", "room": table.id}
    assert (await _post(nodes[0], admin, f"/users/{troll['id']}/ban", body)).status_code == 200
    await first.of("kicked")

    fresh_token, fresh = await _guest_from(nodes[1], TROUBLE, "Totally New")
    for node in nodes:
        again = await _socket_from(node, fresh_token, fresh, TROUBLE)
        assert (await again.call("join", room=table.id))["code"] == "banned-from-room"
    # The same guest, moved to another address: its token still says where it was made.
    moved = await _socket_from(nodes[0], fresh_token, fresh, ELSEWHERE)
    assert (await moved.call("join", room=table.id))["code"] == "banned-from-room"
    other = await create_room(nodes[0], fresh_token)
    await again.send("join", room=other["id"])
    await again.of("snapshot")
    bystander_token, bystander = await _guest_from(nodes[0], ELSEWHERE, "Bystander")
    welcome = await _socket_from(nodes[0], bystander_token, bystander, ELSEWHERE)
    await welcome.send("join", room=table.id)
    await welcome.of("snapshot")

    lift = {"reason": "appeal accepted", "room": table.id}
    assert (await _post(nodes[1], admin, f"/users/{troll['id']}/unban", lift)).status_code == 200
    back = await _socket_from(nodes[0], fresh_token, fresh, TROUBLE)
    await back.send("join", room=table.id)
    await back.of("snapshot")


def test_by_default_no_forwarded_header_names_the_client() -> None:
    """Anything on the host (127.0.0.1) could otherwise claim any client address and dodge
    the guest quota or an address ban: by default no proxy is trusted."""
    settings = Settings()
    scope: dict[str, Any] = {
        "type": "http",
        "client": ("127.0.0.1", 5000),
        "scheme": "http",
        "headers": [(b"x-forwarded-for", TROUBLE.encode())],
    }
    Forwarded(settings.forwarded_allow_ips).apply(scope)
    assert scope["client"] == ("127.0.0.1", 5000)
