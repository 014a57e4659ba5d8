"""The whole hand in sight, at 1280x800 and on a phone (390x844): Skull King, Bid & Make It
and Loon hands of 8-12 cards fit the screen's width -- on a phone each card overlaps the one
before it, its left edge (number and emblem) showing and tappable -- and never scroll
sideways; while bidding (or predicting), the bid buttons and the whole hand are on the screen
together where my turn leaves the page."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
import table_views as tv

pytestmark = pytest.mark.browser

# Where each card lies, whether the hand scrolls sideways, and for each card whether a tap on
# the middle of its visible part (the part the next card leaves) lands on it.
HAND = """() => {
  const cards = [...document.querySelectorAll(".hand-zone .hand .card")];
  const boxes = cards.map((c) => c.getBoundingClientRect());
  const tappable = cards.map((c, i) => {
    const r = boxes[i];
    const right = i + 1 < cards.length && boxes[i + 1].top < r.bottom - 10
      ? Math.min(r.right, boxes[i + 1].left) : r.right;
    const hit = document.elementFromPoint((r.left + right) / 2, r.top + 24);
    return [right - r.left, !!hit && hit.closest(".card") === c];
  });
  const hand = document.querySelector(".hand-zone .hand");
  return {
    boxes: boxes.map((r) => [r.left, r.top, r.right, r.bottom]),
    tappable,
    sideways: hand.scrollWidth > hand.clientWidth + 1,
    page: document.documentElement.scrollWidth > window.innerWidth,
    width: window.innerWidth, height: window.innerHeight,
  };
}"""

ASKED = """sel => [...document.querySelectorAll(sel)].map((b) => {
  const r = b.getBoundingClientRect();
  return [r.left, r.top, r.right, r.bottom];
})"""


def _whole_hand_in_sight(page: Any, count: int, size: str) -> dict[str, Any]:
    got: dict[str, Any] = page.evaluate(HAND)
    assert len(got["boxes"]) == count, got
    assert not got["sideways"] and not got["page"], "the hand scrolls sideways"
    for left, top, right, bottom in got["boxes"]:
        assert left >= 0 and right <= got["width"], ("out of the screen's width", got)
        assert top >= 0 and bottom <= got["height"], ("off the screen", got)
    for shown, hit in got["tappable"]:
        # A tap target of at least 24 px (WCAG 2.5.8), the number and the emblem in it.
        assert shown >= 24 and hit, got["tappable"]
    if size == "phone":
        tops = {round(b[1]) for b in got["boxes"]}
        assert max(tops) - min(tops) <= 12, ("one row on a phone", tops)  # (legal cards lift)
    return got


def _asked_in_sight(page: Any, selector: str, height: int) -> None:
    boxes = page.evaluate(ASKED, selector)
    assert boxes, selector
    for left, top, _right, bottom in boxes:
        assert top >= 0 and bottom <= height and left >= 0, (selector, boxes)


CASES = {
    # 5 seats, round 10: ten cards each, bids 0-10
    "skull-king-bid": lambda: (tv.room("skull-king", 5), tv.sk_view()),
    # 6 seats of Bid & Make It, round 10: ten cards each
    "bid-tricks-bid": lambda: (tv.room("bid-tricks", 6), tv.sk_view("bid-tricks", 6)),
    # Loon: the sealed bid for a row (5 cards in hand, 5 seats)
    "loon-bid": lambda: (
        tv.room("loon-tricks", 5, {"rounds": 3}),
        tv.engine_view("loon-tricks", 5, tv.mine("bid")),
    ),
    # Loon: predicting the tricks with the ten cards left after the ditch
    "loon-predict": lambda: (
        tv.room("loon-tricks", 4, {"rounds": 3}),
        tv.engine_view("loon-tricks", 4, tv.mine("predict")),
    ),
}
ASKS = {
    "skull-king-bid": ".bids button, [data-key='seal']",
    "bid-tricks-bid": ".bids button, [data-key='seal']",
    "loon-bid": ".bids button, [data-key='seal']",
    "loon-predict": ".bids button",
}


@pytest.mark.parametrize("size", list(tv.SIZES))
@pytest.mark.parametrize("case", list(CASES))
def test_the_bid_and_the_whole_hand_are_on_the_screen_together(
    chromium: Any, web_only_url: str, case: str, size: str
) -> None:
    summary, view = CASES[case]()
    with tv.table(chromium, web_only_url, size, summary, view, wait=".hand .card") as (page, _):
        page.wait_for_selector(".bids button")
        tv.settle(page)
        tv.shot(page, f"phone-hand-{case}-{size}")
        got = _whole_hand_in_sight(page, len(view["hand"]), size)
        _asked_in_sight(page, ASKS[case], got["height"])


PLAYING = {
    "skull-king": lambda: (
        tv.room("skull-king", 4),
        tv.sk_view(
            players=4,
            phase="play",
            hand_sizes=[10] * 4,
            bids=[3, 1, 2, 0],
            order=[0, 1, 2, 3],
            turn=0,
            prompt={"seats": [0], "kind": "play", "sealed": False},
            legal=[{"play": c} for c in tv.SK_HAND if c != "scary-mary"]
            + [{"play": "scary-mary", "as": "pirate"}, {"play": "scary-mary", "as": "escape"}],
        ),
    ),
    "loon-tricks": lambda: (
        tv.room("loon-tricks", 4, {"rounds": 3}),
        tv.engine_view("loon-tricks", 4, tv.loon_play("empty")),
    ),
}


@pytest.mark.parametrize("size", list(tv.SIZES))
@pytest.mark.parametrize("game", list(PLAYING))
def test_my_turn_to_play_shows_every_card_of_the_hand(
    chromium: Any, web_only_url: str, game: str, size: str
) -> None:
    """My turn to play with a hand of nine or ten: every card in sight and playable by a tap
    (on a phone the hand is pinned at the screen's bottom, scrolled or not)."""
    summary, view = PLAYING[game]()
    with tv.table(chromium, web_only_url, size, summary, view, wait=".hand .card") as (page, _):
        tv.settle(page)
        tv.shot(page, f"phone-hand-{game}-play-{size}")
        _whole_hand_in_sight(page, len(view["hand"]), size)
        if size == "phone":
            page.evaluate("window.scrollTo(0, 0)")
            page.wait_for_timeout(50)
            _whole_hand_in_sight(page, len(view["hand"]), size)
        # A tap on the visible part of a card plays it.
        card = page.locator(".hand .card:not([disabled])").nth(1)
        box = card.bounding_box()
        assert box is not None
        page.mouse.click(box["x"] + 12, box["y"] + 30)
        page.wait_for_function("() => document.querySelectorAll('.hand .card.legal').length === 0")


def test_twelve_cards_to_ditch_two_lie_side_by_side_on_a_phone(
    chromium: Any, web_only_url: str
) -> None:
    """Loon's ditch: choosing two of twelve cards, the hand wraps (no overlap, no sideways
    scroll): every card whole on the screen with the Seal button."""
    summary = tv.room("loon-tricks", 3, {"rounds": 3})
    view = tv.engine_view("loon-tricks", 3, tv.mine("ditch"))
    assert len(view["hand"]) == 12
    with tv.table(chromium, web_only_url, "phone", summary, view, wait=".hand .card") as (page, _):
        tv.settle(page)
        tv.shot(page, "phone-hand-loon-ditch-phone")
        got = page.evaluate(HAND)
        assert not got["sideways"] and not got["page"]
        for left, top, right, bottom in got["boxes"]:
            assert left >= 0 and right <= got["width"] and top >= 0 and bottom <= got["height"]
        boxes = got["boxes"]
        for a, b in itertools.pairwise(boxes):
            assert a[2] <= b[0] + 0.5 or b[1] > a[1] + 10, "cards to choose do not overlap"
        _asked_in_sight(page, "[data-key='seal']", got["height"])
