"""Every prompt kind of the Pirate King! engine, drawn by the table module and answered by a
click, in Chromium without a server: real views (engines/pirate_king/views.py) of states
reached by random play, rendered with a scripted ``ctx`` that records what the module sends.

The page: "The "1, 2, 3!" reveal is a sealed phase" and "Effects that ask their owner for a
decision (Look, Flip, Choose, Retrieve, Give) are parallel private decisions of those
players" -- a sealed prompt goes through the shell's commit (``ctx.commit``), an open one is
sent (``ctx.act``); either way the move is one of ``view.legal``.
"""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import pytest

from engines.pirate_king.rules import PirateKing

pytestmark = pytest.mark.browser

KINDS = (
    "pick",
    "reveal",
    "reveal-open",
    "look",
    "flip",
    "choose",
    "retrieve",
    "retrieve-empty",
    "give",
    "reclaim",
    "tie",
    "monster",
    "loot",
    "loot-drop",
    "several",
    "crown",
)


def _sample_kind(game: PirateKing, state: Any, seat: int) -> str:
    prompt = game.prompt(state)
    view = game.view(state, seat)
    legal = view["legal"]
    if prompt.kind == "reveal" and view["decision"] is None:
        return "reveal" if prompt.sealed else "reveal-open"
    if len(prompt.seats) > 1 and prompt.private:
        return "several"
    decision = view["decision"]
    if decision is not None:
        kind = str(decision["kind"])  # type: ignore[index]
        if kind == "retrieve" and {"do": "pass"} in legal:  # type: ignore[operator]
            return "retrieve-empty"
        return kind
    if prompt.kind == "loot" and any("drop" in m for m in legal):  # type: ignore[union-attr]
        return "loot-drop"
    return str(prompt.kind)


