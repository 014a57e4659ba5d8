"""Loon: the round's score cards lie right under my hand (1280x800 and 390x844), so what the
cards in my hand are worth is read with the hand in sight: one screen shows the whole hand
and all four score cards, titles and texts, while bidding for a row and while playing."""

from __future__ import annotations

from typing import Any

import pytest
import table_views as tv

pytestmark = pytest.mark.browser

SPAN = """() => {
  const hand = document.querySelector(".hand-zone").getBoundingClientRect();
  const cards = document.querySelector(".score-cards").getBoundingClientRect();
  return { gap: cards.top - hand.bottom, span: cards.bottom - hand.top, top: hand.top + scrollY,
           height: innerHeight };
}"""

# Everything of the hand and the score cards on the screen, and not under anything (a tap
# or a look at its middle finds it).
IN_SIGHT = """() => [...document.querySelectorAll(
    ".hand-zone .hand .card, .score-card .title, .score-card .text")].filter((el) => {
  const r = el.getBoundingClientRect();
  if (r.top < 0 || r.bottom > innerHeight || r.left < 0 || r.right > innerWidth) return true;
  const hit = document.elementFromPoint(r.left + Math.min(8, r.width / 2), r.top + r.height / 2);
  return !(hit && (el.contains(hit) || hit.contains(el)));
}).map((el) => el.className + " " + el.textContent.slice(0, 20))"""

CASES = {
    "bid": lambda: tv.engine_view("loon-tricks", 5, tv.mine("bid")),
    "play": lambda: tv.engine_view("loon-tricks", 4, tv.loon_play("begun")),
}


@pytest.mark.parametrize("size", list(tv.SIZES))
@pytest.mark.parametrize("phase", list(CASES))
def test_the_score_cards_are_in_sight_with_the_hand(
    chromium: Any, web_only_url: str, phase: str, size: str
) -> None:
    view = CASES[phase]()
    summary = tv.room("loon-tricks", view["players"], {"rounds": 3})
    with tv.table(chromium, web_only_url, size, summary, view, wait=".score-card") as (page, _):
        tv.settle(page)
        got = page.evaluate(SPAN)
        assert 0 <= got["gap"] <= 40, ("the score cards follow the hand", got)
        assert got["span"] <= got["height"], ("one screen holds both", got)
        # Scrolled so that the score cards end at the screen's bottom: all of it in sight.
        page.evaluate("s => window.scrollTo(0, s.top + s.span - innerHeight + 4)", got)
        page.wait_for_timeout(100)
        hidden = page.evaluate(IN_SIGHT)
        assert not hidden, hidden
        assert page.locator(".score-card").count() == 4
        tv.shot(page, f"phone-loon-score-cards-{phase}-{size}")
