"""axe-core on the lobby, a room before the start and the table in play: no serious or
critical violation. axe-core is vendored for the tests only
(tests/browser/vendor/, MPL-2.0) and injected by the test, never served by the site.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from players import Person
from web_harness import SOCKET_URL

pytestmark = pytest.mark.browser

AXE = (Path(__file__).parent / "vendor" / "axe.min.js").read_text(encoding="utf-8")
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 1, "is_mobile": True}


def serious(person: Person, where: str) -> list[str]:
    """The serious and critical violations axe finds on the page now."""
    page = person.page
    page.evaluate(AXE)  # evaluated over the DevTools protocol: the page's CSP does not apply
    found = page.evaluate(
        """async () => {
             const r = await axe.run(document, { resultTypes: ["violations"] });
             return r.violations
               .filter(v => v.impact === "serious" || v.impact === "critical")
               .map(v => `${v.id} (${v.impact}): `
                         + v.nodes.slice(0, 3).map(n => n.target.join(" ")).join(" | "));
           }"""
    )
    return [f"{where}: {line}" for line in found]


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_no_serious_accessibility_violations(site: str, chromium: Any, size: str) -> None:
    options = PHONE if size == "phone" else {"viewport": {"width": 1280, "height": 800}}
    hana = Person(chromium, site, "Hana", **options)
    try:
        problems: list[str] = []
        hana.open("/")
        hana.choose_name()
        hana.page.wait_for_selector("form[aria-label]")
        problems += serious(hana, "lobby")
        hana.create_room(rounds=2, seats=3)
        hana.add_bot("heuristic")
        hana.add_bot("random")
        problems += serious(hana, "room")
        hana.ready()
        hana.page.get_by_role("button", name="Start the game").click()
        hana.page.wait_for_selector(".bids button")
        problems += serious(hana, "table, bidding")
        hana.bid(0)
        hana.page.wait_for_selector(".table-area[data-phase='play']")
        problems += serious(hana, "table, playing")
        assert problems == []
        # Keyboard play is documented on the page itself.
        keys = hana.page.locator(".table-area details.keys li")
        assert keys.count() >= 5 and "Enter" in str(keys.nth(2).text_content())
    finally:
        hana.close()


def test_a_hand_of_number_cards_has_no_serious_violations(chromium: Any, web_only_url: str) -> None:
    """The same check on a hand the deal above may not give: number cards (their buttons'
    names must contain their visible text, "3 red") next to a special card, while bidding."""
    import json

    from test_table_mocked import CODE, USER, Script, _summary, _view
    from test_table_moments import _snapshot

    context = chromium.new_context()
    identity = json.dumps({"token": "tok", "user": USER})
    context.add_init_script(f"localStorage.setItem('tortuga.identity', {json.dumps(identity)})")
    page = context.new_page()
    page.route(f"**/api/rooms/{CODE}", lambda route: route.fulfill(json=_summary()))
    view = _view(
        phase="bid",
        trick=[],
        order=[],
        bids=[None] * 3,
        hand=["red-3", "black-7", "scary-mary"],
        legal=[{"bid": b} for b in range(4)],
        prompt={"seats": [0, 1, 2], "kind": "bid", "sealed": True},
    )
    script = Script([_snapshot(view)])
    try:
        page.route_web_socket(SOCKET_URL, script.handler)
        page.goto(f"{web_only_url}/r/{CODE}")
        page.wait_for_selector(".hand button.card")
        person = Person.__new__(Person)
        person.page = page
        assert serious(person, "hand") == []
    finally:
        context.close()