def _samples() -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """A view of each prompt kind (for a seat that owes it) and its prompt, by random play."""
    game = PirateKing()
    found: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
    rnd = random.Random(7)
    for n in range(400):
        players = (2, 3, 4)[n % 3]
        # Every other game in edition 1 of the rules: its end-of-round reclaim prompt is
        # still drawn for a game begun under it (engines/pirate_king/README.md, "Editions").
        options = game.recorded_options({}) if n % 2 else game.options({})
        state = game.start(options, players, bytes([n % 256, n // 256]) * 16)
        while game.outcome(state) is None:
            prompt = game.prompt(state)
            seat = prompt.seats[0]
            kind = _sample_kind(game, state, seat)
            if kind not in found:
                found[kind] = (game.view(state, seat), prompt.to_json())
            moves = {s: rnd.choice(game.legal(state, s)) for s in prompt.seats}
            if not prompt.sealed:
                moves = {seat: moves[seat]}
            state = game.step(state, moves)
        if all(k in found for k in KINDS):
            break
    return found


SAMPLES = _samples()

RENDER = """async ([view, prompt, room, sealed]) => {
  const mod = (await import('/static/js/games/pirate-king/module.js')).default;
  let box = document.querySelector('#pk-test');
  if (!box) box = document.body.appendChild(document.createElement('div'));
  box.id = 'pk-test';
  window.sent = [];
  const ctx = {
    view, room, seat: view.seat, held: null,
    seal: sealed ? {phase: 1, seats: prompt.seats, committed: {}, open: false, opened: null} : null,
    sealedMove: null, connected: null, away: null, busy: false, ended: null, clock: null,
    notes: [], controls: [], ui: {}, name: (s) => room.seats[s].name,
    act: (m) => window.sent.push({how: 'act', move: m}),
    commit: (m) => window.sent.push({how: 'commit', move: m}),
    rerender: () => box.replaceChildren(...mod.table(ctx).filter(Boolean)),
    focus: (sel) => { const el = box.querySelector(sel); if (el) el.focus(); },
  };
  window.pkCtx = ctx;
  ctx.rerender();
  return box.querySelectorAll('.pk-prompt button').length;
}"""


def _room(players: int) -> dict[str, Any]:
    names = ["Mia", "Ned", "Olga", "Pip", "Quin"]
    return {"seats": [{"seat": i, "name": names[i], "bot": None} for i in range(players)]}


def _click(page: Any, selector: str) -> None:
    page.locator(selector).first.click(timeout=2000)


@pytest.fixture(scope="module")
def page(web_only_url: str, chromium: Any) -> Any:
    page = chromium.new_page()
    page.goto(web_only_url + "/rules/pirate-king")
    yield page
    page.close()


def test_random_play_reaches_every_prompt_kind() -> None:
    assert sorted(SAMPLES) == sorted(KINDS)


@pytest.mark.parametrize("kind", KINDS)
def test_each_prompt_kind_is_answered_by_a_click(page: Any, kind: str) -> None:
    view, prompt = SAMPLES[kind]
    assert page.evaluate(RENDER, [view, prompt, _room(view["players"]), prompt["sealed"]]) > 0
    if kind == "look":
        # "put them back on top in the order of your choice": the first card moved down.
        first = view["legal"][0]["stack"]
        _click(page, f"[data-key='down-{first[0]}']")
        _click(page, "[data-key='stack']")
        expected: Any = [first[1], first[0], *first[2:]]
    elif kind == "tie":
        tied = sorted(view["legal"][0]["order"])
        for s in reversed(tied[1:]):
            _click(page, f"[data-key='order-{s}']")
        _click(page, "[data-key='order']")
        expected = [*reversed(tied[1:]), tied[0]]
    elif kind == "loot-drop":
        take = view["legal"][-1]
        _click(page, f"[data-key='take-{take['take']}']")
        _click(page, f"[data-key='drop-{take['drop']}']")
        expected = take
    elif kind in ("reveal", "reveal-open"):
        _click(page, "[data-key='stop']")
        expected = {"do": "stop"}
    else:
        # The first choice offered (a Look among several decisions: put back as shown).
        page.evaluate(
            """() => [...document.querySelectorAll('.pk-prompt button:not([disabled])')]
                .find((b) => !/^(up|down)-/.test(b.dataset.key)).click()"""
        )
        expected = None
    sent = page.evaluate("window.sent")
    assert len(sent) == 1, sent
    move = sent[0]["move"]
    assert move in view["legal"], (move, view["legal"])
    if kind == "look" or kind == "tie":
        key = "stack" if kind == "look" else "order"
        assert move[key] == expected
    elif expected is not None:
        assert move == expected
    # Sealed prompts (the beats, several players' decisions) go through commit/reveal.
    assert sent[0]["how"] == ("commit" if prompt["sealed"] else "act")


def test_a_sealed_choice_shows_as_sealed_and_never_as_buttons(page: Any) -> None:
    view, prompt = SAMPLES["reveal"]
    page.evaluate(RENDER, [view, prompt, _room(view["players"]), True])
    page.evaluate(
        "() => { const c = window.pkCtx; c.seal.committed[c.seat] = 'ab'; "
        "c.sealedMove = {do: 'reveal'}; c.rerender(); }"
    )
    text = page.inner_text("#pk-test [data-sealed='1']")
    assert "Sealed: reveal" in text
    assert page.locator("#pk-test .pk-prompt button").count() == 0
    # The others see that this seat decided, never what.
    seat = view["seat"]
    state = page.get_attribute(f".pk-seat[data-seat='{seat}'] .sealed-state", "data-committed")
    assert state == "1"


def test_my_choice_on_its_way_is_not_your_move(page: Any) -> None:
    """Once I have chosen, the status line stops saying "Your move" -- even while my commit
    is still travelling (chosen, not yet committed): it names the others still deciding."""
    view, prompt = SAMPLES["reveal"]
    page.evaluate(RENDER, [view, prompt, _room(view["players"]), True])
    assert "Your move" in page.inner_text("#pk-test .status-line .turn")
    page.evaluate("() => { const c = window.pkCtx; c.sealedMove = {do: 'stop'}; c.rerender(); }")
    line = page.inner_text("#pk-test .status-line .turn")
    assert "Your move" not in line, line
    others = [s for s in prompt["seats"] if s != view["seat"]]
    assert others and all(_room(view["players"])["seats"][s]["name"] in line for s in others)


def test_whose_move_it_is_the_seats_still_deciding(page: Any) -> None:
    """The table: "can you see whose turn it is" -- in a sealed beat the seats that have not
    chosen yet are framed as owing a move; one that has chosen is not (it waits too)."""
    view, prompt = SAMPLES["reveal"]
    assert len(prompt["seats"]) >= 2
    page.evaluate(RENDER, [view, prompt, _room(view["players"]), True])
    turn = "[...document.querySelectorAll('.pk-seat.turn')].map((e) => +e.dataset.seat)"
    assert sorted(page.evaluate(turn)) == sorted(prompt["seats"])
    done = prompt["seats"][0]
    page.evaluate(
        f"() => {{ const c = window.pkCtx; c.seal.committed[{done}] = 'ab'; c.rerender(); }}"
    )
    assert sorted(page.evaluate(turn)) == sorted(prompt["seats"][1:])


@pytest.mark.parametrize(
    ("kind", "stat", "mark"), [("monster", "swords", "⚔"), ("loot", "gold", "●")]
)
def test_the_order_of_choice_says_what_earned_each_place(
    page: Any, kind: str, stat: str, mark: str
) -> None:
    """The table: "the Monster and Loot rows with the order of choice" -- "The more you
    have, the earlier you choose": each place of the order shows the swords (battle) or the
    gold (loot) that earned it, a sunk player's -1 included."""
    view, prompt = SAMPLES[kind]
    page.evaluate(RENDER, [view, prompt, _room(view["players"]), prompt["sealed"]])
    items = page.locator(".pk-order li")
    order = [s for group in view["ranking"] for s in group]
    assert items.count() == len(order)
    for i, seat in enumerate(order):
        amount = view["table"][seat][stat]
        assert f"{mark} {amount}" in items.nth(i).inner_text()
        assert items.nth(i).get_attribute("data-seat") == str(seat)


def test_the_123_banner_is_in_the_window_and_over_no_row(page: Any) -> None:
    """The "1, 2, 3!" moment is "animated for everyone at once": fixed at the top of the
    window, it is seen however far the page is scrolled, and it lies over no player's row
    when the table is at the top of the page (it used to hide the first row's totals)."""
    view, prompt = SAMPLES["reveal"]
    page.set_viewport_size({"width": 1280, "height": 500})
    page.evaluate(RENDER, [view, prompt, _room(view["players"]), prompt["sealed"]])
    page.evaluate(
        "() => { const c = window.pkCtx; document.body.style.paddingTop = '70px'; "
        "document.body.style.paddingBottom = '1500px'; "
        "c.held = {kind: 'beat', fresh: {0: 0}}; c.rerender(); }"
    )
    page.wait_for_selector(".pk-beat .pk-123")
    page.wait_for_function("() => document.querySelector('link[data-pk-css]').sheet")
    box = """() => {
        const b = document.querySelector('.pk-123').getBoundingClientRect();
        const rows = [...document.querySelectorAll('.pk-seat')]
            .map((e) => e.getBoundingClientRect());
        const hit = rows.some((r) => r.top < b.bottom && b.top < r.bottom
            && r.left < b.right && b.left < r.right);
        return {top: b.top, bottom: b.bottom, hit}; }"""
    try:
        at_top = page.evaluate(box)
        assert at_top["top"] >= 0 and not at_top["hit"], at_top
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        scrolled = page.evaluate(box)
        assert scrolled["top"] >= 0 and scrolled["bottom"] <= 500, scrolled
    finally:
        page.evaluate(
            "() => { document.body.style.paddingTop = ''; document.body.style.paddingBottom = '';"
            " window.pkCtx.held = null; window.scrollTo(0, 0); }"
        )


def test_curses_warned_at_two_and_sunk_players_greyed(page: Any) -> None:
    """The page: "Sinking (a third visible Curse)"; a sunk player counts "−1 / −1"."""
    view, prompt = SAMPLES["reveal"]
    view = json.loads(json.dumps(view))
    view["table"][0]["curses"] = 2
    view["table"][1].update(status="sunk", curses=0, swords=-1, gold=-1, zone=[])
    page.evaluate(RENDER, [view, prompt, _room(view["players"]), prompt["sealed"]])
    danger = page.locator(".pk-seat[data-seat='0']")
    assert "danger" in (danger.get_attribute("class") or "")
    assert "one more curse sinks" in danger.inner_text()
    sunk = page.locator(".pk-seat[data-seat='1']")
    assert "sunk" in (sunk.get_attribute("class") or "")
    assert "sunk" in sunk.inner_text()  # a word, not only the grey
    assert page.evaluate(
        "getComputedStyle(document.querySelector(\".pk-seat[data-seat='1']\")).filter"
    ).startswith("grayscale")
    assert sunk.locator("[data-stat='swords']").inner_text() == "⚔ -1"


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_the_123_moment_moves_only_without_reduced_motion(
    web_only_url: str, chromium: Any, motion: str
) -> None:
    view, prompt = SAMPLES["reveal"]
    context = chromium.new_context(reduced_motion=motion)
    page = context.new_page()
    try:
        page.goto(web_only_url + "/rules/pirate-king")
        page.evaluate(RENDER, [view, prompt, _room(view["players"]), False])
        page.evaluate(
            "() => { const c = window.pkCtx; "
            "c.held = {kind: 'beat', fresh: {0: 0}}; c.rerender(); }"
        )
        page.wait_for_selector(".pk-beat .pk-123")
        page.wait_for_function("() => document.querySelector('link[data-pk-css]').sheet")
        names = page.evaluate(
            "[...document.querySelectorAll('.pk-card.fresh, .pk-123')]"
            ".map((e) => getComputedStyle(e).animationName)"
        )
        assert names
        if motion == "reduce":
            assert set(names) == {"none"}
        else:
            assert set(names) == {"pk-flip", "pk-pop"}
    finally:
        context.close()


@pytest.mark.parametrize("kind", ["reveal", "look", "loot-drop", "tie"])
def test_the_table_in_vietnamese(web_only_url: str, chromium: Any, kind: str) -> None:
    """Every text in English and Vietnamese: a Vietnamese browser gets the table
    without the English words of its prompts and zones."""
    view, prompt = SAMPLES[kind]
    context = chromium.new_context(locale="vi-VN")
    page = context.new_page()
    try:
        page.goto(web_only_url + "/rules/pirate-king")
        page.evaluate(RENDER, [view, prompt, _room(view["players"]), prompt["sealed"]])
        text = page.inner_text("#pk-test")
        assert "Ván" in text or "Đang chọn" in text
        for english in (
            "Your move",
            "Reveal",
            "Stop",
            "in pile",
            "Round",
            "Monsters",
            "Loot",
            "Look",
        ):
            assert english not in text, (english, text)
    finally:
        context.close()


def test_a_beat_is_held_with_the_cards_it_revealed(page: Any) -> None:
    """The page: "the choices are revealed together and every `reveal` flips the top card of
    that player's pile at the same moment" -- the module holds that moment (hold), marking
    the new cards and naming them for screen readers."""
    game = PirateKing()
    state = game.start(game.options({}), 3, bytes(range(32)))
    while game.prompt(state).kind != "reveal" or not game.prompt(state).sealed:
        prompt = game.prompt(state)
        movers = prompt.seats if prompt.sealed else prompt.seats[:1]
        state = game.step(state, {s: game.legal(state, s)[0] for s in movers})
    before = game.view(state, 0)
    seats = game.prompt(state).seats
    moves = {s: game.legal(state, s)[0] for s in seats}  # reveal
    after_state = game.step(state, moves)
    after = game.view(after_state, 0)
    held = page.evaluate(
        """async ([before, after, names]) => {
          const mod = (await import('/static/js/games/pirate-king/module.js')).default;
          return {
            beat: mod.hold(before, after, null, (s) => names[s]),
            same: mod.hold(before, before, null, (s) => names[s]),
          };
        }""",
        [before, after, ["Mia", "Ned", "Olga"]],
    )
    assert held["same"] is None
    beat = held["beat"]
    assert beat["kind"] == "beat" and beat["text"].startswith("1, 2, 3!")
    assert beat["sound"] is None  # the shell already sounds a sealed reveal
    for s in range(3):
        old = len(before["table"][s]["zone"])
        assert beat["fresh"][str(s)] == min(old, len(after["table"][s]["zone"]))
        new = after["table"][s]["zone"][old:]
        if new and after["table"][s]["status"] != "sunk":
            assert ["Mia", "Ned", "Olga"][s] + " reveals" in beat["text"]


def test_nothing_is_sent_before_the_sealed_phase_opens(page: Any) -> None:
    """A sealed beat's view can arrive before the shell has opened its sealed phase: an open
    move then would be refused ("sealed-phase"), so the module offers nothing yet."""
    view, prompt = SAMPLES["reveal"]
    assert prompt["sealed"]
    page.evaluate(RENDER, [view, prompt, _room(view["players"]), False])
    assert page.locator("#pk-test [data-sealed='opening']").count() == 1
    assert page.locator("#pk-test .pk-prompt button").count() == 0
    handled = page.evaluate(
        """async () => {
          const mod = (await import('/static/js/games/pirate-king/module.js')).default;
          return mod.key({key: 'r'}, window.pkCtx);
        }"""
    )
    assert handled is False
    assert page.evaluate("window.sent") == []


def test_cards_an_effect_placed_stand_in_a_column_under_the_beats_card(
    page: Any, screenshot_dir: Any
) -> None:
    """Seed FAQ 1: "place the simultaneously revealed cards in a row going from left to
    right. But when an effect forces you to reveal or place new cards in your personal play
    zone, integrate them in columns, partially covering the others." A Powder Keg revealed
    at the beat reveals a Treasure Map, which reveals two more: one column of four, the
    later cards covering the lower part of the earlier ones (their titles stay in sight)."""
    from pathlib import Path

    from tests.engines.pirate_king.helpers import arrange, beat

    state = arrange(
        zones={0: ["cutlass-1"]},
        piles={0: ["powder-keg-1", "treasure-map-1", "deckhand-1a", "coin-purse-1a", "grog-1"]},
    )
    state = beat(state)
    game = PirateKing()
    view = game.view(state, 0)
    prompt = game.prompt(state).to_json()
    page.evaluate(RENDER, [view, prompt, _room(view["players"]), prompt["sealed"]])
    cols = page.evaluate(
        """() => [...document.querySelectorAll(".pk-zone[data-zone='0'] > .pk-col")]
              .map((c) => [...c.querySelectorAll('.pk-card')].map((e) => e.dataset.card))"""
    )
    assert cols == [
        ["cutlass-1"],
        ["powder-keg-1", "treasure-map-1", "deckhand-1a", "coin-purse-1a"],
    ]
    # Each later card covers part of the one above it, never its title or symbols.
    boxes = page.evaluate(
        """() => [...document.querySelectorAll(".pk-zone[data-zone='0'] > .pk-col")[1]
              .querySelectorAll('.pk-card')].map((e) => {
                const r = e.getBoundingClientRect();
                const syms = e.querySelector('.pk-syms').getBoundingClientRect();
                return [r.top, r.bottom, syms.bottom];
              })"""
    )
    for (_, bottom, seen_bottom), (top, _, _) in itertools.pairwise(boxes):
        assert seen_bottom <= top < bottom, boxes
    label = page.get_attribute(".pk-zone[data-zone='0'] [data-card='deckhand-1a']", "aria-label")
    assert label is not None and "placed by an effect" in label
    page.locator(".pk-seat[data-seat='0']").screenshot(
        path=str(Path(screenshot_dir) / "pirate-king-faq1-columns.png")
    )


def test_given_and_placed_cards_say_so_and_a_given_card_goes_back(page: Any) -> None:
    """Give: "Place this card in another pirate's play zone until the end of the round.
    Remember to retrieve it"; Copy: "This card copies the previously revealed card". A
    given Wilson says he goes back to his giver at the end of the round, a retrieved card
    that it was placed, not revealed (a Copy passes over it), the Parrot after them what it
    copies; when the round ends, the held moment says who got Wilson back."""
    from tests.engines.pirate_king.helpers import arrange, beat, decide

    game = PirateKing()
    state = arrange(
        2,
        piles={0: ["wilson", "gary", "deckhand-1a"], 1: ["deckhand-2a", "parrot-1", "grog-2"]},
        discards={0: ["navy"]},
    )
    state = beat(state)  # Wilson goes to seat 1 (the only other player)
    state = beat(state)  # seat 0's Gary retrieves Navy; seat 1's Parrot copies the Deckhand
    view = game.view(state, 0)
    prompt = game.prompt(state).to_json()
    page.evaluate(RENDER, [view, prompt, _room(2), prompt["sealed"]])

    def label(seat: int, card: str) -> str:
        value = page.get_attribute(
            f".pk-zone[data-zone='{seat}'] [data-card='{card}']", "aria-label"
        )
        assert value is not None
        return value

    assert "given by Mia: back to them at the end of the round" in label(1, "wilson")
    assert "copies Deckhand" in label(1, "parrot-1")
    assert "not revealed: a Copy passes over it" in label(0, "navy")
    # The round ends (everyone stops, battle and loot): Wilson goes back to Mia.
    while state.round == 1:
        prompt_ = game.prompt(state)
        seats = prompt_.seats if prompt_.sealed else prompt_.seats[:1]
        before = state
        state = decide(state, {s: game.legal(state, s)[-1] for s in seats})  # stop; a card
    held = page.evaluate(
        """async ([before, after, names]) => {
          const mod = (await import('/static/js/games/pirate-king/module.js')).default;
          return mod.hold(before, after, null, (s) => names[s]);
        }""",
        [game.view(before, None), game.view(state, None), ["Mia", "Ned"]],
    )
    assert held["text"].startswith("Wilson the Castaway goes back to Mia. 1, 2, 3!"), held
