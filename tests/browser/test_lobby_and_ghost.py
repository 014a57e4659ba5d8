"""The lobby lists rooms live and remembers "my rooms"; a two-player Bid & Make It game with
the ghost hand; one full ten-round Skull King game."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from players import Person, play_until_over

pytestmark = pytest.mark.browser


def test_lobby_live_list_and_my_rooms(site: str, chromium: Any, screenshot_dir: Path) -> None:
    dave = Person(chromium, site, "Dave")
    erin = Person(chromium, site, "Erin")
    try:
        dave.open("/")
        dave.choose_name()
        dave.page.wait_for_selector("#conn[data-state='open']")
        erin.open("/")
        erin.choose_name()
        code = erin.create_room(game="bid-tricks", rounds=1, seats=2)
        # Dave's lobby shows the new room without a reload (watch_rooms).
        dave.page.wait_for_selector(f"#public-rooms li[data-room='{code}']")
        assert "1/2 seated" in dave.page.inner_text(f"#public-rooms li[data-room='{code}']")
        dave.shot(screenshot_dir, "lobby-live")
        # Join by code from the lobby form.
        dave.page.fill("#join-code", f"{site}/r/{code}")
        dave.page.get_by_role("button", name="Join", exact=True).click()
        dave.page.wait_for_url(f"**/r/{code}")
        dave.sit_anywhere()
        # The host's controls: a bot comes and goes, Dave is kicked and sits down again.
        erin_seat = int(erin.page.get_attribute("ol.seats li.me", "data-seat") or 0)
        dave_li = f"ol.seats li[data-seat='{1 - erin_seat}']"
        erin.page.wait_for_selector(f"{dave_li} >> text=Dave")
        erin.page.locator(dave_li).get_by_role("button", name="Kick").click()
        dave.page.wait_for_selector("ol.seats li.me", state="detached")
        erin.add_bot("random")
        erin.page.get_by_role("button", name="Remove bot").click()
        erin.page.wait_for_selector("ol.seats li[data-bot]", state="detached")
        dave.sit_anywhere()
        dave.page.get_by_role("button", name="Stand up").click()
        dave.page.wait_for_selector("ol.seats li.me", state="detached")
        dave.sit_anywhere()
        dave.ready()
        erin.ready()
        erin.page.get_by_role("button", name="Start the game").click()
        dave.page.wait_for_selector(".bids button")
        # "My rooms" in another tab of Dave's browser: it is his move (a bid).
        lobby = dave.context.new_page()
        lobby.goto(site + "/")
        lobby.wait_for_selector(f"#my-rooms li[data-room='{code}'] .your-turn")
        lobby.close()
        # The ghost hand of a two-player game: its pile, never its cards.
        ghost = dave.page.locator(".player.ghost")
        assert "Pile 1" in " ".join(ghost.inner_text().split())
        assert dave.page.locator(".player.ghost [data-card]").count() == 0
        play_until_over([dave, erin], timeout=30)
        assert dave.final_scores() == erin.final_scores()
        dave.page.wait_for_selector("[data-verified='1']")
        for person in (dave, erin):
            assert not [e for e in person.errors if "WebSocket" not in e], person.errors
    finally:
        dave.close()
        erin.close()


def test_two_player_bid_tricks_with_the_ghost(
    site: str, chromium: Any, screenshot_dir: Path
) -> None:
    finn = Person(chromium, site, "Finn", keyboard=True)
    try:
        finn.open("/")
        finn.choose_name()
        finn.create_room(game="bid-tricks", rounds=3, seats=2)
        finn.add_bot("heuristic")
        finn.ready()
        finn.page.get_by_role("button", name="Start the game").click()
        finn.page.wait_for_selector(".player.ghost")
        seen_ghost_play = {"yes": False}

        def hook(person: Person, did: str) -> None:
            if not seen_ghost_play["yes"]:
                seen_ghost_play["yes"] = (
                    person.page.locator(".trick-zone .played[data-seat='2']").count() > 0
                )
                if seen_ghost_play["yes"]:
                    person.shot(screenshot_dir, "table-ghost")

        play_until_over([finn], timeout=40, hook=hook)
        assert seen_ghost_play["yes"]
        finn.page.wait_for_selector("[data-verified='1']")
        assert len(finn.final_scores()) == 2
        assert not [e for e in finn.errors if "WebSocket" not in e], finn.errors
    finally:
        finn.close()


def test_a_full_ten_round_game(site: str, chromium: Any, screenshot_dir: Path) -> None:
    # A won trick is held 0.15 s, not 1.5 s (55 tricks; test_screenshots.py photographs one).
    gus = Person(chromium, site, "Gus", hold_ms=150)
    hana = Person(chromium, site, "Hana", keyboard=True, hold_ms=150)
    started = time.monotonic()
    try:
        gus.open("/")
        gus.choose_name()
        code = gus.create_room(rounds=10, seats=4)
        hana.open(f"/r/{code}")
        hana.choose_name()
        hana.sit_anywhere()
        gus.add_bot("heuristic")
        gus.add_bot("heuristic")
        hana.ready()
        gus.ready()
        gus.page.get_by_role("button", name="Start the game").click()
        play_until_over([gus, hana], timeout=150)
        scores = gus.final_scores()
        assert scores == hana.final_scores() and len(scores) == 4
        for person in (gus, hana):
            person.page.wait_for_selector("[data-verified='1']")
            text = person.page.inner_text("[data-verified='1']")
            assert "10 hands" in text, text
        assert gus.page.locator(".sheet-table tbody tr").count() == 11  # 10 rounds + total
        gus.shot(screenshot_dir, "game-over-10-rounds")
        print(f"ten rounds in {time.monotonic() - started:.1f}s")
    finally:
        gus.close()
        hana.close()


def test_deadline_countdown(site: str, chromium: Any, screenshot_dir: Path) -> None:
    ivy = Person(chromium, site, "Ivy")
    try:
        ivy.open("/")
        ivy.choose_name()
        ivy.page.wait_for_selector("form[aria-label='create a room']")
        ivy.page.select_option("#deadlines", "live")
        ivy.create_room(rounds=1, seats=2)
        assert "deadlines: move 30s, secret choice 30s, reveal 15s" in ivy.page.inner_text("main")
        ivy.add_bot("random")
        ivy.ready()
        ivy.page.get_by_role("button", name="Start the game").click()
        clock = ivy.page.locator(".status-line .clock")
        clock.wait_for()
        first = clock.inner_text()
        assert first.startswith("time left 0:"), first
        ivy.page.wait_for_function(
            "t => document.querySelector('.status-line .clock').textContent !== t", arg=first
        )
        ivy.shot(screenshot_dir, "deadline")
        play_until_over([ivy], timeout=30)
        assert ivy.page.locator(".status-line .clock").count() == 0
    finally:
        ivy.close()
