"""Room codes people can read aloud, and the preview card of an invite link.

"Room codes such as ``N2d23bL_`` are hard to read aloud: codes without look-alike
characters (no 0/O/1/l/I, no ``_``/``-``), grouped for reading (e.g. shown as
``K7QX-MH4P``), still unguessable for private rooms (keep >= 96 bits for private rooms).
Old codes already in Redis must keep working (the /r/{code} route pattern)."

"An invite link pasted into a chat app unfurls into a card: Open Graph and Twitter-card
tags on /r/{code} (the game title, the host's name, seats free; no private detail beyond
what the link holder may see; names HTML-escaped)."
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import httpx
import pytest
from tortuga_client import Client, Node, create_room, guest

from server.table import room_codes
from server.table.room_codes import ALPHABET, bits, canonical, grouped, new_code, spoken_forms


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_the_alphabet_has_no_look_alikes() -> None:
    assert len(set(ALPHABET)) == len(ALPHABET) == 30
    assert not set("0O1lIU_-") & set(ALPHABET)
    assert ALPHABET.upper() == ALPHABET


def test_private_codes_keep_96_bits_and_public_ones_are_short() -> None:
    private, public = new_code(private=True), new_code(private=False)
    assert len(public) == 8 and set(public) <= set(ALPHABET)
    assert set(private) <= set(ALPHABET)
    assert bits(len(private)) >= 96
    assert len({new_code(private=True) for _ in range(200)}) == 200


def test_codes_are_shown_in_groups_and_read_back_in_any_case() -> None:
    assert grouped("K7QXMH4P") == "K7QX-MH4P"
    assert grouped("K7QXMH4PK7QXMH4PK7QX") == "K7QX-MH4P-K7QX-MH4P-K7QX"
    assert canonical("k7qx-mh4p") == "K7QXMH4P"
    assert canonical(" K7QX MH4P ") == "K7QXMH4P"
    assert canonical("K7QXMH4P") == "K7QXMH4P"
    # An old code stays exactly as it is (old private codes are 16 characters: never a
    # whole number of dash-separated groups of four).
    assert canonical("N2d23bL_") == "N2d23bL_"
    assert canonical("AbCd-EfGhIjKlMnOp") == "AbCd-EfGhIjKlMnOp"
    assert grouped("N2d23bL_") == "N2d23bL_"
    assert canonical("a*b") is None and canonical("") is None
    # Lower case without groups may be an old code: looked up as written, then in capitals.
    assert spoken_forms("k7qxmh4p") == ["k7qxmh4p", "K7QXMH4P"]
    assert spoken_forms("N2d23bL_") == ["N2d23bL_"]


async def test_new_rooms_get_readable_codes(node: Node) -> None:
    token, _ = await guest(node, "Host")
    public = await create_room(node, token, seats=3)
    private = await create_room(node, token, seats=3, public=False)
    assert re.fullmatch(f"[{ALPHABET}]{{8}}", public["id"])
    assert re.fullmatch(f"[{ALPHABET}]{{20}}", private["id"])
    assert public["invite"].endswith(f"/r/{public['id']}")
    async with httpx.AsyncClient(base_url=node.url, headers=auth(token)) as http:
        # Read aloud and typed in lower case, in groups: the same room.
        spoken = grouped(private["id"]).lower()
        got = await http.get(f"/api/rooms/{spoken}")
        assert got.status_code == 200 and got.json()["id"] == private["id"]
        page = await http.get(f"/r/{spoken}")
        assert page.status_code == 308 and page.headers["location"] == f"/r/{private['id']}"
        assert (await http.get("/api/rooms/K7QX-MH4P-ZZZZ")).status_code == 404


async def test_old_codes_in_redis_keep_working(node: Node, monkeypatch: pytest.MonkeyPatch) -> None:
    """A room made with the old code shape (``secrets.token_urlsafe``) is found by its code
    on every route, and a game is played in it."""
    monkeypatch.setattr(room_codes, "new_code", lambda private: "N2d23bL_")
    token, user = await guest(node, "Old Host")
    room = await create_room(node, token, seats=2)
    assert room["id"] == "N2d23bL_"
    async with httpx.AsyncClient(base_url=node.url, headers=auth(token)) as http:
        assert (await http.get("/api/rooms/N2d23bL_")).json()["id"] == "N2d23bL_"
        page = await http.get("/r/N2d23bL_")
        assert page.status_code == 200 and 'content="Old Host invites you' in page.text
        # Not its lower- or upper-case cousin.
        assert (await http.get("/api/rooms/n2d23bl_")).status_code == 404
    host = await Client.connect(node, token=token, user=user)
    await host.send("join", room="N2d23bL_")
    assert (await host.of("snapshot"))["room"] == "N2d23bL_"
    await host.send("sit", seat=0)
    seated = await host.of("room")
    assert seated["room_state"]["seats"][0]["user"] == user["id"]
    await host.close()


class Head(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.meta: dict[str, str] = {}
        self.title = ""
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "meta" and (a.get("property") or a.get("name")):
            self.meta[str(a.get("property") or a.get("name"))] = str(a.get("content"))
        self._in_title = tag == "title"

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data

    def handle_endtag(self, tag: str) -> None:
        self._in_title = False


async def card(http: httpx.AsyncClient, path: str, **headers: Any) -> tuple[str, dict[str, str]]:
    res = await http.get(path, headers=headers)
    assert res.status_code == 200
    assert '<script type="module" src="/static/js/app.js">' in res.text
    head = Head()
    head.feed(res.text)
    return res.text, head.meta


async def test_an_invite_link_unfurls_into_a_card(node: Node) -> None:
    token, _ = await guest(node, 'Anne "<b>" & Mary')
    room = await create_room(node, token, seats=4, public=False, game="bid-tricks")
    guest_token, guest_user = await guest(node, "Secret Sam")
    sam = await Client.connect(node, token=guest_token, user=guest_user)
    await sam.send("join", room=room["id"])
    await sam.of("snapshot")
    await sam.send("sit", seat=2)
    await sam.of("room")
    async with httpx.AsyncClient(base_url=node.url) as http:
        text, meta = await card(http, f"/r/{room['id']}")
        # The game's title, the host's name, the seats free -- escaped, never raw HTML.
        assert meta["og:title"] == 'Anne "<b>" & Mary invites you to Pirate Tricks: Bid & Make It'
        assert meta["twitter:title"] == meta["og:title"]
        assert meta["og:description"].startswith("3 seats of 4 free")
        assert meta["twitter:card"] == "summary"
        assert meta["og:url"] == room["invite"]
        assert "<b>" not in text and "&lt;b&gt;" in text and "&quot;" in text
        # Nothing beyond what the link shows: no other player's name, no options.
        assert "Secret Sam" not in text and "rounds" not in meta["og:description"]
        # In Vietnamese for a Vietnamese browser (or the language switch's cookie).
        _, vi = await card(http, f"/r/{room['id']}", **{"accept-language": "vi-VN,vi;q=0.9"})
        assert vi["og:title"].endswith("mời bạn chơi Pirate Tricks: Bid & Make It")
        assert vi["og:description"].startswith("Còn 3/4 ghế trống")
        _, vi2 = await card(http, f"/r/{room['id']}", cookie="tortuga_lang=vi")
        assert vi2["og:title"] == vi["og:title"]
        # An unknown room still answers the app (which says so), with the site's own card.
        _, none = await card(http, "/r/ZZZZZZZZ")
        assert none["og:title"] == "Tortuga — pirate card games with friends"
    await sam.close()
