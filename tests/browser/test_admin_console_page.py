"""The admin console page (/admin): an admin signs in with an admin account
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


async def _announcements(site: str, token: str, room: str, count: int) -> None:
    """``count`` more announcements to ``room`` (each one an audit entry)."""
    async with httpx.AsyncClient(base_url=site) as http:
        for i in range(count):
            r = await http.post(
                "/admin/api/announce",
                json={"room": room, "text": f"note {i}"},
                headers={"Authorization": f"Bearer {token}"},
            )
            assert r.status_code == 200, r.text


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
        page.get_by_label("Search (room, host, seat, user id)").fill("nobody-at-all")
        page.wait_for_selector(f'tr[data-room="{code}"]', state="detached")
        page.get_by_label("Search (room, host, seat, user id)").fill("alic")
        row.wait_for()
        # The code as a player reads it out ("K7QX-MH4P"), typed as heard: spaced, lower case.
        page.get_by_label("Search (room, host, seat, user id)").fill("nobody-at-all")
        page.wait_for_selector(f'tr[data-room="{code}"]', state="detached")
        spoken = " ".join(code[i : i + 4] for i in range(0, len(code), 4)).lower()
        page.get_by_label("Search (room, host, seat, user id)").fill(spoken)
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
    """An admin logs in, sees a live room being played by bots, reveals its hidden state
    (audited, the players' pages say an admin looked), announces a message that the players'
    browsers display, pauses and resumes the clock, and closes the room; the audit page lists
    each step.

    Reveal: the reason is required, the audit row comes first, the answer is shown only once
    the server gave it. Pause: the player's clock says paused; resume: it counts again;
    extend: the player is told the table got more time. The audit page filters by admin,
    action, room and text, a page at a time."""
    name = f"op-{secrets.token_hex(3)}"
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, _create_admin(database_url, name)).result()
    alice = Person(chromium, site, "Alice")
    admin = Person(chromium, site, name, viewport={"width": 1280, "height": 800})
    try:
        alice.open("/")
        alice.choose_name()
        code = alice.create_room(rounds=3, seats=2, deadlines="relaxed")
        alice.add_bot("heuristic")
        alice.ready()
        alice.page.get_by_role("button", name="Start the game").click()
        alice.page.wait_for_selector(".bids button")
        alice_clock = alice.page.locator(".status-line .clock")
        alice_clock.wait_for()  # a bid deadline: the player's clock counts down

        page = admin.page
        admin.open("/admin")
        page.get_by_label("Admin name").fill(name)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        # The live list: the room is playing, its bot seat named, its clock's deadline shown.
        listed = page.locator(f'tr[data-room="{code}"]')
        listed.wait_for()
        assert "playing" in listed.inner_text() and "(a bot)" in listed.inner_text()
        page.screenshot(path=str(screenshot_dir / "admin-live-rooms-1280x800.png"))
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

        # Pause the clocks (a reason first): the player's clock says paused.
        clock = page.locator(".admin-clock")
        clock.get_by_text("The clocks run; the table waits until").wait_for()
        pause = clock.locator("form.admin-pause")
        pause.get_by_role("button", name="Pause the clocks").click()  # no reason: nothing sent
        pause.get_by_label("Reason (kept in the audit log)").fill("player asked for a break")
        pause.get_by_role("button", name="Pause the clocks").click()
        clock.get_by_text("The clocks are paused; the players see it.").wait_for()
        clock.get_by_text("Paused since").wait_for()
        # The clock says it is paused: "clock paused", not "time left paused".
        alice.page.wait_for_function(
            "() => document.querySelector('.status-line .clock')?.innerText.trim()"
            " === 'clock paused'"
        )
        assert "paused this game's clocks" in alice.page.locator(".announce").inner_text()
        assert clock.locator("form.admin-extend").count() == 0  # no extension while paused
        page.screenshot(path=str(screenshot_dir / "admin-paused-1280x800.png"), full_page=True)
        alice.page.screenshot(path=str(screenshot_dir / "admin-paused-player-1280x800.png"))

        # Resume: the player's clock counts again.
        resume = clock.locator("form.admin-resume")
        resume.get_by_label("Reason (kept in the audit log)").fill("break over")
        resume.get_by_role("button", name="Resume the clocks").click()
        clock.get_by_text("The clocks run again, with the time they had left.").wait_for()
        alice.page.wait_for_function(
            "() => /\\d:\\d\\d/.test(document.querySelector('.status-line .clock')?.innerText)"
        )

        # Extend the deadline by 5 minutes: the player is told the table got more time.
        extend = clock.locator("form.admin-extend")
        extend.get_by_label("Give").select_option("300")
        extend.get_by_label("Reason (kept in the audit log)").fill("slow connection")
        extend.get_by_role("button", name="Extend the deadline").click()
        clock.get_by_text("The table now waits until").wait_for()
        alice.page.get_by_text("gave the table more time").wait_for()

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

        # The audit page lists each step, newest first (this admin's: the audit is shared).
        page.get_by_role("button", name="Audit log").click()
        page.get_by_label("Admin", exact=True).fill(name)
        rows = page.locator("table.admin-audit tbody tr")
        steps = ["close", "extend", "resume", "pause", "announce", "reveal", "login"]

        def shown(count: int) -> None:
            page.wait_for_function(
                "n => document.querySelectorAll('table.admin-audit tbody tr').length === n",
                arg=count,
            )

        shown(len(steps))
        assert [rows.nth(i).get_attribute("data-action") for i in range(len(steps))] == steps
        assert "test of closing" in rows.nth(0).inner_text()
        assert "slow connection" in rows.nth(1).inner_text()
        assert "break over" in rows.nth(2).inner_text()
        assert "player asked for a break" in rows.nth(3).inner_text()
        assert text in rows.nth(4).inner_text()
        assert "report of a cheat" in rows.nth(5).inner_text()
        assert all(name in rows.nth(i).inner_text() for i in range(len(steps)))
        assert code in rows.nth(0).inner_text() and code not in rows.nth(6).inner_text()
        page.screenshot(path=str(screenshot_dir / "admin-audit-1280x800.png"), full_page=True)
        # Filters: by action, by room, by text.
        page.get_by_label("Action").fill("pause")
        shown(1)
        assert rows.first.get_attribute("data-action") == "pause"
        page.get_by_label("Action").fill("")
        page.get_by_label("Room", exact=True).fill(code)
        shown(len(steps) - 1)  # the login names no room
        page.get_by_label("Search (room, reason, user, text)").fill("cheat")
        shown(1)
        assert rows.first.get_attribute("data-action") == "reveal"
        page.get_by_label("Search (room, reason, user, text)").fill("")
        page.get_by_label("Room", exact=True).fill("")
        # A page at a time: 10 per page, the older ones on demand.
        token = page.evaluate("sessionStorage.getItem('tortuga.admin.token')")
        with ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, _announcements(site, token, code, 4)).result()
        page.get_by_label("Per page").select_option("10")
        shown(10)
        older = page.get_by_role("button", name="Older entries")
        older.click()
        shown(len(steps) + 4)
        assert rows.last.get_attribute("data-action") == "login"
        assert older.is_hidden()

        # Nodes: this site's node is alive, with its version and uptime.
        page.get_by_role("button", name="Nodes").click()
        node = page.locator("table.admin-nodes tbody tr").first
        node.wait_for()
        assert "alive" in node.inner_text()
        page.screenshot(path=str(screenshot_dir / "admin-nodes-1280x800.png"))

        # The console on a phone: the same pages, nothing cut off.
        page.set_viewport_size({"width": 390, "height": 844})
        page.get_by_role("button", name="Rooms").click()
        page.locator("table.admin-rooms").wait_for()
        page.screenshot(path=str(screenshot_dir / "admin-rooms-390x844.png"), full_page=True)
        page.get_by_role("button", name="Audit log").click()
        page.locator("table.admin-audit tbody tr").first.wait_for()
        page.screenshot(path=str(screenshot_dir / "admin-audit-390x844.png"), full_page=True)
    finally:
        admin.close()
        alice.close()
