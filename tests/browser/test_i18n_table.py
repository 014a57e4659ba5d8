"""A whole game in Vietnamese: the room before the start, the bidding,
the trick, the game over and the replay show no English text of the catalogue -- for the
player (1280x800) and for a spectator on a phone (390x844). Screenshots in
artifacts/screenshots/."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from test_i18n_pages import PAGE_TEXT, SIZES, english_leftovers, english_words

pytestmark = pytest.mark.browser


class Nguoi:
    """A Vietnamese-speaking person: drives the pages by their structure, never their words."""

    def __init__(self, chromium: Any, site: str, size: str) -> None:
        self.context = chromium.new_context(
            viewport=SIZES[size], locale="vi-VN", is_mobile=size == "phone"
        )
        self.page = self.context.new_page()
        self.site = site
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on(
            "console",
            lambda m: self.errors.append(m.text) if m.type in ("error", "warning") else None,
        )
        self.seen: dict[str, list[str]] = {}

    def name(self, name: str) -> None:
        self.page.fill("#name", name)
        self.page.locator("form button[type=submit]").click()

    def look(self, moment: str) -> None:
        """What the page shows now has no English leftovers."""
        text = self.page.evaluate(PAGE_TEXT)
        assert self.page.evaluate("document.documentElement.lang") == "vi"
        self.seen[moment] = english_leftovers(text) + english_words(text, ["Lan", "Minh"])

    def state(self) -> str:
        return str(
            self.page.evaluate(
                """() => {
                  if (document.querySelector('.gameover')) return 'over';
                  if (document.querySelector('.choice-dialog')) return 'choice';
                  if (document.querySelector('.bids button')) return 'bid';
                  if (document.querySelector('button.card:not([disabled])')) return 'play';
                  return 'wait';
                }"""
            )
        )

    def step(self) -> str:
        what = self.state()
        try:
            if what == "bid":
                self.look("bid")
                self.page.locator(".bids button").last.click(timeout=2000)
                self.page.click("button[data-key='seal']", timeout=2000)
            elif what == "play":
                self.look("play")
                self.page.locator("button.card:not([disabled])").first.click(timeout=1000)
            elif what == "choice":
                self.look("choice")
                self.page.click(".choice-dialog button[data-as='pirate']", timeout=1000)
        except Exception:  # the page changed under the click: look again
            return "retry"
        return what


def test_a_whole_game_in_vietnamese(site: str, chromium: Any, screenshot_dir: Path) -> None:
    lan = Nguoi(chromium, site, "desktop")
    lan.page.goto(site + "/")
    lan.name("Lan")
    lan.page.wait_for_selector("#game")
    lan.page.select_option("#game", "skull-king")
    lan.page.fill("#rounds", "2")
    lan.page.fill("#seats", "2")
    lan.page.locator("form[aria-label='tạo phòng'] button[type=submit]").click()
    lan.page.wait_for_url("**/r/*")
    lan.page.wait_for_selector("ol.seats li.me")
    lan.page.click("button[data-key^='bot-']")
    lan.page.wait_for_selector("ol.seats li[data-bot]")
    lan.page.click("button[data-key='ready']")
    lan.page.wait_for_selector("button[data-key='start']:not([disabled])")
    lan.look("room")
    lan.page.screenshot(path=str(screenshot_dir / "room-vi-desktop.png"), full_page=True)
    code = lan.page.url.rsplit("/r/", 1)[1]

    watcher = Nguoi(chromium, site, "phone")
    watcher.page.goto(f"{site}/r/{code}")
    watcher.name("Minh")
    watcher.page.wait_for_selector("ol.seats")

    lan.page.click("button[data-key='start']")
    deadline = time.monotonic() + 90
    shot = False
    while lan.state() != "over":
        if lan.step() == "play" and not shot:
            shot = True
            lan.page.screenshot(path=str(screenshot_dir / "table-vi-desktop.png"), full_page=True)
            watcher.page.wait_for_selector(".table-area")
            watcher.look("watching")
            watcher.page.screenshot(path=str(screenshot_dir / "table-vi-phone.png"), full_page=True)
        assert time.monotonic() < deadline, lan.page.inner_text("main")
        lan.page.wait_for_timeout(30)
    lan.page.wait_for_selector(".gameover [data-verified='1']")
    lan.look("over")
    lan.page.screenshot(path=str(screenshot_dir / "gameover-vi-desktop.png"), full_page=True)
    watcher.page.wait_for_selector(".gameover")
    watcher.look("over, watching")

    link = lan.page.locator(".gameover a[href^='/replay/']")
    link.wait_for(timeout=30000)
    replay = str(link.get_attribute("href"))
    for _ in range(20):  # the game reaches the archive within seconds
        lan.page.goto(site + replay)
        try:
            lan.page.wait_for_selector(".replay-controls", timeout=2000)
            break
        except Exception:
            continue
    lan.page.wait_for_selector("[data-verified='1']")
    lan.look("replay")
    lan.page.screenshot(path=str(screenshot_dir / "replay-vi-desktop.png"), full_page=True)

    assert {"room", "bid", "play", "over", "replay", "watching"} <= set(lan.seen) | set(
        watcher.seen
    )
    leftovers = {
        f"{who}/{moment}": found
        for who, person in (("Lan", lan), ("Minh", watcher))
        for moment, found in person.seen.items()
        if found
    }
    assert leftovers == {}
    for person in (lan, watcher):
        person.context.close()
        assert not person.errors, person.errors
