"""The console's moderation: from a room's page an admin hides a chat line (it
leaves both players' chat; the audit keeps its text), mutes a player in the room (their
chat is refused, in their words), kicks them mid-game (their page says why; the other
player is told a bot took the seat), announces (the other player still sees it after a
reload), and finds each step in the audit; the site's bans and mutes have a page of their
own. Desktop and phone screenshots."""

from __future__ import annotations

import asyncio
import secrets
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from players import Person
from test_admin_console_page import PASSWORD, _create_admin

pytestmark = pytest.mark.browser

RUDE = "you all cheat, losers"


def test_an_admin_hides_a_line_mutes_kicks_and_announces_from_the_console(
    site: str, chromium: Any, database_url: str, screenshot_dir: Path
) -> None:
    name = f"op-{secrets.token_hex(3)}"
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, _create_admin(database_url, name)).result()
    alice = Person(chromium, site, "Alice")
    bob = Person(chromium, site, "Bob")
    admin = Person(chromium, site, name, viewport={"width": 1280, "height": 800})
    try:
        alice.open("/")
        alice.choose_name()
        code = alice.create_room(rounds=1, seats=2)
        bob.open(f"/r/{code}")
        bob.choose_name()
        bob.sit_anywhere()
        bob.ready()
        alice.ready()
        bob.page.fill("#chat-text", RUDE)
        bob.page.keyboard.press("Enter")
        alice.page.fill("#chat-text", "fair winds")
        alice.page.keyboard.press("Enter")
        alice.page.wait_for_selector(f".chat-log >> text={RUDE}")
        alice.page.get_by_role("button", name="Start the game").click()
        bob.page.wait_for_selector(".bids button")

        page = admin.page
        admin.open("/admin")
        page.get_by_label("Admin name").fill(name)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        page.get_by_role("button", name=code).click()
        lines = page.locator(".admin-chat-lines li")
        lines.nth(1).wait_for()
        reason = page.get_by_label("Reason for an action on a player or a chat line")
        said = page.locator(".admin-moderate > .admin-said")

        # Hide Bob's line: no reason, nothing sent; with one, it leaves both players' chat.
        rude = page.locator(".admin-chat-lines li", has_text=RUDE)
        rude.get_by_role("button", name="Hide").click()
        said.get_by_text("Say why, in a few words").wait_for()
        reason.fill("insults")
        rude.get_by_role("button", name="Hide").click()
        said.get_by_text("The message is hidden from every player").wait_for()
        for person in (alice, bob):
            person.page.wait_for_selector(f".chat-log >> text={RUDE}", state="detached")
            assert "fair winds" in person.page.locator(".chat-log").inner_text()
        page.wait_for_selector(f".admin-chat-lines li >> text={RUDE}", state="detached")

        # Mute Bob in this room: his next line is refused, in his words; Alice never sees it.
        bob_row = page.locator('table.admin-seats tr[data-seat="1"]')
        reason.fill("cooling off")
        bob_row.get_by_role("button", name="Mute here").click()
        said.get_by_text("Bob is muted in this room.").wait_for()
        page.locator(".admin-sanctions", has_text="Muted in this room").wait_for()
        bob.page.fill("#chat-text", "let me talk")
        bob.page.keyboard.press("Enter")
        bob.page.get_by_text("The site's operators have muted you").wait_for()
        page.screenshot(path=str(screenshot_dir / "admin-moderation-1280x800.png"), full_page=True)

        # Kick Bob mid-game: his page says why; Alice is told a bot plays his seat now.
        reason.fill("abusive in chat")
        bob_row.get_by_role("button", name="Kick").click()
        said.get_by_text("Bob was removed from the room").wait_for()
        removed = bob.page.locator(".panel.removed")
        removed.wait_for()
        assert "removed you from this room" in removed.inner_text()
        assert "abusive in chat" in removed.inner_text()
        # Its socket is closed for good: the badge does not say "retrying" (nor "connected").
        bob.page.locator("#conn[data-state='closed']").wait_for()
        assert bob.page.inner_text("#conn") == "disconnected"
        alice.page.locator("p.note", has_text="gave seat 2 to a bot").wait_for()
        page.wait_for_function(
            "() => document.querySelector('table.admin-seats tr[data-seat=\"1\"]')"
            "?.innerText.includes('heuristic')"
        )
        bob.page.screenshot(path=str(screenshot_dir / "admin-kicked-player-1280x800.png"))
        alice.page.screenshot(path=str(screenshot_dir / "admin-kick-table-1280x800.png"))
        bob.page.set_viewport_size({"width": 390, "height": 844})
        bob.page.screenshot(path=str(screenshot_dir / "admin-kicked-player-390x844.png"))

        # An announcement stands: Alice reloads her page and still sees it.
        notice = "Final table at 20:00 UTC"
        announce = page.locator("form.admin-announce")
        announce.get_by_label("Message to this room's players").fill(notice)
        announce.get_by_role("button", name="Send the announcement").click()
        announce.locator(".admin-said", has_text="Sent to 1 room.").wait_for()
        alice.page.locator(".announce", has_text=notice).wait_for()
        alice.page.reload()
        alice.page.locator(".announce", has_text=notice).wait_for()
        alice.page.screenshot(path=str(screenshot_dir / "admin-announce-after-reload-1280x800.png"))

        # The audit lists each step, with the hidden line's text.
        page.get_by_role("button", name="Audit log").click()
        page.get_by_label("Admin", exact=True).fill(name)
        page.get_by_label("Room", exact=True).fill(code)
        rows = page.locator("table.admin-audit tbody tr")
        page.wait_for_function(
            "() => document.querySelectorAll('table.admin-audit tbody tr').length === 4"
        )
        assert [rows.nth(i).get_attribute("data-action") for i in range(4)] == [
            "announce",
            "kick",
            "mute",
            "hide-chat",
        ]
        assert RUDE in rows.nth(3).inner_text() and "insults" in rows.nth(3).inner_text()
        page.get_by_label("Search (room, reason, user, text)").fill("losers")
        page.wait_for_function(
            "() => document.querySelectorAll('table.admin-audit tbody tr').length === 1"
        )

        # The site's bans and mutes: a mute everywhere, listed, then lifted.
        page.get_by_role("button", name="Bans and mutes").click()
        bob_id = bob.page.evaluate("JSON.parse(localStorage.getItem('tortuga.identity')).user.id")
        page.get_by_label("User id").fill(bob_id)
        page.locator('select[name="mod-what"]').select_option("mute")
        page.get_by_label("Reason (kept in the audit log)").fill("spam in many rooms")
        page.get_by_role("button", name="Apply (audited)").click()
        listed = page.locator(f'.admin-sanction-list tr[data-user="{bob_id}"]')
        listed.wait_for()
        assert "spam in many rooms" in listed.inner_text()
        page.screenshot(path=str(screenshot_dir / "admin-bans-1280x800.png"), full_page=True)

        # The console on a phone: the room's seats and actions as cards.
        page.set_viewport_size({"width": 390, "height": 844})
        page.screenshot(path=str(screenshot_dir / "admin-bans-390x844.png"), full_page=True)
        page.get_by_label("Reason (kept in the audit log)").fill("sorted out")
        listed.get_by_role("button", name="Unmute").click()
        page.get_by_text("Nobody is muted on the whole site.").wait_for()
        # A site ban: Bob's lobby says so (its socket was refused, closed 4010, no retries).
        page.get_by_label("User id").fill(bob_id)
        page.locator('select[name="mod-what"]').select_option("ban")
        page.get_by_label("also refuse new guests from their address (bans)").check()
        page.get_by_label("Reason (kept in the audit log)").fill("ban evasion")
        page.get_by_role("button", name="Apply (audited)").click()
        page.locator(f'.admin-sanction-list tr[data-user="{bob_id}"]').wait_for()
        bob.open("/")
        bob.page.locator(".banned-note").wait_for()
        assert "banned you from this site" in bob.page.locator(".banned-note").inner_text()
        bob.page.locator("#conn[data-state='closed']").wait_for()
        bob.page.screenshot(path=str(screenshot_dir / "admin-banned-lobby-390x844.png"))
        banned_row = page.locator(f'.admin-sanction-list tr[data-user="{bob_id}"]')
        assert "and their address" in banned_row.inner_text()
        # Bob in a fresh browser (a new guest, from the same address): refused.
        again = Person(chromium, site, "Bobby")
        try:
            again.open("/")
            again.choose_name()
            again.page.get_by_text("The site's operators have banned you").wait_for()
            again.page.screenshot(path=str(screenshot_dir / "admin-banned-new-guest.png"))
            # Lifted: the same browser may now become a guest.
            page.get_by_label("Reason (kept in the audit log)").fill("second chance")
            banned_row.get_by_role("button", name="Unban").click()
            banned_row.wait_for(state="detached")
            again.choose_name()
            again.page.wait_for_selector("form[aria-label='create a room']")
        finally:
            again.close()
        page.get_by_role("button", name="Rooms").click()
        page.get_by_role("button", name=code).click()
        page.locator('table.admin-seats tr[data-seat="0"]').get_by_role(
            "button", name="Kick"
        ).wait_for()
        page.screenshot(path=str(screenshot_dir / "admin-moderation-390x844.png"), full_page=True)
        assert admin.errors == [] or all("40" in e for e in admin.errors), admin.errors
    finally:
        admin.close()
        bob.close()
        alice.close()
