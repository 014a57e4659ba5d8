"""JSON text from clients: the nesting bound is exact, and checking it costs the same
whatever the text holds (it runs on every frame and body, before any quota).

A frame or body nests at most ``MAX_DEPTH`` (32) levels: decoders recurse per level, so
the depth is known before decoding. The check must be linear in the text: a scan that
starts again from every quote of a run of ``\\"`` makes one 16 KB body cost a second of
the event loop, from anyone, before sign-in."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server import protocol as p
from server.protocol import json_text

LIMIT = 16384  # TORTUGA_MAX_FRAME_BYTES, the largest frame or body a node reads


def _depth(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    return 0


# Strings full of what a scanner could mistake for structure.
_tricky = st.text(alphabet='ab"\\[]{}/\n\u00e9', max_size=12)
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | _tricky,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_tricky, inner, max_size=4),
    max_leaves=60,
)


@settings(max_examples=400, deadline=None)
@given(value=_json, slack=st.integers(min_value=-2, max_value=2))
def test_the_nesting_bound_is_exact(value: Any, slack: int) -> None:
    """Any JSON value nests deeper than a limit exactly when its depth is over it."""
    raw = json.dumps(value).encode()
    limit = max(0, _depth(value) + slack)
    assert json_text.nests_deeper(raw, limit) == (_depth(value) > limit)


def _worst_inputs() -> dict[str, bytes]:
    """Texts of the size limit made to be slow for a scanner of JSON text."""
    run = b"[" * 40 + b'"' + b'\\"' * LIMIT  # an unclosed string of escaped quotes
    flipped = b"[" * 40 + b'"\\' * LIMIT  # quotes and backslashes, the other way round
    deep = b"[" * (LIMIT // 2) + b"]" * (LIMIT // 2)
    blocks = (b"[" * 32 + b"]" * 32) * (LIMIT // 64)  # each pass pairs up little
    sawtooth = b"[[]" * (LIMIT // 3)
    backslashes = b"[" * 40 + b'"' + b"\\" * LIMIT
    return {
        name: text[:LIMIT]
        for name, text in {
            "run": run,
            "flipped": flipped,
            "deep": deep,
            "blocks": blocks,
            "sawtooth": sawtooth,
            "backslashes": backslashes,
        }.items()
    }


def _cost(call: Callable[[], object]) -> float:
    """The least CPU time of a few calls (the least is the one least disturbed)."""
    best = float("inf")
    for _ in range(7):
        started = time.process_time_ns()
        call()
        best = min(best, time.process_time_ns() - started)
    return best


def _parse(raw: bytes) -> Callable[[], object]:
    def call() -> object:
        try:
            return json_text.parse_json(raw)
        except p.ProtocolError as exc:
            return exc

    return call


def test_the_worst_text_of_the_size_limit_costs_what_an_ordinary_one_costs() -> None:
    """An ordinary body with many arrays (which the nesting check scans in full) against
    every text made to be slow, both of the size limit, in the same process: a ratio, not
    a time, so the machine's speed does not matter. A scan that starts again from every
    quote made the worst about 2,600 times the ordinary; here none costs more than it."""
    ordinary = json.dumps([[n % 10, n % 7] for n in range(LIMIT // 8)]).encode()
    assert LIMIT - 100 < len(ordinary) <= LIMIT and json_text.parse_json(ordinary)
    baseline = _cost(_parse(ordinary))
    for name, raw in _worst_inputs().items():
        assert len(raw) <= LIMIT
        with pytest.raises(p.ProtocolError) as refused:
            json_text.parse_json(raw)
        assert refused.value.code == p.BAD_JSON
        assert _cost(_parse(raw)) < 3 * baseline, name  # measured: at most 0.8 times


def test_a_refused_frame_is_scanned_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A frame refused for its fields carries its ``ref`` in the refusal: nothing reads the
    text again to find it."""
    scans: list[int] = []
    real = json_text.nests_deeper

    def counted(raw: bytes, limit: int) -> bool:
        scans.append(len(raw))
        return real(raw, limit)

    monkeypatch.setattr(json_text, "nests_deeper", counted)
    frame = json.dumps({"type": "teleport", "ref": "r1", "pad": [[1]] * 40})
    with pytest.raises(p.ProtocolError) as refused:
        p.decode(frame, LIMIT)
    assert refused.value.code == p.UNKNOWN_TYPE and refused.value.ref == "r1"
    assert len(scans) == 1
    deep = "[" * 40 + "]" * 40
    with pytest.raises(p.ProtocolError) as refused:
        p.decode(f'{{"type": "act", "move": {deep}, "ref": "r2"}}', LIMIT)
    assert refused.value.code == p.BAD_JSON and refused.value.ref is None
    assert len(scans) == 2
