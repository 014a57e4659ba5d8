"""server/table/moderation.py's entries: a mute or an announcement holds until its ``until`` (epoch
ms) and not after; one for good (``until`` null) holds; an unreadable one holds nothing."""

from __future__ import annotations

import json

from server.table import moderation


def test_an_entry_holds_until_its_time() -> None:
    mark = json.loads(moderation.entry("op", "spam", until=2_000, name="Anne"))
    assert (mark["by"], mark["reason"], mark["until"], mark["name"]) == (
        "op",
        "spam",
        2_000,
        "Anne",
    )
    raw = json.dumps(mark)
    assert moderation.live(raw, now=1_999) is not None
    assert moderation.live(raw, now=2_000) is None  # its time is up
    assert moderation.live(moderation.entry("op", "for good"), now=10**15) is not None
    for junk in (None, "", "not json", "[1, 2]"):
        assert moderation.live(junk) is None
