"""A player who closes the tab: after the grace time a bot plays the seat, everyone sees it,
and the player who comes back through the link gets the seat and the hand back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from players import Person, play_until_over

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def site_changes() -> dict[str, Any]:
    return {"grace_seconds": 1.0}


def test_a_bot_plays_for_a_player_who_left(site: str, chromium: Any, screenshot_dir: Path) -> None:
    jo = Person(chromium, site, "Jo", hold_ms=300)
    kim = Person(chromium, site, "Kim", hold_ms=300)
    try:
        jo.open("/")
        jo.choose_name()
        code = jo.create_room(rounds=2, seats=3)
        kim.open(f"/r/{code}")
        kim.choose_name()
        kim.sit_anywhere()
        jo.add_bot("heuristic")
        kim.ready()
        jo.ready()
        jo.page.get_by_role("button", name="Start the game").click()
        kim.page.wait_for_selector(".bids button")
        kim_seat = kim.my_seat()
        kim.page.goto("about:blank")  # Kim closes the tab
        jo.page.wait_for_selector(f".player[data-seat='{kim_seat}'] [data-away='1']", timeout=15000)
        jo.shot(screenshot_dir, "away")
        notes: set[str] = set()

        def look(person: Person, did: str) -> None:
            for text in person.page.eval_on_selector_all(
                ".note", "ns => ns.map(n => n.textContent)"
            ):
                if " is away: " in text:
                    notes.add(text)

        play_until_over([jo], timeout=60, hook=look)
        # The bot's moves for Kim were flagged to everyone, in the frames and on the page.
        flagged = [f for f in jo.frames if f.get("type") == "event" and f["event"].get("proxies")]
        assert flagged and all(f["event"]["proxies"] == [kim_seat] for f in flagged)
        assert any(n.startswith("Kim is away: a bot ") for n in notes), notes
        # Kim comes back by the link: her seat, her (empty) hand, the same final scores.
        kim.open(f"/r/{code}")
        kim.page.wait_for_selector(".gameover")
        assert kim.my_seat() == kim_seat
        assert kim.final_scores() == jo.final_scores()
    finally:
        jo.close()
        kim.close()
