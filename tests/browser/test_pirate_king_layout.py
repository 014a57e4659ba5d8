"""Pirate King!'s zones at 1280x800 and 390x844, against a scripted server (a view from the
engine, mid-round, four players, Mia in the third seat): my own zone comes first, the
others after it in seat order; on a wide screen the zones stand side by side, two to a row,
beside the chat; on a phone one under the other. Screenshots in artifacts/screenshots/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_moments_page import Table, _snapshot
from test_table_mocked import Script, _summary

from engines.registry import GAMES

pytestmark = pytest.mark.browser

NAMES = ["Ned", "Olga", "Mia", "Pip"]
ME = 2


def _mid_round() -> dict[str, Any]:
    """Mia's view once every zone shows cards (random bots play the engine)."""
    from engines.rng import Rng

    game = GAMES["pirate-king"]
    for n in range(40):
        seed = bytes([n]) * 32
        state = game.start(game.options({}), 4, seed)
        rng = Rng(seed, "test-layout")
        while game.outcome(state) is None:
            view = game.view(state, ME)
            if view["phase"] == "play" and all(len(s["zone"]) >= 2 for s in view["table"]):
                return view
            prompt = game.prompt(state)
            moves = {
                s: game.bot("random")(game.view(state, s), game.legal(state, s), rng)
                for s in prompt.seats
            }
            state = game.step(
                state, moves if prompt.sealed else {prompt.seats[0]: moves[prompt.seats[0]]}
            )
    raise AssertionError("no round with cards in every zone")


def _room() -> dict[str, Any]:
    room = _summary() | {
        "game": "pirate-king",
        "title": "Pirate King!",
        "options": {},
        "players": 4,
    }
    room["seats"] = [
        {
            "seat": i,
            "user": "g_me" if i == ME else f"g_{n.lower()}",
            "name": n,
            "bot": None,
            "ready": True,
            "connected": True,
        }
        for i, n in enumerate(NAMES)
    ]
    return room


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_my_zone_comes_first_and_zones_stand_side_by_side_when_there_is_room(
    chromium: Any, web_only_url: str, screenshot_dir: Path, size: str
) -> None:
    room, view = _room(), _mid_round()
    table = Table(chromium, web_only_url, size, room)
    try:
        page = table.start(Script([_snapshot(view, room) | {"seat": ME}]))
        page.wait_for_selector(".pk-seat [data-zone] .pk-card")
        page.wait_for_function("() => document.querySelector('link[data-pk-css]').sheet")
        page.screenshot(path=str(screenshot_dir / f"pk-zones-{size}.png"), full_page=True)
        zones = page.locator(".pk-seat").evaluate_all(
            "zs => zs.map(z => { const r = z.getBoundingClientRect();"
            " return {seat: +z.dataset.seat, me: z.classList.contains('me'),"
            " x: r.x, y: r.y, w: r.width, h: r.height}; })"
        )
        # Mine first, then the seats after mine, round the table.
        assert [z["seat"] for z in zones] == [2, 3, 0, 1]
        assert zones[0]["me"] and "Mia" in page.locator(".pk-seat").first.inner_text()
        first, second, third = zones[0], zones[1], zones[2]
        if size == "desktop":
            # Two to a row: the second beside the first, the third under the first.
            assert abs(second["y"] - first["y"]) < 2 and second["x"] >= first["x"] + first["w"], (
                zones
            )
            assert abs(third["x"] - first["x"]) < 2 and third["y"] >= first["y"] + first["h"], zones
            chat = page.locator(".chat-panel").bounding_box()
            assert chat and chat["x"] >= second["x"] + second["w"], (chat, zones)
        else:
            # One under the other, each the table's width.
            assert all(abs(z["x"] - first["x"]) < 2 for z in zones), zones
            assert second["y"] >= first["y"] + first["h"], zones
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    finally:
        table.close()
