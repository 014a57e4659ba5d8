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
    for more, special, no_neg in product((False, True), repeat=3):
        raw = {"more_actions": more, "special_scoring": special, "no_negatives": no_neg}
        names = page.evaluate(f"async (o) => (await import('{MODULE}/cards.js')).deckNames(o)", raw)
        assert names == GAME.deck(GAME.options(raw), 3), raw


def test_the_deal_the_start_player_and_the_removed_cards_match_the_engine(page: Any) -> None:
    for i, (players, raw) in enumerate(
        [
            (2, {}),
            (3, {"more_actions": True, "removed": 20}),
            (5, {"special_scoring": True, "no_negatives": True}),
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
