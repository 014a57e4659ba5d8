"""Moments at the table, against a scripted server: a won trick held on screen, the Scary
Mary label, the suit to follow, the phone's layout, texts with plurals."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from test_table_mocked import CODE, USER, Script, _summary, _view
from web_harness import SOCKET_URL, scripted_deal

pytestmark = pytest.mark.browser

Start = Callable[[Script], None]


@pytest.fixture
def mia(chromium: Any, web_only_url: str) -> Iterator[tuple[Any, Start]]:
    """Mia (seat 0) at a 3-seat Skull King table; a held moment lasts until a click."""
    context = chromium.new_context()
    identity = json.dumps({"token": "tok", "user": USER})
    context.add_init_script(
        f"localStorage.setItem('tortuga.identity', {json.dumps(identity)});"
        "localStorage.setItem('tortuga.holdMs', '600000');"
    )
    page = context.new_page()
    page.route(f"**/api/rooms/{CODE}", lambda route: route.fulfill(json=_summary()))

    def start(script: Script) -> None:
        page.route_web_socket(SOCKET_URL, script.handler)
        page.goto(f"{web_only_url}/r/{CODE}")

    yield page, start
    context.close()


def _snapshot(view: dict[str, Any], version: int = 5) -> dict[str, Any]:
    return {
        "type": "snapshot",
        "room": CODE,
        "version": version,
        "seat": 0,
        "role": "player",
        "view": view,
        "room_state": _summary(),
        "seed_digest": "00" * 32,
        "seed": None,
    }


def _event(version: int, view: dict[str, Any], seat: int, card: str) -> dict[str, Any]:
    return {
        "type": "event",
        "room": CODE,
        "version": version,
        "seat": 0,
        "view": view,
        "event": {
            "kind": "move",
            "seats": [seat],
            "moves": {str(seat): {"play": card}},
            "defaults": [],
            "at": "",
            "status": "playing",
        },
        "deadline": None,
    }


def test_a_won_trick_is_held_until_a_click_while_later_frames_wait(mia: Any) -> None:
    """The client holds a completed trick (who won, the winning card marked, the cards
    gathering to the winner) for a readable time -- about 1.5 s, skippable by a click --
    while later frames queue. Here the hold is set to ten minutes: only the
    click ends it."""
    page, start = mia
    waiting = _view(
        trick=[{"seat": 1, "card": "blue-9"}],
        turn=2,
        prompt={"seats": [2], "kind": "play", "sealed": False},
        legal=[],
        hand=["red-3", "scary-mary"],
    )
    script = Script([_snapshot(waiting)])
    start(script)
    page.wait_for_selector(".trick-zone .played[data-seat='1']")
    plays = [
        {"seat": 1, "card": "blue-9"},
        {"seat": 2, "card": "blue-2"},
        {"seat": 0, "card": "blue-12"},
    ]
    won = _view(
        trick=[],
        turn=0,
        tricks=[1, 0, 0],
        last_trick={"plays": plays, "winner": 0},
        prompt={"seats": [0], "kind": "play", "sealed": False},
        legal=[{"play": "red-3"}],
        hand=["red-3", "scary-mary"],
        hand_sizes=[1, 0, 0],
    )
    # The trick is won and, at once, the next card comes (a bot leading the next trick).
    script.push(_event(6, won, 2, "blue-2"))
    after = _view(
        trick=[{"seat": 1, "card": "yellow-4"}],
        turn=2,
        tricks=[1, 0, 0],
        last_trick={"plays": plays, "winner": 0},
        prompt={"seats": [2], "kind": "play", "sealed": False},
        legal=[],
        hand=["red-3", "scary-mary"],
    )
    script.push(_event(7, after, 1, "yellow-4"))
    held = page.locator(".trick[data-held='1']")
    held.wait_for()
    assert "Mia wins the trick" in held.inner_text()
    winner = held.locator(".played.winner")
    assert winner.count() == 1 and winner.get_attribute("data-seat") == "0"
    assert "wins" in winner.inner_text()
    assert held.locator(".played").count() == 3
    # Version 7 waits: its card is not on the table yet.
    assert page.locator("[data-card='yellow-4']").count() == 0
    held.click()
    page.wait_for_selector(".trick-zone .played[data-seat='1'] [data-card='yellow-4']")
    assert page.locator(".trick[data-held='1']").count() == 0


def test_a_digit_pressed_while_a_trick_is_held_bids_on_the_table_as_it_is_now(
    mia: Any,
) -> None:
    """A key pressed during a held moment is meant for the table the player is about to
    see: the frames that waited are drawn first (holding none), as for a click on a
    control, and the key acts there. The last trick of round 1 is held while round 2's
    sealed bids wait behind it; "1" chooses the bid 1 (before, the key found no bidding
    under way and was lost)."""
    page, start = mia
    plays = [
        {"seat": 1, "card": "blue-9"},
        {"seat": 2, "card": "blue-2"},
        {"seat": 0, "card": "blue-12"},
    ]
    last_card = _view(
        round=1,
        trick=plays[:2],
        hand=["blue-12"],
        hand_sizes=[1, 0, 0],
        prompt={"seats": [0], "kind": "play", "sealed": False},
        legal=[{"play": "blue-12"}],
    )
    script = Script([_snapshot(last_card)])
    start(script)
    page.wait_for_selector(".trick-zone .played[data-seat='2']")
    bidding = _view(
        phase="bid",
        round=2,
        hand=["red-3", "black-7"],
        trick=[],
        order=[],
        bids=[None] * 3,
        turn=None,
        tricks=[0, 0, 0],
        last_trick={"plays": plays, "winner": 0},
        prompt={"seats": [0, 1, 2], "kind": "bid", "sealed": True},
        legal=[{"bid": 0}, {"bid": 1}, {"bid": 2}],
        hand_sizes=[2, 2, 2],
    )
    script.push(_event(6, bidding, 0, "blue-12"))
    script.push(
        {
            "type": "sealed",
            "room": CODE,
            "version": 6,
            "phase": "bid@6",
            "kind": "bid",
            "seats": [0, 1, 2],
            "committed": {},
            "open": False,
            "revealed": [],
            "commit_by": None,
            "open_by": None,
        }
    )
    page.locator(".trick[data-held='1']").wait_for()
    page.keyboard.press("1")
    chosen = page.locator(".bids button[aria-pressed='true']")
    chosen.wait_for()
    assert chosen.inner_text().strip() == "1"
    assert page.locator(".trick[data-held='1']").count() == 0, "the moment went on"


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def test_the_as_pirate_label_stays_clear_of_the_players_name(mia: Any) -> None:
    """The 'as pirate' label under a played Scary Mary is not drawn over the player's
    name."""
    page, start = mia
    view = _view(
        trick=[{"seat": 1, "card": "scary-mary", "as": "pirate"}, {"seat": 2, "card": "blue-2"}],
        legal=[{"play": "red-3"}],
        hand=["red-3"],
    )
    start(Script([_snapshot(view)]))
    played = page.locator(".trick-zone .played[data-seat='1']")
    played.wait_for()
    label = played.locator(".as").bounding_box()
    name = played.locator(".by").bounding_box()
    assert label and name
    assert not _overlap(label, name)
    assert "as pirate" in played.inner_text()


def test_the_suit_to_follow_is_shown_and_why_a_card_is_greyed(mia: Any) -> None:
    """The table shows the suit to follow (or 'no suit yet: the first number sets it'), and
    why a card is disabled (hover / long-press). The view names the suit
    (engines/skull_king/views.py: led, led_open); the page only shows it."""
    page, start = mia
    view = _view(
        trick=[{"seat": 1, "card": "blue-9"}, {"seat": 2, "card": "blue-2"}],
        led="blue",
        led_open=False,
        hand=["blue-5", "red-3", "escape-1"],
        legal=[{"play": "blue-5"}, {"play": "escape-1"}],
    )
    script = Script([_snapshot(view)])
    start(script)
    follow = page.locator("[data-follow]")
    follow.wait_for()
    assert follow.get_attribute("data-follow") == "blue"
    assert "Suit to follow" in follow.inner_text() and "blue" in follow.inner_text()
    red = page.locator("button.card[data-card='red-3']")
    assert red.is_disabled()
    why = str(red.get_attribute("title"))
    assert "follow blue" in why
    # The same reason in words under the hand, for a phone (no hover there).
    assert "follow blue" in page.inner_text(".hand-why")
    # A new trick: nothing led yet.
    empty = _view(
        trick=[],
        led=None,
        led_open=True,
        hand=["blue-5", "red-3"],
        legal=[{"play": "blue-5"}, {"play": "red-3"}],
    )
    script.push(_event(6, empty, 2, "blue-2"))
    page.wait_for_selector("[data-follow='']")
    assert "No suit yet: the first number card sets it" in page.inner_text("[data-follow]")


PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 1, "is_mobile": True}
LONG_NAMES = ["Mia", "Bartholomew Roberts", "Grace O'Malley", "Henry Every the Arch-Pirate"]


def _four_seats() -> dict[str, Any]:
    room = _summary()
    room["players"] = 4
    room["options"] = {"rounds": 10}
    room["seats"] = [
        {
            "seat": i,
            "user": f"g_{i}" if i else "g_me",
            "name": n,
            "bot": None,
            "ready": True,
            "connected": True,
        }
        for i, n in enumerate(LONG_NAMES)
    ]
    return room


def _in_view(page: Any, selector: str) -> bool:
    return bool(
        page.evaluate(
            """s => { const r = document.querySelector(s).getBoundingClientRect();
                      return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0; }""",
            selector,
        )
    )


def test_on_a_phone_the_bid_and_the_hand_come_into_view_and_the_sheet_scrolls(
    chromium: Any, web_only_url: str
) -> None:
    """On a phone (390x844) the hand is pinned at the bottom, my turn brings the bid or the
    hand into view, and the score sheet scrolls sideways (a 4th player is not cut off)."""
    context = chromium.new_context(**PHONE)
    identity = json.dumps({"token": "tok", "user": USER})
    context.add_init_script(f"localStorage.setItem('tortuga.identity', {json.dumps(identity)})")
    page = context.new_page()
    page.route(f"**/api/rooms/{CODE}", lambda route: route.fulfill(json=_four_seats()))
    sheet = [
        {
            "round": r,
            "cards": r,
            "bids": [1, 0, 2, 1],
            "tricks": [1, 0, 1, 1],
            "bonus": [0, 0, 0, 30],
            "points": [20, 10 * r, -10, 50],
        }
        for r in range(1, 7)
    ]
    common = {
        "players": 4,
        "round": 7,
        "rounds": 10,
        "cards": 7,
        "dealer": 3,
        "sheet": sheet,
        "scores": [120, 210, -60, 300],
        "tricks": [0, 0, 0, 0],
        "hand_sizes": [7, 7, 7, 7],
    }
    hand = ["yellow-2", "red-3", "red-9", "blue-5", "black-7", "pirate-2", "escape-1"]
    bidding = _view(
        **common,
        phase="bid",
        hand=hand,
        trick=[],
        order=[],
        bids=[None] * 4,
        turn=None,
        prompt={"seats": [0, 1, 2, 3], "kind": "bid", "sealed": True},
        legal=[{"bid": n} for n in range(8)],
    )
    script = Script(
        [
            _snapshot(bidding) | {"room_state": _four_seats()},
            {
                "type": "sealed",
                "room": CODE,
                "version": 5,
                "phase": "bid@5",
                "kind": "bid",
                "seats": [0, 1, 2, 3],
                "committed": {},
                "open": False,
                "revealed": [],
                "commit_by": None,
                "open_by": None,
            },
        ]
    )
    try:
        page.route_web_socket(SOCKET_URL, script.handler)
        page.goto(f"{web_only_url}/r/{CODE}")
        page.wait_for_selector(".bids button")
        # Every bid button and the Seal button are on screen and not under the pinned hand.
        page.wait_for_function(
            """() => [...document.querySelectorAll(".bids button, [data-key='seal']")].every(b => {
                 const r = b.getBoundingClientRect();
                 const x = r.left + r.width / 2, y = r.top + r.height / 2;
                 return y > 0 && y < window.innerHeight
                        && b.contains(document.elementFromPoint(x, y));
               })"""
        )
        # The sheet: every player's column can be reached (condensed, scrolled sideways in
        # its panel), and the page itself never scrolls sideways.
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        last = page.locator(".sheet-table thead th").nth(4)
        last.scroll_into_view_if_needed()
        box = last.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390
        assert "Henry" in last.inner_text()
        # The bids are in: my turn to lead. Scrolled to the top, the hand is still on screen.
        playing = _view(
            **common,
            phase="play",
            hand=hand,
            trick=[],
            bids=[1, 0, 2, 1],
            order=[0, 1, 2, 3],
            turn=0,
            prompt={"seats": [0], "kind": "play", "sealed": False},
            legal=[{"play": c} for c in hand],
        )
        script.push(
            _event(6, playing, 0, "x") | {"event": {"kind": "reveal", "seats": [0, 1, 2, 3]}}
        )
        page.wait_for_selector("button.card:not([disabled])")
        page.evaluate("window.scrollTo(0, 0)")
        assert _in_view(page, ".hand-zone")
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    finally:
        context.close()


def test_a_spectators_badge_counts_one_round_in_the_singular(
    chromium: Any, web_only_url: str
) -> None:
    """The spectator's verified badge counts with the right plural ("the dealer of 1
    round", never "dealers of 1 rounds"). A one-round game watched from its deal to its end
    (the engine's own views), then checked against the revealed seed in the browser."""
    import hashlib as _hashlib

    from engines.registry import GAMES

    game = GAMES["skull-king"]
    seed, deal, server_seed = scripted_deal(3)
    state = game.start(game.options({"rounds": 1}), 3, seed)
    first = game.view(state, None)
    while not game.prompt(state).over:
        prompt = game.prompt(state)
        seats = prompt.seats if prompt.sealed else prompt.seats[:1]
        state = game.step(state, {s: game.legal(state, s)[0] for s in seats})
    last = game.view(state, None)
    room = _summary()
    room["options"] = {"rounds": 1}
    room["seed_digest"] = _hashlib.sha256(seed).hexdigest()
    room.update(deal)
    for s in room["seats"]:
        s["user"] = f"g_other{s['seat']}"
    context = chromium.new_context()
    identity = json.dumps({"token": "tok", "user": USER})
    context.add_init_script(f"localStorage.setItem('tortuga.identity', {json.dumps(identity)})")
    page = context.new_page()
    page.route(f"**/api/rooms/{CODE}", lambda route: route.fulfill(json=room))
    snapshot = _snapshot(first, version=1) | {
        "seat": None,
        "role": "spectator",
        "room_state": room,
        "seed_digest": room["seed_digest"],
    }
    end = {
        "type": "event",
        "room": CODE,
        "version": 2,
        "seat": None,
        "view": last,
        "event": {
            "kind": "move",
            "seats": [],
            "moves": {},
            "defaults": [],
            "at": "",
            "status": "finished",
            "seed": seed.hex(),
            "server_seed": server_seed,
        },
        "deadline": None,
    }
    script = Script([snapshot, end])
    try:
        page.route_web_socket(SOCKET_URL, script.handler)
        page.goto(f"{web_only_url}/r/{CODE}")
        badge = page.locator("[data-verified='1']")
        badge.wait_for()
        text = badge.inner_text()
        assert "the dealer of 1 round" in text and "rounds" not in text, text
    finally:
        context.close()


def test_sounds_are_opt_in_and_a_played_card_flies_in_unless_motion_is_reduced(
    chromium: Any, web_only_url: str
) -> None:
    """Finishing touches: "Opt-in sounds (your turn, reveal, trick won), off by default" and
    "short animations (a card flying to the table, ...) that respect prefers-reduced-motion"."""
    for motion in ("no-preference", "reduce"):
        context = chromium.new_context(reduced_motion=motion)
        identity = json.dumps({"token": "tok", "user": USER})
        context.add_init_script(
            f"localStorage.setItem('tortuga.identity', {json.dumps(identity)});"
            "localStorage.setItem('tortuga.holdMs', '600000');"
        )
        page = context.new_page()
        page.route(f"**/api/rooms/{CODE}", lambda route: route.fulfill(json=_summary()))
        waiting = _view(
            trick=[{"seat": 1, "card": "blue-9"}],
            turn=2,
            prompt={"seats": [2], "kind": "play", "sealed": False},
            legal=[],
        )
        script = Script([_snapshot(waiting)])
        page.route_web_socket(SOCKET_URL, script.handler)
        page.goto(f"{web_only_url}/r/{CODE}")
        page.wait_for_selector(".trick-zone .played[data-seat='1']")
        played = "async () => (await import('/static/js/sounds.js')).played.slice()"
        toggle = page.locator("input[data-key='sounds']")
        assert not toggle.is_checked()
        mine = _view(
            trick=[{"seat": 1, "card": "blue-9"}, {"seat": 2, "card": "blue-2"}],
            turn=0,
            legal=[{"play": "red-3"}],
            hand=["red-3", "scary-mary"],
        )
        script.push(_event(6, mine, 2, "blue-2"))
        page.wait_for_selector("button.card:not([disabled])")
        assert page.evaluate(played) == []  # my turn, and not a sound: they are off
        fresh = page.locator(".trick-zone .played.fresh")
        assert fresh.count() == 1 and fresh.get_attribute("data-seat") == "2"
        animation = page.eval_on_selector(
            ".trick-zone .played.fresh .card", "c => getComputedStyle(c).animationName"
        )
        assert animation == ("none" if motion == "reduce" else "fly-in")
        toggle.check()
        assert page.evaluate(played) == ["turn"]  # the sample when switched on
        won = _view(
            trick=[],
            turn=0,
            tricks=[1, 0, 0],
            last_trick={"plays": mine["trick"] + [{"seat": 0, "card": "red-3"}], "winner": 1},
            legal=[{"play": "scary-mary"}],
            hand=["scary-mary"],
        )
        script.push(_event(7, won, 0, "red-3"))
        page.wait_for_selector(".trick[data-held='1']")
        assert page.evaluate(played) == ["turn", "trick"]
        context.close()


def test_card_faces_are_svg_and_the_shape_tells_the_suit(mia: Any) -> None:
    """Finishing touches: "Card faces drawn as SVG (suits with symbols and colours; each
    special card with its own emblem), readable at phone width and with colour never the
    only cue." """
    page, start = mia
    hand = ["yellow-2", "red-3", "blue-5", "black-7", "escape-1", "pirate-2", "mermaid-1"]
    hand += ["skull-king", "scary-mary"]
    view = _view(trick=[], hand=hand, legal=[{"play": c} for c in hand], hand_sizes=[9, 9, 9])
    start(Script([_snapshot(view)]))
    page.wait_for_selector(".hand button.card")
    shapes = page.eval_on_selector_all(
        ".hand button.card", "cs => cs.map(c => c.querySelector('.sym svg.emblem')?.classList[1])"
    )
    assert None not in shapes
    assert len(set(shapes)) == len(hand)  # four suits, five specials: nine different pictures
