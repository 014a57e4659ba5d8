"""The last trick is never taken for the trick being played (Skull King, Bid & Make It, Loon;
1280x800 and 390x844): between two tricks -- once the won trick was held and gathered, or
after a reload -- the middle says no card is played yet and shows the last trick labelled
("Last trick won by Grace O'Malley") with its cards faded and the winner's marked; once the
next trick has begun, a "Last trick" button opens it: who played what, who won it."""

from __future__ import annotations

from typing import Any

import pytest
import table_views as tv
from test_table_moments import _event

pytestmark = pytest.mark.browser

LOOK = """() => {
  const box = document.querySelector("[data-role='last-trick']");
  if (!box) return null;
  const r = box.getBoundingClientRect();
  return {
    inZone: !!box.closest(".trick-zone"),
    label: box.querySelector(".previous-label").textContent,
    shown: r.height > 0 && getComputedStyle(box).visibility !== "hidden",
    plays: [...box.querySelectorAll(".played")].map((p) => {
      const card = p.querySelector(".card");
      return {
        seat: Number(p.dataset.seat), card: card.dataset.card,
        by: p.querySelector(".by").textContent,
        winner: p.classList.contains("winner"),
        wins: (p.querySelector(".wins") || {}).textContent || "",
        opacity: parseFloat(getComputedStyle(card).opacity),
        width: card.getBoundingClientRect().width,
      };
    }),
  };
}"""

LABEL = {"en": "Last trick", "vi": "Mánh trước"}
WON_BY = {"en": "won by", "vi": "thắng"}
NO_CARD = {"en": "No card played yet", "vi": "Chưa ai đánh lá nào"}


def _shows_the_last_trick(page: Any, view: dict[str, Any], lang: str, *, in_zone: bool) -> None:
    got = page.evaluate(LOOK)
    assert got and got["shown"], got
    assert got["inZone"] == in_zone
    lt = view["last_trick"]
    winner = tv.NAMES[lt["winner"]]
    assert LABEL[lang] in got["label"] and winner in got["label"] and WON_BY[lang] in got["label"]
    assert [(p["seat"], p["card"]) for p in got["plays"]] == [
        (p["seat"], p["card"]) for p in lt["plays"]
    ]
    for p in got["plays"]:
        assert p["by"] == tv.NAMES[p["seat"]], p
        assert p["winner"] == (p["seat"] == lt["winner"]), p
        if p["winner"]:
            assert "★" in p["wins"]
        else:
            assert p["opacity"] < 0.8, ("faded", p)
    # Smaller than a card of the trick being played or of the hand.
    hand = page.locator(".hand .card").first.bounding_box()
    assert hand is not None and all(p["width"] < hand["width"] for p in got["plays"])


def _sk(game: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    between = tv.sk_playing(game, 5)
    begun = tv.sk_playing(
        game,
        5,
        trick=[{"seat": 1, "card": "blue-5"}, {"seat": 2, "card": "blue-9"}],
        led="blue",
        turn=3,
        prompt={"seats": [3], "kind": "play", "sealed": False},
    )
    if game == "bid-tricks":
        begun["trick"] = [{"seat": 1, "card": "green-5"}, {"seat": 2, "card": "green-9"}]
        begun["led"] = "green"
    return tv.room(game, 5), between, begun


def _loon() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    return (
        tv.room("loon-tricks", 4, {"rounds": 3}),
        tv.engine_view("loon-tricks", 4, tv.loon_play("empty")),
        tv.engine_view("loon-tricks", 4, tv.loon_play("begun")),
    )


GAMES = {
    "skull-king": lambda: _sk("skull-king"),
    "bid-tricks": lambda: _sk("bid-tricks"),
    "loon-tricks": _loon,
}


@pytest.mark.parametrize("lang", ["en", "vi"])
@pytest.mark.parametrize("size", list(tv.SIZES))
@pytest.mark.parametrize("game", list(GAMES))
def test_the_last_trick_is_labelled_faded_and_can_be_opened(
    chromium: Any, web_only_url: str, game: str, size: str, lang: str
) -> None:
    summary, between, begun = GAMES[game]()
    # A reload between two tricks: the snapshot has no card on the table, the last trick.
    with tv.table(chromium, web_only_url, size, summary, between, lang=lang) as (page, _):
        tv.settle(page)
        zone = page.locator(".trick-zone")
        assert NO_CARD[lang] in zone.inner_text()
        _shows_the_last_trick(page, between, lang, in_zone=True)
        assert page.locator("[data-key='last-trick']").count() == 0  # (already in sight)
        if lang == "en":
            page.locator(".trick-zone").scroll_into_view_if_needed()
            tv.shot(page, f"phone-last-trick-{game}-between-{size}")
    # The next trick has begun: only its cards in the middle; "Last trick" opens the last one.
    with tv.table(chromium, web_only_url, size, summary, begun, lang=lang) as (page, _):
        tv.settle(page)
        played = page.locator(".trick-zone .played")
        assert played.count() == len(begun["trick"])
        assert page.locator("[data-role='last-trick']").count() == 0
        button = page.locator("[data-key='last-trick']")
        assert button.get_attribute("aria-expanded") == "false"
        assert LABEL[lang] in button.inner_text()
        button.click()
        assert button.get_attribute("aria-expanded") == "true"
        _shows_the_last_trick(page, begun, lang, in_zone=False)
        assert played.count() == len(begun["trick"])  # the trick being played is still there
        if lang == "en":
            page.locator("[data-role='last-trick']").scroll_into_view_if_needed()
            tv.shot(page, f"phone-last-trick-{game}-opened-{size}")
        button.click()
        assert page.locator("[data-role='last-trick']").count() == 0
        # A button, reachable by keyboard: Enter opens it again.
        button.focus()
        page.keyboard.press("Enter")
        page.wait_for_selector("[data-role='last-trick']")


@pytest.mark.parametrize("size", list(tv.SIZES))
def test_a_trick_once_held_and_gathered_stays_labelled_as_the_last_one(
    chromium: Any, web_only_url: str, size: str
) -> None:
    """Skull King: the trick is won while I watch; after its held moment (a click) the middle
    shows it as the last trick, faded, not as cards being played."""
    summary, between, _ = _sk("skull-king")
    lt = between["last_trick"]
    playing = tv.sk_playing(
        "skull-king",
        5,
        trick=lt["plays"][:4],
        led="blue",
        led_open=False,
        last_trick=None,
        hand_sizes=[9, 9, 9, 9, 10],
        tricks=[0] * 5,
        turn=4,
        prompt={"seats": [4], "kind": "play", "sealed": False},
    )
    with tv.table(chromium, web_only_url, size, summary, playing) as (page, script):
        tv.settle(page)
        assert page.locator(".trick-zone .played").count() == 4
        script.push(_event(6, between, 4, lt["plays"][4]["card"]))
        held = page.locator(".trick[data-held='1']")
        held.wait_for()
        held.click()
        page.wait_for_selector(".trick-zone.between [data-role='last-trick']")
        _shows_the_last_trick(page, between, "en", in_zone=True)
        assert page.locator(".trick-zone > .played").count() == 0
