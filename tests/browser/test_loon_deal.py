"""The Loon & Score Cards table module's deal check against the engine it re-implements.

engines/loon_tricks/README.md: "the deal: Rng(seed, "deal:<r>").shuffled(deck); hand h gets
order[5h:5h+5], row i gets the next blocks of 7: the first 5 face up, the last 2 face down"
and "round r shuffles the cards not yet drawn of each deck with Rng(seed, "scores:<r>")
(recruitment, then capture, then treasure, one stream) and takes the first 2 / 1 / 1". The
verified badge recomputes both in the browser (web-client/js/games/loon-tricks/deal.js).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import pytest

from engines.loon_tricks import LOON_TRICKS
from engines.loon_tricks.cards import NAMES
from engines.loon_tricks.score_cards import CARDS

pytestmark = pytest.mark.browser

MODULE = "/static/js/games/loon-tricks"


@pytest.fixture(scope="module")
def page(chromium: Any, web_only_url: str) -> Iterator[Any]:
    context = chromium.new_context()
    page = context.new_page()
    page.goto(web_only_url + "/rules/skull-king")
    yield page
    context.close()


def _game(players: int, rounds: int, seed: bytes) -> list[Any]:
    """Every state of a whole game, each prompted seat making the engine's default move."""
    game = LOON_TRICKS
    state = game.start(game.options({"rounds": rounds}), players, seed)
    states = [state]
    while game.outcome(state) is None:
        prompt = game.prompt(state)
        state = game.step(state, {s: game.default(state, s) for s in prompt.seats})
        states.append(state)
    return states


def test_deals_and_score_cards_match_the_engine(page: Any) -> None:
    for players in (3, 4, 5):
        seed = secrets.token_bytes(32)
        states = _game(players, 5, seed)
        starts = {s.round: s for s in states if s.round and not s.auction and s.phase == 0}
        assert sorted(starts) == [1, 2, 3, 4, 5]
        got = page.evaluate(
            f"""async ([seedHex, players]) => {{
              const deal = await import("{MODULE}/deal.js");
              const {{ fromHex }} = await import("/static/js/sha256.js");
              const seed = fromHex(seedHex);
              const rounds = [];
              for (let r = 1; r <= 5; r++) rounds.push(await deal.dealRound(seed, players, r));
              return {{ rounds, scores: await deal.scoreCards(seed, 5) }};
            }}""",
            [seed.hex(), players],
        )
        for r, state in starts.items():
            dealt = got["rounds"][r - 1]
            assert dealt["hands"] == [[NAMES[c] for c in hand] for hand in state.hands]
            assert [row["up"] for row in dealt["rows"]] == [
                [NAMES[c] for c in up] for up in state.row_up
            ]
            assert [row["down"] for row in dealt["rows"]] == [
                [NAMES[c] for c in down] for down in state.row_down
            ]
            cards = [CARDS[i].id for i in state.scores[r - 1]]
            assert got["scores"][r - 1] == {
                "recruitment": cards[:2],
                "capture": cards[2],
                "treasure": cards[3],
            }


CHECK = f"""async ([views, seedHex, digest, players, seat, lie]) => {{
  const mod = (await import("{MODULE}/module.js")).default;
  const seen = {{}};
  for (const v of views) {{  // as store.js records: the first value of each key is kept
    const d = mod.dealSeen(v);
    if (!d) continue;
    const {{ round, ...what }} = d;
    seen[round] = {{ ...JSON.parse(JSON.stringify(what)), ...(seen[round] || {{}}) }};
  }}
  const o = (c) => ({{ "red-9": "red-10", "lie-low": "rich-rewards" }})[c] || (c.includes("-")
    && /\\d$/.test(c) ? "red-9" : "lie-low");
  if (lie) lie(seen);
  return {{ seen, result: await mod.verifyDeals({{ game: "loon-tricks", seedHex, seedDigest: digest,
    players, seat, seen }}) }};
}}"""


