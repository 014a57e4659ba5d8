"""The conformance harness (tests/engines/test_conformance.py), unchanged, run over Pearates
with its options switched on: the harness itself draws only integer options, so the
expansions and variants (booleans) are played here."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from conformance_worker import spec_for
from test_conformance import Harness, check_tally

from engines.registry import get

EVERYTHING = {
    "more_actions": True,
    "special_scoring": True,
    "friendly": False,
    "strict_ties": False,
    "reshuffles": 1,
}
VARIANTS = {
    "expansions": EVERYTHING,
    "friendly-strict": {**EVERYTHING, "friendly": True, "strict_ties": True, "removed": 10},
    "more-actions-only": {"more_actions": True, "strict_ties": True},
    "no-negatives": {"friendly": True, "no_negatives": True, "special_scoring": True},
}
PLAYOUTS = 4
CASES = [
    ("expansions", 7),
    ("expansions", 3),
    ("friendly-strict", 5),
    ("friendly-strict", 2),
    ("more-actions-only", 4),
    ("no-negatives", 6),
]


@pytest.mark.parametrize(("variant", "players"), CASES, ids=[f"{v}-{p}p" for v, p in CASES])
def test_harness_with_options(variant: str, players: int) -> None:
    game = get("pearates")
    harness = Harness(game, players)
    for index in range(PLAYOUTS):
        spec = replace(spec_for(game, players, index + 1000), options=VARIANTS[variant])
        track = (None, index % players) if index < 2 else ()
        harness.run(spec, track)
    check_tally(harness.tally)
