"""The page's side of the deal seed: it sends its random bytes only once it has seen the
room's seed commitment (before it, the server is bound to nothing), and a server that
acknowledges its bytes and leaves them out of the deal turns the verified badge into an
error in that player's page -- not a quiet line under it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from players import Person, play_until_over
from web_harness import SOCKET_URL

from server.table.seats import Seats

pytestmark = pytest.mark.browser

CODE = "SEEDROOM"
USER = {"id": "g_me", "name": "Mia"}
COMMITMENT = "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"


def test_a_dropped_contribution_fails_the_badge(
    site: str, chromium: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A patched server answers Ann's ``ready`` with ok and keeps none of her bytes."""
    honest = Seats.ready

    async def dropping(
        self: Seats,
        room_id: str,
        user_id: str,
        ready: bool,
        entropy: str | None = None,
        signed: Any = None,
    ) -> Any:
        return await honest(self, room_id, user_id, ready, None)

    monkeypatch.setattr(Seats, "ready", dropping)
    ann = Person(chromium, site, "Ann")
    try:
        ann.open("/")
        ann.choose_name()
        code = ann.create_room(rounds=1, seats=2)
        ann.add_bot("random")
        ann.ready()
        ann.page.get_by_role("button", name="Start the game").click()
        ann.page.wait_for_selector("p.contribution[data-mine='false']")
        kept = ann.page.evaluate(
            f"() => JSON.parse(localStorage.getItem('tortuga.deal.{code}')).entropy"
        )
        assert len(kept) == 64  # she sent them...
        start = next(
            f for f in ann.frames if f.get("type") == "event" and f["event"]["kind"] == "start"
        )
        assert start["event"]["contributions"][0]["by"] == "server"  # ...and they are not in
        play_until_over([ann])
        badge = ann.page.wait_for_selector("[data-verified='0']")
        assert "your contribution was not used" in badge.inner_text()
        assert not ann.page.locator("[data-verified='1']").count()
    finally:
        ann.close()


def _lobby(commitment: str | None, ready: bool = False) -> dict[str, Any]:
    return {
        "id": CODE,
        "game": "skull-king",
        "title": "Skull King",
        "options": {"rounds": 1},
        "players": 2,
        "public": False,
        "spectators": True,
        "deadlines": {},
        "takeback": False,
        "host": "g_me",
        "status": "lobby",
        "version": 0,
        "invite": f"http://example.invalid/r/{CODE}",
        "seed_digest": None,
        "seed": None,
        "seed_commitment": commitment,
        "server_seed": None,
        "contributions": None,
        "seats": [
            {"seat": 0, "user": "g_me", "name": "Mia", "bot": None, "ready": ready},
            {"seat": 1, "user": None, "name": None, "bot": "random", "ready": True},
        ],
    }


@pytest.fixture
def mia(chromium: Any, web_only_url: str) -> Iterator[Any]:
    context = chromium.new_context()
    identity = json.dumps({"token": "tok", "user": USER})
    context.add_init_script(f"localStorage.setItem('tortuga.identity', {json.dumps(identity)})")
    page = context.new_page()
    page.route(f"**/api/rooms/{CODE}", lambda route: route.fulfill(json=_lobby(None)))
    yield page
    context.close()


def test_no_bytes_go_out_before_the_commitment(mia: Any, web_only_url: str) -> None:
    page = mia
    sent: list[dict[str, Any]] = []
    sockets: list[Any] = []

    def handler(ws: Any) -> None:
        sockets.append(ws)

        def received(raw: str | bytes) -> None:
            msg = json.loads(raw)
            sent.append(msg)
            if msg["type"] == "join":
                ws.send(json.dumps({"type": "hello", "user": USER, "node": "mock"}))
                ws.send(
                    json.dumps(
                        {
                            "type": "snapshot",
                            "room": CODE,
                            "version": 0,
                            "seat": 0,
                            "role": "player",
                            "view": None,
                            "room_state": _lobby(None),
                            "seed_digest": None,
                            "seed": None,
                        }
                    )
                )

        ws.on_message(received)

    page.route_web_socket(SOCKET_URL, handler)
    page.goto(f"{web_only_url}/r/{CODE}")

    def readies(count: int) -> list[dict[str, Any]]:
        """The ``ready`` frames the page sent, once there are ``count`` of them."""
        for _ in range(250):
            out = [{k: v for k, v in m.items() if k != "ref"} for m in sent if m["type"] == "ready"]
            if len(out) >= count:
                return out
            page.wait_for_timeout(20)
        raise AssertionError(f"the page sent {sent}")

    page.get_by_role("button", name="I'm ready").click()
    assert readies(1) == [{"type": "ready", "ready": True}]  # no commitment seen: no bytes
    assert page.evaluate(f"() => localStorage.getItem('tortuga.deal.{CODE}')") is None
    # The commitment arrives: now the page adds its bytes, and keeps the commitment it saw.
    sockets[0].send(json.dumps({"type": "room", "room": CODE, "room_state": _lobby(COMMITMENT)}))
    page.wait_for_function(
        "([k, c]) => (JSON.parse(localStorage.getItem(k) || '{}').commitment === c)",
        arg=[f"tortuga.deal.{CODE}", COMMITMENT],
    )
    page.get_by_role("button", name="I'm ready").click()
    second = readies(2)[1]
    kept = page.evaluate(f"() => JSON.parse(localStorage.getItem('tortuga.deal.{CODE}'))")
    assert kept["commitment"] == COMMITMENT and len(kept["entropy"]) == 64
    assert second == {"type": "ready", "ready": True, "entropy": kept["entropy"]}
