"""The deal seed: a function of entropy the server committed to before the players added
theirs, so that not even the server chooses the deal (README, "The deal seed").

- When a room is set up the server draws ``server_seed`` (32 random bytes) and publishes
  ``commitment = hex(sha256(server_seed))``.
- Each human player's client sends 32 random bytes (``ready {entropy}``); a seat that sent
  nothing (a bot, an older client) gets 32 bytes drawn by the server, marked ``"server"``.
- At the start every contribution is shown to all, and the game's seed is
  ``sha256(utf8("tortuga-seed/1") || 0x00 || server_seed || c_0 || c_1 || ... || c_{n-1})``,
  the contributions in seat order. The server seed is revealed when the game is over.

Pure: no I/O, no randomness. The server, ``tortuga verify`` and the browser's twin
(``web-client/js/seeding.js``) implement the same text; test vectors are in
``tests/server/seed_vectors.json``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

LABEL = b"tortuga-seed/1"
SIZE = 32  # bytes of the server seed and of every contribution
PLAYER = "player"  # a contribution sent by the seat's client
SERVER = "server"  # bytes the server chose for a seat that sent none


class BadDeal(ValueError):
    """A server seed or contribution of the wrong shape."""


def commitment(server_seed: bytes) -> str:
    """What the room publishes before anyone contributes: hex sha256 of the server seed."""
    return hashlib.sha256(server_seed).hexdigest()


def derive(server_seed: bytes, contributions: Sequence[bytes]) -> bytes:
    """The game seed from the server seed and every seat's contribution, in seat order."""
    if len(server_seed) != SIZE or any(len(c) != SIZE for c in contributions):
        raise BadDeal(f"the server seed and every contribution have {SIZE} bytes")
    return hashlib.sha256(LABEL + b"\x00" + server_seed + b"".join(contributions)).digest()


def entropy(text: object) -> bytes:
    """A contribution as sent: 64 lowercase hex digits; BadDeal otherwise."""
    if not isinstance(text, str) or len(text) != 2 * SIZE or text != text.lower():
        raise BadDeal(f"a contribution is {SIZE} bytes as lowercase hex")
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise BadDeal(f"a contribution is {SIZE} bytes as lowercase hex") from None


def check(deal: dict[str, Any], seed_hex: str | None) -> str | None:
    """What is wrong with a game's ``deal`` record (``commitment``, ``server_seed``,
    ``contributions``: ``[{seat, entropy, by}]`` in seat order) given its revealed seed, or
    None when the seed is the derivation of what was committed and contributed."""
    server_hex = deal.get("server_seed")
    if server_hex is None or seed_hex is None:
        return "the server seed is not revealed yet: the game is still going on"
    try:
        server_seed = bytes.fromhex(str(server_hex))
        contributions = [entropy(c.get("entropy")) for c in deal.get("contributions") or []]
    except (ValueError, AttributeError) as exc:
        return f"the deal record is malformed: {exc}"
    seats = [c.get("seat") for c in deal.get("contributions") or []]
    if seats != list(range(len(seats))):
        return f"the contributions are not one per seat in seat order: seats {seats}"
    if commitment(server_seed) != deal.get("commitment"):
        return (
            "the revealed server seed does not match the commitment published when the room "
            f"was set up: sha256 is {commitment(server_seed)}, the commitment "
            f"{deal.get('commitment')}"
        )
    try:
        derived = derive(server_seed, contributions).hex()
    except BadDeal as exc:
        return str(exc)
    if derived != seed_hex:
        return (
            f"the seed {seed_hex} is not derived from the server seed and the players' "
            f"contributions (the derivation gives {derived})"
        )
    return None
