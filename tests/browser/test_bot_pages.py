"""Players' bots in the browser: a player makes a bot account on their own page (its token
shown once), revokes it; a game's bot ladder lists the bots with their owners and the latest
games with their replays. In English and Vietnamese, at 1280x800 and 390x844 (screenshots in
artifacts/screenshots/)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import secrets
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_history_pages import open_as, watch
from test_i18n_pages import PAGE_TEXT, SIZES, english_leftovers

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server" / "archive"))
from archive_helpers import play_record, store

from server.archive.db import Database

pytestmark = pytest.mark.browser


def guest(site: str, name: str) -> dict[str, Any]:
    res = httpx.post(site + "/api/guest", json={"name": name})
    res.raise_for_status()
    return dict(res.json())


def test_a_player_makes_a_bot_sees_its_token_once_and_revokes_it(
    site: str, chromium: Any, screenshot_dir: Path
) -> None:
    """ "A player creates bot accounts from their page (name, owner, a token shown once,
    revocable)"."""
    for size in SIZES:
        for locale, lang in (("en-GB", "en"), ("vi-VN", "vi")):
            person = guest(site, "Lan")
            ctx = open_as(chromium, site, person, size, locale)
            page = ctx.new_page()
            errors = watch(page)
            page.goto(site + "/")
            page.click("[data-key='my-bots']")
            page.wait_for_selector(".bots-panel #bot-name")
            page.fill("#bot-name", "Polly")
            page.click(".bots-panel button[type='submit']")
            page.wait_for_selector(".bots-panel input.token")
            token = page.input_value(".bots-panel input.token")
            # The token is the bot's: the site knows it as a bot account of Lan's.
            mine = httpx.get(site + "/api/me/rooms", headers={"Authorization": f"Bearer {token}"})
            assert mine.status_code == 200
            text = page.evaluate(PAGE_TEXT)
            assert ("shown this once" if lang == "en" else "chỉ hiện một lần") in text
            if lang == "vi":
                assert english_leftovers(text) == []
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
            page.screenshot(path=str(screenshot_dir / f"bots-{lang}-{size}.png"), full_page=True)
            # Shown once: after a reload the page lists the bot, never its token.
            page.reload()
            page.wait_for_selector(".bots-panel li[data-bot]")
            assert page.locator(".bots-panel input.token").count() == 0
            page.click(".bots-panel li[data-bot] button.danger")
            page.wait_for_selector(".bots-panel li[data-bot] button.danger", state="detached")
            revoked = "revoked" if lang == "en" else "đã thu hồi"
            assert revoked in page.inner_text(".bots-panel li[data-bot]")
            refused = httpx.get(
                site + "/api/me/rooms", headers={"Authorization": f"Bearer {token}"}
            )
            assert refused.status_code == 401
            ctx.close()
            # A new player has no history yet: the page is told 404 for it (the browser logs
            # the load) and shows their own page all the same.
            assert not [e for e in errors if "404" not in e], errors


@pytest.fixture(scope="module")
def ladder_game(site: str, database_url: str) -> dict[str, Any]:
    """A finished ladder game of Pirate King! in the archive: two bot accounts of Minh's and
    a server bot, rated on the ladder as the archiver rates it."""
    owner = guest(site, "Minh")
    bots = [f"b_{secrets.token_hex(5)}" for _ in range(2)]
    record = play_record(
        engine="pirate-king", players=3, users=[*bots, None], bots={2: "heuristic"}
    )
    for seat, name in zip(record["seats"], ["Polly", "Flint"], strict=False):
        seat.update(name=name, owner=owner["user"]["id"], owner_name="Minh")

    async def write() -> None:
        db = await Database.connect(database_url)
        try:
            await store(db, record)
        finally:
            await db.close()

    # In a thread: Playwright's sync API holds this thread's event loop.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, write()).result()
    return {"owner": owner, "bots": bots, "record": record}


def test_the_bot_ladder_page(
    ladder_game: dict[str, Any], site: str, chromium: Any, screenshot_dir: Path
) -> None:
    """ "A public ladder page per game and replays of every game"."""
    owner, bots, record = ladder_game["owner"], ladder_game["bots"], ladder_game["record"]
    for size in SIZES:
        for locale, lang in (("en-GB", "en"), ("vi-VN", "vi")):
            ctx = open_as(chromium, site, owner, size, locale)
            page = ctx.new_page()
            errors = watch(page)
            page.goto(site + "/ladder/pirate-king")
            page.wait_for_selector("table.ladder tbody tr")
            for bot in bots:
                row = page.locator(f"table.ladder tr[data-entrant='{bot}']")
                assert row.count() == 1 and "Minh" in row.inner_text()
            assert page.locator("table.ladder tr[data-entrant='server:heuristic']").count() == 1
            replay = page.locator(f".ladder-games li[data-game='{record['game_id']}'] a")
            assert replay.get_attribute("href") == f"/replay/{record['game_id']}"
            text = page.evaluate(PAGE_TEXT)
            if lang == "vi":
                assert "bảng xếp hạng máy" in text and english_leftovers(text) == []
            else:
                assert "bot ladder" in text
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
            page.screenshot(path=str(screenshot_dir / f"ladder-{lang}-{size}.png"), full_page=True)
            ctx.close()
            assert not errors, errors
