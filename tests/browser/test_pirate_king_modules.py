"""Pirate King!'s browser modules without a game server: the card list (cards.js) against the
engine's, the deal check (deal.js) against the engine's named Rng streams, and the rules page in
both languages."""

from __future__ import annotations

from typing import Any

import pytest

from engines.pirate_king.cards import CARDS, LOOT_IDS, MONSTER_IDS, NAMES
from engines.pirate_king.rules import PirateKing
from engines.rng import Rng

pytestmark = pytest.mark.browser


def test_the_browser_card_list_is_the_engines(web_only_url: str, chromium: Any) -> None:
    """The page: "the card list below is **house**, kept in one data file" -- the browser's
    copy (cards.js) must be the engine's, card by card, in the engine's order (the order the
    piles are shuffled in)."""
    page = chromium.new_page()
    try:
        page.goto(web_only_url + "/rules/pirate-king")
        cards = page.evaluate(
            "async () => (await import('/static/js/games/pirate-king/cards.js')).CARDS"
        )
        assert [c["name"] for c in cards] == list(NAMES)
        for js, card in zip(cards, CARDS, strict=True):
            got = (js["type"], js["swords"], js["gold"], js["curses"], js["crowns"], js["map"])
            assert got == (card.type, card.swords, card.gold, card.curses, card.crowns, card.map)
            effect = card.effect
            if effect is None:
                assert js["effect"] is None, card.name
            else:
                assert js["effect"]["kind"] == effect.kind, card.name
                assert js["effect"].get("n", 1) == effect.n, card.name
                assert bool(js["effect"].get("others")) == effect.others, card.name
                assert js["effect"].get("gain", "") == effect.gain, card.name
                assert js["effect"].get("per", "") == effect.per, card.name
    finally:
        page.close()


@pytest.mark.parametrize("players", [2, 4])
def test_the_deal_check_recomputes_the_engines_streams(
    web_only_url: str, chromium: Any, players: int
) -> None:
    """README "Randomness": `captain`, `monsters`, `loot`, `pile:<seat>:<n>` -- the browser's
    recomputation matches the engine's first Captain, every round's rows and first cards,
    and a changed row is caught."""
    seed = bytes(range(32))
    game = PirateKing()
    state = game.start(game.options({}), players, seed)
    captain = Rng(seed, "captain").below(players)
    monsters = [NAMES[c] for c in Rng(seed, "monsters").shuffled(MONSTER_IDS)]
    loot = [NAMES[c] for c in Rng(seed, "loot").shuffled(LOOT_IDS)]
    assert [NAMES[c] for c in state.monster_pile] == monsters
    # Every seat picks; the first card of each pile is the top of pile:<seat>:0.
    while state.phase == 0:
        (seat,) = game.prompt(state).seats
        state = game.step(state, {seat: game.legal(state, seat)[0]})
    view = game.view(state, 0)
    pirates = {s["seat"]: s["pirate"] for s in view["table"]}  # type: ignore[index]
    firsts = {s: NAMES[e.card] for s in range(players) for e in state.zones[s][:1]}
    rows = len(view["loot_row"])  # type: ignore[arg-type]
    page = chromium.new_page()
    try:
        page.goto(web_only_url + "/rules/pirate-king")
        got = page.evaluate(
            """async ([hex, players, pirates, firsts, r1loot]) => {
              const d = await import('/static/js/games/pirate-king/deal.js');
              const seed = Uint8Array.from(hex.match(/../g).map((x) => parseInt(x, 16)));
              const dealt = await d.dealFromSeed(seed, players);
              const first = {};
              for (const s of Object.keys(pirates)) first[s] = [pirates[s], firsts[s]];
              const seen = {0: {captain: dealt.captain}, 1: {...dealt.rows(1), first}};
              const ok = await d.checkSeen(dealt, seen);
              const bad = await d.checkSeen(dealt, {1: {monsters: dealt.rows(1).monsters,
                loot: [...r1loot].reverse(), first: {}}});
              return {captain: dealt.captain, r1: dealt.rows(1), r7: dealt.rows(7), ok, bad};
            }""",
            [seed.hex(), players, pirates, firsts, view["loot_row"]],
        )
    finally:
        page.close()
    assert got["captain"] == captain
    assert got["r1"]["monsters"] == monsters[:2] and got["r1"]["loot"] == loot[:rows]
    assert got["r7"]["monsters"] == monsters[12:14]
    assert got["r7"]["loot"] == loot[6 * rows : 7 * rows]
    assert view["monster_row"] == monsters[:2]
    assert got["ok"] == [{"round": 0, "ok": True}, {"round": 1, "ok": True}]
    assert got["bad"] == [{"round": 1, "ok": False}]


