"""Every prompt kind of the Loon & Score Cards engine, drawn by the table module and answered
by clicks (and keys), in Chromium without a server: real views (engines/loon_tricks/views.py)
of states reached by random play, rendered with a scripted ``ctx`` that records what the
module sends.

engines/loon_tricks/README.md: "A sealed prompt `bid` for the seats without a row", "A
sealed prompt `pick` for the tied seats", "An open prompt `award` for the pick's winner", "A
sealed, **private** prompt `ditch`", "Open prompt `predict`", and the tricks -- a sealed
prompt goes through the shell's commit (``ctx.commit``), an open one is sent (``ctx.act``);
either way the move is one of ``view.legal``.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from engines.loon_tricks import LOON_TRICKS

pytestmark = pytest.mark.browser

KINDS = ("bid", "pick", "award", "ditch", "predict", "play")


def _samples() -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """A view of each prompt kind (for a seat that owes it) and its prompt, by random play
    that bids 0 most of the time (so that ties at 0 reach a second offer and an award)."""
    game = LOON_TRICKS
    found: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
    rnd = random.Random(11)
    for n in range(300):
        players = (3, 4, 5)[n % 3]
        state = game.start(game.options({}), players, bytes([n % 256, 7]) * 16)
        while game.outcome(state) is None:
            prompt = game.prompt(state)
            seat = prompt.seats[0]
            if prompt.kind not in found:
                found[prompt.kind] = (game.view(state, seat), prompt.to_json())
            moves = {}
            for s in prompt.seats:
                legal = game.legal(state, s)
                zero = [m for m in legal if getattr(m, "loon", None) == 0]
                moves[s] = zero[0] if zero and rnd.random() < 0.8 else rnd.choice(legal)
            state = game.step(state, moves)
        if all(k in found for k in KINDS):
            break
    return found


SAMPLES = _samples()

RENDER = """async ([view, prompt, room, sealed]) => {
  const mod = (await import('/static/js/games/loon-tricks/module.js')).default;
  let box = document.querySelector('#lt-test');
  if (!box) {
    box = document.body.appendChild(document.createElement('div'));
    box.className = 'table-area';
  }
  box.id = 'lt-test';
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
  window.ltCtx = ctx;
  window.ltMod = mod;
  ctx.rerender();
  return box.querySelectorAll('[data-prompt], .hand-zone button.card:not([disabled])').length;
}"""


def _room(players: int) -> dict[str, Any]:
    names = ["Mia", "Ned", "Olga", "Pip", "Quin"]
    return {"seats": [{"seat": i, "name": names[i], "bot": None} for i in range(players)]}


@pytest.fixture(scope="module")
def page(web_only_url: str, chromium: Any) -> Any:
    page = chromium.new_page()
    page.goto(web_only_url + "/rules/loon-tricks")
    yield page
    page.close()


def _render(page: Any, kind: str) -> tuple[dict[str, Any], dict[str, Any]]:
    view, prompt = SAMPLES[kind]
    assert page.evaluate(RENDER, [view, prompt, _room(view["players"]), prompt["sealed"]]) > 0
    return view, prompt


def test_random_play_reaches_every_prompt_kind() -> None:
    assert sorted(SAMPLES) == sorted(KINDS)


@pytest.mark.parametrize("kind", KINDS)
def test_each_prompt_kind_is_answered_by_clicks(page: Any, kind: str) -> None:
    view, prompt = _render(page, kind)
    box = page.locator("#lt-test")
    if kind == "bid":
        top = max(m["bid"] for m in view["legal"])
        box.locator(f".bids button[data-bid='{top}']").click()
        box.locator("[data-prompt='bid'] button[data-key='seal']").click()
        expected: Any = {"bid": top}
    elif kind == "pick":
        card = box.locator(".hand-zone button.card:not([disabled])").last
        name = card.get_attribute("data-card")
        card.click()
        box.locator("[data-prompt='pick'] button[data-key='seal']").click()
        expected = {"pick": name}
    elif kind == "award":
        last = view["legal"][-1]["award"]
        box.locator(f"[data-prompt='award'] button[data-award='{last}']").click()
        expected = {"award": last}
    elif kind == "ditch":
        cards = box.locator(".hand-zone button.card:not([disabled])")
        assert cards.count() == 12
        # Three clicks: the last two chosen count (a third choice replaces the first).
        names = [cards.nth(i).get_attribute("data-card") for i in (5, 0, 9)]
        for i in (5, 0, 9):
            cards.nth(i).click()
        assert box.locator(".hand-zone button.card.chosen").count() == 2
        box.locator("[data-prompt='ditch'] button[data-key='seal']").click()
        expected = None
        chosen = set(names[1:])
    elif kind == "predict":
        box.locator("[data-prompt='predict'] button[data-predict='3']").click()
        expected = {"predict": 3}
    else:
        card = box.locator(".hand-zone button.card:not([disabled])").first
        expected = {"play": card.get_attribute("data-card")}
        card.click()
    sent = page.evaluate("window.sent")
    assert len(sent) == 1, sent
    move = sent[0]["move"]
    assert move in view["legal"], (move, view["legal"][:5])
    if kind == "ditch":
        assert set(move["ditch"]) == chosen  # written in card order, as the engine wants
    else:
        assert move == expected
    assert sent[0]["how"] == ("commit" if prompt["sealed"] else "act")


def test_a_sealed_ditch_is_shown_to_its_mover_only_and_the_others_see_who_sealed(
    page: Any,
) -> None:
    view, _ = _render(page, "ditch")
    move = view["legal"][0]
    page.evaluate(
        "(m) => { const c = window.ltCtx; c.seal.committed[c.seat] = 'ab'; "
        "c.sealedMove = m; c.rerender(); }",
        move,
    )
    text = page.inner_text("#lt-test [data-sealed='1']")
    assert "You put" in text and "out of play" in text
    assert page.locator("#lt-test [data-prompt]").count() == 0
    assert page.locator("#lt-test .hand-zone button.card:not([disabled])").count() == 0
    seat = view["seat"]
    sealed = page.locator(f"#lt-test .player[data-seat='{seat}'] .sealed-state")
    assert sealed.get_attribute("data-committed") == "1"
    other = (seat + 1) % view["players"]
    assert (
        page.get_attribute(f"#lt-test .player[data-seat='{other}'] .sealed-state", "data-committed")
        == "0"
    )


def test_keys_choose_a_bid_and_make_a_prediction(page: Any) -> None:
    """Digits choose a bid (then Enter on the seal button) and make a prediction."""
    _render(page, "bid")
    assert page.evaluate(
        "() => window.ltMod.key({key: '0'}, window.ltCtx) && (window.ltCtx.rerender(), true)"
    )
    assert page.locator("#lt-test .bids button[data-bid='0']").get_attribute("aria-pressed") == (
        "true"
    )
    page.focus("#lt-test [data-prompt='bid'] button[data-key='seal']")
    page.keyboard.press("Enter")
    assert page.evaluate("window.sent") == [{"how": "commit", "move": {"bid": 0}}]
    _render(page, "predict")
    assert page.evaluate("() => window.ltMod.key({key: '2'}, window.ltCtx)")
    assert page.evaluate("window.sent") == [{"how": "act", "move": {"predict": 2}}]