def test_verify_deals_checks_every_card_a_seat_saw_and_refuses_a_lie(page: Any) -> None:
    import hashlib

    seed = secrets.token_bytes(32)
    states = _game(3, 3, seed)
    digest = hashlib.sha256(seed).hexdigest()
    for seat in (0, 1, 2, None):
        views = [LOON_TRICKS.view(s, seat) for s in states]
        out = page.evaluate(
            CHECK.replace("if (lie) lie(seen);", ""), [views, seed.hex(), digest, 3, seat, None]
        )
        assert out["result"]["ok"], out
        assert out["result"]["checked"] == 3
        for r in ("1", "2", "3"):
            seen = out["seen"][r]
            assert len(seen["rows"]) == 3 and "scores" in seen
            if seat is None:
                assert "hand" not in seen and "held" not in seen
            else:
                # the 5 dealt cards, and the hand holding the row taken (its 2 face-down cards)
                assert len(seen["hand"]) == 5 and len(seen["held"]) == 12, seen
    views = [LOON_TRICKS.view(s, 0) for s in states]
    # Each lie changes one card a seat saw into another (o: a different card of the kind).
    lies = {
        "a face-down card": "s => { const h = s[2].held; h[11] = o(h[11]); }",
        "a dealt card": "s => { s[1].hand[0] = o(s[1].hand[0]); }",
        "a face-up row card": "s => { s[3].rows[1][0] = o(s[3].rows[1][0]); }",
        "a score card": "s => { s[2].scores.treasure = o(s[2].scores.treasure); }",
    }
    for what, lie in lies.items():
        script = CHECK.replace("if (lie) lie(seen);", f"({lie})(seen);")
        out = page.evaluate(script, [views, seed.hex(), digest, 3, 0, None])
        assert not out["result"]["ok"], what
        assert [r["round"] for r in out["result"]["rounds"] if not r["ok"]] != [], what
    wrong = page.evaluate(
        CHECK.replace("if (lie) lie(seen);", ""), [views, seed.hex(), "00" * 32, 3, 0, None]
    )
    assert not wrong["result"]["ok"] and not wrong["result"]["seedOk"]


def test_take_back_only_what_revealed_nothing(page: Any) -> None:
    """A move that revealed something stands (docs/CLIENT.md, mayTakeBack): the card that ended
    a round (the score cards were paid), the last prediction (the recruitment sets were laid
    face up), an award (a row with its face-down cards changed hands)."""
    seed = secrets.token_bytes(32)
    states = _game(3, 3, seed)
    views = [LOON_TRICKS.view(s, 0) for s in states]
    got = page.evaluate(
        f"""async (views) => {{
          const mod = (await import("{MODULE}/module.js")).default;
          return views.slice(1).map((v, i) => [views[i].phase, views[i].round, v.phase, v.round,
            mod.mayTakeBack(views[i], v)]);
        }}""",
        views,
    )
    kinds = {(a, b == d, c): may for a, b, c, d, may in got}
    assert kinds[("play", True, "play")] is True
    assert kinds[("play", False, "bid")] is False  # the round ended: paid
    assert all(may is False for a, _, _, _, may in got if a in ("bid", "pick", "award", "ditch"))
    for a, b, c, d, may in got:
        if a == "predict":
            assert may is (c == "predict" and b == d)


def test_scores_and_the_chart_add_up_the_public_ledger(page: Any) -> None:
    """ "every payment and collection is public as it happens ... and all totals are shown at
    the end": the chart's last point and the scores are the engine's final loon; before the
    end (an abandoned game) the scores are 12 plus each seat's ledger."""
    seed = secrets.token_bytes(32)
    states = _game(4, 4, seed)
    final = LOON_TRICKS.view(states[-1], None)
    middle = LOON_TRICKS.view(states[len(states) // 2], None)
    got = page.evaluate(
        f"""async ([final, middle]) => {{
          const mod = (await import("{MODULE}/module.js")).default;
          return [mod.scores(final), mod.scoreHistory(final), mod.scores(middle),
            mod.scoreHistory(middle), mod.scoreText(7)];
        }}""",
        [final, middle],
    )
    scores, history, so_far, no_chart, text = got
    assert scores == list(states[-1].loon)
    assert history["rounds"] == [1, 2, 3, 4]
    assert [t[-1] for t in history["totals"]] == scores
    assert so_far == list(states[len(states) // 2].loon)
    assert no_chart is None  # totals stay behind the screens until the end
    assert text == "7 loon"
