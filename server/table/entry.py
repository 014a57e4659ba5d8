"""One accepted step of a room: the unit of the log stream and of resume.

An ``Entry`` is appended to the room's log stream (as flat fields, readable with
``XRANGE``). The room's channel carries only a notice that the version exists
(``step_notice``): the state blob holds the seed and the entry may hold a private phase's
moves, and a Redis shared with another site must not hand those to whoever subscribes.
Every node reads the entry from the log once (server/realtime/fanout.py) and renders it per
recipient
(server/realtime/render.py); nothing in it is sent as is.
"""

from __future__ import annotations

import time
from typing import Any

import msgspec

START = "start"  # the dealt game, no moves
MOVE = "move"  # one open move
REVEAL = "reveal"  # the moves of a sealed phase, all at once
TAKEBACK = "takeback"  # a player took back their open move: the state before it, again
ABANDON = "abandon"  # the game ended unfinished (the host, or nobody came back): state unchanged


class Entry(msgspec.Struct, kw_only=True):
    room: str
    engine: str  # the game id (which engine renders ``state``)
    version: int
    kind: str
    seats: list[int]  # the seats whose moves these are
    moves: dict[str, Any]  # seat (as text) -> the move applied, as JSON
    defaults: list[int]  # seats whose move was the engine's default
    proxies: list[int] = []  # seats whose move a stand-in made (the player was away)
    at: str  # ISO 8601 UTC
    state: bytes  # game.encode(state) after this step
    status: str  # the room's status after this step
    phase: str | None = None  # sealed phases: the phase resolved
    salts: dict[str, str] | None = None  # sealed phases: every seat's salt
    opened: dict[str, Any] | None = None  # sealed phases: what each seat opened (as committed)
    seed_digest: str | None = None  # on the start
    seed: str | None = None  # once the game is over
    server_seed: str | None = None  # once the game is over: the seed is derived from it
    seed_commitment: str | None = None  # on the start: sha256 of the server seed
    contributions: list[dict[str, Any]] | None = None  # on the start: {seat, entropy, by}
    deadline: int | None = None  # epoch ms: when the prompt this step opened times out
    undoes: int | None = None  # a take-back: the version it undid
    game_id: str | None = None  # on the start and the end: the game's archive id
    reason: str | None = None  # an abandon: "host" (the host ended it) or "idle" (the clock)
    private: bool = False  # a private sealed phase: each move is shown only to its mover
    secret: bool = False  # ... even once the game is over (``Prompt.for_good``)
    # The move chain (server/table/chain.py): the head after this step, and what the log
    # keeps of its link -- ``{"moves": seat -> proof and salt, "game": ... (the deal)}``.
    head: str | None = None
    chain: dict[str, Any] | None = None


_this_second: tuple[int, str] = (-1, "")  # (epoch second, its ISO text up to the seconds)


def now_iso() -> str:
    """Now, ISO 8601 UTC to the millisecond (``2026-12-05T04:50:12.345Z``): a step's time.
    The text up to the seconds is made once a second (every step formats a time)."""
    global _this_second
    second, milli = divmod(time.time_ns() // 1_000_000, 1000)
    if second != _this_second[0]:
        _this_second = (second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second)))
    return f"{_this_second[1]}.{milli:03d}Z"


_json_encode = msgspec.json.encode
_json_decode = msgspec.json.decode
_JSON_FIELDS = ("seats", "moves", "defaults", "salts", "opened", "contributions", "chain")
_OPTIONAL_JSON = ("proxies",)  # written only when not empty
_TEXT_FIELDS = (
    "engine",
    "kind",
    "at",
    "status",
    "phase",
    "seed_digest",
    "seed",
    "server_seed",
    "seed_commitment",
    "game_id",
    "reason",
    "head",
)


def to_fields(entry: Entry) -> dict[str, bytes | str]:
    """The stream fields of an entry (its id is ``<version>-0``)."""
    out: dict[str, bytes | str] = {"v": str(entry.version), "room": entry.room}
    for name in _TEXT_FIELDS:
        value = getattr(entry, name)
        if value is not None:
            out[name] = value
    for name in _JSON_FIELDS:
        value = getattr(entry, name)
        if value is not None:
            out[name] = _json_encode(value)
    for name in _OPTIONAL_JSON:
        value = getattr(entry, name)
        if value:
            out[name] = _json_encode(value)
    if entry.deadline is not None:
        out["deadline"] = str(entry.deadline)
    if entry.undoes is not None:
        out["undoes"] = str(entry.undoes)
    if entry.private:
        out["private"] = "1"
    if entry.secret:
        out["secret"] = "1"
    out["state"] = entry.state
    return out


def from_fields(fields: dict[str, bytes]) -> Entry:
    def text(name: str) -> str | None:
        raw = fields.get(name)
        return raw.decode() if raw is not None else None

    def js(name: str) -> Any:
        raw = fields.get(name)
        return _json_decode(raw) if raw is not None else None

    return Entry(
        room=text("room") or "",
        engine=text("engine") or "",
        version=int(fields["v"]),
        kind=text("kind") or MOVE,
        seats=js("seats") or [],
        moves=js("moves") or {},
        defaults=js("defaults") or [],
        proxies=js("proxies") or [],
        at=text("at") or "",
        state=fields["state"],
        status=text("status") or "playing",
        phase=text("phase"),
        salts=js("salts"),
        opened=js("opened"),
        seed_digest=text("seed_digest"),
        seed=text("seed"),
        server_seed=text("server_seed"),
        seed_commitment=text("seed_commitment"),
        contributions=js("contributions"),
        game_id=text("game_id"),
        reason=text("reason"),
        head=text("head"),
        chain=js("chain"),
        deadline=int(fields["deadline"]) if fields.get("deadline") else None,
        undoes=int(fields["undoes"]) if fields.get("undoes") else None,
        private=fields.get("private") == b"1",
        secret=fields.get("secret") == b"1",
    )


# -- what goes over pub/sub ----------------------------------------------------------------
class Published(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A message on a room's channel. ``k`` says which kind; the rest depends on it."""

    k: str  # "step" | "room" | "committed" | "open" | "chat" | "presence" | "rooms" | "announce"
    # | "inspected" (an admin looked at the hidden state: who and what is not said)
    # | "deadline" (an admin pushed the current deadline: ``version``, ``stage``, ``deadline``)
    # | "paused" / "unpaused" (an admin stopped / started the room's clocks)
    room: str = ""
    data: dict[str, Any] | None = None


_enc = msgspec.msgpack.Encoder()
_dec = msgspec.msgpack.Decoder(Published)


def step_notice(room: str, version: int) -> bytes:
    """What the channel says about a new step: its version, nothing of the game; and when
    it was made (epoch seconds: each node measures its fan-out from it)."""
    return pack(Published(k="step", room=room, data={"version": version, "t": time.time()}))


def pack(message: Published) -> bytes:
    return _enc.encode(message)


def unpack(payload: bytes) -> Published:
    return _dec.decode(payload)
