"""The protocol's refusals: stable error codes (each one documented in docs/PROTOCOL.md),
websocket close codes, the exception that carries a refusal and the ``error`` frame."""

from __future__ import annotations

from typing import Any

Ref = str | int | None

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
GAME_NOT_OVER = "game-not-over"  # "Play again" after a game still under way
SEATS_EMPTY = "seats-empty"
NOT_READY = "not-ready"
NO_COMMITMENT = "no-commitment"  # a start in a room that published no seed commitment
NOT_A_BOT = "not-a-bot"
NO_PLAYER_BOTS = "no-player-bots"  # a player's bot account sits where the host refuses them
BAD_BOT_LEVEL = "bad-bot-level"
CANNOT_KICK_SELF = "cannot-kick-self"
SEAT_NOT_HELD = "seat-not-held"  # the host's stand_in for a seat the table does not wait for
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
# Signed moves (server/table/chain.py): a socket that signed in with a device key sent a move
# without a signature / with one that does not verify; a key registration that is not a
# P-256 public key; a socket whose key is not registered with its user (closed with 4011).
SIGNATURE_REQUIRED = "signature-required"
BAD_SIGNATURE = "bad-signature"
BAD_KEY = "bad-key"
TOO_MANY_KEYS = "too-many-keys"
UNKNOWN_KEY = "unknown-key"
CHAT_TOO_LONG = "chat-too-long"
BAD_TEXT = "bad-text"
TOO_MANY_SOCKETS = "too-many-sockets"
TOO_MANY_ROOMS = "too-many-rooms"
TOO_MANY_PUBLIC_ROOMS = "too-many-public-rooms"  # one client address's public rooms
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
CLOSE_UNKNOWN_KEY = 4011  # auth named a device key its user never registered: register it again
CLOSE_FORBIDDEN_ORIGIN = 4003  # before the upgrade: the client sees HTTP 403


class ProtocolError(Exception):
    """A refused message: ``code`` is stable and machine-readable; ``ref`` is the message's
    own ``ref`` when the frame was read far enough to know it (the error echoes it)."""

    def __init__(self, code: str, message: str, ref: Ref = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.ref = ref


def error(code: str, message: str, ref: Ref = None) -> dict[str, Any]:
    return {"type": "error", "code": code, "message": message, "ref": ref}
