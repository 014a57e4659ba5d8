"""web-client's rng.js, deal.js, cards.js and seal.js against the Python they re-implement.

Each module runs in Chromium twice where it matters: on WebCrypto (a secure context) and on
the plain-JavaScript SHA-256 fallback used on insecure pages (http on a LAN address).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engines.rng import Rng
from engines.skull_king import BID_TRICKS, SKULL_KING
from server.table.reveal import digest as server_digest

pytestmark = pytest.mark.browser

VECTORS = Path(__file__).resolve().parents[1] / "engines" / "rng_vectors.json"


@pytest.fixture(scope="module")
def page(chromium: Any, web_only_url: str) -> Iterator[Any]:
    context = chromium.new_context()
    page = context.new_page()
    page.goto(web_only_url + "/rules/skull-king")
    yield page
    context.close()


RUN_VECTOR = """async ([v, subtle]) => {
  const { Rng } = await import("/static/js/rng.js");
  const { fromHex } = await import("/static/js/sha256.js");
  const seed = fromHex(v.seed_hex);
  const fresh = () => Rng.create(seed, v.label, { subtle });
  const out = { next: [], below: [], s10: null, s70: null };
  let r = await fresh();
  for (let i = 0; i < v.next_u64_hex.length; i++) {
    out.next.push((await r.nextU64()).toString(16).padStart(16, "0"));
  }
  r = await fresh();
  let drawn = 0;
  const inner = r.nextU64.bind(r);
  r.nextU64 = async () => { drawn++; return inner(); };
  for (const b of v.below) {
    drawn = 0;
    const value = await r.below(BigInt(b.n));
    out.below.push({ n: b.n, value: value.toString(), drawn });
  }
  out.s10 = await (await fresh()).shuffled([...Array(10).keys()]);
  out.s70 = await (await fresh()).shuffled([...Array(70).keys()]);
  return out;
}"""


@pytest.mark.parametrize("subtle", [True, False], ids=["webcrypto", "fallback"])
def test_rng_matches_the_shared_vectors(page: Any, subtle: bool) -> None:
    vectors = json.loads(VECTORS.read_text())["vectors"]
    assert vectors
    assert page.evaluate("!!(window.isSecureContext && crypto.subtle)")
    for v in vectors:
        got = page.evaluate(RUN_VECTOR, [v, subtle])
        assert got["next"] == v["next_u64_hex"], v["label"]
        assert got["below"] == v["below"], v["label"]
        assert got["s10"] == v["shuffled_10"], v["label"]
        assert got["s70"] == v["shuffled_70"], v["label"]


def test_rng_matches_python_for_random_seeds(page: Any) -> None:
    cases = []
    for size in (1, 16, 32, 65, 100):
        seed = secrets.token_bytes(size)
        for label in ("deal:1", "deal:10", "dealer", "ünïcode ☠"):
            cases.append((seed.hex(), label))
    got = page.evaluate(
        """async (cases) => {
          const { Rng } = await import("/static/js/rng.js");
          const { fromHex } = await import("/static/js/sha256.js");
          const out = [];
          for (const [hex, label] of cases) {
            const subtle = out.length % 2 === 0;
            const r = await Rng.create(fromHex(hex), label, { subtle });
            const below = [];
            for (const n of [2, 3, 7, 66, 70]) below.push(await r.below(n));
            out.push({ below, shuffled: await r.shuffled([...Array(66).keys()]) });
          }
          return out;
        }""",
        cases,
    )
    for (hex_seed, label), result in zip(cases, got, strict=True):
        rng = Rng(bytes.fromhex(hex_seed), label)
        assert result["below"] == [rng.below(n) for n in (2, 3, 7, 66, 70)]
        assert result["shuffled"] == rng.shuffled(range(66))


def test_deck_names_match_the_engine(page: Any) -> None:
    for game in (SKULL_KING, BID_TRICKS):
        names = page.evaluate(
            """async (id) =>
            (await import("/static/js/games/skull-king/cards.js")).deckNames(id)""",
            game.id,
        )
        assert names == list(game.cards.names)


def test_deals_match_the_engine(page: Any) -> None:
    for game in (SKULL_KING, BID_TRICKS):
        for players in (2, 3, 5, game.seats.stop - 1):
            seed = secrets.token_bytes(32)
            state = game.start(game.options({}), players, seed)
            expected = {}
            for round_ in (1, 2, 7, 10):
                dealt = game._deal(state, round_)
                expected[round_] = [[game.cards.names[c] for c in h] for h in dealt.hands]
            got = page.evaluate(
                """async ([game, hex, players]) => {
                  const deal = await import("/static/js/games/skull-king/deal.js");
                  const { fromHex } = await import("/static/js/sha256.js");
                  const seed = fromHex(hex);
                  const out = {};
                  for (const r of [1, 2, 7, 10]) {
                    out[r] = await deal.dealRound(game, seed, players, r);
                  }
                  return { hands: out, dealer: await deal.firstDealer(seed, players) };
                }""",
                [game.id, seed.hex(), players],
            )
            assert got["dealer"] == state.first_dealer
            assert {int(k): v for k, v in got["hands"].items()} == expected


def test_verify_deals_accepts_the_truth_and_refuses_a_lie(page: Any) -> None:
    game = SKULL_KING
    seed = secrets.token_bytes(32)
    state = game.start(game.options({}), 4, seed)
    seen = {}
    for round_ in (1, 2, 3):
        dealt = game._deal(state, round_)
        seen[str(round_)] = {
            "hand": [game.cards.names[c] for c in dealt.hands[1]],
            "dealer": game.dealer(dealt),
        }
    args = {
        "game": game.id,
        "seedHex": seed.hex(),
        "seedDigest": hashlib.sha256(seed).hexdigest(),
        "players": 4,
        "seat": 1,
        "seen": seen,
    }
    run = """async (a) => (await import("/static/js/games/skull-king/deal.js")).verifyDeals(a)"""
    good = page.evaluate(run, args)
    assert good["ok"] and good["seedOk"] and good["checked"] == 3
    lie = json.loads(json.dumps(args))
    lie["seen"]["2"]["hand"][0] = (
        "skull-king" if lie["seen"]["2"]["hand"][0] != "skull-king" else "red-1"
    )
    bad = page.evaluate(run, lie)
    assert not bad["ok"] and [r["ok"] for r in bad["rounds"]] == [True, False, True]
    wrong_digest = dict(args, seedDigest=hashlib.sha256(b"another").hexdigest())
    assert not page.evaluate(run, wrong_digest)["ok"]


def _py_digest(phase: str, seat: int, move: Any, salt: str) -> str:
    canonical = json.dumps(move, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(f"{phase}:{seat}:{canonical}:{salt}".encode()).hexdigest()


SEAL_CASES: list[tuple[str, int, Any]] = [
    ("bid", 0, {"bid": 3}),
    ("bid@7", 5, {"bid": 0}),
    ("v12", 2, {"play": "scary-mary", "as": "escape"}),
    ("phase ☠ ü", 1, {"z": [1, {"b": None, "a": True}], "é": 'naïve "q" \\ \n', "A": -7}),
    ("x", 3, {"\U0001f600": 1, "\uffff": 2, "b": 3}),
]


def test_seal_digest_matches_python(page: Any) -> None:
    salts = [secrets.token_hex(16) for _ in SEAL_CASES]
    got = page.evaluate(
        """async ([cases, salts]) => {
          const seal = await import("/static/js/seal.js");
          const { sha256Sync, toHex, utf8 } = await import("/static/js/sha256.js");
          const out = [];
          for (let i = 0; i < cases.length; i++) {
            const [phase, seat, move] = cases[i];
            const text = `${phase}:${seat}:${seal.canonicalJson(move)}:${salts[i]}`;
            out.push({
              canonical: seal.canonicalJson(move),
              digest: await seal.digest(phase, seat, move, salts[i]),
              fallback: toHex(sha256Sync(utf8(text))),
            });
          }
          return out;
        }""",
        [SEAL_CASES, salts],
    )
    for (phase, seat, move), salt, result in zip(SEAL_CASES, salts, got, strict=True):
        canonical = json.dumps(move, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert result["canonical"] == canonical
        assert result["digest"] == _py_digest(phase, seat, move, salt)
        assert result["digest"] == server_digest(phase, seat, move, salt)
        assert result["fallback"] == result["digest"]


def test_sha256_fallback_on_long_inputs(page: Any) -> None:
    data = [bytes(range(256)) * k for k in (0, 1, 3)] + [b"a" * n for n in (55, 56, 63, 64, 65)]
    got = page.evaluate(
        """async (hexes) => {
          const m = await import("/static/js/sha256.js");
          return hexes.map((h) => [m.toHex(m.sha256Sync(m.fromHex(h))),
                                   m.toHex(m.hmacSha256Sync(m.fromHex(h), m.utf8("msg")))]);
        }""",
        [d.hex() for d in data],
    )
    for d, (digest, mac) in zip(data, got, strict=True):
        assert digest == hashlib.sha256(d).hexdigest()
        assert mac == hmac.new(d, b"msg", hashlib.sha256).hexdigest()


def test_sealed_move_survives_a_reload(page: Any) -> None:
    sealed = page.evaluate(
        """async () => (await import("/static/js/seal.js")).seal("ROOM1", "r3:bid", 2, {bid: 2})"""
    )
    assert len(sealed["salt"]) >= 32
    assert sealed["digest"] == _py_digest("r3:bid", 2, {"bid": 2}, sealed["salt"])
    page.reload()
    again = page.evaluate(
        """async () => (await import("/static/js/seal.js")).load("ROOM1", "r3:bid")"""
    )
    assert again == sealed
    page.evaluate("""async () => (await import("/static/js/seal.js")).forget("ROOM1")""")
    assert (
        page.evaluate(
            """async () => (await import("/static/js/seal.js")).load("ROOM1", "r3:bid")"""
        )
        is None
    )
