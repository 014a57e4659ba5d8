"""A step's entry (server/table/entry.py): its time as every step writes it."""

from __future__ import annotations

import datetime as dt
import time

import pytest

from server.table import entry


def _standard(ns: int) -> str:
    """The time as the standard library writes it, to the millisecond (floored)."""
    at = dt.datetime.fromtimestamp(ns // 1_000_000 / 1000, dt.UTC)
    return at.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@pytest.mark.parametrize(
    "ns",
    [
        1_796_000_000_000_000_000,  # a whole second
        1_796_000_000_999_999_999,  # the last nanosecond of it: still .999
        1_796_000_001_000_000_000,  # the next second: its text is made again
        1_798_761_599_123_456_789,  # the last second of 2026
        1_798_761_600_000_000_001,  # the first of 2027
    ],
)
def test_now_iso_is_the_standard_librarys_text_to_the_millisecond(
    ns: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(time, "time_ns", lambda: ns)
    assert entry.now_iso() == _standard(ns)


def test_now_iso_within_one_second_keeps_the_seconds_and_moves_the_milliseconds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base = 1_796_000_000_000_000_000
    texts = []
    for ms in (0, 1, 500, 999, 1000):
        monkeypatch.setattr(time, "time_ns", lambda ms=ms: base + ms * 1_000_000)
        texts.append(entry.now_iso())
    assert texts == [_standard(base + ms * 1_000_000) for ms in (0, 1, 500, 999, 1000)]
    assert texts[3].endswith(":20.999Z") and texts[4].endswith(":21.000Z")