def test_the_rules_page_in_both_languages(web_only_url: str) -> None:
    """The rules page in English and Vietnamese, its house card list marked house."""
    import httpx

    url = f"{web_only_url}/rules/pirate-king"
    en = httpx.get(url, params={"lang": "en"})
    vi = httpx.get(url, params={"lang": "vi"})
    assert en.status_code == vi.status_code == 200
    assert '<html lang="en">' in en.text and '<html lang="vi">' in vi.text
    assert 'The card list <mark class="house">house</mark>' in en.text
    assert 'Danh sách lá bài <mark class="house">luật riêng</mark>' in vi.text
    # Every card of the house list is named on both pages, in each language.
    for card in ("Deckhand", "Blackbeard", "Kraken", "Merchant Scales", "Map Fragment"):
        assert card in en.text
    for card in ("Thủy thủ", "Râu Đen", "Kraken", "Cân thương gia", "Mảnh bản đồ"):
        assert card in vi.text
    for english in ("Back to the lobby", "Accumulate swords", "The end</h2>"):
        assert english not in vi.text


CHECK = """async ([views, seedHex, digest, players, seat, lie]) => {
  const mod = (await import("/static/js/games/pirate-king/module.js")).default;
  const seen = {};
  for (const v of views) {  // as store.js records: the first value of each key is kept
    const d = mod.dealSeen(v);
    if (!d) continue;
    const { round, ...what } = d;
    seen[round] = { ...JSON.parse(JSON.stringify(what)), ...(seen[round] || {}) };
  }
  /*LIE*/
  return { seen, result: await mod.verifyDeals({ game: "pirate-king", seedHex, seedDigest: digest,
    players, seat, seen }) };
}"""


def test_the_badge_checks_every_card_drawn_from_a_reshuffled_pile(
    web_only_url: str, chromium: Any
) -> None:
    """The seed: "When you have no more cards to draw, shuffle your discard pile and use it
    as your new pile"; README "Randomness": each new pile is `pile:<seat>:<n>` over the
    discard in card order. Over a whole game the badge recomputes every pile a seat saw
    cards leave -- reshuffled ones included -- and every card at its place; a forged card
    drawn from a reshuffled pile, or a forged discard it was made from, loses the badge."""
    import hashlib

    seed = bytes(range(100, 132))
    game = PirateKing()
    state = game.start(game.options({}), 3, seed)
    states = [state]
    while game.outcome(state) is None:
        prompt = game.prompt(state)
        seats = prompt.seats if prompt.sealed else prompt.seats[:1]
        state = game.step(state, {s: game.default(state, s) for s in seats})
        states.append(state)
    assert max(state.shuffles) >= 3  # the game made piles from discards
    digest = hashlib.sha256(seed).hexdigest()
    page = chromium.new_page()
    try:
        page.goto(web_only_url + "/rules/pirate-king")
        for seat in (1, None):
            views = [game.view(s, seat) for s in states]
            out = page.evaluate(CHECK, [views, seed.hex(), digest, 3, seat, None])
            assert out["result"]["ok"], out["result"]
            assert out["result"]["checked"] == 8  # the start and the 7 rounds
            drawn = [k for r in out["seen"].values() for k in r if "#" in k and ":0#" not in k]
            assert len(drawn) > 20, drawn  # cards seen leaving reshuffled piles
        views = [game.view(s, 0) for s in states]
        # A round with a reshuffled pile of seat 2 that cards were seen to leave.
        out = page.evaluate(CHECK, [views, seed.hex(), digest, 3, 0, None])
        round_, key = next(
            (r, k)
            for r, what in sorted(out["seen"].items(), key=lambda x: int(x[0]))
            for k in what
            if k.startswith("pile:2:") and "#" in k and not k.startswith("pile:2:0#")
        )
        lies = {
            # The card seen leaving the pile becomes another card of the same pile.
            "a forged drawn card": f"""const w = seen[{round_}]; const base = "{key}".split("#")[0];
              const other = w[base].find((c) => c !== w["{key}"]); w["{key}"] = other;""",
            # The discard the pile was made from, with one card swapped for another.
            "a forged discard": f"""const w = seen[{round_}]; const base = "{key}".split("#")[0];
              w[base] = [...w[base]].reverse().map((c, i) => i ? c : (c === "kraken" ?
                "leviathan-1" : "kraken"));""",
        }
        for what, lie in lies.items():
            script = CHECK.replace("/*LIE*/", lie)  # no eval under the page's CSP
            bad = page.evaluate(script, [views, seed.hex(), digest, 3, 0, None])["result"]
            assert not bad["ok"], what
            assert [r["round"] for r in bad["rounds"] if not r["ok"]] == [int(round_)], what
    finally:
        page.close()


