"""The page adds its own randomness to the deal and shows it: "I'm ready" sends 32 random
bytes; once the game starts the page says its bytes are in the deal (and which seats the
server chose bytes for); the seat's contribution on the wire is the one the page keeps; at
the end the verified badge also checks the seed's derivation."""

from __future__ import annotations

from typing import Any

import pytest
from players import Person, play_until_over

pytestmark = pytest.mark.browser


def test_the_page_shows_its_bytes_are_in_the_deal(site: str, chromium: Any) -> None:
    ann = Person(chromium, site, "Ann")
    try:
        ann.open("/")
        ann.choose_name()
        code = ann.create_room(rounds=1, seats=2)
        ann.add_bot("random")
        ann.ready()
        ann.page.get_by_role("button", name="Start the game").click()
        ann.page.wait_for_selector("p.contribution[data-mine='true']")
        start = next(
            f for f in ann.frames if f.get("type") == "event" and f["event"]["kind"] == "start"
        )
        kept = ann.page.evaluate(
            f"() => JSON.parse(localStorage.getItem('tortuga.deal.{code}')).entropy"
        )
        mine, bot = start["event"]["contributions"]
        # (with the device's key and signature of them: the move chain's ``entropy``)
        assert {k: mine[k] for k in ("seat", "entropy", "by")} == {
            "seat": 0,
            "entropy": kept,
            "by": "player",
        }
        assert len(mine["key"]) == 64 and len(mine["sig"]) == 86
        assert bot["seat"] == 1 and bot["by"] == "server"
        text = ann.page.inner_text("p.contribution")
        assert "2" in text  # the bot's seat, whose bytes the server chose
        play_until_over([ann])
        ann.page.wait_for_selector("[data-verified='1']")
        assert not ann.errors, ann.errors
    finally:
        ann.close()
