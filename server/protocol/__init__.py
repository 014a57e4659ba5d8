"""Every message of the table protocol (docs/PROTOCOL.md), as typed structs, and the error codes.

Inbound frames are checked in a fixed order, each failure with its own code and before
anything else happens: size (``frame-too-large``), JSON (``bad-json``), a known ``type``
(``unknown-type``), then the fields of that type (``bad-message``). Outbound messages are
plain JSON objects built by the functions at the end; ``encode`` turns one into a frame.
"""

from __future__ import annotations

import re
import typing
from typing import Annotated, Any, Literal

import msgspec

# -- error codes (each one documented in docs/PROTOCOL.md) ------------------------------
BAD_JSON = "bad-json"
UNKNOWN_TYPE = "unknown-type"
BAD_MESSAGE = "bad-message"
FRAME_TOO_LARGE = "frame-too-large"
BODY_TOO_LARGE = "body-too-large"
RATE_LIMITED = "rate-limited"
BAD_TOKEN = "bad-token"
NO_SUCH_ROOM = "no-such-room"
NOT_IN_ROOM = "not-in-room"
WRONG_ROOM = "wrong-room"
NO_SPECTATORS = "no-spectators"
NOT_A_PLAYER = "not-a-player"
NO_SUCH_SEAT = "no-such-seat"
SEAT_TAKEN = "seat-taken"
SEAT_EMPTY = "seat-empty"
NOT_SEATED = "not-seated"
NOT_YOUR_SEAT = "not-your-seat"
NOT_HOST = "not-host"
GAME_STARTED = "game-started"
GAME_NOT_STARTED = "game-not-started"
GAME_OVER = "game-over"
SEATS_EMPTY = "seats-empty"
NOT_READY = "not-ready"
NOT_A_BOT = "not-a-bot"
BAD_BOT_LEVEL = "bad-bot-level"
CANNOT_KICK_SELF = "cannot-kick-self"
STALE_VERSION = "stale-version"
BAD_VERSION = "bad-version"
MALFORMED_MOVE = "malformed-move"
SEALED_PHASE = "sealed-phase"
NOT_SEALED = "not-sealed"
WRONG_PHASE = "wrong-phase"
NOT_IN_PHASE = "not-in-phase"
ALREADY_COMMITTED = "already-committed"
NOT_OPEN = "not-open"
NOT_COMMITTED = "not-committed"
ALREADY_REVEALED = "already-revealed"
DIGEST_MISMATCH = "digest-mismatch"
CHAT_TOO_LONG = "chat-too-long"
BAD_TEXT = "bad-text"
TOO_MANY_SOCKETS = "too-many-sockets"
TOO_MANY_ROOMS = "too-many-rooms"
LOBBY_LOCKED = "lobby-locked"  # an admin locked the lobby: no new rooms for now
TOO_MANY_BOT_GAMES = "too-many-bot-games"
TOO_MANY_GUESTS = "too-many-guests"
BAD_DEADLINES = "bad-deadlines"
TAKEBACK_OFF = "takeback-off"
TAKEBACK_TOO_LATE = "takeback-too-late"
TAKEBACK_NOT_YOURS = "takeback-not-yours"
TAKEBACK_REVEALS = "takeback-reveals"
BUSY = "busy"
# Moderation (server/table/moderation.py, server/admin/): an operator banned or muted the user.
BANNED = "banned"  # banned from the site: every route (403) and socket (closed 4010)
BANNED_FROM_ROOM = "banned-from-room"  # may not join, follow or sit in this room
MUTED = "muted"  # chat refused (site-wide or in this room), until unmuted or it runs out

# Websocket close codes (4000-4999 belong to applications).
CLOSE_BAD_TOKEN = 4001
CLOSE_FLOOD = 4008
CLOSE_TOO_MANY = 4009
CLOSE_BANNED = 4010  # an operator banned the user from the site
CLOSE_FORBIDDEN_ORIGIN = 4003  # before the upgrade: the client sees HTTP 403

RoomId = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_-]{4,40}$")]
Seat = Annotated[int, msgspec.Meta(ge=0, le=63)]
Version = Annotated[int, msgspec.Meta(ge=0)]
Phase = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
Digest = Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{64}$")]
# At least 16 random bytes, as lowercase hex.
Salt = Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{32,128}$")]
Ref = str | int | None


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


