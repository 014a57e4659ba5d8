"""Loon & Score Cards in Vietnamese: the table at every kind of prompt,
the game over and the replay show no English text of the catalogue and no English words
written in the code -- for the player (1280x800) and a spectator on a phone (390x844). The
score cards keep their published titles (like the games' titles); their texts are
translated. Screenshots in artifacts/screenshots/loon-vi-*.png."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from test_catalogues import load  # tests/ is on the path (test_i18n_pages puts it there)
from test_i18n_pages import PAGE_TEXT, english_leftovers, english_words
from test_i18n_table import Nguoi

pytestmark = pytest.mark.browser

STATE = """() => {
  if (document.querySelector('.gameover')) return 'over';
  const p = document.querySelector('[data-prompt]');
  if (p) return p.dataset.prompt;
  if (document.querySelector('.hand-zone button.card:not([disabled])')) return 'play';
  return 'wait';
}"""

# The published titles of the score cards stay as they are, like the games' titles.
TITLES = [
    str(v) for k, v in load("en").items() if k.startswith("lt.card.") and k.endswith(".title")
]


class Nguoi2(Nguoi):
    def look(self, moment: str) -> None:
        text = self.page.evaluate(PAGE_TEXT)
        assert self.page.evaluate("document.documentElement.lang") == "vi"
        self.seen[moment] = english_leftovers(text) + english_words(text, ["Lan", "Minh", *TITLES])

    def step(self) -> str:
        page = self.page
        what = str(page.evaluate(STATE))
        try:
            # Each moment read once (its first time): reading the page costs ~0.2 s a time.
            if (
                what in ("bid", "pick", "award", "ditch", "predict", "play")
                and what not in self.seen
            ):
                self.look(what)
            if what == "bid":
                page.locator(".bids button").first.click(timeout=2000)
                page.click("[data-prompt='bid'] button[data-key='seal']", timeout=2000)
            elif what == "pick":
                page.locator(".hand-zone button.card:not([disabled])").first.click(timeout=2000)
                page.click("[data-prompt='pick'] button[data-key='seal']", timeout=2000)
            elif what == "award":
                page.locator("[data-prompt='award'] button").first.click(timeout=2000)
            elif what == "ditch":
                page.locator(".hand-zone button.card:not([disabled])").nth(0).click(timeout=2000)
                page.locator(".hand-zone button.card:not([disabled]):not(.chosen)").first.click(
                    timeout=2000
                )
                self.look("ditch, two chosen")
                page.click("[data-prompt='ditch'] button[data-key='seal']", timeout=2000)
            elif what == "predict":
                page.locator("[data-prompt='predict'] button").first.click(timeout=2000)
            elif what == "play":
                page.locator(".hand-zone button.card:not([disabled])").first.click(timeout=1000)
        except Exception:  # the page changed under the click: look again
            return "retry"
        return what


def test_a_whole_loon_game_in_vietnamese(site: str, chromium: Any, screenshot_dir: Path) -> None:
    lan = Nguoi2(chromium, site, "desktop")
    # A won trick is held 0.15 s, not 1.5 s (a whole game of tricks; holds are seen elsewhere).
    lan.context.add_init_script("localStorage.setItem('tortuga.holdMs', '150');")
    lan.page.goto(site + "/")
    lan.name("Lan")
    lan.page.wait_for_selector("#game")
    lan.page.select_option("#game", "loon-tricks")
    assert lan.page.input_value("#rounds") == "3"  # the game's own default (3-5)
    lan.page.fill("#seats", "3")
    lan.page.locator("form[aria-label='tạo phòng'] button[type=submit]").click()
    lan.page.wait_for_url("**/r/*")
    lan.page.wait_for_selector("ol.seats li.me")
    for n in (1, 2):
        lan.page.click("button[data-key^='bot-']")
        lan.page.wait_for_function(
            "n => document.querySelectorAll('ol.seats li[data-bot]').length >= n", arg=n
        )
    lan.page.click("button[data-key='ready']")
    lan.page.wait_for_selector("button[data-key='start']:not([disabled])")
    code = lan.page.url.rsplit("/r/", 1)[1]
    watcher = Nguoi2(chromium, site, "phone")
    watcher.context.add_init_script("localStorage.setItem('tortuga.holdMs', '150');")
    watcher.page.goto(f"{site}/r/{code}")
    watcher.name("Minh")
    watcher.page.wait_for_selector("ol.seats")

    lan.page.click("button[data-key='start']")
    deadline = time.monotonic() + 120
    shots: set[str] = set()
    while (did := lan.step()) != "over":
        if did in ("bid", "play") and did not in shots:
            shots.add(did)
            lan.page.screenshot(path=str(screenshot_dir / f"loon-vi-{did}.png"), full_page=True)
            watcher.page.wait_for_selector(".table-area")
            watcher.look(f"watching {did}")
            watcher.page.screenshot(
                path=str(screenshot_dir / f"loon-vi-{did}-phone.png"), full_page=True
            )
        assert time.monotonic() < deadline, lan.page.inner_text("main")
        lan.page.wait_for_timeout(30)
    lan.page.wait_for_selector(".gameover [data-verified='1']", timeout=15000)
    lan.look("over")
    lan.page.screenshot(path=str(screenshot_dir / "loon-vi-over.png"), full_page=True)
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
    # The hands show once a round's cards are ditched (a hand before the ditch, with the
    # tricks played after, would tell the ditched cards): step on until they do.
    for _ in range(80):
        if lan.page.locator(".hands-all .hand-row").count():
            break
        lan.page.keyboard.press("ArrowRight")
        lan.page.wait_for_timeout(50)
    lan.page.wait_for_selector(".hands-all .hand-row")
    assert lan.page.locator(".hands-all .hand-row").count() == 3
    lan.look("replay")
    lan.page.screenshot(path=str(screenshot_dir / "loon-vi-replay.png"), full_page=True)

    assert {"bid", "ditch", "play", "over", "replay", "watching play"} <= set(lan.seen) | set(
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
