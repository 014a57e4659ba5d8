"""The table against a scripted server (Playwright routes the websocket and the HTTP API):
situations a real game reaches only by chance -- Scary Mary's choice, a reveal that does not
match its seal, an error from the server -- checked deterministically."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from web_harness import SOCKET_URL, scripted_deal

pytestmark = pytest.mark.browser

CODE = "MOCKROOM"
USER = {"id": "g_me", "name": "Mia"}


def _summary() -> dict[str, Any]:
    names = ["Mia", "Ned", "Olga"]
    return {
        "id": CODE,
        "game": "skull-king",
        "title": "Skull King",
        "options": {"rounds": 2},
        "players": 3,
        "public": False,
        "spectators": True,
        "deadlines": {},
        "takeback": False,
        "host": "g_me",
        "status": "playing",
        "version": 5,
        "invite": f"http://example.invalid/r/{CODE}",
        "seed_digest": "00" * 32,
        "seed": None,
        "seats": [
            {
                "seat": i,
                "user": f"g_{n.lower()}" if i else "g_me",
                "name": n,
                "bot": None,
                "ready": True,
                "connected": True,
            }
            for i, n in enumerate(names)
        ],
    }


def _view(**changes: Any) -> dict[str, Any]:
    view: dict[str, Any] = {
        "game": "skull-king",
        "players": 3,
        "seat": 0,
        "round": 2,
        "rounds": 2,
        "cards": 2,
        "dealer": 2,
        "phase": "play",
        "hand": ["scary-mary", "red-3"],
        "hand_sizes": [2, 1, 2],
        "ghost": None,
        "bids": [1, 0, 1],
        "tricks": [0, 0, 0],
        "order": [1, 2, 0],
        "trick": [{"seat": 1, "card": "blue-9"}, {"seat": 2, "card": "blue-2"}],
        "turn": 0,
        "last_trick": None,
        "sheet": [],
        "scores": [0, 0, 0],
        "prompt": {"seats": [0], "kind": "play", "sealed": False},
        "legal": [
            {"play": "scary-mary", "as": "pirate"},
            {"play": "scary-mary", "as": "escape"},
        ],
        "outcome": None,
    }
    view.update(changes)
    return view


class Script:
    """A scripted server: answers join with ``opening`` frames; records what the page sends."""

    def __init__(self, opening: list[dict[str, Any]]) -> None:
        self.opening = opening
        self.sent: list[dict[str, Any]] = []
        self.ws: Any = None
        self.on_message: Callable[[dict[str, Any]], None] | None = None

    def handler(self, ws: Any) -> None:
        self.ws = ws

        def received(raw: str | bytes) -> None:
            msg = json.loads(raw)
            self.sent.append(msg)
            if msg["type"] == "join":
                ws.send(json.dumps({"type": "hello", "user": USER, "node": "mock"}))
                for frame in self.opening:
                    ws.send(json.dumps(frame))
            elif self.on_message is not None:
                self.on_message(msg)

        ws.on_message(received)

    def push(self, frame: dict[str, Any]) -> None:
        self.ws.send(json.dumps(frame))


@pytest.fixture
def mia(chromium: Any, web_only_url: str) -> Iterator[tuple[Any, Callable[[Script], None]]]:
    context = chromium.new_context()
    identity = json.dumps({"token": "tok", "user": USER})
    context.add_init_script(f"localStorage.setItem('tortuga.identity', {json.dumps(identity)})")
    page = context.new_page()
    page.route(
        f"**/api/rooms/{CODE}",
        lambda route: route.fulfill(json=_summary()),
    )

    def start(script: Script) -> None:
        page.route_web_socket(SOCKET_URL, script.handler)
        page.goto(f"{web_only_url}/r/{CODE}")

    yield page, start
    context.close()


def test_scary_mary_asks_pirate_or_escape(mia: Any) -> None:
    page, start = mia
    script = Script(
        [
            {
                "type": "snapshot",
                "room": CODE,
                "version": 5,
                "seat": 0,
                "role": "player",
                "view": _view(),
                "room_state": _summary(),
                "seed_digest": "00" * 32,
                "seed": None,
            },
            {"type": "presence", "room": CODE, "connected": [0, 1, 2], "watchers": 0},
        ]
    )
    start(script)
    page.wait_for_selector(".hand-zone")
    # Red 3 cannot follow blue... nor is it legal: only Scary Mary is enabled.
    assert page.locator("button.card[data-card='red-3']").is_disabled()
    page.click("button.card[data-card='scary-mary']")
    dialog = page.get_by_role("dialog", name="Play Scary Mary as")
    dialog.wait_for()
    assert page.evaluate("document.activeElement.dataset.as") == "pirate"
    dialog.get_by_role("button", name="⚐ Escape").click()
    page.wait_for_function("() => !document.querySelector('.choice-dialog')")
    acts = [m for m in script.sent if m["type"] == "act"]
    assert acts == [
        {
            "type": "act",
            "move": {"play": "scary-mary", "as": "escape"},
            "version": 5,
            "ref": acts[0]["ref"],
        }
    ]
    # While the move is on its way, no card can be played twice.
    assert page.locator("button.card:not([disabled])").count() == 0
    # The server refuses it: the page says why and lets the player choose again.
    script.push(
        {
            "type": "error",
            "code": "must-follow-suit",
            "message": "follow suit: blue",
            "ref": acts[0]["ref"],
        }
    )
    page.wait_for_selector("[role='alert'] >> text=Follow suit: play a card of the suit led")
    assert page.locator("button.card:not([disabled])").count() == 1


def _digest(phase: str, seat: int, move: Any, salt: str) -> str:
    canonical = json.dumps(move, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(f"{phase}:{seat}:{canonical}:{salt}".encode()).hexdigest()


def test_every_revealed_bid_is_checked_against_its_seal(mia: Any) -> None:
    page, start = mia
    bidding = _view(
        phase="bid",
        round=2,
        hand=["red-3", "black-7"],
        trick=[],
        order=[],
        bids=[None] * 3,
        turn=None,
        prompt={"seats": [0, 1, 2], "kind": "bid", "sealed": True},
        legal=[{"bid": 0}, {"bid": 1}, {"bid": 2}],
        hand_sizes=[2, 2, 2],
    )
    phase = "bid@5"
    salts = {"1": "11" * 16, "2": "22" * 16}
    others = {"1": {"bid": 2}, "2": {"bid": 0}}
    commits = {s: _digest(phase, int(s), m, salts[s]) for s, m in others.items()}
    script = Script(
        [
            {
                "type": "snapshot",
                "room": CODE,
                "version": 5,
                "seat": 0,
                "role": "player",
                "view": bidding,
                "room_state": _summary(),
                "seed_digest": "00" * 32,
                "seed": None,
            },
            {
                "type": "sealed",
                "room": CODE,
                "version": 5,
                "phase": phase,
                "kind": "bid",
                "seats": [0, 1, 2],
                "committed": commits,
                "open": False,
                "revealed": [],
                "commit_by": None,
                "open_by": None,
            },
        ]
    )
    sent_reveal: dict[str, Any] = {}

    def server(msg: dict[str, Any]) -> None:
        if msg["type"] == "commit":
            script.push(
                {
                    "type": "committed",
                    "room": CODE,
                    "version": 5,
                    "phase": phase,
                    "seat": 0,
                    "digest": msg["digest"],
                }
            )
            script.push({"type": "open", "room": CODE, "version": 5, "phase": phase})
        elif msg["type"] == "reveal":
            sent_reveal.update(msg)
            assert (
                _digest(phase, 0, msg["move"], msg["salt"])
                == next(m for m in script.sent if m["type"] == "commit")["digest"]
            )
            # Olga "reveals" 1 although she sealed 0: every browser must notice.
            moves = {"0": msg["move"], "1": {"bid": 2}, "2": {"bid": 1}}
            opened = {"0": msg["move"], "1": None, "2": {"bid": 1}}
            script.push(
                {
                    "type": "revealed",
                    "room": CODE,
                    "version": 6,
                    "phase": phase,
                    "moves": moves,
                    "opened": opened,
                    "salts": {"0": msg["salt"], "2": salts["2"]},
                    "defaults": [1],
                }
            )
            script.push(
                {
                    "type": "event",
                    "room": CODE,
                    "version": 6,
                    "seat": 0,
                    "view": _view(
                        bids=[1, 2, 1],
                        trick=[],
                        hand=["red-3", "black-7"],
                        legal=[{"play": "red-3"}, {"play": "black-7"}],
                        order=[0, 1, 2],
                    ),
                    "event": {
                        "kind": "reveal",
                        "seats": [0, 1, 2],
                        "moves": moves,
                        "defaults": [1],
                        "at": "",
                        "status": "playing",
                    },
                    "deadline": None,
                }
            )

    script.on_message = server
    start(script)
    page.wait_for_selector(".bids button")
    assert page.locator(".player[data-seat='1'] [data-committed='1']").count() == 1
    page.click(".bids button[data-bid='1']")
    page.get_by_role("button", name="Seal my bid: 1").click()
    page.wait_for_selector("[data-check='bad']")
    assert "Olga" in page.inner_text("[data-check='bad']")
    assert "Ned" not in page.inner_text("[data-check='bad']")
    assert sent_reveal["move"] == {"bid": 1}
    assert "Ned" in page.inner_text(".note")  # his default bid is announced


def test_a_game_abandoned_for_idleness_during_the_bids(mia: Any) -> None:
    """The clock abandons the game while Mia's bid is sealed but not yet opened: the bid is
    never revealed, the page says why, checks the seed and her hand, and plays nothing more."""
    from engines.registry import get

    page, start = mia
    game = get("skull-king")
    seed, deal, server_seed = scripted_deal(3)
    state = game.start(game.options({"rounds": 2}), 3, seed)
    bidding = game.view(state, 0)  # the real deal of round 1 from this seed
    summary = {
        **_summary(),
        "version": 1,
        "seed_digest": hashlib.sha256(seed).hexdigest(),
        **deal,
    }
    phase = "bid@1"
    script = Script(
        [
            {
                "type": "snapshot",
                "room": CODE,
                "version": 1,
                "seat": 0,
                "role": "player",
                "view": bidding,
                "room_state": summary,
                "seed_digest": summary["seed_digest"],
                "seed": None,
            },
            {
                "type": "sealed",
                "room": CODE,
                "version": 1,
                "phase": phase,
                "kind": "bid",
                "seats": [0, 1, 2],
                "committed": {},
                "open": False,
                "revealed": [],
                "commit_by": None,
                "open_by": None,
            },
        ]
    )

    def server(msg: dict[str, Any]) -> None:
        if msg["type"] == "commit":
            script.push(
                {
                    "type": "committed",
                    "room": CODE,
                    "version": 1,
                    "phase": phase,
                    "seat": 0,
                    "digest": msg["digest"],
                }
            )

    script.on_message = server
    # This site's archive does not answer: no replay link.
    page.route("**/api/history/**", lambda route: route.fulfill(status=503, json={}))
    start(script)
    page.wait_for_selector(".bids button")
    page.get_by_role("button", name="End game…").wait_for()  # Mia is the host
    page.click(".bids button[data-bid='1']")
    page.get_by_role("button", name="Seal my bid: 1").click()
    page.wait_for_selector("[data-sealed='1']")
    assert page.evaluate("sessionStorage.length") == 1  # the seal, kept to reveal it later

    script.push(
        {
            "type": "event",
            "room": CODE,
            "version": 2,
            "seat": 0,
            "view": bidding,
            "event": {
                "kind": "abandon",
                "seats": [],
                "moves": {},
                "defaults": [],
                "proxies": [],
                "at": "",
                "status": "abandoned",
                "reason": "idle",
                "game_id": f"{CODE}-1",
                "seed": seed.hex(),
                "server_seed": server_seed,
            },
            "deadline": None,
        }
    )
    panel = page.locator(".gameover.abandoned[data-reason='idle']")
    panel.wait_for()
    assert "ended after a long time without moves" in panel.inner_text()
    assert "during the bids of round 1 of 2" in panel.inner_text()
    page.wait_for_selector(".abandoned [data-verified='1']")
    assert seed.hex() in panel.inner_text()
    assert page.locator(".bids button").count() == 0
    assert page.locator("[data-sealed]").count() == 0
    assert page.locator("button.card:not([disabled])").count() == 0
    assert page.locator("[data-key='end-game']").count() == 0
    assert page.locator("[data-committed]").count() == 0  # no "… choosing a bid" any more
    page.wait_for_function("() => !document.body.innerText.includes('looking for the replay')")
    assert page.get_by_role("link", name="Watch the replay").count() == 0
    # The sealed bid is forgotten, never revealed; a digit key bids nothing.
    assert page.evaluate("sessionStorage.length") == 0
    page.keyboard.press("0")
    page.wait_for_timeout(200)
    assert [m["type"] for m in script.sent if m["type"] in ("commit", "reveal", "act")] == [
        "commit"
    ]


def test_a_seat_a_slow_game_waits_for_is_marked(mia: Any, screenshot_dir: Path) -> None:
    """``presence.held``: the table waits for that player (told by a push), no stand-in."""
    page, start = mia
    script = Script(
        [
            {
                "type": "snapshot",
                "room": CODE,
                "version": 5,
                "seat": 0,
                "role": "player",
                "view": _view(),
                "room_state": _summary(),
                "seed_digest": "00" * 32,
                "seed": None,
            },
            {
                "type": "presence",
                "room": CODE,
                "connected": [0, 2],
                "watchers": 0,
                "away": [],
                "held": [1],
            },
        ]
    )
    start(script)
    mark = page.locator(".player[data-seat='1'] [data-waiting='1']")
    mark.wait_for()
    assert mark.text_content() == "away: the table waits for them (told on their phone)"
    assert page.locator("[data-away='1']").count() == 0
    # Mia hosts: she may let a bot play for Ned until he is back (else the table waits on).
    button = page.locator("[data-key='stand-in'][data-seat='1']")
    page.screenshot(path=str(screenshot_dir / "held-seat-stand-in.png"), full_page=True)
    assert button.text_content() == "Let a bot play for Ned until they are back"
    button.click()
    for _ in range(100):  # the scripted server hears it (Playwright pumps its events here)
        if any(m["type"] == "stand_in" for m in script.sent):
            break
        page.wait_for_timeout(50)
    sent = [m for m in script.sent if m["type"] == "stand_in"]
    assert [{"type": m["type"], "seat": m["seat"]} for m in sent] == [
        {"type": "stand_in", "seat": 1}
    ]
    script.push({"type": "presence", "room": CODE, "connected": [0, 2], "watchers": 0,
                 "away": [1], "held": []})  # fmt: skip
    page.locator(".player[data-seat='1'] [data-away='1']").wait_for()
    assert page.locator("[data-key='stand-in']").count() == 0, "nothing held: no button"
    # Ned comes back: the mark goes.
    script.push({"type": "presence", "room": CODE, "connected": [0, 1, 2], "watchers": 0,
                 "away": [], "held": []})  # fmt: skip
    page.wait_for_function("() => !document.querySelector(\"[data-waiting='1']\")")
