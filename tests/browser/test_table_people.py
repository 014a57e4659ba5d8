"""What a new player tripped on around the table (issue 9), on the real site: the bots'
names, my own seat's presence, a chat message being typed while the room changes."""

from __future__ import annotations

from typing import Any

import pytest
from players import Person

pytestmark = pytest.mark.browser


def _bot_names(person: Person, selector: str) -> list[tuple[str, str]]:
    """(name, tooltip) of every bot name shown under ``selector``."""
    return [
        (str(n).strip(), str(t))
        for n, t in person.page.eval_on_selector_all(
            f"{selector} .who-name.bot",
            "ns => ns.map(n => [n.firstChild.textContent, n.title])",
        )
    ]


def test_bots_have_pirate_names_my_seat_is_online_and_a_chat_draft_survives(
    site: str, chromium: Any
) -> None:
    hana = Person(chromium, site, "Hana")
    ivo = Person(chromium, site, "Ivo")
    try:
        hana.open("/")
        hana.choose_name()
        code = hana.create_room(rounds=1, seats=4)
        page = hana.page
        # Item 6: "Your own seat says 'offline' before the start and after a reload, while
        # the header says connected."
        page.wait_for_selector("#conn[data-state='open']")
        assert "offline" not in page.inner_text("ol.seats li.me")
        page.reload()
        page.wait_for_selector("ol.seats li.me")
        page.wait_for_selector("#conn[data-state='open']")
        assert "offline" not in page.inner_text("ol.seats li.me")

        # Item 2: "Both bots are called 'heuristic bot'. Bots get distinct pirate names (with
        # a bot mark and their level in a tooltip) everywhere."
        hana.add_bot("heuristic")
        hana.add_bot("heuristic")
        bots = _bot_names(hana, "ol.seats")
        assert len(bots) == 2 and bots[0][0] != bots[1][0]
        assert all("bot" not in name and "heuristic" not in name for name, _ in bots)
        assert all(tip == "bot · level: heuristic" for _, tip in bots)

        # Item 4: "Unsent chat text is erased by the next game update. Re-rendering must never
        # touch an input the user is typing in (focus and selection kept too)."
        page.fill("#chat-text", "half a message")
        page.evaluate("() => document.getElementById('chat-text').setSelectionRange(5, 7)")
        ivo.page.goto(f"{site}/r/{code}")
        ivo.choose_name()
        ivo.sit_anywhere()
        ivo.ready()
        page.wait_for_selector("ol.seats li:has-text('Ivo') >> text=ready ✓")
        draft = page.evaluate(
            """() => { const i = document.getElementById('chat-text');
                       return [i.value, document.activeElement === i, i.selectionStart,
                               i.selectionEnd]; }"""
        )
        assert draft == ["half a message", True, 5, 7]

        hana.ready()
        page.get_by_role("button", name="Start the game").click()
        page.wait_for_selector(".player.me")
        page.wait_for_selector("#conn[data-state='open']")
        assert page.locator(".player.me .offline").count() == 0
        names = _bot_names(hana, ".players")
        assert sorted(n for n, _ in names) == sorted(n for n, _ in bots)
        assert len(_bot_names(hana, ".sheet-table thead")) == 2  # the score sheet too
        page.reload()
        page.wait_for_selector(".player.me")
        page.wait_for_selector("#conn[data-state='open']")
        assert page.locator(".player.me .offline").count() == 0
        assert not hana.errors and not ivo.errors, hana.errors + ivo.errors
    finally:
        hana.close()
        ivo.close()
