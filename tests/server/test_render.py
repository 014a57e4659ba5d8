"""The send boundary (server/render.py): what one recipient sees of a step."""

from __future__ import annotations

import json
from typing import Any, cast

from engines.registry import GAMES
from server.entry import REVEAL, Entry, from_fields, to_fields
from server.hub import Hub
from server.render import entry_frames

SK = GAMES["skull-king"]


def _reveal(private: bool) -> Entry:
    state = SK.start(SK.options(), 3, b"render-test")
    moves = {str(s): {"bid": s} for s in range(3)}
    return Entry(
        room="r",
        engine=SK.id,
        version=2,
        kind=REVEAL,
        seats=[0, 1, 2],
        moves=moves,
        defaults=[],
        at="2026-12-01T00:00:00.000Z",
        state=SK.encode(state),
        status="playing",
        phase="bid:1",
        salts={s: f"salt{s}" for s in moves},
        opened={s: f"bid {s}" for s in moves},
        private=private,
    )


def test_a_sealed_phase_is_shown_to_all_once_revealed() -> None:
    """PROTOCOL.md: "the moves of a sealed phase are shown to all, once revealed"."""
    for seat in (None, 0, 2):
        revealed, event = entry_frames(SK, _reveal(False), seat)[:2]
        assert set(revealed["moves"]) == {"0", "1", "2"}
        assert set(revealed["salts"]) == {"0", "1", "2"}
        assert set(event["event"]["moves"]) == {"0", "1", "2"}


def test_a_private_sealed_phase_shows_each_move_to_its_mover_only() -> None:
    """engines/core.py Prompt.private: "the server never shows a seat's move to anyone else"."""
    for seat in (0, 1, 2):
        revealed, event = entry_frames(SK, _reveal(True), seat)[:2]
        assert revealed["private"] is True
        for frame_moves in (revealed["moves"], revealed["opened"], revealed["salts"]):
            assert list(frame_moves) == [str(seat)]
        assert list(event["event"]["moves"]) == [str(seat)]
    revealed, event = entry_frames(SK, _reveal(True), None)[:2]
    assert revealed["moves"] == revealed["opened"] == revealed["salts"] == {}
    assert event["event"]["moves"] == {}


def test_privacy_survives_the_log_stream() -> None:
    """The flag is written to the stream, so a resume from the log renders the same."""
    back = from_fields(
        {k: v.encode() if isinstance(v, str) else v for k, v in to_fields(_reveal(True)).items()}
    )
    assert back.private is True
    assert (
        from_fields(
            {
                k: v.encode() if isinstance(v, str) else v
                for k, v in to_fields(_reveal(False)).items()
            }
        ).private
        is False
    )


async def test_a_node_renders_a_step_once_per_seat(redis_client: Any) -> None:
    """A view depends on the seat alone: a node renders and encodes a step once per seat
    (and once for all spectators), not once per socket -- and each seat still gets only the
    frames rendered for it."""
    hub = Hub(redis_client, rooms=cast(Any, None), instance="t", resume_max=10)
    entry = _reveal(True)
    mine = hub.rendered(entry, 0)
    assert hub.rendered(entry, 0) is mine  # the second socket of seat 0: nothing rendered
    assert [json.loads(text) for text in mine] == json.loads(json.dumps(entry_frames(SK, entry, 0)))
    for seat in (1, None):
        theirs = [json.loads(text) for text in hub.rendered(entry, seat)]
        assert theirs == json.loads(json.dumps(entry_frames(SK, entry, seat)))
        assert theirs != [json.loads(text) for text in mine]
        assert list(theirs[0]["moves"]) == ([] if seat is None else [str(seat)])
