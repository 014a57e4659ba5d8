"""The table protocol's messages (docs/PROTOCOL.md), as typed msgspec structs.

The messages a client sends are the server's own definitions (``server/protocol/messages.py``),
copied here so that a bot needs nothing of the server: ``tests/bots/test_protocol_drift.py``
compares every struct's JSON schema with the server's and fails when the two differ, so a
change on one side that is not made on the other cannot go unnoticed.

The frames the server sends are typed loosely (unknown fields are ignored, so a newer site
does not break an older bot); ``tests/bots/test_library_games.py`` decodes every frame of
real games with them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

Ref = str | int | None

# -- client -> server: a copy of server/protocol/messages.py (checked by a test) ------------

RoomId = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_-]{4,40}$")]
Seat = Annotated[int, msgspec.Meta(ge=0, le=63)]
Version = Annotated[int, msgspec.Meta(ge=0)]
Phase = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
Digest = Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{64}$")]
# At least 16 random bytes, as lowercase hex.
Salt = Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{32,128}$")]
# A device's ECDSA P-256 signature, r || s (64 bytes), base64url without padding
# (docs/PROTOCOL.md "The move chain").
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


class Auth(
    msgspec.Struct, tag_field="type", tag="auth", forbid_unknown_fields=True, omit_defaults=True
):
    """The first frame of every socket (never the token in the URL). Without a key it is
    ``{"type": "auth", "token"}``, as a site from before the move chain reads it."""

    token: str
    ref: Ref = None
    key: str | None = None  # the kid of the device key this socket signs its moves with


_encoder = msgspec.json.Encoder()


def encode(message: _In | Auth) -> bytes:
    return _encoder.encode(message)


# -- server -> client ------------------------------------------------------------------------


class _Out(msgspec.Struct, tag_field="type", kw_only=True):
    """A frame from the server; fields a newer server adds are ignored."""


class SeatState(msgspec.Struct, kw_only=True):
    seat: int
    user: str | None = None
    name: str | None = None
    bot: str | None = None  # the level of a server bot
    ready: bool = False
    contributed: bool = False
    connected: bool = False
    away: bool = False
    owner: dict[str, str] | None = None  # a player's bot account: the player who owns it


class Contribution(msgspec.Struct, kw_only=True):
    seat: int
    entropy: str
    by: str  # "player" or "server"


class RoomState(msgspec.Struct, kw_only=True):
    id: str
    game: str
    players: int
    status: str  # lobby, playing, finished, abandoned
    host: str
    version: int
    seats: list[SeatState]
    options: dict[str, Any] = msgspec.field(default_factory=dict)
    title: str = ""
    public: bool = True
    deadlines: dict[str, Any] = msgspec.field(default_factory=dict)
    game_id: str | None = None
    seed_digest: str | None = None
    seed: str | None = None
    seed_commitment: str | None = None
    server_seed: str | None = None
    contributions: list[Contribution] | None = None
    player_bots: bool = True


class Hello(_Out, tag="hello"):
    user: dict[str, str]
    node: str = ""
    token: str | None = None


class Snapshot(_Out, tag="snapshot"):
    room: str
    version: int
    seat: int | None
    room_state: RoomState
    view: dict[str, Any] | None = None
    deadline: int | None = None
    seed_digest: str | None = None
    seed: str | None = None
    head: str | None = None  # the move chain's head at this version (null before the deal)


class EventInfo(msgspec.Struct, kw_only=True):
    kind: str
    seats: list[int] = msgspec.field(default_factory=list)
    moves: dict[str, Any] = msgspec.field(default_factory=dict)
    defaults: list[int] = msgspec.field(default_factory=list)
    proxies: list[int] = msgspec.field(default_factory=list)
    status: str = "playing"
    seed: str | None = None
    seed_digest: str | None = None
    server_seed: str | None = None
    contributions: list[Contribution] | None = None
    game_id: str | None = None


class Event(_Out, tag="event"):
    room: str
    version: int
    seat: int | None
    event: EventInfo
    view: dict[str, Any] | None = None
    deadline: int | None = None
    head: str | None = None  # the move chain's head after this version


class Sealed(_Out, tag="sealed"):
    room: str
    version: int
    phase: str
    kind: str
    seats: list[int]
    committed: dict[str, str] = msgspec.field(default_factory=dict)
    open: bool = False
    revealed: list[int] = msgspec.field(default_factory=list)
    commit_by: int | None = None
    open_by: int | None = None


class Committed(_Out, tag="committed"):
    room: str
    version: int
    phase: str
    seat: int
    digest: str


class Open(_Out, tag="open"):
    room: str
    version: int
    phase: str
    open_by: int | None = None


class Revealed(_Out, tag="revealed"):
    room: str
    version: int
    phase: str
    moves: dict[str, Any] = msgspec.field(default_factory=dict)
    defaults: list[int] = msgspec.field(default_factory=list)
    proxies: list[int] = msgspec.field(default_factory=list)


class Resumed(_Out, tag="resumed"):
    room: str
    version: int
    room_state: RoomState
    seat: int | None = None
    deadline: int | None = None
    head: str | None = None  # the move chain's head at this version


class RoomFrame(_Out, tag="room"):
    room: str
    room_state: RoomState


class Left(_Out, tag="left"):
    room: str
    reason: str | None = None


class Reconnect(_Out, tag="reconnect"):
    within_ms: int = 1000
    reason: str = "draining"


class Pong(_Out, tag="pong"):
    t: Any = None


class Error(_Out, tag="error"):
    code: str
    message: str = ""
    ref: Ref = None
    room: str | None = None
    retry_after_ms: int | None = None


Frame = (
    Hello
    | Snapshot
    | Event
    | Sealed
    | Committed
    | Open
    | Revealed
    | Resumed
    | RoomFrame
    | Left
    | Reconnect
    | Pong
    | Error
)

FRAMES: dict[str, type[Any]] = {
    str(t.__struct_config__.tag): t
    for t in (
        Hello,
        Snapshot,
        Event,
        Sealed,
        Committed,
        Open,
        Revealed,
        Resumed,
        RoomFrame,
        Left,
        Reconnect,
        Pong,
        Error,
    )
}


def decode_frame(raw: str | bytes) -> tuple[Frame | None, dict[str, Any]]:
    """A frame as its struct (None for a type the library does not act on) and as a dict."""
    obj = msgspec.json.decode(raw)
    if not isinstance(obj, dict):
        return None, {}
    struct = FRAMES.get(str(obj.get("type")))
    if struct is None:
        return None, obj
    return msgspec.convert(obj, struct), obj
