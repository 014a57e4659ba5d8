"""What a Pearates action does can be read at 1280x800 and on a phone (390x844): every card
of my hand and every action the turn offers to play shows its effect in words, 12 px or
more, whole inside the card (it was 10 px on a wide screen and hidden on a phone)."""

from __future__ import annotations

import json
from typing import Any

import pytest
import table_views as tv
from test_pearates_table import _long_hand_turn

pytestmark = pytest.mark.browser

EFFECTS = """sel => [...document.querySelectorAll(sel)].map((card) => {
  const eff = card.querySelector(".pe-eff");
  if (!eff) return { missing: card.outerHTML.slice(0, 80) };
  const r = eff.getBoundingClientRect(), c = card.getBoundingClientRect();
  const s = getComputedStyle(eff);
  return {
    text: eff.textContent, title: card.getAttribute("title"),
    size: parseFloat(s.fontSize),
    shown: s.display !== "none" && s.visibility !== "hidden" && r.height > 0,
    inside: r.top >= c.top - 1 && r.bottom <= c.bottom + 1
      && r.left >= c.left - 1 && r.right <= c.right + 1,
    clipped: card.scrollHeight > card.clientHeight + 1,
    onScreen: c.left >= 0 && c.right <= window.innerWidth + 1,
  };
})"""


def _readable(effects: list[dict[str, Any]], *, on_screen: bool) -> None:
    assert effects
    for e in effects:
        assert "missing" not in e, e
        assert e["text"].strip() and e["text"] == e["title"], e
        assert e["size"] >= 12, e
        assert e["shown"] and e["inside"] and not e["clipped"], e
        if on_screen:
            assert e["onScreen"], e


@pytest.mark.parametrize("lang", ["en", "vi"])
@pytest.mark.parametrize("size", list(tv.SIZES))
def test_every_action_says_what_it_does_in_readable_words(
    chromium: Any, web_only_url: str, size: str, lang: str
) -> None:
    view = _long_hand_turn()
    summary = tv.room("pearates", 2)
    with tv.table(chromium, web_only_url, size, summary, view, lang=lang, wait=".pe-hand") as (
        page,
        _,
    ):
        tv.settle(page)
        # My hand: each card with its effect (the hand wraps: every card on the screen's width).
        hand = page.evaluate(EFFECTS, ".pe-hand .pe-card")
        assert len(hand) == len(view["hand"])
        _readable(hand, on_screen=True)
        # The turn's "Play an action" choices: the effect on the button itself.
        plays = [m for m in view["legal"] if m["move"] == "play"]
        assert plays
        offered = page.evaluate(EFFECTS, ".pe-prompt button.pe-card[data-move*='\"play\"']")
        assert len(offered) == len(plays)
        _readable(offered, on_screen=False)  # (a phone scrolls that row sideways)
        shown = page.locator(".pe-prompt button.pe-card[data-move*='\"play\"']")
        assert [
            json.loads(shown.nth(i).get_attribute("data-move") or "") for i in range(len(plays))
        ] == plays
        if lang == "en":
            tv.shot(page, f"phone-pearates-effects-{size}")
            page.locator(".pe-hand").scroll_into_view_if_needed()
            tv.shot(page, f"phone-pearates-effects-hand-{size}")
