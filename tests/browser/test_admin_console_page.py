"""The admin console page (/admin, issue 14 step 5): an admin signs in with an admin account
and sees every room of the site, live, filtered and searched; a wrong password is refused
and the console stays closed. The admin's token is kept apart from the player's identity."""

from __future__ import annotations

import asyncio
import secrets
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

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


def test_an_admin_sees_the_live_rooms(
    site: str, chromium: Any, database_url: str, screenshot_dir: Path
) -> None:
    name = f"op-{secrets.token_hex(3)}"
    # Playwright's sync API runs an event loop in this thread: the account is made in another.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, _create_admin(database_url, name)).result()
    alice = Person(chromium, site, "Alice")
    admin = Person(chromium, site, name, viewport={"width": 1280, "height": 800})
    try:
        alice.open("/")
        alice.choose_name()
        code = alice.create_room(rounds=3, seats=2)

        page = admin.page
        admin.open("/admin")
        page.get_by_label("Admin name").fill(name)
        page.get_by_label("Password").fill("not the password")
        page.get_by_role("button", name="Sign in").click()
        refused = page.get_by_role("alert")
        refused.wait_for()
        assert refused.inner_text() == "Wrong admin name or password, or a disabled account."
        assert page.locator("table.admin-rooms").count() == 0

        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        row = page.locator(f'tr[data-room="{code}"]')
        row.wait_for()
        assert "waiting to start" in row.inner_text()
        assert "Alice" in row.inner_text()
        # The admin's token is in sessionStorage, not where the player's identity is kept.
        token = page.evaluate("sessionStorage.getItem('tortuga.admin.token')")
        assert token and token.startswith("adm_")
        assert "adm_" not in page.evaluate("JSON.stringify(localStorage)")

        # Live: the list follows the room into play without reloading the page.
        alice.add_bot("heuristic")
        alice.ready()
        alice.page.get_by_role("button", name="Start the game").click()
        page.wait_for_function(
            "code => document.querySelector(`tr[data-room='${code}']`)"
            "?.innerText.includes('playing')",
            arg=code,
        )
        assert "a bot" in row.inner_text()

        # Filters: another status hides it; a search that names nobody in it hides it.
        page.get_by_label("Status").select_option("lobby")
        page.wait_for_selector(f'tr[data-room="{code}"]', state="detached")
        page.get_by_label("Status").select_option("playing")
        row.wait_for()
        page.get_by_label("Search (room, host, seat)").fill("nobody-at-all")
        page.wait_for_selector(f'tr[data-room="{code}"]', state="detached")
        page.get_by_label("Search (room, host, seat)").fill("alic")
        row.wait_for()
        page.screenshot(path=str(screenshot_dir / "admin-rooms-1280x800.png"))

        page.get_by_role("button", name="Sign out of the console").click()
        page.get_by_role("button", name="Sign in").wait_for()
        assert page.evaluate("sessionStorage.getItem('tortuga.admin.token')") is None
        assert admin.errors == [] or all("401" in e for e in admin.errors), admin.errors
    finally:
        admin.close()
        alice.close()
