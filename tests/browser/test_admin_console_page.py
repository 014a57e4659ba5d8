"""The admin console page (/admin, issue 14 step 5): an admin signs in with an admin account
and sees every room of the site, live, filtered and searched, locks and unlocks the lobby,
reveals a room's hidden state (with a reason), announces, closes it, and reads the audit; a
wrong password is refused and the console stays closed. The admin's token is kept apart from
the player's identity."""

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

        # The lobby lock: a reason is needed; the panel says the lobby is locked, then open.
        lobby = page.locator(".admin-lobby")
        lobby.get_by_text("The lobby is open: players can create rooms.").wait_for()
        lobby.get_by_label("Reason (kept in the audit log)").fill("upgrade at 10:00")
        lobby.get_by_role("button", name="Lock the lobby").click()
        page.locator(".admin-lobby").get_by_text(
            "The lobby is locked (no new rooms): upgrade at 10:00"
        ).wait_for()
        page.locator(".admin-lobby").get_by_label("Reason (kept in the audit log)").fill("done")
        page.locator(".admin-lobby").get_by_role("button", name="Unlock the lobby").click()
        page.locator(".admin-lobby").get_by_text(
            "The lobby is open: players can create rooms."
        ).wait_for()

        page.get_by_role("button", name="Sign out of the console").click()
        page.get_by_role("button", name="Sign in").wait_for()
        assert page.evaluate("sessionStorage.getItem('tortuga.admin.token')") is None
        assert admin.errors == [] or all("401" in e for e in admin.errors), admin.errors
    finally:
        admin.close()
        alice.close()


def test_an_admin_reveals_announces_and_closes_from_the_console(
    site: str, chromium: Any, database_url: str, screenshot_dir: Path
) -> None:
    """Reveal (issue 14): the reason is required, the audit row comes first, the answer is
    shown only once the server gave it, and the room's players are told an operator looked.
    Announce: the players' page shows the text. Close: the game ends for everyone. The audit
    page lists each step."""
    name = f"op-{secrets.token_hex(3)}"
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, _create_admin(database_url, name)).result()
    alice = Person(chromium, site, "Alice")
    admin = Person(chromium, site, name, viewport={"width": 1280, "height": 800})
    try:
        alice.open("/")
        alice.choose_name()
        code = alice.create_room(rounds=3, seats=2)
        alice.add_bot("heuristic")
        alice.ready()
        alice.page.get_by_role("button", name="Start the game").click()
        alice.page.wait_for_selector(".bids button")

        page = admin.page
        admin.open("/admin")
        page.get_by_label("Admin name").fill(name)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        page.get_by_role("button", name=code).click()
        seats = page.locator("table.admin-seats tbody tr")
        seats.nth(1).wait_for()
        assert "Alice" in seats.nth(0).inner_text()
        assert "heuristic" in seats.nth(1).inner_text()
        assert "playing" in page.locator(".admin-room-status").inner_text()

        # Reveal: nothing is shown before an explicit button, a reason and the server's answer.
        assert page.locator(".admin-views").count() == 0
        page.get_by_role("button", name="Show the hidden state…").click()
        reveal_form = page.locator("form.admin-reveal-form")
        reveal_form.get_by_role("button", name="Show it (audited)").click()
        assert page.locator(".admin-views").count() == 0  # no reason: nothing sent
        reveal_form.get_by_label("Reason (kept in the audit log)").fill("report of a cheat")
        reveal_form.get_by_role("button", name="Show it (audited)").click()
        views = page.locator(".admin-views details")
        views.nth(1).wait_for()
        assert views.count() == 2
        assert '"hand"' in views.nth(0).locator("pre").inner_text()
        assert "What seat 2 sees" in views.nth(1).inner_text()
        banner = alice.page.get_by_role("status", name="announcement")
        banner.wait_for()
        assert "An operator of the site looked at this game's hidden cards" in banner.inner_text()
        page.screenshot(path=str(screenshot_dir / "admin-room-1280x800.png"), full_page=True)

        # Announce to this room: shown on the player's page as text.
        text = "<b>Maintenance</b> at 10:00 UTC"
        announce = page.locator("form.admin-announce")
        announce.get_by_label("Message to this room's players").fill(text)
        announce.get_by_role("button", name="Send the announcement").click()
        announce.locator(".admin-said", has_text="Sent to 1 room.").wait_for()
        alice.page.wait_for_function(
            "t => document.querySelector('.announce')?.innerText.includes(t)", arg=text
        )
        assert alice.page.locator(".announce b").count() == 0

        # Close with a reason: the game ends for the player.
        close = page.locator("form.admin-close")
        close.get_by_label("Reason (kept in the audit log)").fill("test of closing")
        close.get_by_role("button", name="Close the game for everyone").click()
        close.locator(".admin-said", has_text="The game is closed.").wait_for()
        ended = alice.page.locator(".abandoned h2")
        ended.wait_for()
        assert ended.inner_text() == "The game was closed by the site's operators"
        page.wait_for_function(
            "() => document.querySelector('.admin-room-status')?.innerText.includes('abandoned')"
        )

        # The audit page lists each step, newest first; its search finds the reveal's reason.
        page.get_by_role("button", name="Audit log").click()
        page.locator("table.admin-audit tbody tr").first.wait_for()
        rows = page.locator("table.admin-audit tbody tr")
        actions = [rows.nth(i).get_attribute("data-action") for i in range(4)]
        assert actions == ["close", "announce", "reveal", "login"]
        assert "test of closing" in rows.nth(0).inner_text()
        assert text in rows.nth(1).inner_text()
        assert "report of a cheat" in rows.nth(2).inner_text()
        assert all(name in rows.nth(i).inner_text() for i in range(4))
        page.get_by_label("Search (room or reason)").fill("cheat")
        page.wait_for_function(
            "() => document.querySelectorAll('table.admin-audit tbody tr').length === 1"
        )
        assert rows.first.get_attribute("data-action") == "reveal"
        page.screenshot(path=str(screenshot_dir / "admin-audit-1280x800.png"))

        # Nodes: this site's node is alive.
        page.get_by_role("button", name="Nodes").click()
        node = page.locator("table.admin-nodes tbody tr").first
        node.wait_for()
        assert "yes" in node.inner_text()
    finally:
        admin.close()
        alice.close()
