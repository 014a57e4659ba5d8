"""Driving the client like a person would: clicks and keys on the real pages."""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path
from typing import Any


class Person:
    """One browser context (one person) on the site."""

    def __init__(
        self,
        browser: Any,
        site: str,
        name: str,
        *,
        keyboard: bool = False,
        hold_ms: int | None = None,
        **context: Any,
    ) -> None:
        """``hold_ms``: how long the table holds a moment (a won trick: 1.5 s) in this
        browser; shorter in tests that play many tricks and do not look at the hold."""
        self.site = site
        self.name = name
        self.keyboard = keyboard  # play with the keyboard only (digits, arrows, Enter)
        self.context = browser.new_context(**context)
        if hold_ms is not None:
            self.context.add_init_script(f"localStorage.setItem('tortuga.holdMs', '{hold_ms}');")
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.frames: list[dict[str, Any]] = []
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("websocket", self._watch_socket)

    def _watch_socket(self, ws: Any) -> None:
        def received(payload: Any) -> None:
            if isinstance(payload, str):
                with contextlib.suppress(ValueError):
                    self.frames.append(json.loads(payload))

        ws.on("framereceived", received)

    # -- getting in ------------------------------------------------------------------------
    def open(self, path: str) -> None:
        self.page.goto(self.site + path)

    def choose_name(self) -> None:
        self.page.fill("#name", self.name)
        self.page.get_by_role("button", name="Continue").click()

    def create_room(
        self, *, game: str = "skull-king", rounds: int, seats: int, deadlines: str = ""
    ) -> str:
        """``deadlines``: one of the form's paces ("relaxed", "live"); none by default."""
        page = self.page
        page.wait_for_selector("form[aria-label='create a room']")
        page.select_option("#game", game)
        page.fill("#rounds", str(rounds))
        page.fill("#seats", str(seats))
        if deadlines:
            page.select_option("#deadlines", deadlines)
        page.get_by_role("button", name="Create the room").click()
        page.wait_for_url("**/r/*")
        # The creator sits down at once.
        page.wait_for_selector("ol.seats li.me")
        return page.url.rsplit("/r/", 1)[1]

    def invite_link(self) -> str:
        return str(self.page.input_value("#invite"))

    def sit_anywhere(self) -> None:
        self.page.get_by_role("button", name="Sit here").first.click()
        self.page.wait_for_selector("ol.seats li.me")

    def ready(self) -> None:
        self.page.get_by_role("button", name="I'm ready").click()
        self.page.wait_for_selector("ol.seats li.me >> text=ready ✓")

    def add_bot(self, level: str = "heuristic") -> None:
        page = self.page
        before = page.locator("ol.seats li[data-bot]").count()
        page.locator("ol.seats li", has=page.get_by_role("button", name="Add bot")).first.locator(
            "select"
        ).select_option(level)
        page.get_by_role("button", name="Add bot").first.click()
        page.wait_for_function(
            "n => document.querySelectorAll('ol.seats li[data-bot]').length > n", arg=before
        )

    # -- at the table -------------------------------------------------------------------------
    def my_seat(self) -> int | None:
        seat = self.page.get_attribute(".player.me", "data-seat", timeout=5000)
        return int(seat) if seat is not None else None

    def state(self) -> str:
        return str(
            self.page.evaluate(
                """() => {
                  if (document.querySelector('.gameover')) return 'over';
                  if (document.querySelector('.choice-dialog')) return 'choice';
                  if (document.querySelector('.bids button')) return 'bid';
                  if (document.querySelector('button.card:not([disabled])')) return 'play';
                  return 'wait';
                }"""
            )
        )

    def bid(self, n: int | None = None) -> int:
        page = self.page
        options = [
            int(b)
            for b in page.eval_on_selector_all(".bids button", "bs => bs.map(b => b.dataset.bid)")
        ]
        choice = n if n is not None and n in options else options[min(1, len(options) - 1)]
        if self.keyboard:
            page.evaluate("() => document.activeElement && document.activeElement.blur()")
            page.keyboard.press(str(choice))
            page.focus(f"button[data-key='seal']:has-text('Seal my bid: {choice}')", timeout=2000)
            page.keyboard.press("Enter")
        else:
            page.click(f".bids button[data-bid='{choice}']", timeout=2000)
            page.get_by_role("button", name=f"Seal my bid: {choice}").click(timeout=2000)
        try:
            # Sealed -- or already revealed: when this was the last bid and bots are instant,
            # the phase can open and resolve before the "sealed" marker is ever looked at.
            page.wait_for_function(
                """() => document.querySelector("[data-sealed='1']")
                         || !document.querySelector('.bids button')""",
                timeout=10000,
            )
        except Exception as exc:
            raise AssertionError(
                f"{self.name}: bid not sealed\n{self.page.inner_text('main')}\n{self.frames[-8:]}"
            ) from exc
        return choice

    def play_first_legal(self) -> str:
        page = self.page
        button = page.locator("button.card:not([disabled])").first
        if not self.keyboard:
            card = str(button.get_attribute("data-card"))
            button.click(timeout=1000)
            return card
        # Focus the first playable card, step right (wrapping among playable cards), Enter.
        button.focus(timeout=1000)
        page.keyboard.press("ArrowRight")
        card = str(page.evaluate("() => document.activeElement.dataset.card"))
        page.keyboard.press("Enter")
        return card

    def step(self) -> str:
        """Do whatever the page asks of this person now; returns what it did."""
        what = self.state()
        try:
            if what == "bid":
                self.bid()
            elif what == "play":
                self.play_first_legal()
            elif what == "choice" and self.keyboard:
                self.page.keyboard.press("Enter")  # the dialog focuses its first choice
            elif what == "choice":
                self.page.click(".choice-dialog button[data-as='pirate']", timeout=1000)
        except Exception:  # the page changed under the click (a new view): look again
            return "retry"
        return what

    def final_scores(self) -> list[str]:
        return [
            " ".join(t.split()).removesuffix(" — you")
            for t in self.page.eval_on_selector_all(".final li", "ls => ls.map(l => l.textContent)")
        ]

    def shot(self, folder: Path, name: str) -> None:
        self.page.screenshot(path=str(folder / f"{name}.png"), full_page=True)

    def close(self) -> None:
        self.context.close()


def play_until_over(people: list[Person], *, timeout: float = 120.0, hook: Any = None) -> None:
    """Everyone does what their page asks until every page shows the final scores."""
    deadline = time.monotonic() + timeout
    while True:
        states = []
        for person in people:
            did = person.step()
            states.append(did)
            if hook is not None:
                hook(person, did)
        if all(s == "over" for s in states):
            return
        if time.monotonic() > deadline:
            where = [p.page.inner_text("main")[:1500] for p in people]
            raise AssertionError(f"the game did not end in time: {states}\n{where}")
        if all(s in ("wait", "retry", "over") for s in states):
            people[0].page.wait_for_timeout(30)
