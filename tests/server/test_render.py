"""The send boundary (server/realtime/render.py): what one recipient sees of a step."""

from __future__ import annotations

import json
from typing import Any, cast

from engines.registry import GAMES
from server.realtime.hub import Hub
from server.realtime.render import entry_frames
from server.realtime.socket_protocol import text_frame
from server.table.entry import REVEAL, Entry, from_fields, to_fields

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
    hub = Hub(
        redis_client, rooms=cast(Any, None), instance="t", resume_max=10, max_queued_bytes=1 << 20
    )
    entry = _reveal(True)
    mine = hub.rendered(entry, 0)
    assert hub.rendered(entry, 0) is mine  # the second socket of seat 0: nothing rendered
    assert [json.loads(p) for p in mine.payloads] == json.loads(
        json.dumps(entry_frames(SK, entry, 0))
    )
    # Framed once for every socket of the seat: each payload a text frame, in order.
    assert mine.frames == b"".join(text_frame(p) for p in mine.payloads)
    for seat in (1, None):
        theirs = [json.loads(p) for p in hub.rendered(entry, seat).payloads]
        assert theirs == json.loads(json.dumps(entry_frames(SK, entry, seat)))
        assert theirs != [json.loads(p) for p in mine.payloads]
        assert list(theirs[0]["moves"]) == ([] if seat is None else [str(seat)])


def _as_read(entry: Entry) -> Entry:
    """``entry`` as a node reads it back from the log stream."""
    fields = to_fields(entry)
    return from_fields({k: v.encode() if isinstance(v, str) else v for k, v in fields.items()})


def test_the_writers_entry_renders_as_the_log_does() -> None:
    """The node that wrote a step keeps the entry it wrote for its own sockets instead of
    reading it back (``Hub.written``): every seat's frames are the same either way, for
    every kind of step."""
    from server.table.entry import ABANDON, MOVE, START, TAKEBACK

    state = SK.start(SK.options(), 3, b"render-test")
    bid = SK.step(state, {s: SK.decode_move({"bid": 1}) for s in range(3)})
    first = SK.legal(bid, SK.prompt(bid).seats[0])[0]
    played = SK.step(bid, {SK.prompt(bid).seats[0]: first})
    common: dict[str, Any] = {"room": "r", "engine": SK.id, "at": "2026-12-01T00:00:00.000Z"}
    entries = [
        Entry(
            **common,
            version=1,
            kind=START,
            seats=[],
            moves={},
            defaults=[],
            state=SK.encode(state),
            status="playing",
            seed_digest="d" * 64,
            seed_commitment="c" * 64,
            contributions=[{"seat": 0, "entropy": "ab", "by": "u0"}],
            game_id="r-1",
            deadline=1_800_000_000_000,
        ),
        _reveal(False),
        _reveal(True),
        Entry(
            **common,
            version=3,
            kind=MOVE,
            seats=[SK.prompt(bid).seats[0]],
            moves={str(SK.prompt(bid).seats[0]): first.to_json()},
            defaults=[SK.prompt(bid).seats[0]],
            proxies=[SK.prompt(bid).seats[0]],
            state=SK.encode(played),
            status="playing",
        ),
        Entry(
            **common,
            version=4,
            kind=TAKEBACK,
            seats=[0],
            moves={},
            defaults=[],
            state=SK.encode(bid),
            status="playing",
            undoes=3,
            deadline=1_800_000_000_000,
        ),
        Entry(
            **common,
            version=5,
            kind=ABANDON,
            seats=[],
            moves={},
            defaults=[],
            state=SK.encode(bid),
            status="abandoned",
            seed="ee" * 32,
            server_seed="ff" * 32,
            game_id="r-1",
            reason="host",
        ),
    ]
    for entry in entries:
        for seat in (None, 0, 1, 2):
            mine = json.dumps(entry_frames(SK, entry, seat), sort_keys=True)
            read = json.dumps(entry_frames(SK, _as_read(entry), seat), sort_keys=True)
            assert mine == read, (entry.kind, seat)


