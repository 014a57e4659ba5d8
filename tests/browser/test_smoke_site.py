"""The first thing a newcomer does: open the site, pick a name, see the lobby -- no errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser


def test_lobby_loads(site: str, chromium: Any, screenshot_dir: Path) -> None:
    ctx = chromium.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(site + "/")
    page.fill("#name", "Alice")
    page.get_by_role("button", name="Continue").click()
    page.wait_for_selector("text=Create a room")
    page.wait_for_selector("#conn[data-state='open']")
    page.screenshot(path=str(screenshot_dir / "lobby-phone.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    ctx.close()
    assert not errors, errors
