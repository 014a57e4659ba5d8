"""The people around the table, on the real site: the bots'
names, my own seat's presence, a chat message being typed while the room changes."""

from __future__ import annotations

import time
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
        # My own seat is online (not 'offline') before the start and after a reload, as the
        # header says.
        page.wait_for_selector("#conn[data-state='open']")
        assert "offline" not in page.inner_text("ol.seats li.me")
        page.reload()
        page.wait_for_selector("ol.seats li.me")
        page.wait_for_selector("#conn[data-state='open']")
        assert "offline" not in page.inner_text("ol.seats li.me")

        # Bots get distinct pirate names (with a bot mark and their level in a tooltip)
        # everywhere, not "heuristic bot" twice.
        hana.add_bot("heuristic")
        hana.add_bot("heuristic")
        bots = _bot_names(hana, "ol.seats")
        assert len(bots) == 2 and bots[0][0] != bots[1][0]
        assert all("bot" not in name and "heuristic" not in name for name, _ in bots)
        assert all(tip == "bot · level: good" for _, tip in bots)  # a level in plain words

        # Unsent chat text survives the next game update: re-rendering never touches an input
        # the user is typing in (focus and selection kept too).
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


def test_game_over_play_again_chart_and_the_check_button(site: str, chromium: Any) -> None:
    """The game over has 'Play again' (same seats and bots, a new room, the others invited
    with one click), a score chart (cumulative score per round per player, drawn as SVG), no
    invite panel, a replay link opening at step 1 and, beside the verified badge, "Check this
    game": the browser recomputes every deal and says what it found in words (no command
    line for a player to copy)."""
    from players import play_until_over

    hana = Person(chromium, site, "Hana", hold_ms=300)
    ivo = Person(chromium, site, "Ivo", hold_ms=300)
    try:
        hana.open("/")
        hana.choose_name()
        code = hana.create_room(rounds=2, seats=3)
        ivo.page.goto(f"{site}/r/{code}")
        ivo.choose_name()
        ivo.sit_anywhere()
        hana.add_bot("random")
        ivo.ready()
        hana.ready()
        hana.page.get_by_role("button", name="Start the game").click()
        hana_seat = hana.my_seat()
        play_until_over([hana, ivo], timeout=90)
        page = hana.page
        page.wait_for_selector("[data-verified='1']", timeout=10000)
        # The chart: one line per player, one point per round.
        chart = page.locator(".gameover svg.score-chart")
        assert chart.count() == 1
        assert chart.locator("polyline").count() == 3
        assert chart.locator("g[data-seat='0'] > :not(polyline)").count() == 2
        assert page.locator(".chart-legend li").count() == 3
        # Nobody is left to invite; the verify line names the game.
        assert page.locator("#invite").count() == 0 or not page.locator("#invite").is_visible()
        assert "tortuga verify" not in page.inner_text(".gameover")
        found = check_this_game(page)
        assert found.get_attribute("data-game-check") == "ok", found.inner_text()
        assert found.inner_text() == (
            "✓ This game checks out: its shuffle was locked in before the first card was "
            "dealt, and your browser rebuilt the deals of all 2 rounds from it."
        )
        href = str(page.get_attribute("a[data-key='replay']", "href"))
        assert href.endswith("?v=1") and "/replay/" in href
        # Two people played it to the end: it counts, and the panel says what it did to
        # Hana's rating (this site rates everyone from their first game).
        line = page.locator(".rating-line[data-rated='1']")
        line.wait_for()
        assert line.inner_text().startswith("This game counts for the ratings: your rating ")
        bot_seat = int(str(page.get_attribute("ol.final li:has(.who-name.bot)", "data-seat")))

        # Play again: a new room, Hana in her seat, the bot at its seat and level.
        page.get_by_role("button", name="Play again").click()
        page.wait_for_url(lambda url: f"/r/{code}" not in url and "/r/" in url)
        page.wait_for_selector("ol.seats li.me")
        page.wait_for_selector(f"ol.seats li[data-seat='{bot_seat}'][data-bot='random']")
        assert page.get_attribute("ol.seats li.me", "data-seat") == str(hana_seat)
        new_code = page.url.rsplit("/r/", 1)[1]
        # Ivo, still on the old table, is invited with one click.
        join = ivo.page.locator("a[data-key='join-next']")
        join.wait_for(timeout=10000)
        assert "Hana" in join.inner_text()
        join.click()
        ivo.page.wait_for_url(f"**/r/{new_code}")
        ivo.page.wait_for_selector("ol.seats")
        assert not hana.errors and not ivo.errors, hana.errors + ivo.errors
    finally:
        hana.close()
        ivo.close()


def check_this_game(page: Any) -> Any:
    """Press "Check this game" until the archive has the game (it stores it within
    seconds); the result the page shows."""
    result = page.locator(".check-game .check-result")
    for _ in range(40):
        page.locator("button[data-key='check-game']").click()
        page.wait_for_function(
            "() => { const r = document.querySelector('.check-game .check-result');"
            " return r && r.dataset.gameCheck !== 'running'; }"
        )
        if result.get_attribute("data-game-check") != "not_saved":
            return result
        time.sleep(0.25)
    raise AssertionError("the archive never had the game")
