"""The host ends a game for everyone (abandoned) in the browser: the confirm step, the
abandoned table on every page (why, the scores so far, the revealed seed checked against its
fingerprint, nothing playable), no End game button for anyone else, the room off "my rooms",
the reason kept over a reload, and the archived game's replay."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from players import Person

pytestmark = pytest.mark.browser

ENDED = "The game was ended by the host"


def _seed_and_digest(person: Person) -> tuple[str, str]:
    seeds = person.page.eval_on_selector_all(
        ".abandoned .seed", "ss => ss.map(s => s.textContent.trim())"
    )
    assert len(seeds) == 2, seeds
    return str(seeds[0]), str(seeds[1])


def _nothing_playable(person: Person) -> None:
    page = person.page
    assert page.locator("button.card").count() > 0  # the hand is still shown ...
    assert page.locator("button.card:not([disabled])").count() == 0  # ... but frozen
    assert page.locator(".bids button").count() == 0
    assert page.locator("[data-key='takeback']").count() == 0
    assert page.locator(".clock").count() == 0
    assert person.state() == "over"  # the harness sees nothing left to do


def test_the_host_ends_the_game(site: str, chromium: Any, screenshot_dir: Path) -> None:
    alice = Person(chromium, site, "Alice")
    bob = Person(chromium, site, "Bob")
    try:
        alice.open("/")
        alice.choose_name()
        code = alice.create_room(rounds=3, seats=4)
        bob.open(f"/r/{code}")
        bob.choose_name()
        bob.sit_anywhere()
        alice.add_bot("heuristic")
        alice.add_bot("random")
        bob.ready()
        alice.ready()
        # Only the host has the button, and only once the game is played.
        assert alice.page.locator("[data-key='end-game']").count() == 0
        alice.page.get_by_role("button", name="Start the game").click()
        for person in (alice, bob):
            person.page.wait_for_selector(".bids button")
        alice.page.get_by_role("button", name="End game…").wait_for()
        assert bob.page.locator("[data-key='end-game']").count() == 0

        # Round 1's bids, then the first trick is under way: someone can play a card.
        alice.bid(0)
        bob.bid(1)
        alice.page.wait_for_selector(".table-area[data-phase='play']")
        bob.page.wait_for_selector(".table-area[data-phase='play']")
        assert bob.page.locator("[data-key='end-game']").count() == 0

        # The confirm step: "Keep playing" changes nothing.
        alice.page.get_by_role("button", name="End game…").click()
        dialog = alice.page.get_by_role("alertdialog", name="end the game")
        dialog.wait_for()
        assert "End the game for everyone?" in dialog.inner_text()
        alice.page.get_by_role("button", name="Keep playing").click()
        assert dialog.count() == 0
        assert bob.page.locator(".abandoned").count() == 0

        alice.page.get_by_role("button", name="End game…").click()
        alice.shot(screenshot_dir, "end-game-confirm")
        alice.page.get_by_role("button", name="Yes, end the game for everyone").click()

        seeds = []
        for person in (alice, bob):
            page = person.page
            page.wait_for_selector(f".gameover.abandoned[data-reason='host'] >> text={ENDED}")
            page.wait_for_selector(".status-line >> text=" + ENDED)
            assert page.inner_text(".badge >> nth=0") == "abandoned"
            _nothing_playable(person)
            assert page.locator("[data-key='end-game']").count() == 0
            # Scores so far, one line per seat (nobody scored yet in round 1).
            assert page.locator(".so-far li").count() == 4
            # The seed, checked in the page and here against the fingerprint of the start.
            page.wait_for_selector(".abandoned [data-verified='1']", timeout=10000)
            assert "hand" in page.inner_text(".abandoned [data-verified='1']")
            seed, digest = _seed_and_digest(person)
            assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == digest
            seeds.append((seed, digest))
            # The replay link once the archiver has stored the game.
            page.get_by_role("link", name="Watch the replay").wait_for(timeout=15000)
        assert seeds[0] == seeds[1]
        alice.shot(screenshot_dir, "abandoned")

        # Bob reloads: still abandoned, the reason kept, nothing to play.
        bob.page.reload()
        bob.page.wait_for_selector(f".abandoned >> text={ENDED}")
        bob.page.wait_for_selector(".abandoned [data-verified='1']", timeout=10000)
        _nothing_playable(bob)
        assert _seed_and_digest(bob) == seeds[0]

        # The replay of the abandoned game says so.
        bob.page.get_by_role("link", name="Watch the replay").click()
        bob.page.wait_for_selector("[data-status='abandoned']")
        bob.page.wait_for_selector(".replay-controls")

        # The room has left "my rooms" and the public list.
        bob.open("/")
        bob.page.wait_for_selector("#my-rooms >> text=You are not seated in any room yet.")
        assert bob.page.locator(f"li[data-room='{code}']").count() == 0
        for person in (alice, bob):
            # (A 404 is the page looking the game up before the archiver has stored it.)
            errors = [e for e in person.errors if "WebSocket" not in e and "status of 404" not in e]
            assert not errors, person.errors
    finally:
        alice.close()
        bob.close()
