"""Pages in the player's language: English and Vietnamese, chosen from
navigator.languages, with a switch in the header remembered in localStorage; a Vietnamese
page shows no English text of the catalogue; plurals through Intl.PluralRules; server error
codes as catalogue texts. Screenshots at 1280x800 and 390x844 in artifacts/screenshots/."""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_catalogues import forms, load

pytestmark = pytest.mark.browser

SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}

# Everything a player reads: the text, the page title, and the words in attributes.
PAGE_TEXT = """() => {
  const attrs = [...document.querySelectorAll("[placeholder],[aria-label],[title],[alt]")]
    .flatMap((el) => ["placeholder", "aria-label", "title", "alt"]
      .map((a) => el.getAttribute(a) || ""));
  const options = [...document.querySelectorAll("option")].map((o) => o.textContent);
  return [document.title, document.body.innerText, ...attrs, ...options].join("\\n");
}"""


def english_leftovers(text: str) -> list[str]:
    """English catalogue texts (each part between placeholders) found in ``text``. A part
    that also occurs in a Vietnamese text (a game's published title) does not count."""
    en, vi = load("en"), load("vi")
    vi_texts = "\n".join(f for v in vi.values() for f in forms(v))
    found = []
    for key, value in en.items():
        if forms(value) == forms(vi[key]):
            continue
        for form in forms(value):
            for part in re.split(r"\{\w+\}", form):
                part = part.strip(" .,:;()/–—")
                if len(part) < 3 or not re.search(r"[A-Za-z]{3}", part) or part in vi_texts:
                    continue
                if re.search(rf"(?<![A-Za-z]){re.escape(part)}(?![A-Za-z])", text):
                    found.append(f"{key}: {part!r}")
    return found


ENGLISH_WORDS = re.compile(r"\b(the|your|you|and|with|this|that|not|of|is|are)\b", re.IGNORECASE)


def english_words(text: str, names: Sequence[str] = ()) -> list[str]:
    """Common English words in ``text`` -- a text written in the code instead of the
    catalogue -- once names are taken out (people's, bots', games' published titles)."""
    from server.table.bot_names import PIRATES

    en = load("en")
    titles = [str(v) for k, v in en.items() if k.startswith("games.") and k.endswith(".title")]
    for name in sorted([*names, *PIRATES, *titles], key=len, reverse=True):
        text = text.replace(name, " ")
    return [text[max(0, m.start() - 30) : m.end() + 30] for m in ENGLISH_WORDS.finditer(text)]


def test_the_leftover_check_finds_english() -> None:
    found = english_leftovers("Bấm vào Create a room để bắt đầu")
    assert "lobby.create.title: 'Create a room'" in found
    assert english_leftovers("Tạo phòng — Skull King, Pirate Tricks: Bid & Make It") == []
    assert english_words("Sadie the Goat thắng mánh — Pirate Tricks: Bid & Make It") == []
    assert english_words("Lan: waiting for the others") == ["Lan: waiting for the others"]


def new_page(chromium: Any, size: str, locale: str) -> tuple[Any, Any, list[str]]:
    ctx = chromium.new_context(viewport=SIZES[size], locale=locale, is_mobile=size == "phone")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return ctx, page, errors


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_landing_in_vietnamese_from_the_browser_language(
    web_only_url: str, chromium: Any, screenshot_dir: Path, size: str
) -> None:
    ctx, page, errors = new_page(chromium, size, "vi-VN")
    page.goto(web_only_url + "/")
    page.wait_for_selector(".landing .game-card")
    page.wait_for_selector("a.rules-link")  # the games with a rules page link to it
    assert page.evaluate("document.documentElement.lang") == "vi"
    assert page.evaluate("navigator.languages[0]").startswith("vi")
    text = page.evaluate(PAGE_TEXT)
    assert "Chơi bài cướp biển cùng bạn bè" in text
    assert page.get_by_role("button", name="Tiếp tục").is_visible()
    assert english_leftovers(text) == [] and english_words(text) == []
    # One screen says what the site is: the five games and the name box.
    assert page.locator(".game-card").count() == 5
    if size == "desktop":
        assert page.locator("#name").bounding_box()["y"] < 800
        last = page.locator(".game-card").last.bounding_box()
        assert last["y"] + last["height"] <= 800
    else:
        assert page.locator("#name").bounding_box()["y"] < 844
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path=str(screenshot_dir / f"landing-vi-{size}.png"), full_page=True)
    ctx.close()
    assert not errors, errors


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_landing_in_english(
    web_only_url: str, chromium: Any, screenshot_dir: Path, size: str
) -> None:
    ctx, page, errors = new_page(chromium, size, "en-GB")
    page.goto(web_only_url + "/")
    page.wait_for_selector(".landing .game-card")
    page.wait_for_selector("a.rules-link")
    assert page.evaluate("document.documentElement.lang") == "en"
    text = page.evaluate(PAGE_TEXT)
    for title in [
        "Skull King",
        "Pirate Tricks: Bid & Make It",
        "Pirate Tricks: Loon & Score Cards",
        "Pirate King!",
        "Pearates",
    ]:
        assert title in text
    assert "bots" in text and "link" in text and "Watch" in text
    page.screenshot(path=str(screenshot_dir / f"landing-en-{size}.png"), full_page=True)
    ctx.close()
    assert not errors, errors


