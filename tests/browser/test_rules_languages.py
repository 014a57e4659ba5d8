"""The rules pages in the player's language (web-client/rules/*.html, each with a Vietnamese
version, <game>.vi.html). The server picks the page: ``?lang=``,
else the cookie the header's switch sets, else Accept-Language (the browser's languages)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.browser

GAMES = ["skull-king", "bid-tricks", "loon-tricks", "pirate-king", "pearates"]
RULES = Path(__file__).resolve().parents[2] / "web-client" / "rules"


def headings(html: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", h).strip() for h in re.findall(r"<h[12]>(.*?)</h[12]>", html)]


@pytest.mark.parametrize("game", GAMES)
def test_a_vietnamese_browser_gets_the_vietnamese_rules(web_only_url: str, game: str) -> None:
    url = f"{web_only_url}/rules/{game}"
    vi = httpx.get(url, headers={"accept-language": "vi-VN,vi;q=0.9,en;q=0.5"})
    en = httpx.get(url, headers={"accept-language": "en-GB,en;q=0.9"})
    assert vi.status_code == en.status_code == 200
    assert '<html lang="vi">' in vi.text and '<html lang="en">' in en.text
    assert "luật chơi tóm tắt" in vi.text
    assert '<mark class="house">luật riêng</mark>' in vi.text  # house rules still marked
    # No heading is left in English, and every section of the English page is there.
    assert len(headings(vi.text)) == len(headings(en.text))
    assert not set(headings(vi.text)) & set(headings(en.text)) - {"Skull King", "Pirate King!"}
    for english in ["Back to the lobby", "Follow the suit", "Scoring each round", " trick"]:
        assert english not in vi.text
    # Each page links to the other language.
    assert 'href="?lang=en"' in vi.text and 'href="?lang=vi"' in en.text


def test_the_choice_beats_the_browser_language(web_only_url: str) -> None:
    url = f"{web_only_url}/rules/skull-king"
    vi_browser = {"accept-language": "vi-VN"}
    assert '<html lang="en">' in httpx.get(url, headers=vi_browser, params={"lang": "en"}).text
    chose_en = {**vi_browser, "cookie": "tortuga_lang=en"}
    assert '<html lang="en">' in httpx.get(url, headers=chose_en).text
    chose_vi = {"accept-language": "en-US", "cookie": "tortuga_lang=vi"}
    assert '<html lang="vi">' in httpx.get(url, headers=chose_vi).text
    # An unknown language is English.
    assert '<html lang="en">' in httpx.get(url, headers={"accept-language": "fr-FR"}).text


def test_every_rules_page_has_a_vietnamese_version() -> None:
    english = {p.stem for p in RULES.glob("*.html") if "." not in p.stem}
    vietnamese = {p.stem.removesuffix(".vi") for p in RULES.glob("*.vi.html")}
    assert english
    missing = sorted(english - vietnamese)
    assert missing == [], "add web-client/rules/<game>.vi.html (the Vietnamese rules) for these"
    assert vietnamese <= english


def test_the_app_pages_carry_the_sites_card_and_the_rules_list(web_only_url: str) -> None:
    """A link to the site itself unfurls too; the landing page links the rules pages there are."""
    en = httpx.get(web_only_url + "/", headers={"accept-language": "en-US"}).text
    vi = httpx.get(web_only_url + "/leaderboard/skull-king", headers={"accept-language": "vi"}).text
    assert '<meta property="og:title" content="Tortuga — pirate card games with friends">' in en
    assert '<meta property="og:title" content="Tortuga — chơi bài cướp biển cùng bạn bè">' in vi
    assert f'content="{web_only_url}/leaderboard/skull-king"' in vi
    games = sorted(p.stem for p in RULES.glob("*.html") if "." not in p.stem)
    assert f'<meta name="tortuga:rules" content="{" ".join(games)}">' in en
    assert en.count("<title>") == 1
    assert '<html lang="en">' in en and '<html lang="vi">' in vi


def test_the_header_switch_carries_over_to_the_rules(
    web_only_url: str, chromium: Any, screenshot_dir: Path
) -> None:
    ctx = chromium.new_context(locale="en-US", viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    page.goto(web_only_url + "/")
    page.wait_for_selector(".landing")
    with page.expect_navigation():
        page.select_option("#lang-select", "vi")
    page.wait_for_selector(".landing")
    page.click("header nav a[href='/rules/skull-king']")
    page.wait_for_selector("main.rules")
    assert page.locator("h1").inner_text() == "Skull King — luật chơi tóm tắt"
    page.screenshot(path=str(screenshot_dir / "rules-vi-desktop.png"))
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path=str(screenshot_dir / "rules-vi-phone.png"))
    ctx.close()


# Each **house** decision of engines/pirate_king/README.md (a phrase of its line) and the
# item of the rules page that states it, marked.
PIRATE_KING_HOUSE = {
    "the card list below is **house**": "cards",
    "Monsters (unnamed in the seed, **house**)": "cards",
    '**house**: "The person who last touched water': "captain-and-picks",
    "**house**, one at a time, from the Captain": "captain-and-picks",
    "(**house** order;": "same-beat",
    "**house**: a face-down card": "copy",
    "(**house**: looking is not drawing": "short-look",
    "**house**: an empty Loot pile": "empty-loot",
    "**house**: the score\n  shown counts the set as 13": "five-maps",
    "**house**: a timed-out seat's move": "timeout",
}


def test_pirate_king_every_house_decision_is_marked_in_both_languages() -> None:
    """The game's rules page marks its house rules in both languages. Every
    decision the engine's README marks **house** is an item of the rules page, English and
    Vietnamese alike, that carries the mark."""
    readme = (RULES.parents[1] / "engines" / "pirate_king" / "README.md").read_text()
    for phrase in PIRATE_KING_HOUSE:
        assert phrase in readme, phrase
    # Those, the legend ("Decisions marked **house** are ours") and a rule that is gone
    # ("An earlier **house** rule ... so it is gone"): a new house decision needs a line here.
    assert readme.count("**house**") == len(PIRATE_KING_HOUSE) + 2
    for page, mark in (("pirate-king.html", "house"), ("pirate-king.vi.html", "luật riêng")):
        html = (RULES / page).read_text()
        for key in set(PIRATE_KING_HOUSE.values()):
            item = re.search(rf'data-house="{key}">(.*?)</(li|div)>', html, re.S)
            assert item, (page, key)
            if key != "cards":  # the card list: its heading carries the mark
                assert f'<mark class="house">{mark}</mark>' in item.group(1), (page, key)
        title = "The card list" if mark == "house" else "Danh sách lá bài"
        assert f'<h2>{title} <mark class="house">{mark}</mark></h2>' in html
