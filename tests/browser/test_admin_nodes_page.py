"""The console's nodes tab: an admin drains the site's node (with a reason) -- the last one
serving, so only once they confirm it --, sees it listed as draining, then lifts the drain
("Serve again"); the node welcomes players again. Both steps are in the audit. (A site of
its own: this module drains it.)"""

from __future__ import annotations

import asyncio
import secrets
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from players import Person
from test_admin_console_page import PASSWORD, _create_admin

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def site_changes() -> dict[str, Any]:
    return {"heartbeat_seconds": 0.2}  # the node looks for a drain request this often


def _ready_says(site: str, status: int) -> None:
    """Poll ``/readyz`` (the node looks for a drain request every heartbeat) until it
    answers ``status``."""
    with httpx.Client(base_url=site) as http:
        for _ in range(100):
            if http.get("/readyz").status_code == status:
                return
            time.sleep(0.05)
        assert http.get("/readyz").status_code == status


def test_an_admin_drains_the_node_and_lifts_the_drain(
    site: str, chromium: Any, database_url: str, screenshot_dir: Path
) -> None:
    name = f"op-{secrets.token_hex(3)}"
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, _create_admin(database_url, name)).result()
    admin = Person(chromium, site, name, viewport={"width": 1280, "height": 800})
    alice = Person(chromium, site, "Alice")
    try:
        page = admin.page
        admin.open("/admin")
        page.get_by_label("Admin name").fill(name)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        page.get_by_role("button", name="Nodes").click()
        row = page.locator("table.admin-nodes tbody tr.node-alive").first
        row.wait_for()
        drain = row.locator("button[data-act='drain']")
        drain.click()  # no reason yet: refused in the page, nothing sent
        page.get_by_text("Say why, in a few words (at most 500 characters).").wait_for()
        page.get_by_label("Reason (kept in the audit log)").fill(f"kernel update ({name})")
        # The site's only node is the last one serving: the server refuses, the page asks.
        asked: list[str] = []

        def answer(dialog: Any, accept: bool) -> None:
            asked.append(dialog.message)
            dialog.accept() if accept else dialog.dismiss()

        page.once("dialog", lambda d: answer(d, False))
        drain.click()
        page.get_by_text("the last one serving").wait_for()  # not confirmed: not drained
        assert len(asked) == 1 and "Drain it anyway?" in asked[0]
        _ready_says(site, 200)
        page.once("dialog", lambda d: answer(d, True))
        drain.click()
        row.get_by_text(f"draining ({name}: kernel update ({name}))").wait_for()
        _ready_says(site, 503)
        page.screenshot(path=str(screenshot_dir / "admin-node-draining.png"))

        page.get_by_label("Reason (kept in the audit log)").fill(f"false alarm ({name})")
        row.get_by_role("button", name="Serve again").click()
        page.get_by_text("serves again within a few seconds").wait_for()
        page.wait_for_function("() => !document.querySelector('table.admin-nodes .node-draining')")
        _ready_says(site, 200)
        # A player is welcomed again: signed in over the socket, a room made.
        alice.open("/")
        alice.choose_name()
        alice.create_room(rounds=1, seats=2)

        page.get_by_role("button", name="Audit log").click()
        page.get_by_text(f"false alarm ({name})").wait_for()
        page.get_by_text(f"kernel update ({name})").wait_for()
        page.screenshot(path=str(screenshot_dir / "admin-node-undrained-audit.png"))
    finally:
        admin.close()
        alice.close()
