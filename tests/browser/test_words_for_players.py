"""Words for players, not developers, in English and Vietnamese at 1280x800 and 390x844:
the lobby's seats hint names a ghost hand only for a game that has one (the server's game
list says), bot levels are "good" and "easy", and the end of a game alone with bots says
why it is not rated and offers "Check this game" -- the browser's own check of every deal,
its result in a sentence -- instead of a command line; the replay counts steps, not
versions. Screenshots in artifacts/screenshots/."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from players import Person, play_until_over
from test_i18n_pages import PAGE_TEXT, SIZES, english_leftovers, english_words

pytestmark = pytest.mark.browser

GHOST = {"skull-king": True, "bid-tricks": True, "loon-tricks": False, "pirate-king": False,
         "pearates": False}  # fmt: skip
SAID = {
    "en": {
        "ghost": "a ghost hand joins",
        "levels": ["good", "easy"],
        "unrated": "Not rated: fewer than two people played it (bots do not count).",
        "rule": "A game is rated when at least two people play it to the end",
        "check": "Check this game",
        "checked": (
            "✓ This game checks out: its shuffle was locked in before the first card was "
            "dealt, and your browser rebuilt its deal from it."
        ),
    },
    "vi": {
        "ghost": "thêm một tay bài ma",
        "levels": ["giỏi", "dễ"],
        "unrated": "Không tính xếp hạng: có ít hơn hai người chơi (máy không được tính).",
        "rule": "Một trận được xếp hạng khi có ít nhất hai người chơi đến hết",
        "check": "Kiểm tra trận này",
        "checked": (
            "✓ Trận này minh bạch: cách xáo bài đã được khóa trước khi chia lá đầu tiên, và "
            "trình duyệt của bạn đã dựng lại từ đó lần chia bài của 1 ván."
        ),
    },
}


def guest(site: str, name: str) -> dict[str, Any]:
    res = httpx.post(site + "/api/guest", json={"name": name})
    res.raise_for_status()
    return dict(res.json())


def signed_in(chromium: Any, person: dict[str, Any], size: str, lang: str) -> Any:
    ctx = chromium.new_context(
        viewport=SIZES[size], locale="vi-VN" if lang == "vi" else "en-GB", is_mobile=size == "phone"
    )
    identity = json.dumps({"token": person["token"], "user": person["user"]})
    ctx.add_init_script(f"localStorage.setItem('tortuga.identity', {json.dumps(identity)});")
    return ctx


@pytest.mark.parametrize("size", list(SIZES))
def test_the_seats_hint_names_a_ghost_only_where_there_is_one(
    site: str, chromium: Any, screenshot_dir: Path, size: str
) -> None:
    person = guest(site, "Hoa")
    for lang in ("en", "vi"):
        ctx = signed_in(chromium, person, size, lang)
        page = ctx.new_page()
        page.goto(site + "/")
        page.wait_for_selector("#game option[value='pearates']", state="attached")
        hint = page.locator("#seats-hint")
        for game, ghost in GHOST.items():
            page.select_option("#game", game)
            text = hint.inner_text()
            assert (SAID[lang]["ghost"] in text) is ghost, (lang, game, text)
            if ghost:
                assert "2" in text.split(";")[1]
        page.select_option("#game", "pirate-king")
        page.screenshot(path=str(screenshot_dir / f"lobby-hint-{lang}-{size}.png"), full_page=True)
        ctx.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_a_game_alone_with_bots_ends_in_plain_words(
    site: str, chromium: Any, screenshot_dir: Path, size: str
) -> None:
    context: dict[str, Any] = {"viewport": SIZES[size], "is_mobile": size == "phone"}
    hana = Person(chromium, site, "Hana", hold_ms=100, **context)
    page = hana.page
    try:
        hana.open("/")
        hana.choose_name()
        hana.create_room(rounds=1, seats=3)
        level = page.locator("ol.seats select").first
        assert level.locator("option").all_inner_texts() == SAID["en"]["levels"]
        hana.add_bot("heuristic")
        hana.add_bot("random")
        tips = page.eval_on_selector_all(
            "ol.seats .who-name.bot", "ns => ns.map(n => n.getAttribute('title'))"
        )
        assert sorted(tips) == ["bot · level: easy", "bot · level: good"]
        hana.ready()
        page.get_by_role("button", name="Start the game").click()
        play_until_over([hana], timeout=60)
        for lang in ("en", "vi"):
            if lang == "vi":
                page.evaluate("() => localStorage.setItem('tortuga.lang', 'vi')")
                page.reload()
                page.wait_for_selector(".gameover")
            said = SAID[lang]
            over = page.locator(".gameover")
            line = page.locator(".gameover .rating-line[data-unrated='few-people']")
            line.wait_for(timeout=20000)
            assert line.locator("p").inner_text() == said["unrated"]
            assert said["rule"] in line.inner_text()
            assert "tortuga" not in over.inner_text()  # no command line for players
            button = page.locator("button[data-key='check-game']")
            assert button.inner_text() == said["check"]
            result = check_this_game(page)
            assert result.get_attribute("data-game-check") == "ok"
            assert result.inner_text() == said["checked"]
            text = page.evaluate(PAGE_TEXT)
            if lang == "vi":
                assert english_leftovers(text) == [], english_leftovers(text)
                assert english_words(text, ["Hana"]) == []
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
            page.screenshot(
                path=str(screenshot_dir / f"gameover-words-{lang}-{size}.png"), full_page=True
            )
        # The replay counts steps; versions are the server's business.
        href = str(page.get_attribute("a[data-key='replay']", "href"))
        page.goto(site + href)
        page.wait_for_selector(".replay-controls [role='status']")
        position = page.inner_text(".replay-controls [role='status']")
        assert position.startswith("Bước 1 / ") and "phiên bản" not in position
        assert "mọi nước đi đã được đối chiếu với luật" in page.inner_text("main")
        page.screenshot(path=str(screenshot_dir / f"replay-words-vi-{size}.png"), full_page=True)
        assert not hana.errors, hana.errors
    finally:
        hana.close()


def check_this_game(page: Any) -> Any:
    """Press "Check this game" until the archive has the game (within seconds)."""
    result = page.locator(".check-game .check-result")
    for _ in range(40):
        page.locator("button[data-key='check-game']").click()
        page.wait_for_function(
            "() => { const r = document.querySelector('.check-game .check-result');"
            " return r && r.dataset.gameCheck !== 'running'; }"
        )
        if result.get_attribute("data-game-check") != "not_saved":
            return result
        page.wait_for_timeout(250)
    raise AssertionError("the archive never had the game")