def test_the_table_offers_a_take_back_only_where_the_server_allows_it(
    web_only_url: str, chromium: Any
) -> None:
    """docs/CLIENT.md `mayTakeBack`: "false when the move revealed something". Over random
    games, every open move the table would offer to take back reveals nothing by the
    server's rule (`reveals_nothing`: the refusal `takeback-reveals`), and some are offered
    (a Pirate picked, a Monster or Loot taken, a tie ordered...)."""
    from server.table.steps import reveals_nothing

    game = PirateKing()
    rng = Rng(b"pirate-king-take-back", "test")
    cases: list[tuple[Any, Any, bool]] = []
    for players in (2, 4):
        state = game.start(game.options({}), players, bytes(range(players, players + 32)))
        while not game.prompt(state).over:
            prompt = game.prompt(state)
            if prompt.sealed:
                state = game.step(
                    state, {s: rng.choice(game.legal(state, s)) for s in prompt.seats}
                )
                continue
            (seat,) = prompt.seats[:1]
            before, state = state, game.step(state, {seat: rng.choice(game.legal(state, seat))})
            ok = reveals_nothing(game, before, state, seat, players)
            cases.append((game.view(before, seat), game.view(state, seat), ok))
    page = chromium.new_page()
    try:
        page.goto(web_only_url + "/rules/pirate-king")
        offered = page.evaluate(
            """async (cases) => {
              const mod = (await import('/static/js/games/pirate-king/module.js')).default;
              return cases.map(([before, after]) => mod.mayTakeBack(before, after));
            }""",
            [[b, a] for b, a, _ in cases],
        )
    finally:
        page.close()
    wrong = [
        (b["phase"], a["phase"])
        for (b, a, ok), o in zip(cases, offered, strict=True)
        if o and not ok
    ]
    assert not wrong, wrong
    assert sum(offered) >= 10 and sum(ok for _, _, ok in cases) > sum(offered) // 2


def test_the_badge_holds_over_random_games(web_only_url: str, chromium: Any) -> None:
    """Whatever is played -- Red drawing Loot between two rows, Wilson given and left,
    Choose discarding, Looks reordering, piles made again and again -- an honest game gets
    the badge, for a seat and for a spectator (games of random moves, 2 to 5 players;
    the 5-player one has Red draw before a later row is dealt)."""
    import hashlib

    game = PirateKing()
    page = chromium.new_page()
    try:
        page.goto(web_only_url + "/rules/pirate-king")
        for players, g in ((2, 4), (3, 1), (4, 6), (5, 7)):
            seed = bytes([g]) * 32
            rng = Rng(seed, "stress")
            state = game.start(game.options({}), players, seed)
            states = [state]
            while game.outcome(state) is None:
                prompt = game.prompt(state)
                seats = prompt.seats if prompt.sealed else prompt.seats[:1]
                state = game.step(state, {s: rng.choice(game.legal(state, s)) for s in seats})
                states.append(state)
            digest = hashlib.sha256(seed).hexdigest()
            for seat in (0, None):
                views = [game.view(s, seat) for s in states]
                out = page.evaluate(CHECK, [views, seed.hex(), digest, players, seat, None])
                assert out["result"]["ok"], (players, seat, out["result"]["rounds"])
    finally:
        page.close()
