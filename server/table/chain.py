"""The move chain: every event of a game carries the hash of the one before it, and every
move a proof of who made it (docs/PROTOCOL.md, "The move chain"; test vectors in
tests/server/chain_vectors.json, checked here and by the browser's twin,
web-client/js/chain.js).

An event's *link* is a JSON object, hashed in its canonical encoding (``canonical``: keys
sorted, no spaces, UTF-8, whole numbers only); its *head* is ``hex(sha256(link))``:

    {"at": <epoch ms>, "chain": "tortuga-chain/1", "defaults": [...], "digest": <hex
     sha256 of the state after it>, "moves": {"<seat>": <proof>}, "prev": <head before it;
     64 zeros for the first>, "proxies": [...], "takeback": <version undone> | null,
     "version": <n>} + "game": {...} on the first (the deal)

A proof never carries a move in clear, only its salted commitment ``c`` --
``commitment(label, seat, move, salt)``, the formula of a sealed commit -- so a head, a
proof or a signature tells nobody a hidden move: ``{"by": "player" | "server" |
"unsigned", "c", "key": kid | null, "l": label, "open": sig | null, "sig": sig | null}``.
The label is ``act@<v>`` for an open move made at version ``v``, the phase (``bid@<v>``)
for a sealed one; the salt is the mover's (a sealed reveal's, or the one sent with a
signed ``act``) or, for a move the server made or an unsigned one, 16 random bytes of the
server's. A player's ``sig`` (and a sealed opening's ``open``) is their device's signature
of ``sig_message``; a move the server made for a seat (a default, a stand-in, a bot) is
``by: "server"``, signed with the server's key as kind ``made``.

Pure: no I/O.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime
from typing import Any

import msgspec

from server.identity.signing import ServerKey

CHAIN = "tortuga-chain/1"
SIG = "tortuga-sig/1"
GENESIS = "0" * 64  # the ``prev`` of the first event
PLAYER, SERVER, UNSIGNED = "player", "server", "unsigned"
# What a signature is over: an open move, a sealed commit and its opening, a contribution to
# the deal seed, a move the server made for a seat.
ACT, COMMIT, REVEAL, ENTROPY, MADE = "act", "commit", "reveal", "entropy", "made"


def canonical(value: Any) -> bytes:
    """The canonical encoding: JSON with keys sorted, no spaces, non-ASCII as UTF-8 (what
    ``json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` writes, for the
    values a chain holds -- text, integers, booleans, null, lists and objects -- at a tenth
    of its cost: msgspec's encoder, keys in sorted order)."""
    return _encode(value, order="sorted")


_encode = msgspec.json.encode


def canonical_json(value: Any) -> str:
    return canonical(value).decode()


def commitment(label: str, seat: int, move: Any, salt: str) -> str:
    """hex sha256(label ":" seat ":" canonical_json(move) ":" salt) -- a sealed commit's
    digest when ``label`` is its phase."""
    text = f"{label}:{seat}:{canonical_json(move)}:{salt}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sig_message(kind: str, room: str, version: int, seat: int, c: str) -> bytes:
    """The bytes a device (or the server) signs for one move: ``c`` is the move's
    commitment (a contribution's entropy for ``entropy``), ``version`` the room's version
    the move was made at (0 for a contribution)."""
    return canonical(
        {"c": c, "kind": kind, "room": room, "seat": seat, "tortuga": SIG, "version": version}
    )


def at_ms(at: str | datetime) -> int:
    """An event's time as epoch milliseconds (the log's ISO text and the archive's
    datetimes alike)."""
    if isinstance(at, str):
        at = datetime.fromisoformat(at.replace("Z", "+00:00"))
    if at.tzinfo is None:
        at = at.replace(tzinfo=UTC)
    return (at - datetime(1970, 1, 1, tzinfo=UTC)) // _MS


_MS = datetime(1970, 1, 1, 0, 0, 0, 1000, tzinfo=UTC) - datetime(1970, 1, 1, tzinfo=UTC)


class Proof(msgspec.Struct, kw_only=True):
    """Who made one move, and its commitment (with the salt that opens it)."""

    by: str
    c: str
    l: str  # noqa: E741 -- the label, as the spec names it
    salt: str
    key: str | None = None
    sig: str | None = None
    open: str | None = None

    def public(self) -> dict[str, Any]:
        """The proof as the link has it: everything but the salt."""
        return {
            "by": self.by,
            "c": self.c,
            "key": self.key,
            "l": self.l,
            "open": self.open,
            "sig": self.sig,
        }


def salt() -> str:
    return secrets.token_hex(16)


def made(key: ServerKey, room: str, version: int, seat: int, label: str, move: Any) -> Proof:
    """The proof of a move the server made for ``seat`` (a default, a stand-in, a bot)."""
    s = salt()
    c = commitment(label, seat, move, s)
    sig = key.sign(sig_message(MADE, room, version, seat, c))
    return Proof(by=SERVER, c=c, l=label, salt=s, key=key.kid, sig=sig)


def unsigned(label: str, seat: int, move: Any) -> Proof:
    """The proof of a player's move sent without a signature (a client without a key)."""
    s = salt()
    return Proof(by=UNSIGNED, c=commitment(label, seat, move, s), l=label, salt=s)


def link(
    *,
    prev: str,
    version: int,
    at: str | datetime,
    digest: str,
    moves: dict[str, dict[str, Any]],
    defaults: list[int],
    proxies: list[int],
    takeback: int | None,
    game: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """An event's link (``moves``: seat -> ``Proof.public()``)."""
    out: dict[str, Any] = {
        "at": at_ms(at),
        "chain": CHAIN,
        "defaults": sorted(defaults),
        "digest": digest,
        "moves": moves,
        "prev": prev,
        "proxies": sorted(proxies),
        "takeback": takeback,
        "version": version,
    }
    if game is not None:
        out["game"] = game
    return out


def head(link_: dict[str, Any]) -> str:
    return hashlib.sha256(canonical(link_)).hexdigest()


def game_block(
    *,
    game_id: str,
    room: str,
    engine: str,
    options: dict[str, Any],
    players: int,
    seats: list[dict[str, Any]],
    seed_commitment: str | None,
    seed_digest: str | None,
    contributions: list[dict[str, Any]] | None,
) -> dict[str, Any]:
    """What the first event commits to: the room's options, its seats (``{seat, user,
    bot}``) and the deal's inputs (the committed server seed, the seed's digest, every
    seat's contribution ``{seat, entropy, by, key, sig}``)."""
    return {
        "contributions": [
            {
                "by": c.get("by"),
                "entropy": c.get("entropy"),
                "key": c.get("key"),
                "seat": c.get("seat"),
                "sig": c.get("sig"),
            }
            for c in contributions or []
        ],
        "engine": engine,
        "game_id": game_id,
        "options": options,
        "players": players,
        "room": room,
        "seats": [{"bot": s.get("bot"), "seat": s["seat"], "user": s.get("user")} for s in seats],
        "seed_commitment": seed_commitment,
        "seed_digest": seed_digest,
    }
