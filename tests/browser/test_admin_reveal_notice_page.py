"""A player away while an admin looks at the game's hidden cards is told when they come back:
the room's page says it (how often, when) from the room's summary, and keeps saying it; a
player there at the time sees it as well; the game's replay says it once the game is over."""

from __future__ import annotations

import asyncio
import secrets
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from players import Person
from test_admin_announce_page import PASSWORD, _create_admin

pytestmark = pytest.mark.browser


def test_a_player_away_during_a_reveal_sees_the_notice_on_return(
    site: str, chromium: Any, database_url: str
) -> None:
    name = f"op-{secrets.token_hex(3)}"
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, _create_admin(database_url, name)).result()
    http = httpx.Client(base_url=site)
    token = http.post("/admin/api/login", json={"name": name, "password": PASSWORD}).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    alice = Person(chromium, site, "Alice")
    try:
        page = alice.page
        alice.open("/")
        alice.choose_name()
        code = alice.create_room(rounds=3, seats=2)
        alice.add_bot("heuristic")
        alice.ready()
        page.get_by_role("button", name="Start the game").click()
        page.wait_for_selector(".bids button")
        assert page.locator(".inspected-notice").count() == 0

        alice.open("/")  # away from the room: its socket is gone
        page.wait_for_selector("form[aria-label='create a room']")
        r = http.post(
            f"/admin/api/rooms/{code}/reveal", json={"reason": "a bug report"}, headers=auth
        )
        assert r.status_code == 200, r.text

        alice.open(f"/r/{code}")
        notice = page.locator(".inspected-notice")
        notice.wait_for()
        assert notice.get_attribute("data-inspected") == "1"
        assert "looked at this game's hidden cards" in notice.inner_text()
        assert name not in notice.inner_text() and "bug report" not in notice.inner_text()

        # A second look while she is there: told at once, and counted.
        r = http.post(f"/admin/api/rooms/{code}/reveal", json={"reason": "again"}, headers=auth)
        assert r.status_code == 200, r.text
        page.wait_for_selector(".inspected-notice[data-inspected='2']")
        page.get_by_role("status", name="announcement").wait_for()

        r = http.post(f"/admin/api/rooms/{code}/close", json={"reason": "done"}, headers=auth)
        assert r.status_code == 200, r.text
        game_id = f"{code}-1"
        for _ in range(200):  # the node's archiver stores the final record shortly
            got = http.get(f"/api/history/games/{game_id}")
            if got.status_code == 200 and got.json()["status"] == "abandoned":
                break
            time.sleep(0.05)
        assert got.json()["inspected"]["count"] == 2
        alice.open(f"/replay/{game_id}")
        page.wait_for_selector(".inspected-notice[data-inspected='2']")
    finally:
        alice.close()
        http.close()