class Start(_In, tag="start"):
    pass


class AddBot(_In, tag="add_bot"):
    seat: Seat
    level: Annotated[str, msgspec.Meta(max_length=32)] = "heuristic"


class RemoveBot(_In, tag="remove_bot"):
    seat: Seat


class Kick(_In, tag="kick"):
    seat: Seat


class Act(_In, tag="act"):
    move: Any
    version: Version | None = None
    seat: Seat | None = None  # optional: must be the sender's own seat


class Takeback(_In, tag="takeback"):
    version: Version  # the version the sender's move produced


class Abandon(_In, tag="abandon"):
    """The host ends the game under way for everyone (unfinished, marked abandoned)."""


class Commit(_In, tag="commit"):
    phase: Phase
    digest: Digest
    seat: Seat | None = None


class Reveal(_In, tag="reveal"):
    phase: Phase
    move: Any
    salt: Salt
    seat: Seat | None = None


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


class ProtocolError(Exception):
    """A refused message: ``code`` is stable and machine-readable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


MAX_DEPTH = 32  # JSON nesting a client may send (a move is a few levels deep)
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)  # unrolled: fast on long text
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def nesting(raw: bytes) -> int:
    """How deeply the arrays and objects of JSON text ``raw`` nest (strings skipped).

    Decoders recurse per level: text nested deeper than the interpreter's recursion limit
    raises RecursionError instead of a decode error, so depth is checked before decoding."""
    brackets = _STRING.sub(b"", raw).translate(None, _NOT_BRACKETS)
    depth = deepest = 0
    for b in brackets:
        if b in (0x5B, 0x7B):  # [ {
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def parse_json(raw: str | bytes, max_depth: int = MAX_DEPTH, what: str = "the frame") -> Any:
    """JSON text as Python values; ProtocolError ``bad-json`` if it is not JSON or nests
    deeper than ``max_depth``."""
    data = raw.encode() if isinstance(raw, str) else raw
    # Text with no more opening brackets in all than the limit (most frames) cannot nest
    # deeper than it: no scan.
    opened = data.count(b"[") + data.count(b"{")
    if opened > max_depth and nesting(data) > max_depth:
        raise ProtocolError(BAD_JSON, f"{what} nests deeper than {max_depth} levels")
    try:
        return msgspec.json.decode(data)
    except (msgspec.DecodeError, RecursionError):
        raise ProtocolError(BAD_JSON, f"{what} is not JSON") from None


def decode(frame: str | bytes, max_bytes: int, max_depth: int = MAX_DEPTH) -> Inbound:
    """One client frame as a message, or ProtocolError naming what is wrong with it."""
    size = len(frame.encode() if isinstance(frame, str) else frame)
    if size > max_bytes:
        raise ProtocolError(FRAME_TOO_LARGE, f"a frame has at most {max_bytes} bytes")
    obj = parse_json(frame, max_depth)
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        raise ProtocolError(BAD_MESSAGE, 'a message is a JSON object with a "type"')
    struct = BY_TYPE.get(obj["type"])
    if struct is None:
        raise ProtocolError(UNKNOWN_TYPE, f"no message type {obj['type']!r}"[:200])
    try:
        return msgspec.convert(obj, struct)  # type: ignore[no-any-return]
    except msgspec.ValidationError as exc:
        raise ProtocolError(BAD_MESSAGE, str(exc)[:200]) from None


def ref_of(frame: str | bytes, max_bytes: int = 64 * 1024) -> Ref:
    """The ``ref`` of a frame that failed validation, when it can be read at all."""
    if len(frame) > max_bytes:
        return None
    try:
        obj = parse_json(frame)
    except ProtocolError:
        return None
    ref = obj.get("ref") if isinstance(obj, dict) else None
    return ref if isinstance(ref, str | int) and not isinstance(ref, bool) else None


# -- outbound ----------------------------------------------------------------------------
_encoder = msgspec.json.Encoder()


def encode(message: dict[str, Any]) -> str:
    return _encoder.encode(message).decode()


def encode_bytes(message: dict[str, Any]) -> bytes:
    """``encode``, as the UTF-8 bytes a websocket frame carries."""
    return _encoder.encode(message)


def error(code: str, message: str, ref: Ref = None) -> dict[str, Any]:
    return {"type": "error", "code": code, "message": message, "ref": ref}
