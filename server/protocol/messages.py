"""Every message a client sends (docs/PROTOCOL.md), as typed structs, and their decoding.

Inbound frames are checked in a fixed order, each failure with its own code and before
anything else happens: size (``frame-too-large``), JSON (``bad-json``), a known ``type``
(``unknown-type``), then the fields of that type (``bad-message``).
"""

from __future__ import annotations

import typing
from typing import Annotated, Any, Literal

import msgspec

from server.protocol.errors import (
    BAD_MESSAGE,
    FRAME_TOO_LARGE,
    UNKNOWN_TYPE,
    ProtocolError,
    Ref,
)
from server.protocol.json_text import MAX_DEPTH, parse_json

RoomId = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_-]{4,40}$")]
Seat = Annotated[int, msgspec.Meta(ge=0, le=63)]
Version = Annotated[int, msgspec.Meta(ge=0)]
Phase = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
Digest = Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{64}$")]
# At least 16 random bytes, as lowercase hex.
Salt = Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{32,128}$")]
# A device's ECDSA P-256 signature, r || s (64 bytes), base64url without padding
# (server/table/chain.py, docs/PROTOCOL.md "The move chain").
Sig = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_-]{86}$")]


class _In(msgspec.Struct, tag_field="type", forbid_unknown_fields=True, kw_only=True):
    """Every client message may carry a ``ref`` that errors echo back."""

    ref: Annotated[Ref, msgspec.Meta(description="echoed in errors")] = None


class Join(_In, tag="join"):
    room: RoomId
    as_: Literal["player", "spectator"] = msgspec.field(default="player", name="as")


class Resume(_In, tag="resume"):
    room: RoomId
    version: Version
    as_: Literal["player", "spectator"] | None = msgspec.field(default=None, name="as")


class Leave(_In, tag="leave"):
    pass


class Sit(_In, tag="sit"):
    seat: Seat


class Stand(_In, tag="stand"):
    pass


class Ready(_In, tag="ready"):
    ready: bool = True
    # The player's contribution to the deal seed: 32 random bytes as lowercase hex.
    entropy: Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{64}$")] | None = None
    sig: Sig | None = None  # the device's signature of the entropy (kind ``entropy``)


class Start(_In, tag="start"):
    pass


class AddBot(_In, tag="add_bot"):
    seat: Seat
    level: Annotated[str, msgspec.Meta(max_length=32)] = "heuristic"


class RemoveBot(_In, tag="remove_bot"):
    seat: Seat


class Kick(_In, tag="kick"):
    seat: Seat


class StandIn(_In, tag="stand_in"):
    """The host lets the room's stand-in play a seat a slow game waits for (held)."""

    seat: Seat


class Act(_In, tag="act"):
    move: Any
    version: Version | None = None
    seat: Seat | None = None  # optional: must be the sender's own seat
    # A signed move: the salt of its commitment and the device's signature (with ``version``).
    salt: Salt | None = None
    sig: Sig | None = None


class Takeback(_In, tag="takeback"):
    version: Version  # the version the sender's move produced


class Abandon(_In, tag="abandon"):
    """The host ends the game under way for everyone (unfinished, marked abandoned)."""


class Commit(_In, tag="commit"):
    phase: Phase
    digest: Digest
    seat: Seat | None = None
    sig: Sig | None = None  # the device's signature of the commit


class Reveal(_In, tag="reveal"):
    phase: Phase
    move: Any
    salt: Salt
    seat: Seat | None = None
    sig: Sig | None = None  # the device's signature of the opening


class Chat(_In, tag="chat"):
    text: str


class Ping(_In, tag="ping"):
    t: Any = None


class WatchRooms(_In, tag="watch_rooms"):
    watch: bool = True


Inbound = (
    Join
    | Resume
    | Leave
    | Sit
    | Stand
    | Ready
    | Start
    | AddBot
    | RemoveBot
    | Kick
    | StandIn
    | Act
    | Takeback
    | Abandon
    | Commit
    | Reveal
    | Chat
    | Ping
    | WatchRooms
)

# Each message type's struct, by its tag: a frame is converted to the one struct its
# ``type`` names. (Converting to the union ``Inbound`` costs msgspec about 35 us a frame,
# to the struct itself under 1 us; the union's tag picks the same struct.)
BY_TYPE: dict[str, type[Any]] = {
    msgspec.inspect.type_info(t).tag: t  # type: ignore[attr-defined]
    for t in typing.get_args(Inbound)
}
TYPES: frozenset[str] = frozenset(BY_TYPE)


def decode(frame: str | bytes, max_bytes: int, max_depth: int = MAX_DEPTH) -> Inbound:
    """One client frame as a message, or ProtocolError naming what is wrong with it (with
    the frame's ``ref`` once the frame is read as JSON: the text is scanned once)."""
    data = frame.encode() if isinstance(frame, str) else frame
    if len(data) > max_bytes:
        raise ProtocolError(FRAME_TOO_LARGE, f"a frame has at most {max_bytes} bytes")
    obj = parse_json(data, max_depth)
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        raise ProtocolError(BAD_MESSAGE, 'a message is a JSON object with a "type"', _ref(obj))
    struct = BY_TYPE.get(obj["type"])
    if struct is None:
        message = f"no message type {obj['type']!r}"[:200]
        raise ProtocolError(UNKNOWN_TYPE, message, _ref(obj))
    try:
        return msgspec.convert(obj, struct)  # type: ignore[no-any-return]
    except msgspec.ValidationError as exc:
        raise ProtocolError(BAD_MESSAGE, str(exc)[:200], _ref(obj)) from None


def ref_of(frame: str | bytes, max_bytes: int = 64 * 1024) -> Ref:
    """The ``ref`` of a frame refused before it was read, when it can be read at all."""
    if len(frame) > max_bytes:
        return None
    try:
        return _ref(parse_json(frame))
    except ProtocolError:
        return None


def _ref(obj: Any) -> Ref:
    ref = obj.get("ref") if isinstance(obj, dict) else None
    return ref if isinstance(ref, str | int) and not isinstance(ref, bool) else None