class _Log:
    """A store whose log holds ``entries`` and counts its reads."""

    def __init__(self, entries: list[Entry]) -> None:
        self.entries = entries
        self.reads = 0

    async def log_range(self, room_id: str, first: int, last: int) -> list[Any]:
        self.reads += 1
        return [
            (
                e.version,
                {k: v.encode() if isinstance(v, str) else v for k, v in to_fields(e).items()},
            )
            for e in self.entries
            if first <= e.version <= last
        ]


async def test_a_socket_told_of_the_nodes_own_write_waits_for_it(redis_client: Any) -> None:
    """A step's notice can reach this node's sockets before its writer has the reply: they
    wait for the writer (``Hub.writing`` / ``written``) instead of reading the log; when the
    write lost (another node's step is that version), they read the log."""
    import asyncio

    entry = _reveal(False)
    log = _Log([entry])
    rooms = cast(Any, type("Rooms", (), {"store": log})())
    hub = Hub(redis_client, rooms=rooms, instance="t", resume_max=10, max_queued_bytes=1 << 20)
    hub.by_room["r"].add(cast(Any, object()))

    hub.writing("r", 2)
    waiting = asyncio.create_task(hub.entries("r", 2, 2))
    await asyncio.sleep(0.01)
    assert not waiting.done()  # waits for the writer, reads nothing
    hub.written("r", 2, entry)
    assert await waiting == [entry] and log.reads == 0

    other = _reveal(True)
    other.version = 3
    log.entries.append(other)
    hub.writing("r", 3)
    waiting = asyncio.create_task(hub.entries("r", 3, 3))
    await asyncio.sleep(0.01)
    hub.written("r", 3, None)  # lost: the log has the winner's entry
    read = await waiting
    assert log.reads == 1 and [e.private for e in read] == [True]


class _Socket:
    """Enough of a websocket for a ``Connection``: what it was sent, in order."""

    def __init__(self) -> None:
        from starlette.websockets import WebSocketState

        self.application_state = WebSocketState.CONNECTED
        self.sent: list[dict[str, Any]] = []

    async def send_text(self, text: str) -> None:
        self.sent.append(json.loads(text))


async def test_a_notice_that_beat_the_nodes_own_write_is_handed_on_with_what_followed_in_order(
    redis_client: Any,
) -> None:
    """The notice of a version this node is writing, come before the writer's reply, is
    held until ``written`` -- and so is what the room's channel said after it (here a
    seat's commitment at that version): the socket gets the step, then the commitment,
    not the commitment first (it would be dropped as of a version the socket is not at)."""
    import asyncio

    from server.realtime.hub import Connection
    from server.table.entry import Published

    entry = _reveal(False)
    log = _Log([])
    rooms = cast(Any, type("Rooms", (), {"store": log})())
    hub = Hub(redis_client, rooms=rooms, instance="t", resume_max=10, max_queued_bytes=1 << 20)
    socket = _Socket()
    user = cast(Any, type("U", (), {"id": "u0"})())
    conn = Connection("t:1", user, cast(Any, socket), hub, room_id="r", seat=0)
    conn.synced, conn.version = True, entry.version - 1
    hub.by_room["r"].add(conn)

    hub.writing("r", entry.version)
    notice = Published(k="step", room="r", data={"version": entry.version})
    committed = Published(k="committed", room="r", data={"version": entry.version, "seat": 1})
    assert hub._held_back("r", notice) and hub._held_back("r", committed)
    await asyncio.sleep(0.01)
    assert socket.sent == []  # nothing yet: the writer has not said whether it won
    hub.written("r", entry.version, entry)
    for _ in range(100):
        if socket.sent and socket.sent[-1]["type"] == "committed":
            break
        await asyncio.sleep(0.01)
    kinds = [f["type"] for f in socket.sent]
    assert kinds.index("event") < kinds.index("committed") and kinds[-1] == "committed"
    assert socket.sent[-1]["version"] == entry.version
    assert log.reads == 0  # the writer's own entry, not read back
