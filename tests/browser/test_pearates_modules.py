"""The Pearates module's pure parts in a real browser, against the engine.

engines/pearates/README.md: "one shuffle Rng(seed, "deal") of the deck; seat s gets cards
5s .. 5s+4; the rest is the pile, top first"; "Biggest food thief starts": drawn,
Rng(seed, "start").below(players); a shorter game: "that many cards come off the pile after
the deal, face up". The verified badge recomputes these from the revealed seed.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import product
from typing import Any

import pytest

from engines.pearates.cards import NAMES
from engines.pearates.rules import Pearates

pytestmark = pytest.mark.browser
GAME = Pearates()
MODULE = "/static/js/games/pearates"


@pytest.fixture(scope="module")
def page(chromium: Any, web_only_url: str) -> Iterator[Any]:
    context = chromium.new_context()
    page = context.new_page()
    page.goto(web_only_url + "/rules/pearates")
    yield page
    context.close()


def test_the_card_list_and_decks_match_the_engine(page: Any) -> None:
    assert page.evaluate(f"async () => (await import('{MODULE}/cards.js')).NAMES") == list(NAMES)
    for more, special, no_neg, removed in product(
        (False, True), (False, True), (False, True), range(5)
    ):
        raw = {"more_actions": more, "special_scoring": special, "no_negatives": no_neg}
        raw["negatives_removed"] = removed  # "remove some or all of the negative numbers"
        names = page.evaluate(f"async (o) => (await import('{MODULE}/cards.js')).deckNames(o)", raw)
        assert names == GAME.deck(GAME.options(raw), 3), raw


def test_the_deal_the_start_player_and_the_removed_cards_match_the_engine(page: Any) -> None:
    for i, (players, raw) in enumerate(
        [
            (2, {}),
            (3, {"more_actions": True, "removed": 20}),
            (5, {"special_scoring": True, "no_negatives": True}),
            (4, {"more_actions": True, "special_scoring": True, "negatives_removed": 2}),
            (7, {"more_actions": True, "special_scoring": True, "removed": 120}),
        ]
    ):
        seed = bytes([i + 7] * 16)
        state = GAME.start(GAME.options(raw), players, seed)
        view = GAME.view(state, 0)
        got = page.evaluate(
            f"""async ([hex, players, view]) => {{
              const {{ dealFromSeed, checkOne, dealSeen }} = await import('{MODULE}/deal.js');
              const {{ fromHex }} = await import('/static/js/sha256.js');
              const seed = fromHex(hex);
              const d = await dealFromSeed(seed, players, view.options);
              const seen = dealSeen(view);
              const ok = await checkOne(seed, players, seen);
              const other = {{ ...seen, start: (seen.start + 1) % players }};
              const wrong = await checkOne(seed, players, other);
              return {{ hands: d.hands, start: d.start, ok, wrong }};
            }}""",
            [seed.hex(), players, view],
        )
        assert got["hands"] == [[NAMES[c] for c in hand] for hand in state.hands]
        assert got["start"] == state.start
        assert got["ok"] is True and got["wrong"] is False


def test_a_deal_is_recorded_only_while_my_hand_is_the_dealt_one(page: Any) -> None:
    got = page.evaluate(
        f"""async () => {{
          const {{ dealSeen }} = await import('{MODULE}/deal.js');
          const base = {{ round: 1, phase: "turn", seat: 1, hand: ["goldfish-1"], start: 0,
                          removed: [], options: {{}} }};
          return [
            dealSeen({{ ...base, log: [{{ seat: 0, what: "treasure" }},
                                       {{ seat: 0, what: "pass" }}] }}) !== null,
            dealSeen({{ ...base, log: [{{ seat: 1, what: "bid" }}] }}) === null,
            dealSeen({{ ...base, round: 2, log: [] }}) === null,
            dealSeen({{ ...base, phase: "keep", log: [] }}) === null,
          ];
        }}"""
    )
    assert got == [True, True, True, True]


def test_only_a_quiet_move_is_taken_back(page: Any) -> None:
    """A pass or a face-down bid may be taken back; a card shown (a Play, a bid while the bids
    are open), a share taken or a new round may not."""
    got = page.evaluate(
        f"""async () => {{
          const m = (await import('{MODULE}/module.js')).default;
          const v = (o) => ({{ round: 1, phase: "turn", action: null, effects: [], ...o }});
          return [
            m.mayTakeBack(v({{}}), v({{ phase: "bid" }})),
            m.mayTakeBack(v({{}}), v({{ phase: "put", action: "egg-bag-1" }})),
            m.mayTakeBack(v({{}}), v({{ effects: ["open-bids"] }})),
            m.mayTakeBack(v({{ phase: "take" }}), v({{ phase: "take" }})),
            m.mayTakeBack(v({{}}), v({{ round: 2, phase: "arrange" }})),
          ];
        }}"""
    )
    assert got == [True, False, False, False, False]


def _seen_by(seat: int, seed: bytes, options: dict[str, Any]) -> tuple[int, list[Any]]:
    """A whole game between heuristic bots; every view ``seat`` was sent, in order."""
    from engines.rng import Rng

    state = GAME.start(GAME.options(options), 2, seed)
    bot = GAME.bot("heuristic")
    rng = Rng(seed, "bots")
    views = [GAME.view(state, seat)]
    while not (prompt := GAME.prompt(state)).over:
        seats = prompt.seats if prompt.sealed else prompt.seats[:1]
        state = GAME.step(
            state, {s: bot(GAME.view(state, s), GAME.legal(state, s), rng) for s in seats}
        )
        views.append(GAME.view(state, seat))
    return state.round, views


def test_every_draw_and_reshuffle_this_seat_saw_is_checked(page: Any) -> None:
    """The verified badge "checks the seed and every card this seat saw": the deal, and every
    card it saw drawn later from the pile -- a treasure it arranged, a Banana Box, a card added
    from the deck -- at its place in the pile, reshuffled piles included (longer game:
    "When the draw pile is empty, shuffle the discarded cards and make it the new draw
    pile", stream ``reshuffle:<left>``). A tampered later draw, or a reshuffle that did not
    shuffle the cards it says, loses the badge."""
    seed = bytes(range(16))
    rounds, views = _seen_by(0, seed, {"reshuffles": 2, "removed": 30, "more_actions": True})
    assert rounds >= 4
    got = page.evaluate(
        f"""async ([hex, views]) => {{
          const {{ dealSeen, verifyDeals }} = await import('{MODULE}/deal.js');
          const seen = {{}};
          for (const v of views) {{  // as store.js keeps them: the first value of each key
            const what = dealSeen(v);
            if (!what) continue;
            const {{ round, ...rest }} = what;
            seen[round] = {{ ...rest, ...(seen[round] || {{}}) }};
          }}
          const keys = Object.entries(seen)
            .flatMap(([r, w]) => Object.keys(w).map((k) => [Number(r), k]));
          const later = keys.filter(([r, k]) => r > 1 && k.startsWith("draw:"));
          const reshuffled = keys.filter(([, k]) => k.startsWith("draw:reshuffle:"));
          const ok = await verifyDeals({{ seedHex: hex, players: 2, seen }});
          const tamper = async (round, key, value) => {{
            const copy = JSON.parse(JSON.stringify(seen));
            copy[round][key] = value;
            return (await verifyDeals({{ seedHex: hex, players: 2, seen: copy }})).ok;
          }};
          const [r1, k1] = later.find(([, k]) => k.startsWith("draw:deal")) || [];
          const [r2, k2] = reshuffled[0] || [];
          const made = keys.find(([, k]) => k.startsWith("made:"));
          const other = (c) => (c === "goldfish-1" ? "goldfish-2" : "goldfish-1");
          return {{
            ok: ok.ok, checked: ok.checked, later: later.length, reshuffled: reshuffled.length,
            tamperedDeal: k1 ? await tamper(r1, k1, other(seen[r1][k1])) : null,
            tamperedReshuffle: k2 ? await tamper(r2, k2, other(seen[r2][k2])) : null,
            tamperedMade: made
              ? await tamper(made[0], made[1], [...seen[made[0]][made[1]]].slice(1)) : null,
          }};
        }}""",
        [seed.hex(), views],
    )
    assert got["ok"] is True and got["checked"] >= 4, got
    assert got["later"] > 0 and got["reshuffled"] > 0, got
    assert got["tamperedDeal"] is False, got
    assert got["tamperedReshuffle"] is False, got
    assert got["tamperedMade"] is False, got
