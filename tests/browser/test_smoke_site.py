from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.browser


def test_lobby_loads(site: str, chromium: Any) -> None:
    ctx = chromium.new_context()
    page = ctx.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(site + "/")
    page.fill("#name", "Alice")
    page.click("text=Continue")
    page.wait_for_selector("text=Create a room")
    page.screenshot(path="/tmp/lobby.png", full_page=True)
    ctx.close()
    assert not errors, errors
