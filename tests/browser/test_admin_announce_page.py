"""What an admin's actions look like on a player's page: an announcement to the
room is shown above the table, as text; closing the game ends it for the player with the
operators named as the reason."""

from __future__ import annotations

import asyncio
import secrets
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from players import Person

from server.admin import accounts
from server.archive.db import Database

pytestmark = pytest.mark.browser

PASSWORD = "correct horse battery"


async def _create_admin(url: str, name: str) -> None:
    db = await Database.connect(url)
    try:
        await accounts.create(db, name, PASSWORD)
    finally:
        await db.close()


def test_a_player_sees_an_announcement_and_the_close(
    site: str, chromium: Any, database_url: str
) -> None:
    name = f"op-{secrets.token_hex(3)}"
    # Playwright's sync API runs an event loop in this thread: the account is made in another.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, _create_admin(database_url, name)).result()
    http = httpx.Client(base_url=site)
    token = http.post("/admin/api/login", json={"name": name, "password": PASSWORD}).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    alice = Person(chromium, site, "Alice")
    try:
        alice.open("/")
        alice.choose_name()
        code = alice.create_room(rounds=3, seats=2)
        alice.add_bot("heuristic")
        alice.ready()
        alice.page.get_by_role("button", name="Start the game").click()
        alice.page.wait_for_selector(".bids button")

        text = "<b>Maintenance</b> at 10:00 UTC"
        r = http.post("/admin/api/announce", json={"room": code, "text": text}, headers=auth)
        assert r.status_code == 200, r.text
        banner = alice.page.get_by_role("status", name="announcement")
        banner.wait_for()
        assert text in banner.inner_text()  # shown as text, not markup
        assert alice.page.locator(".announce b").count() == 0

        r = http.post(
            f"/admin/api/rooms/{code}/close", json={"reason": "test of closing"}, headers=auth
        )
        assert r.status_code == 200, r.text
        ended = alice.page.locator(".abandoned h2")
        ended.wait_for()
        assert ended.inner_text() == "The game was closed by the site's operators"
    finally:
        alice.close()
        http.close()
