"""The leaderboard of each game and a player's page (history, rating, recent games with
replay links), in English and Vietnamese. Screenshots at 1280x800 and 390x844 in
artifacts/screenshots/."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_i18n_pages import PAGE_TEXT, SIZES, english_leftovers, english_words

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server" / "archive"))
from archive_helpers import T0, play_record, store

from server.archive.db import Database

pytestmark = pytest.mark.browser

NAMES = ["Lan", "Minh", "Đức <b>bold</b>"]


@pytest.fixture(scope="module")
def site_changes() -> dict[str, Any]:
    """Boards list players with three rated games here (the site's default asks for more)."""
    return {"leaderboard_min_games": 3}


@pytest.fixture(scope="module")
def history(site: str, database_url: str) -> dict[str, Any]:
    """Three guests of the site and four finished games of theirs in the archive (three of
    Skull King, one of Bid & Make It), stored as the archiver stores them."""
    people = []
    for name in NAMES:
        res = httpx.post(site + "/api/guest", json={"name": name})
        res.raise_for_status()
        people.append(res.json())
    ids = [p["user"]["id"] for p in people]
    records = []
    for i, engine in enumerate(["skull-king", "skull-king", "skull-king", "bid-tricks"]):
        record = play_record(
            engine=engine, players=3, rounds=2, users=ids, t0=T0 + timedelta(days=i)
        )
        for seat, name in zip(record["seats"], NAMES, strict=True):
            seat["name"] = name
        records.append(record)

    async def write() -> None:
        db = await Database.connect(database_url)
        try:
            for record in records:
                await store(db, record)
        finally:
            await db.close()

    asyncio.run(write())
    return {"people": people, "games": [r["game_id"] for r in records]}


def open_as(chromium: Any, site: str, person: dict[str, Any], size: str, locale: str) -> Any:
    ctx = chromium.new_context(viewport=SIZES[size], locale=locale, is_mobile=size == "phone")
    identity = json.dumps({"token": person["token"], "user": person["user"]})
    ctx.add_init_script(f"localStorage.setItem('tortuga.identity', {json.dumps(identity)});")
    return ctx


def watch(page: Any) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def test_a_leaderboard_per_game(
    history: dict[str, Any], site: str, chromium: Any, screenshot_dir: Path
) -> None:
    lan = history["people"][0]
    for size in SIZES:
        for locale, lang in (("en-GB", "en"), ("vi-VN", "vi")):
            ctx = open_as(chromium, site, lan, size, locale)
            page = ctx.new_page()
            errors = watch(page)
            page.goto(site + "/leaderboard/skull-king")
            page.wait_for_selector("table.board tbody tr")
            # Our three players (the session's database may hold other tests' players too).
            ours = ",".join(
                f"table.board tbody tr[data-user='{p['user']['id']}']" for p in history["people"]
            )
            rows = page.locator(ours)
            assert rows.count() == 3
            names = [rows.nth(i).locator("td").nth(1).inner_text() for i in range(3)]
            assert sorted(names) == sorted(NAMES)  # the HTML in a name is text
            assert page.locator("table.board tr.me").count() == 1  # "you" stand out
            href = page.locator("table.board tbody a").first.get_attribute("href")
            assert href.startswith("/player/")
            text = page.evaluate(PAGE_TEXT)
            if lang == "vi":
                assert "Skull King — bảng xếp hạng" in text
                assert english_leftovers(text) == [] and english_words(text, NAMES) == []
            else:
                assert "Skull King — leaderboard" in text
            # Each game has a board of its own.
            assert page.locator("nav a[href='/leaderboard/bid-tricks']").count() == 1
            # The page says how many rated games put a player on the board.
            assert ("3 rated games" if lang == "en" else "3 trận") in text
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
            page.screenshot(
                path=str(screenshot_dir / f"leaderboard-{lang}-{size}.png"), full_page=True
            )
            ctx.close()
            assert not errors, errors


def test_a_game_nobody_has_rated_yet(history: dict[str, Any], site: str, chromium: Any) -> None:
    ctx = open_as(chromium, site, history["people"][1], "desktop", "en-US")
    page = ctx.new_page()
    page.goto(site + "/leaderboard/loon-tricks")
    page.wait_for_selector(".empty")
    assert "No rated games of Pirate Tricks: Loon & Score Cards yet" in page.inner_text("main")
    ctx.close()


def test_a_players_page(
    history: dict[str, Any], site: str, chromium: Any, screenshot_dir: Path
) -> None:
    minh = history["people"][1]
    user = minh["user"]["id"]
    for size in SIZES:
        for locale, lang in (("en-GB", "en"), ("vi-VN", "vi")):
            ctx = open_as(chromium, site, history["people"][0], size, locale)
            page = ctx.new_page()
            errors = watch(page)
            page.goto(f"{site}/player/{user}")
            page.wait_for_selector("table.recent tbody tr")
            assert page.locator("h1").inner_text() == "Minh"
            # A rating for each game played, linking to its board.
            ratings = page.locator("ul.ratings li")
            assert ratings.count() == 2
            assert page.locator("ul.ratings a[href='/leaderboard/bid-tricks']").count() == 1
            # Recent games, newest first, each with a replay link.
            rows = page.locator("table.recent tbody tr")
            assert rows.count() == 4
            assert rows.first.get_attribute("data-game") == history["games"][-1]
            links = page.locator("table.recent a[href^='/replay/']")
            assert links.count() == 4
            assert links.first.get_attribute("href") == f"/replay/{history['games'][-1]}"
            text = page.evaluate(PAGE_TEXT)
            if lang == "vi":
                assert "Các trận gần đây" in text and "3 trận" in text
                assert english_leftovers(text) == [] and english_words(text, NAMES) == []
            else:
                assert "Recent games" in text and "3 games" in text and "1 game" in text
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
            page.screenshot(path=str(screenshot_dir / f"player-{lang}-{size}.png"), full_page=True)
            ctx.close()
            assert not errors, errors


def test_the_header_links_to_your_own_page(
    history: dict[str, Any], site: str, chromium: Any
) -> None:
    lan = history["people"][0]
    ctx = open_as(chromium, site, lan, "desktop", "en-US")
    page = ctx.new_page()
    page.goto(site + "/leaderboard/skull-king")
    page.wait_for_selector("table.board")
    page.click("#who a.me")
    page.wait_for_selector("table.recent")
    assert page.url.endswith(f"/player/{lan['user']['id']}")
    assert page.locator("h1").inner_text() == "Lan"
    ctx.close()


def test_a_private_game_is_not_reachable_from_a_profile(
    history: dict[str, Any], site: str, chromium: Any, database_url: str
) -> None:
    """A private game is visible only to its participants; public listings never carry a
    private room's code. Lan and Minh play a private game; Đức, who
    did not sit in it, sees neither the game nor its room code on Minh's page, and its replay
    link answers nothing to him; Minh sees it on his own page."""
    lan, minh, duc = history["people"]
    record = play_record(
        engine="skull-king",
        players=2,
        rounds=1,
        users=[lan["user"]["id"], minh["user"]["id"]],
        t0=T0 + timedelta(days=9),
        public=False,
    )

    async def write() -> None:
        db = await Database.connect(database_url)
        try:
            await store(db, record)
        finally:
            await db.close()

    # Playwright's sync API runs an event loop in this thread: write from another one.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, write()).result()
    private_id, room = record["game_id"], record["room"]

    def players_page(person: dict[str, Any]) -> tuple[list[str | None], str]:
        ctx = open_as(chromium, site, person, "desktop", "en-US")
        page = ctx.new_page()
        page.goto(f"{site}/player/{minh['user']['id']}")
        page.wait_for_selector("table.recent tbody tr")
        rows = page.locator("table.recent tbody tr")
        games = [rows.nth(i).get_attribute("data-game") for i in range(rows.count())]
        html = page.content()
        ctx.close()
        return games, html

    seen_by_duc, html = players_page(duc)
    assert private_id not in seen_by_duc and room not in html
    assert len(seen_by_duc) == 4  # the public games are still there
    seen_by_minh, _ = players_page(minh)
    assert seen_by_minh[0] == private_id  # his own, newest first
    headers = {"Authorization": f"Bearer {duc['token']}"}
    for path in (f"games/{private_id}", f"games/{private_id}/replay"):
        res = httpx.get(f"{site}/api/history/{path}", headers=headers)
        # The same answer as for a game that does not exist (only the id he asked for).
        assert res.status_code == 404, (path, res.status_code)
        assert res.json()["error"]["code"] == "not-found"
        assert "Lan" not in res.text and "Minh" not in res.text


def test_the_pages_say_why_a_game_moved_no_rating(
    history: dict[str, Any], site: str, chromium: Any, database_url: str, screenshot_dir: Path
) -> None:
    """Quang has played Skull King only with bots, and left a game of people before its
    end: neither moved a rating. His page says why beside each game and how ratings work;
    the leaderboard tells him why he is not on it -- in English and Vietnamese, at both
    widths (the site's rules: a game of two people, listed after three rated games)."""
    res = httpx.post(site + "/api/guest", json={"name": "Quang"})
    res.raise_for_status()
    quang = res.json()
    me, lan = quang["user"]["id"], history["people"][0]["user"]["id"]
    alone = play_record(players=3, rounds=1, users=[me, None, None], t0=T0 + timedelta(days=20))
    left = play_record(
        players=2, rounds=2, users=[me, lan], status="abandoned", t0=T0 + timedelta(days=21)
    )
    alone["seats"][0]["name"] = left["seats"][0]["name"] = "Quang"
    left["seats"][1]["name"] = NAMES[0]

    async def write() -> None:
        db = await Database.connect(database_url)
        try:
            for record in (alone, left):
                await store(db, record)
        finally:
            await db.close()

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, write()).result()
    words = {
        "en": {
            "alone": "Not rated: fewer than two people played it (bots do not count).",
            "left": "Not rated: it ended before the finish.",
            "rules": "How ratings work",
            "people": "A game is rated when at least two people play it to the end",
            "listed": "A player is listed after 3 rated games.",
            "board": "You are not on this board yet: none of your games of it has been rated.",
            "none": "No rated games yet.",
        },
        "vi": {
            "alone": "Không tính xếp hạng: có ít hơn hai người chơi (máy không được tính).",
            "left": "Không tính xếp hạng: trận kết thúc trước khi chơi xong.",
            "rules": "Cách tính xếp hạng",
            "people": "Một trận được xếp hạng khi có ít nhất hai người chơi đến hết",
            "listed": "Người chơi có tên trên bảng sau 3 trận được xếp hạng.",
            "board": (
                "Bạn chưa có tên trên bảng này: chưa trận nào của bạn ở trò này được xếp hạng."
            ),
            "none": "Chưa có trận nào được xếp hạng.",
        },
    }
    for size in SIZES:
        for locale, lang in (("en-GB", "en"), ("vi-VN", "vi")):
            said = words[lang]
            ctx = open_as(chromium, site, quang, size, locale)
            page = ctx.new_page()
            errors = watch(page)
            page.goto(f"{site}/player/{me}")
            page.wait_for_selector("table.recent tbody tr")
            cell = f"table.recent tr[data-game='{alone['game_id']}'] .unrated"
            assert page.inner_text(cell) == said["alone"]
            assert page.get_attribute(cell, "data-unrated") == "few-people"
            cell = f"table.recent tr[data-game='{left['game_id']}'] .unrated"
            assert page.inner_text(cell) == said["left"]
            rules = page.inner_text("section.rating-rules")
            assert said["rules"] in rules and said["people"] in rules and said["listed"] in rules
            text = page.evaluate(PAGE_TEXT)
            assert said["none"] in text
            if lang == "vi":
                assert (
                    english_leftovers(text) == [] and english_words(text, [*NAMES, "Quang"]) == []
                )
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
            page.screenshot(
                path=str(screenshot_dir / f"player-unrated-{lang}-{size}.png"), full_page=True
            )
            page.goto(site + "/leaderboard/skull-king")
            page.wait_for_selector(".you-unlisted")
            assert page.inner_text(".you-unlisted") == said["board"]
            assert said["people"] in page.inner_text("section.rating-rules")
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
            page.screenshot(
                path=str(screenshot_dir / f"leaderboard-unlisted-{lang}-{size}.png"),
                full_page=True,
            )
            ctx.close()
            assert not errors, errors
