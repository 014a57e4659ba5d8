"""Every page of a game at desktop (1280x800) and phone (390x844) width, saved under
artifacts/screenshots/ (not committed) for a person to look at: the lobby, a room before the
start, the table while bidding and while playing, a won trick held, the game over, the replay.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from players import Person, play_until_over

pytestmark = pytest.mark.browser

SIZES = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {
        "viewport": {"width": 390, "height": 844},
        "device_scale_factor": 1,
        "is_mobile": True,
    },
}


@pytest.mark.parametrize("size", list(SIZES))
def test_screenshots_of_every_page(
    site: str, chromium: Any, screenshot_dir: Path, size: str
) -> None:
    hana = Person(chromium, site, "Hana", **SIZES[size])
    page = hana.page
    # A won trick stays until a click: long enough to photograph.
    page.context.add_init_script("localStorage.setItem('tortuga.holdMs', '4000')")

    def shot(name: str, full: bool = True) -> None:
        page.screenshot(path=str(screenshot_dir / f"table-{name}-{size}.png"), full_page=full)
        # Nothing sticks out sideways: the page never scrolls horizontally.
        wide = page.evaluate(
            """() => [...document.querySelectorAll("body *")]
                 .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1)
                 .slice(0, 5).map(e => e.tagName + "." + e.className)"""
        )
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), (
            name,
            wide,
        )

    try:
        hana.open("/")
        hana.choose_name()
        page.wait_for_selector("form[aria-label]")
        shot("lobby")
        hana.create_room(rounds=3, seats=4)
        hana.add_bot("heuristic")
        hana.add_bot("random")
        hana.add_bot("heuristic")
        shot("room")
        hana.ready()
        page.get_by_role("button", name="Start the game").click()
        page.wait_for_selector(".bids button")
        shot("bidding", full=False)
        hana.bid(1)
        page.wait_for_selector(".table-area[data-phase='play']")
        held = False
        deadline = time.monotonic() + 60
        while not held and time.monotonic() < deadline:
            if page.locator(".trick[data-held='1']").count():
                shot("trick-won", full=False)
                held = True
                break
            state = hana.state()
            if state == "play":
                shot("playing", full=False)
            if state in ("play", "choice"):  # Scary Mary asks "pirate or escape?"
                hana.step()
            page.wait_for_timeout(100)
        assert held
        # Photographed: the rest of the game's tricks are held 0.15 s.
        page.evaluate("() => localStorage.setItem('tortuga.holdMs', '150')")
        play_until_over([hana], timeout=120)
        page.wait_for_selector("[data-verified='1']", timeout=10000)
        shot("game-over")
        page.locator("a[data-key='replay']").click()
        page.wait_for_selector(".replay-controls, main [role='alert']", timeout=20000)
        for _ in range(20):
            if page.locator(".replay-controls").count():
                break
            page.wait_for_timeout(300)
            page.reload()
            page.wait_for_selector(".replay-controls, main [role='alert']", timeout=20000)
        shot("replay")
    finally:
        hana.close()
