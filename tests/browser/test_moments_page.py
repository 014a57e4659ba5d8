"""Held moments at the table, against a scripted server, at desktop (1280x800) and phone
(390x844) width: the sealed bids revealed all at once and held a moment (Skull King, Bid &
Make It, Loon's row auction), a click on a control during a hold doing what it says, and the
player's choice of how long moments last (store.js ``holdSpeed``). Screenshots of the
moments in artifacts/screenshots/."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_i18n_pages import load
from test_table_mocked import CODE, USER, Script, _summary, _view
from web_harness import SOCKET_URL

from engines.registry import GAMES

pytestmark = pytest.mark.browser

SIZES: dict[str, dict[str, Any]] = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {
        "viewport": {"width": 390, "height": 844},
        "device_scale_factor": 1,
        "is_mobile": True,
    },
}
PLAYED = "async () => (await import('/static/js/sounds.js')).played.slice()"
ANNOUNCED = "() => document.getElementById('announcer').textContent"


class Table:
    """One browser at a scripted room: ``start(script)`` opens the room page."""

    def __init__(
        self,
        chromium: Any,
        web_only_url: str,
        size: str,
        summary: dict[str, Any],
        *,
        hold_ms: int | None = None,
        lang: str = "en",
        store: dict[str, str] | None = None,
    ) -> None:
        self.context = chromium.new_context(**SIZES[size])
        identity = json.dumps({"token": "tok", "user": USER})
        values = {"tortuga.identity": identity, "tortuga.lang": lang, "tortuga.sounds": "1"}
        if hold_ms is not None:
            values["tortuga.holdMs"] = str(hold_ms)
        values.update(store or {})
        # Set once: a reload keeps what the page itself stored since.
        self.context.add_init_script(
            "".join(
                f"if (localStorage.getItem({json.dumps(k)}) === null)"
                f" localStorage.setItem({json.dumps(k)}, {json.dumps(v)});"
                for k, v in values.items()
            )
        )
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.route(f"**/api/rooms/{CODE}", lambda route: route.fulfill(json=summary))
        self.web = web_only_url

    def start(self, script: Script) -> Any:
        self.page.route_web_socket(SOCKET_URL, script.handler)
        self.page.goto(f"{self.web}/r/{CODE}")
        return self.page

    def close(self) -> None:
        assert not self.errors, self.errors
        self.context.close()


@pytest.fixture
def tables(chromium: Any, web_only_url: str) -> Iterator[Any]:
    made: list[Table] = []

    def make(size: str, summary: dict[str, Any], **kw: Any) -> Table:
        made.append(Table(chromium, web_only_url, size, summary, **kw))
        return made[-1]

    yield make
    for table in made:
        table.close()


def _digest(phase: str, seat: int, move: Any, salt: str) -> str:
    canonical = json.dumps(move, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(f"{phase}:{seat}:{canonical}:{salt}".encode()).hexdigest()


def _snapshot(view: dict[str, Any], summary: dict[str, Any], version: int = 5) -> dict[str, Any]:
    return {
        "type": "snapshot",
        "room": CODE,
        "version": version,
        "seat": 0,
        "role": "player",
        "view": view,
        "room_state": summary,
        "seed_digest": "00" * 32,
        "seed": None,
    }


def _sealed(
    phase: str, version: int, seats: list[int], committed: dict[str, str]
) -> dict[str, Any]:
    return {
        "type": "sealed",
        "room": CODE,
        "version": version,
        "phase": phase,
        "kind": phase.split("@")[0],
        "seats": seats,
        "committed": committed,
        "open": False,
        "revealed": [],
        "commit_by": None,
        "open_by": None,
    }


def _event(
    version: int, view: dict[str, Any], kind: str = "move", moves: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {
        "type": "event",
        "room": CODE,
        "version": version,
        "seat": 0,
        "view": view,
        "event": {
            "kind": kind,
            "seats": [int(s) for s in (moves or {"1": None})],
            "moves": moves or {},
            "defaults": [],
            "at": "",
            "status": "playing",
        },
        "deadline": None,
    }


def _sealed_round(
    script: Script, phase: str, version: int, others: dict[str, Any], then: list[dict[str, Any]]
) -> None:
    """The scripted server of a sealed phase where every other seat has committed already:
    my commit opens it; my reveal reveals everyone's (checked seals) and then ``then``
    (whose event views come after the reveal)."""
    salts = {s: f"{int(s) + 1:02d}" * 16 for s in others}

    def server(msg: dict[str, Any]) -> None:
        if msg["type"] == "commit":
            script.push(
                {
                    "type": "committed",
                    "room": CODE,
                    "version": version,
                    "phase": phase,
                    "seat": 0,
                    "digest": msg["digest"],
                }
            )
            script.push({"type": "open", "room": CODE, "version": version, "phase": phase})
        elif msg["type"] == "reveal":
            moves = {"0": msg["move"], **others}
            script.push(
                {
                    "type": "revealed",
                    "room": CODE,
                    "version": version + 1,
                    "phase": phase,
                    "moves": moves,
                    "opened": moves,
                    "salts": {"0": msg["salt"], **salts},
                    "defaults": [],
                }
            )
            for frame in then:
                script.push(frame)

    script.on_message = server
    script.opening.append(
        _sealed(
            phase,
            version,
            [0, *map(int, others)],
            {s: _digest(phase, int(s), m, salts[s]) for s, m in others.items()},
        )
    )


# -- the bids revealed, held a moment ----------------------------------------------------------
@pytest.mark.parametrize(
    ("size", "lang", "game"),
    [("desktop", "en", "skull-king"), ("phone", "en", "bid-tricks"), ("phone", "vi", "skull-king")],
)
def test_the_bids_are_revealed_all_at_once_and_held_a_moment(
    tables: Any, screenshot_dir: Path, size: str, lang: str, game: str
) -> None:
    """Once the last bid is sealed, everyone's bid shows at once ("Yo-ho-ho!"), over the
    bidding table, with the reveal's sound and its words for screen readers; the play waits
    behind it, then it goes and the first card comes."""
    summary = _summary() | {"game": game}
    bidding = _view(
        game=game,
        phase="bid",
        hand=["yellow-3", "black-7"],
        trick=[],
        order=[],
        bids=[None] * 3,
        turn=None,
        prompt={"seats": [0, 1, 2], "kind": "bid", "sealed": True},
        legal=[{"bid": 0}, {"bid": 1}, {"bid": 2}],
        hand_sizes=[2, 2, 2],
    )
    playing = _view(
        game=game,
        bids=[1, 2, 0],
        trick=[],
        hand=["yellow-3", "black-7"],
        turn=1,
        prompt={"seats": [1], "kind": "play", "sealed": False},
        legal=[],
        order=[1, 2, 0],
    )
    led = playing | {"trick": [{"seat": 1, "card": "yellow-4"}], "turn": 2}
    moves = {"0": {"bid": 1}, "1": {"bid": 2}, "2": {"bid": 0}}
    table = tables(size, summary, hold_ms=4000, lang=lang)
    script = Script([_snapshot(bidding, summary)])
    _sealed_round(
        script,
        "bid@5",
        5,
        {"1": {"bid": 2}, "2": {"bid": 0}},
        [_event(6, playing, "reveal", moves), _event(7, led)],
    )
    page = table.start(script)
    page.wait_for_selector(".bids button")
    page.click(".bids button[data-bid='1']")
    page.click("button[data-key='seal']")
    banner = page.locator("[data-role='bids-revealed']")
    banner.wait_for()
    began = time.monotonic()
    texts = load(lang)
    assert texts["sk.reveal.title"] in banner.inner_text()
    bids = banner.locator("li").evaluate_all(
        "ls => ls.map(l => [+l.dataset.seat, l.querySelector('.who-name').textContent,"
        " l.querySelector('.bid').textContent, l.className])"
    )
    assert bids == [[0, "Mia", "1", "me"], [1, "Ned", "2", ""], [2, "Olga", "0", ""]]
    # The play waits behind the moment: still the bidding table, no card led.
    assert page.get_attribute(".table-area", "data-phase") == "bid"
    assert page.locator("[data-card='yellow-4']").count() == 0
    said = texts["sk.bids_revealed"].replace("{bids}", "Mia 1, Ned 2, Olga 0")
    page.wait_for_function(f"() => ({ANNOUNCED})() === {json.dumps(said)}")
    assert page.evaluate(PLAYED).count("reveal") == 1  # the moment's sound, once
    # Over no control: a click goes through the banner.
    assert banner.evaluate("b => getComputedStyle(b).pointerEvents") == "none"
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    if lang == "en":
        banner.evaluate("b => Promise.all(b.getAnimations({subtree: true}).map(a => a.finished))")
        page.screenshot(path=str(screenshot_dir / f"moment-bids-{game}-{size}.png"))
    banner.wait_for(state="detached", timeout=15000)
    assert time.monotonic() - began > 2.5  # held (4 s here), not dropped at once
    page.wait_for_selector(".table-area[data-phase='play'] [data-card='yellow-4']")
    assert "Mia" in page.inner_text(".player[data-seat='0']")


def _loon_bidding() -> tuple[dict[str, Any], dict[str, Any], dict[int, Any]]:
    """Seat 0's view of a Loon round's first sealed bid (the engine's own), the moves of a
    bid for it that does not tie, and the view after."""
    game = GAMES["loon-tricks"]
    state = game.start(game.options({}), 3, bytes(range(32)))
    prompt = game.prompt(state)
    assert prompt.sealed and prompt.kind == "bid"
    view = game.view(state, 0)
    moves = {
        s: game.legal(state, s)[min(s + 1, len(game.legal(state, s)) - 1)] for s in prompt.seats
    }
    after = game.step(state, moves)
    return view, game.view(after, 0), {s: m.to_json() for s, m in moves.items()}


@pytest.mark.parametrize("size", list(SIZES))
def test_the_loon_row_auction_bids_are_held_a_moment(
    tables: Any, screenshot_dir: Path, size: str
) -> None:
    """Loon & Score Cards: each row's sealed bids revealed at once, held a moment, then the
    auction goes on."""
    view, after, moves = _loon_bidding()
    summary = _summary() | {"game": "loon-tricks", "title": "Loon", "options": {}}
    table = tables(size, summary, hold_ms=4000)
    script = Script([_snapshot(view, summary)])
    others = {str(s): m for s, m in moves.items() if s != 0}
    shown = {str(s): m for s, m in moves.items()}
    _sealed_round(script, "bid@5", 5, others, [_event(6, after, "reveal", shown)])
    page = table.start(script)
    mine = moves[0]["bid"]
    page.click(f"[data-prompt='bid'] button[data-bid='{mine}']")
    page.click("button[data-key='seal']")
    banner = page.locator("[data-role='auction-revealed']")
    banner.wait_for()
    assert "Row 1: the bids" in banner.inner_text()
    got = banner.locator("li").evaluate_all(
        "ls => ls.map(l => [+l.dataset.seat, +l.querySelector('.bid').textContent])"
    )
    assert got == [[s, m["bid"]] for s, m in sorted(moves.items())]
    assert page.evaluate(PLAYED).count("reveal") == 1
    page.wait_for_function(f"() => ({ANNOUNCED})().includes('Row 1: the bids')")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    banner.evaluate("b => Promise.all(b.getAnimations({subtree: true}).map(a => a.finished))")
    page.screenshot(path=str(screenshot_dir / f"moment-loon-bids-{size}.png"))
    banner.wait_for(state="detached", timeout=15000)
    page.wait_for_function("() => window.tortuga.version === 6")


# -- a click during a hold does what it says ---------------------------------------------------
PLAYS = [
    {"seat": 1, "card": "blue-9"},
    {"seat": 2, "card": "blue-2"},
    {"seat": 0, "card": "blue-5"},
]


def _trick_won(hold_ms: int = 600000) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Before: Olga owes the last card of a trick. Won: Ned wins it (held) and leads the
    next. Led: Ned's card, a frame that waits behind the hold."""
    before = _view(
        trick=PLAYS[:2],
        turn=0,
        prompt={"seats": [0], "kind": "play", "sealed": False},
        legal=[{"play": "blue-5"}],
        hand=["blue-5", "red-3"],
    )
    won = _view(
        trick=[],
        turn=1,
        tricks=[0, 1, 0],
        last_trick={"plays": PLAYS, "winner": 1},
        prompt={"seats": [1], "kind": "play", "sealed": False},
        legal=[],
        hand=["red-3"],
    )
    led = won | {
        "trick": [{"seat": 1, "card": "yellow-4"}],
        "turn": 0,
        "prompt": {"seats": [0], "kind": "play", "sealed": False},
        "legal": [{"play": "red-3"}],
    }
    return before, won, led


@pytest.mark.parametrize("size", list(SIZES))
def test_end_game_clicked_during_a_held_trick_takes_effect(tables: Any, size: str) -> None:
    """The host clicks "End game…" while a won trick is held and the next card waits: the
    waiting frame is drawn and the confirm opens (it used to only end the hold); "End game"
    there ends it."""
    summary = _summary()
    before, won, led = _trick_won()
    table = tables(size, summary, hold_ms=600000)
    script = Script([_snapshot(before, summary)])
    page = table.start(script)
    page.click("button.card[data-card='blue-5']")
    script.push(_event(6, won, moves={"0": {"play": "blue-5"}}))
    script.push(_event(7, led))
    page.wait_for_selector(".trick[data-held='1']")
    assert page.locator("[data-card='yellow-4']").count() == 0  # it waits
    page.get_by_role("button", name="End game…").click()
    page.get_by_role("alertdialog").wait_for()
    assert page.locator(".trick[data-held='1']").count() == 0
    assert page.locator(".trick-zone [data-card='yellow-4']").count() == 1
    page.locator("[data-key='end-yes']").click()
    page.wait_for_function("() => document.querySelector('[data-key=end-yes]').disabled")
    assert [m["type"] for m in script.sent if m["type"] in ("abandon", "act")] == ["act", "abandon"]


@pytest.mark.parametrize("size", list(SIZES))
def test_a_card_clicked_during_a_held_trick_is_played(tables: Any, size: str) -> None:
    """My card clicked while the trick I lost is held and Ned's lead waits: the lead is
    drawn, then my card is played on it (one move, the version after Ned's)."""
    summary = _summary()
    before, won, led = _trick_won()
    table = tables(size, summary, hold_ms=600000)
    script = Script([_snapshot(before, summary)])
    page = table.start(script)
    page.click("button.card[data-card='blue-5']")
    script.push(_event(6, won, moves={"0": {"play": "blue-5"}}))
    page.wait_for_selector(".trick[data-held='1']")
    script.push(_event(7, led))
    page.wait_for_function("() => window.tortuga.queue.length === 1")
    # Not playable on the held page (Ned leads first): a press on it goes on, and then it is.
    card = page.locator("button.card[data-card='red-3']")
    assert card.is_disabled()
    card.click(force=True)
    page.wait_for_function("() => window.tortuga.held === null")
    page.wait_for_function("() => document.querySelector('.trick-zone [data-card=\"yellow-4\"]')")
    page.wait_for_function(
        "() => document.querySelectorAll('button.card:not([disabled])').length === 0"
    )
    acts = [m for m in script.sent if m["type"] == "act"]
    assert [(a["move"], a["version"]) for a in acts] == [
        ({"play": "blue-5"}, 5),
        ({"play": "red-3"}, 7),
    ]


@pytest.mark.parametrize("size", list(SIZES))
def test_a_bid_clicked_during_a_hold_takes_effect(tables: Any, size: str) -> None:
    """The bid buttons under a held moment, a frame waiting (Ned's seal): a click on a bid
    draws the waiting frame and chooses that bid; sealing it sends the commit."""
    summary = _summary()
    bidding = _view(
        phase="bid",
        hand=["red-3", "black-7"],
        trick=[],
        order=[],
        bids=[None] * 3,
        turn=None,
        prompt={"seats": [0, 1, 2], "kind": "bid", "sealed": True},
        legal=[{"bid": 0}, {"bid": 1}, {"bid": 2}],
        hand_sizes=[2, 2, 2],
    )
    table = tables(size, summary, hold_ms=600000)
    script = Script([_snapshot(bidding, summary), _sealed("bid@5", 5, [0, 1, 2], {})])
    page = table.start(script)
    page.wait_for_selector(".bids button")
    page.evaluate("() => window.tortuga.startHold({ms: 1500, kind: 'test', text: ''})")
    script.push(
        {
            "type": "committed",
            "room": CODE,
            "version": 5,
            "phase": "bid@5",
            "seat": 1,
            "digest": "ab" * 32,
        }
    )
    page.wait_for_function("() => window.tortuga.queue.length === 1")
    page.click(".bids button[data-bid='2']")
    page.wait_for_selector(".bids button[data-bid='2'][aria-pressed='true']")
    assert page.evaluate("window.tortuga.held") is None
    assert page.get_attribute(".player[data-seat='1'] .sealed-state", "data-committed") == "1"
    script.on_message = lambda msg: script.push(
        {
            "type": "committed",
            "room": CODE,
            "version": 5,
            "phase": "bid@5",
            "seat": 0,
            "digest": msg["digest"],
        }
    )
    page.get_by_role("button", name="Seal my bid: 2").click()
    page.wait_for_selector("[data-sealed='1']")
    assert "2" in page.inner_text("[data-sealed='1'] h2")
    assert [m["type"] for m in script.sent if m["type"] == "commit"] == ["commit"]


# -- how long moments last: the player's choice -----------------------------------------------
def _held_for(page: Any, script: Script, won: dict[str, Any], version: int) -> float:
    """Seconds the trick won at ``version`` stays held on this page."""
    script.push(_event(version, won, moves={"2": {"play": "blue-2"}}))
    page.wait_for_selector(".trick[data-held='1']")
    began = time.monotonic()
    page.wait_for_selector(".trick[data-held='1']", state="detached", timeout=20000)
    return time.monotonic() - began


@pytest.mark.parametrize("size", list(SIZES))
def test_the_hold_setting_shortens_and_lengthens_a_held_trick(tables: Any, size: str) -> None:
    """The header's "Moments" button steps through off / short / normal / long (kept in this
    browser): a won trick (1.5 s as Skull King wishes) is held about 0.75 s when short, 3 s
    when long, not at all when off."""
    summary = _summary()
    waiting = _view(
        trick=PLAYS[:1], turn=2, prompt={"seats": [2], "kind": "play", "sealed": False}, legal=[]
    )

    def won(n: int) -> dict[str, Any]:
        plays = [
            {"seat": 1, "card": f"blue-{9 + n}"},
            {"seat": 2, "card": "blue-2"},
            {"seat": 0, "card": "blue-5"},
        ]
        return _view(
            trick=[],
            turn=1,
            tricks=[0, n + 1, 0],
            last_trick={"plays": plays, "winner": 1},
            prompt={"seats": [1], "kind": "play", "sealed": False},
            legal=[],
        )

    table = tables(size, summary, store={"tortuga.holdSpeed": '"short"'})
    script = Script([_snapshot(waiting, summary)])
    page = table.start(script)
    page.wait_for_selector(".trick-zone .played[data-seat='1']")  # the snapshot is drawn
    button = page.locator("button[data-key='hold-speed']")
    assert button.inner_text().endswith("Moments: short")
    short = _held_for(page, script, won(0), 6)
    button.click()  # normal
    button.click()  # long
    assert button.inner_text().endswith("Moments: long")
    assert page.evaluate("localStorage.getItem('tortuga.holdSpeed')") == '"long"'
    long = _held_for(page, script, won(1), 7)
    assert 0.4 < short < 1.4, short
    assert 2.7 < long < 4.5, long
    button.click()  # off
    assert button.inner_text().endswith("Moments: off")
    page.evaluate("document.getElementById('announcer').textContent = ''")
    script.push(_event(8, won(2), moves={"2": {"play": "blue-2"}}))
    page.wait_for_function("() => window.tortuga.version === 8")
    assert page.locator(".trick[data-held='1']").count() == 0
    page.wait_for_function(f"() => ({ANNOUNCED})() === 'Ned wins the trick'")  # still said
    # The choice stays for the next page.
    page.reload()
    page.locator("button[data-key='hold-speed']").wait_for()
    assert page.locator("button[data-key='hold-speed']").inner_text().endswith("Moments: off")


def _split_then_sealed_choice() -> tuple[dict[str, Any], dict[str, Any]]:
    """Pearates, seat 0's view before and after a split that is held on screen, where the
    step after it is a sealed choice of seat 0 (random bots play the engine)."""
    from engines.rng import Rng

    game = GAMES["pearates"]
    for n in range(80):
        seed = bytes([n]) * 32
        state = game.start(game.options({}), 3, seed)
        rng = Rng(seed, "test-press")
        while game.outcome(state) is None:
            prompt = game.prompt(state)
            moves = {
                s: game.bot("random")(game.view(state, s), game.legal(state, s), rng)
                for s in prompt.seats
            }
            before = game.view(state, 0)
            state = game.step(state, moves)
            after = game.view(state, 0)
            p = after["prompt"]
            same = after["round"] == before["round"]
            log = after["log"] if same else after.get("last_log") or []
            fresh = [e["what"] for e in log[len(before["log"]) :]]
            moment = {"share", "take", "take-bottom", "collect", "leftovers", "mutiny"} & set(fresh)
            if same and moment and p and p["sealed"] and 0 in p["seats"]:
                return before, after
    raise AssertionError("no split followed by a sealed choice of seat 0")


@pytest.mark.parametrize("size", list(SIZES))
def test_a_choice_pressed_while_its_phase_waits_behind_a_held_split_is_sealed(
    tables: Any, size: str
) -> None:
    """Pearates: the split is held and the sealed choice that follows waits behind it (its
    buttons disabled: the phase is not open yet). A press on one goes on, the phase opens,
    and that very choice is sealed (committed), never lost."""
    from test_pearates_table import _pe_frame, _pe_summary

    before, after = _split_then_sealed_choice()
    summary = _pe_summary()
    table = tables(size, summary, hold_ms=600000)
    script = Script([_pe_frame("snapshot", 5, before)])
    page = table.start(script)
    page.wait_for_selector(".pe-treasure")
    script.push(_pe_frame("event", 6, after))
    page.wait_for_selector("[data-role='split-moment']")
    prompt = after["prompt"]
    script.push(_sealed(f"{prompt['kind']}@6", 6, prompt["seats"], {}))
    page.wait_for_function("() => window.tortuga.queue.length === 1")
    button = page.locator(".pe-prompt button[data-move]").first
    assert button.is_disabled()
    chosen = json.loads(button.get_attribute("data-move") or "null")

    def server(msg: dict[str, Any]) -> None:
        if msg["type"] == "commit":
            script.push(
                {
                    "type": "committed",
                    "room": CODE,
                    "version": 6,
                    "phase": msg["phase"],
                    "seat": 0,
                    "digest": msg["digest"],
                }
            )

    script.on_message = server
    button.evaluate("b => b.scrollIntoView({block: 'center'})")  # (a phone pins the chat below)
    box = button.bounding_box()
    assert box
    hit = page.evaluate(
        """([x, y]) => {
            const e = document.elementFromPoint(x, y);
            return e?.closest('button')?.dataset.move ?? (e ? e.outerHTML.slice(0, 200) : null);
        }""",
        [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
    )
    assert hit is not None and hit.startswith("{") and json.loads(hit) == chosen, (
        hit
    )  # nothing over it
    button.click(force=True)
    page.wait_for_selector("[data-role='split-moment']", state="detached")
    page.wait_for_selector(".pe-prompt [data-sealed='1']", timeout=5000)
    commits = [m for m in script.sent if m["type"] == "commit"]
    assert len(commits) == 1 and commits[0]["phase"] == f"{prompt['kind']}@6"
    # The move sealed (kept in this tab until the reveal) is the one pressed.
    stored = page.evaluate("() => Object.values(sessionStorage).map((v) => JSON.parse(v).move)")
    assert stored == [chosen]
