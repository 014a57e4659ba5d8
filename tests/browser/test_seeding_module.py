"""web-client's seeding.js -- the browser's twin of server/table/seeding.py -- on the same vectors:
the browser can check that the deal was made from its own bytes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

VECTORS = json.loads(
    (Path(__file__).resolve().parents[1] / "server" / "seed_vectors.json").read_text()
)


@pytest.fixture(scope="module")
def page(chromium: Any, web_only_url: str) -> Iterator[Any]:
    context = chromium.new_context()
    page = context.new_page()
    page.goto(web_only_url + "/rules/skull-king")
    yield page
    context.close()


def test_derive_seed_matches_the_vectors(page: Any) -> None:
    out = page.evaluate(
        """async (vectors) => {
          const m = await import("/static/js/seeding.js");
          const seeds = [], legacy = [], fixed = [];
          for (const v of vectors) {
            seeds.push(await m.deriveSeed(v.server_seed, v.contributions));
            legacy.push(await m.deriveSeed(v.server_seed, v.contributions, m.LEGACY_LABEL));
            fixed.push(v.contributions.map((_, i) => m.serverBytes(v.server_seed, i)));
          }
          return { seeds, legacy, fixed, label: m.LABEL, legacyLabel: m.LEGACY_LABEL,
                   seatLabel: m.SEAT_LABEL, fresh: m.newContribution() };
        }""",
        VECTORS["vectors"],
    )
    assert out["seeds"] == [v["seed"] for v in VECTORS["vectors"]]
    assert out["legacy"] == [v["legacy_seed"] for v in VECTORS["vectors"]]
    assert out["fixed"] == [v["server_bytes"] for v in VECTORS["vectors"]]
    assert out["label"] == VECTORS["label"]
    assert out["legacyLabel"] == VECTORS["legacy_label"]
    assert out["seatLabel"] == VECTORS["seat_label"]
    assert len(out["fresh"]) == 64 and int(out["fresh"], 16) >= 0


def test_check_derivation_and_own_bytes(page: Any) -> None:
    v = VECTORS["vectors"][1]
    room = {
        "seed": v["seed"],
        "server_seed": v["server_seed"],
        "seed_commitment": v["commitment"],
        "contributions": [
            {"seat": i, "entropy": c, "by": "player"} for i, c in enumerate(v["contributions"])
        ],
    }
    out = page.evaluate(
        """async ([room, mine]) => {
          const m = await import("/static/js/seeding.js");
          localStorage.setItem("tortuga.deal.VEC", JSON.stringify({ entropy: mine }));
          m.noteCommitment("VEC", room.seed_commitment);
          const good = await m.checkDerivation("VEC", room, 1);
          const forged = await m.checkDerivation("VEC", { ...room, seed: "00".repeat(32) });
          const other = { ...room, seed_commitment: "11".repeat(32) };
          const swapped = await m.checkDerivation("VEC", other);
          const in1 = m.mineIsIn("VEC", room, 1);
          const in0 = m.mineIsIn("VEC", room, 0);
          const dropped = await m.checkDerivation("VEC", room, 0);
          return { good, forged, swapped, in1, in0, dropped };
        }""",
        [room, v["contributions"][1]],
    )
    assert out["good"]["ok"] and out["good"]["checked"]
    assert not out["forged"]["ok"] and "not made from" in out["forged"]["message"]
    assert not out["swapped"]["ok"]  # the commitment seen first is the one that counts
    assert out["in1"] is True and out["in0"] is False
    # Seat 0's entry is not this browser's bytes: sitting there, its badge fails.
    assert (
        not out["dropped"]["ok"] and "your contribution was not used" in out["dropped"]["message"]
    )


def _server_room(v: dict[str, Any], chosen: str | None = None) -> dict[str, Any]:
    """Seat 2 is a bot: the server's bytes (``chosen`` instead, when given), and the seed
    derived from them."""
    import hashlib

    parts = [*v["contributions"][:2], chosen or v["server_bytes"][2]]
    server = bytes.fromhex(v["server_seed"])
    seed = hashlib.sha256(
        b"tortuga-seed/2\x00" + server + b"".join(bytes.fromhex(c) for c in parts)
    ).hexdigest()
    return {
        "seed": seed,
        "server_seed": v["server_seed"],
        "seed_commitment": v["commitment"],
        "contributions": [
            {"seat": i, "entropy": c, "by": "server" if i == 2 else "player"}
            for i, c in enumerate(parts)
        ],
    }


def test_the_servers_bytes_must_be_the_committed_ones(page: Any) -> None:
    v = VECTORS["vectors"][1]
    out = page.evaluate(
        """async ([fixed, chosen, bare]) => {
          const m = await import("/static/js/seeding.js");
          localStorage.removeItem("tortuga.deal.SRV");
          const run = (room) => m.checkDerivation("SRV", room, null);
          return { fixed: await run(fixed), chosen: await run(chosen),
                   noCommitment: await run({ ...fixed, seed_commitment: null }),
                   noDeal: await run({ ...fixed, contributions: null }),
                   bare: await run(bare) };
        }""",
        [_server_room(v), _server_room(v, "ab" * 32), {"seed": v["seed"]}],
    )
    assert out["fixed"]["ok"], out
    assert not out["chosen"]["ok"] and "seat 3" in out["chosen"]["message"], out
    assert "not the ones its promise fixed" in out["chosen"]["message"]
    assert (
        not out["noCommitment"]["ok"]
        and "published no promise of its seed" in out["noCommitment"]["message"]
    )
    assert not out["noDeal"]["ok"] and "deal data" in out["noDeal"]["message"]
    assert not out["bare"]["ok"], out  # a game that never published a commitment


def test_no_bytes_before_the_commitment(page: Any) -> None:
    v = VECTORS["vectors"][0]
    out = page.evaluate(
        """async (commitment) => {
          const m = await import("/static/js/seeding.js");
          localStorage.removeItem("tortuga.deal.PRE");
          const before = m.contributionFor("PRE", null);
          const kept = localStorage.getItem("tortuga.deal.PRE");
          const after = m.contributionFor("PRE", commitment);
          const again = m.contributionFor("PRE", commitment);
          const other = m.contributionFor("PRE", "11".repeat(32));
          return { before, kept, after, again, other };
        }""",
        v["commitment"],
    )
    assert out["before"] is None and out["kept"] is None
    assert len(out["after"]) == 64 and out["again"] == out["after"]
    assert out["other"] is None  # another commitment than the one seen first: nothing sent
