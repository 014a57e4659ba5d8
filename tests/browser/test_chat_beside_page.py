"""The room's chat at the table of every game, against a scripted server (views from the
engines): beside the table on a wide screen (1280x800), under it on a phone (390x844) -- or,
for a game whose deals are table talk (Pearates), pinned at the bottom of the phone's screen,
foldable to its heading. A message that comes while the chat is folded or out of view is
counted ("1 new") until it is seen. Screenshots in artifacts/screenshots/."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from test_moments_page import Table, _snapshot
from test_table_mocked import CODE, Script, _summary

from engines.registry import GAMES

pytestmark = pytest.mark.browser

GAMES_SHOWN = ["skull-king", "bid-tricks", "loon-tricks", "pearates", "pirate-king"]
_said = itertools.count(1)


def _room(game: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A 3-seat room of ``game`` just started, and seat 0's view of it (the engine's own)."""
    engine = GAMES[game]
    state = engine.start(engine.options({}), 3, bytes(range(32)))
    summary = _summary() | {"game": game, "title": game, "options": {}}
    return summary, engine.view(state, 0)


def _say(script: Script, text: str, user: str = "g_ned", name: str = "Ned") -> None:
    n = next(_said)
    script.push(
        {
            "type": "chat",
            "room": CODE,
            "id": f"m{n}",
            "user": user,
            "name": name,
            "text": text,
            "at": f"2025-01-01T00:00:{n:02d}Z",
        }
    )


def _box(page: Any, selector: str) -> dict[str, float]:
    box = page.locator(selector).first.bounding_box()
    assert box, selector
    return dict(box)


def _unread(page: Any) -> str:
    return str(page.get_attribute(".chat-panel .unread", "data-unread"))


@pytest.mark.parametrize("game", GAMES_SHOWN)
def test_the_chat_is_beside_the_table_with_an_unread_mark(
    chromium: Any, web_only_url: str, screenshot_dir: Path, game: str
) -> None:
    """1280x800: the chat stands to the right of the table, both at the top of the page; a
    message read there leaves no mark; folded, a message shows "1 new" on its heading,
    cleared when it is opened again."""
    summary, view = _room(game)
    table = Table(chromium, web_only_url, "desktop", summary)
    try:
        script = Script([_snapshot(view, summary)])
        page = table.start(script)
        page.wait_for_selector("main.table-side .table-area")
        area, chat = _box(page, ".table-area"), _box(page, ".chat-panel")
        assert chat["x"] >= area["x"] + area["width"] - 1, (area, chat)
        assert chat["y"] < area["y"] + 60 and chat["y"] + chat["height"] < 800, (area, chat)
        assert area["width"] >= 800, area  # the table keeps most of the width
        _say(script, "Ahoy, all!")
        page.wait_for_selector(".chat-log >> text=Ahoy, all!")
        assert _unread(page) == "0" and page.locator(".chat-panel .unread").is_hidden()
        page.click(".chat-toggle")
        assert page.locator(".chat-log").is_hidden()
        _say(script, "Mind the Kraken")
        mark = page.locator(".chat-panel .unread")
        mark.wait_for()
        assert mark.inner_text() == "1 new" and _unread(page) == "1"
        assert page.locator(".chat-jump").is_hidden()  # the heading is in sight
        _say(script, "me too", user="g_me", name="Mia")  # my own: never unread
        page.wait_for_function("() => window.tortuga.chat.length === 3")
        assert _unread(page) == "1"
        page.screenshot(path=str(screenshot_dir / f"chat-beside-{game}-desktop.png"))
        page.click(".chat-toggle")
        page.wait_for_selector(".chat-panel .unread", state="hidden")
        assert _unread(page) == "0"
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    finally:
        table.close()


@pytest.mark.parametrize("game", GAMES_SHOWN)
def test_on_a_phone_the_chat_leaves_the_table_clear_and_marks_unread(
    chromium: Any, web_only_url: str, screenshot_dir: Path, game: str
) -> None:
    """390x844: the chat is under the table (Pearates: pinned at the bottom, foldable to its
    heading). A message while the chat is out of sight (or folded) is marked "1 new" -- and,
    when the chat is off screen, on a small button that brings it in -- until it is seen."""
    summary, view = _room(game)
    table = Table(chromium, web_only_url, "phone", summary)
    try:
        script = Script([_snapshot(view, summary)])
        page = table.start(script)
        page.wait_for_selector("main.table-side .table-area")
        page.evaluate("window.scrollTo(0, 0)")
        area, chat = _box(page, ".table-area"), _box(page, ".chat-panel")
        if game == "pearates":
            # Pinned at the bottom of the screen (table talk), and folded to its heading
            # until the player opens it: open, it hid the table under it.
            assert chat["y"] + chat["height"] <= 844 + 1 and chat["y"] > 844 / 2, chat
            assert chat["height"] < 60, chat
            _say(script, "Pass and I give you the bottom card")
            page.locator(".chat-panel .unread").wait_for()
            assert _unread(page) == "1"
            page.screenshot(path=str(screenshot_dir / f"chat-phone-{game}-phone.png"))
            page.click(".chat-toggle")  # opened: the player's choice, kept in this browser
            assert page.evaluate("localStorage.getItem('tortuga.chatFolded')") == "false"
        elif chat["y"] + 60 < 844:
            # Under the table, never over it -- and a table short enough (Pirate King!'s at its
            # start, with the phone's compact header) that the chat's heading shows at the foot
            # of the first screen, its log below it: a message is marked on the heading, and
            # the mark goes once the log is scrolled into sight.
            assert chat["y"] >= area["y"] + area["height"], (area, chat)
            _say(script, "Ahoy from below")
            page.locator(".chat-panel .unread").wait_for()
            assert _unread(page) == "1"
            page.screenshot(path=str(screenshot_dir / f"chat-phone-{game}-phone.png"))
            page.locator(".chat-log").scroll_into_view_if_needed()
        else:
            # Under the table, never over it; at the top of the page it is out of sight.
            assert chat["y"] >= area["y"] + area["height"], (area, chat)
            _say(script, "Ahoy from below")
            jump = page.locator(".chat-jump")
            jump.wait_for()
            assert "1 new" in jump.inner_text() and _unread(page) == "1"
            jump_box = _box(page, ".chat-jump")
            assert jump_box["width"] < 120 and jump_box["height"] < 50, jump_box  # small
            page.screenshot(path=str(screenshot_dir / f"chat-phone-{game}-phone.png"))
            jump.click()
        page.wait_for_selector(".chat-panel .unread", state="hidden")
        assert page.locator(".chat-jump").is_hidden() and _unread(page) == "0"
        assert page.locator(".chat-log").is_visible()
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    finally:
        table.close()
