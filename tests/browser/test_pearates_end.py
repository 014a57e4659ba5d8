"""The end of a Pearates game has a score chart like the other games': each player's score
after every round, drawn from the archive's replay (a Pearates view holds the scores now,
not each round's) -- for a spectator too, at 1280x800 and 390x844, in English and
Vietnamese. Screenshots in artifacts/screenshots/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from players import Person
from test_i18n_pages import SIZES

pytestmark = pytest.mark.browser

CHART = ".gameover figure.chart svg.score-chart"


def scroll_to(page: Any, selector: str) -> None:
    """Scroll the element into view in one step of the page's own: the table redraws as
    frames come (a new element each time), so a locator's wait for a stable element can
    find it detached."""
    page.wait_for_selector(selector)
    page.evaluate("s => document.querySelector(s).scrollIntoView({block: 'center'})", selector)


@pytest.mark.parametrize("size", list(SIZES))
def test_a_pearates_game_ends_with_its_score_chart(
    site: str, chromium: Any, screenshot_dir: Path, size: str
) -> None:
    context: dict[str, Any] = {"viewport": SIZES[size], "is_mobile": size == "phone"}
    host = Person(chromium, site, "Hana", hold_ms=50, **context)
    page = host.page
    try:
        host.open("/")
        host.choose_name()
        page.wait_for_selector("form[aria-label='create a room']")
        page.select_option("#game", "pearates")
        page.fill("#seats", "3")
        page.get_by_role("button", name="Create the room").click()
        page.wait_for_url("**/r/*")
        page.wait_for_selector("ol.seats li.me")
        page.get_by_role("button", name="Stand up").click()  # a game of bots, watched
        page.wait_for_selector("ol.seats li.me", state="detached")
        for _ in range(3):
            host.add_bot("random")
        page.get_by_role("button", name="Start the game").click()
        page.wait_for_selector(".gameover", timeout=60000)
        chart = page.locator(CHART)
        chart.wait_for(timeout=20000)

        # The history it draws is the replay's: one line per player, one point per round,
        # ending at the final scores.
        game_id = str(page.get_attribute("a[data-key='replay']", "href")).split("/")[2]
        game_id = game_id.split("?")[0]
        frames = httpx.get(
            f"{site}/api/history/games/{game_id}/replay", params={"view": "round,outcome"}
        ).json()["frames"]
        rounds = sorted({f["view"]["round"] for f in frames})
        final = frames[-1]["view"]["outcome"]["scores"]
        assert chart.locator("polyline").count() == 3
        for seat in range(3):
            points = chart.locator(f"g[data-seat='{seat}'] > :not(polyline)")
            assert points.count() == len(rounds)
        legend = page.locator(".gameover .chart-legend li")
        assert [int(t.rsplit(" ", 1)[1]) for t in legend.all_inner_texts()] == final
        assert page.inner_text(".gameover figcaption").startswith("Scores after each round")
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        scroll_to(page, CHART)
        page.screenshot(path=str(screenshot_dir / f"pearates-chart-en-{size}.png"))

        page.evaluate("() => localStorage.setItem('tortuga.lang', 'vi')")
        page.reload()
        chart.wait_for(timeout=20000)
        assert page.inner_text(".gameover figcaption").startswith("Điểm sau mỗi ván")
        assert chart.locator("polyline").count() == 3
        scroll_to(page, CHART)
        page.screenshot(path=str(screenshot_dir / f"pearates-chart-vi-{size}.png"))
        assert not host.errors, host.errors
    finally:
        host.close()
