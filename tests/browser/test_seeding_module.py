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
          const seeds = [];
          for (const v of vectors) seeds.push(await m.deriveSeed(v.server_seed, v.contributions));
          return { seeds, label: m.LABEL, fresh: m.newContribution() };
        }""",
        VECTORS["vectors"],
    )
    assert out["seeds"] == [v["seed"] for v in VECTORS["vectors"]]
    assert out["label"] == VECTORS["label"]
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
          const good = await m.checkDerivation("VEC", room);
          const forged = await m.checkDerivation("VEC", { ...room, seed: "00".repeat(32) });
          const other = { ...room, seed_commitment: "11".repeat(32) };
          const swapped = await m.checkDerivation("VEC", other);
          const in1 = m.mineIsIn("VEC", room, 1);
          const in0 = m.mineIsIn("VEC", room, 0);
          return { good, forged, swapped, in1, in0 };
        }""",
        [room, v["contributions"][1]],
    )
    assert out["good"]["ok"] and out["good"]["checked"]
    assert not out["forged"]["ok"] and "not made from" in out["forged"]["message"]
    assert not out["swapped"]["ok"]  # the commitment seen first is the one that counts
    assert out["in1"] is True and out["in0"] is False
