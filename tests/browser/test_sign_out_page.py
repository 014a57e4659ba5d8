"""Sign out everywhere else: a person whose identity is also in another
browser (a lost phone) signs that one out from the lobby; this browser stays signed in as
the same player with a fresh token."""

from __future__ import annotations

import json
from typing import Any

import pytest
from players import Person

pytestmark = pytest.mark.browser

IDENTITY = "() => JSON.parse(localStorage.getItem('tortuga.identity'))"


def test_sign_out_everywhere_else(site: str, chromium: Any) -> None:
    here = Person(chromium, site, "Ann")
    try:
        here.open("/")
        here.choose_name()
        here.page.wait_for_selector("[data-key='sign-out-everywhere']")
        before = here.page.evaluate(IDENTITY)
        # The same identity in another browser (copied, as a thief or an old phone has it).
        there = Person(chromium, site, "Ann's phone")
        there.open("/")
        there.page.wait_for_selector("#name")
        there.page.evaluate(
            "id => localStorage.setItem('tortuga.identity', id)", json.dumps(before)
        )
        there.page.reload()
        there.page.wait_for_selector("[data-key='sign-out-everywhere']")
        here.page.on("dialog", lambda d: d.accept())
        with here.page.expect_navigation():  # the page reloads with the fresh token
            here.page.click("[data-key='sign-out-everywhere']")
        here.page.wait_for_selector("[data-key='sign-out-everywhere']")
        after = here.page.evaluate(IDENTITY)
        assert after["token"] != before["token"]
        assert after["user"] == before["user"]
        here.page.wait_for_selector("[data-key='sign-out-everywhere']")  # still signed in
        # The other browser is signed out: its socket was closed, it asks for a name.
        there.page.wait_for_selector("#name", timeout=15000)
        assert there.page.evaluate(IDENTITY) is None
        there.close()
    finally:
        here.close()
