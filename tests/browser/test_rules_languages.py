"""The rules pages in the player's language (web-client/rules/*.html, each with a Vietnamese
version, <game>.vi.html). The server picks the page: ``?lang=``,
else the cookie the header's switch sets, else Accept-Language (the browser's languages)."""

from __future__ import annotations

import html as ihtml
import re
import sys
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
    games = sorted(p.stem for p in RULES.glob("*.html") if "." not in p.stem and p.stem != "index")
    assert games == sorted(GAMES)  # the page of all rules is not a game
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
    page.click("header nav a[href='/rules']")
    page.wait_for_selector("main.rules-index")
    box = page.locator("main.rules-index li[data-game='skull-king'] p").bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)  # the card
    page.wait_for_selector("main.rules h1")
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


HEADER = re.compile(r'<header class="top">.*?</header>', re.S)


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_one_page_lists_every_games_rules_and_every_page_has_the_same_header(
    web_only_url: str, lang: str
) -> None:
    """``/rules`` lists the five games, each a link to its page; every rules page of a
    language has one header -- all the rules, each game, the other language -- with the
    page's own link marked current; and ends with the way back."""
    index = httpx.get(f"{web_only_url}/rules", params={"lang": lang})
    assert index.status_code == 200 and f'<html lang="{lang}">' in index.text
    cards = re.findall(
        r'<li class="game-card" data-game="([a-z-]+)">.*?href="([^"]+)"', index.text, re.S
    )
    assert cards == [(g, f"/rules/{g}?lang={lang}") for g in GAMES]
    pages = {"index": index.text}
    for game in GAMES:
        pages[game] = httpx.get(f"{web_only_url}/rules/{game}", params={"lang": lang}).text
    headers = {}
    for name, html in pages.items():
        found = HEADER.findall(html)
        assert len(found) == 1, name
        current = re.findall(r'<a href="([^"]+)" aria-current="page">', found[0])
        own = f"/rules?lang={lang}" if name == "index" else f"/rules/{name}?lang={lang}"
        assert current == [own], name
        headers[name] = found[0].replace(' aria-current="page"', "")
        assert html.count(f'<a href="/rules?lang={lang}"') == 2, name  # header and foot
    assert len(set(headers.values())) == 1, "one header on every rules page"
    nav = re.findall(r'<a href="(/rules[^"]*)"', headers["index"])
    assert nav == [f"/rules?lang={lang}", *(f"/rules/{g}?lang={lang}" for g in GAMES)]
    other = "vi" if lang == "en" else "en"
    assert f'href="?lang={other}"' in headers["index"]


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_landing_cards_and_the_rules_pages_as_a_player_sees_them(
    web_only_url: str, chromium: Any, screenshot_dir: Path, size: str
) -> None:
    """A click anywhere on a landing page's game card opens that game's rules; the header's
    Rules opens the page of all rules; the header of a rules page fits a phone."""
    viewport = (
        {"width": 1280, "height": 800} if size == "desktop" else {"width": 390, "height": 844}
    )
    errors: list[str] = []
    for locale, lang in (("en-GB", "en"), ("vi-VN", "vi")):
        ctx = chromium.new_context(locale=locale, viewport=viewport, is_mobile=size == "phone")
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        for game in GAMES:
            page.goto(web_only_url + "/")
            # A click on the blurb, not on the title's own text: the whole card is the link.
            blurb = page.locator(f".landing .game-card[data-game='{game}'] p")
            blurb.scroll_into_view_if_needed()
            box = blurb.bounding_box()
            page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            page.wait_for_url(f"**/rules/{game}")
            assert page.evaluate("document.documentElement.lang") == lang
            assert page.locator("header nav a[aria-current='page']").get_attribute("href") == (
                f"/rules/{game}?lang={lang}"
            )
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        page.screenshot(path=str(screenshot_dir / f"rules-pearates-{lang}-{size}.png"))
        # Loon's score cards: three tables that fit the screen.
        page.click("header nav a[href^='/rules/loon-tricks']")
        page.wait_for_selector("table.score-cards")
        assert page.locator("table.score-cards").count() == 3
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        page.locator(
            "h2", has_text="Score cards" if lang == "en" else "Thẻ điểm"
        ).scroll_into_view_if_needed()
        page.screenshot(path=str(screenshot_dir / f"rules-loon-{lang}-{size}.png"), full_page=True)
        page.click("header nav a[href^='/rules?']")
        page.wait_for_selector("main.rules-index")
        assert page.locator("main.rules-index .game-card").count() == len(GAMES)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        page.screenshot(path=str(screenshot_dir / f"rules-index-{lang}-{size}.png"), full_page=True)
        page.goto(web_only_url + "/")
        page.wait_for_selector(".landing .game-card")
        page.click("header nav a[href='/rules']")
        page.wait_for_selector("main.rules-index")
        assert page.evaluate("document.documentElement.lang") == lang
        ctx.close()
        assert not errors, errors


def test_loon_score_cards_are_a_table_whose_house_marks_are_the_tables_tags() -> None:
    """The Loon rules page shows the 26 score cards as a table per deck, in both languages:
    each card's name and score as the table's card shows them (the game's catalogue), and
    the house mark exactly on the cards the engine marks house -- in the words of the
    in-game tag ("house card", "thẻ luật riêng")."""
    from engines.loon_tricks.score_cards import CARDS

    sys.path.insert(0, str(RULES.parents[1] / "tests"))
    from test_catalogues import read

    folder = RULES.parent / "js" / "games" / "loon-tricks" / "i18n"
    for page, lang in (("loon-tricks.html", "en"), ("loon-tricks.vi.html", "vi")):
        html_text = (RULES / page).read_text(encoding="utf-8")
        texts = read(folder / f"{lang}.js")
        tag = texts["lt.house"]
        decks = re.findall(
            r'<table class="score-cards" data-deck="([a-z]+)">(.*?)</table>', html_text, re.S
        )
        assert [d for d, _ in decks] == ["recruitment", "capture", "treasure"]
        rows = {
            card: (deck, cells)
            for deck, body in decks
            for card, cells in re.findall(r'<tr data-card="([a-z-]+)">(.*?)</tr>', body, re.S)
        }
        assert sorted(rows) == sorted(c.id for c in CARDS)
        for card in CARDS:
            deck, cells = rows[card.id]
            assert deck == card.deck
            name, score = re.findall(r"<td>(.*?)</td>", cells, re.S)
            marked = f'<mark class="house">{tag}</mark>' in name
            assert marked is card.house, (lang, card.id)
            assert (
                ihtml.unescape(re.sub(r"<mark.*?</mark>", "", name)).strip()
                == (texts[f"lt.card.{card.id}.title"])
            )
            assert ihtml.unescape(score) == texts[f"lt.card.{card.id}.text"]
        # In the tables no other mark than the tag: a house rule is not a house card.
        tables = "".join(body for _, body in decks)
        assert (
            tables.count("<mark")
            == tables.count(f'<mark class="house">{tag}</mark>')
            == sum(c.house for c in CARDS)
        )