def test_the_header_switch_is_remembered(web_only_url: str, chromium: Any) -> None:
    ctx, page, errors = new_page(chromium, "desktop", "vi-VN")
    page.goto(web_only_url + "/")
    page.wait_for_selector(".landing")
    assert page.locator("#lang-select").input_value() == "vi"
    with page.expect_navigation():
        page.select_option("#lang-select", "en")
    page.wait_for_selector(".landing")
    assert page.evaluate("document.documentElement.lang") == "en"
    assert page.get_by_role("button", name="Continue").is_visible()
    assert page.evaluate("localStorage.getItem('tortuga.lang')") == "en"
    # A later visit keeps the choice over the browser's language.
    page.goto(web_only_url + "/")
    page.wait_for_selector(".landing")
    assert page.locator("h1").inner_text().startswith("Pirate card games")
    ctx.close()
    assert not errors, errors


def test_plurals_and_error_codes(web_only_url: str, chromium: Any) -> None:
    ctx, page, errors = new_page(chromium, "desktop", "en-US")
    page.goto(web_only_url + "/")
    page.wait_for_selector(".landing")
    got = page.evaluate(
        """async () => {
      const i18n = await import("/static/js/i18n.js");
      const out = {};
      out.en = [0, 1, 2].map((count) => i18n.t("player.games_played", { count }));
      out.enErr = i18n.errorText({ code: "must-follow-suit", message: "server words" });
      out.unknownErr = i18n.errorText({ code: "no-such-code", message: "server words" });
      i18n.setLang("vi", { reload: false });
      out.vi = [1, 2].map((count) => i18n.t("player.games_played", { count }));
      out.viErr = i18n.errorText({ code: "not-your-turn", message: "it is not your turn" });
      out.big = i18n.t("lobby.seated", { seated: 1200, players: 3 });
      return out;
    }"""
    )
    assert got["en"] == ["0 games", "1 game", "2 games"]
    assert got["enErr"].startswith("Follow suit")
    assert got["unknownErr"] == "server words"
    assert got["vi"] == ["1 trận", "2 trận"]
    assert got["viErr"] == "Chưa đến lượt bạn."
    assert got["big"] == "1.200/3 đã ngồi"  # numbers as Vietnamese writes them
    ctx.close()
    assert not errors, errors


def test_room_codes_in_the_browser(web_only_url: str, chromium: Any) -> None:
    """codes.js reads a code the way server/table/room_codes.py does: grouped, spaced or lower case
    is the same new code; an old code stays exactly as written."""
    ctx, page, errors = new_page(chromium, "desktop", "en-US")
    page.goto(web_only_url + "/")
    page.wait_for_selector(".landing")
    got = page.evaluate(
        """async () => {
      const c = await import("/static/js/codes.js");
      return {
        grouped: c.groupCode("K7QXMH4P"),
        old: c.groupCode("N2d23bL_"),
        typed: ["k7qx-mh4p", " K7QX MH4P ", "K7QXMH4P", "N2d23bL_", "a*b"].map(c.canonicalCode),
        link: c.parseCode("join me: https://tortuga.example/r/K7QX-MH4P-ABCD-EFGH-JKMN"),
      };
    }"""
    )
    assert got["grouped"] == "K7QX-MH4P" and got["old"] == "N2d23bL_"
    assert got["typed"] == ["K7QXMH4P", "K7QXMH4P", "K7QXMH4P", "N2d23bL_", None]
    assert got["link"] == "K7QXMH4PABCDEFGHJKMN"
    ctx.close()
    assert not errors, errors
