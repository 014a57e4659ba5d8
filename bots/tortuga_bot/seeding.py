"""The deal seed, as the browser makes its part of it (web-client/js/seeding.js; the server's
server/table/seeding.py; README, "The deal seed").

``seed = sha256("tortuga-seed/2" 0x00 server_seed c_0 ... c_{n-1})``: the server committed to
``server_seed`` (``seed_commitment = sha256(server_seed)``) when the room was set up; each seat's
``c_i`` is the 32 bytes its player sent with ``ready`` -- or, for a seat that sent none, the
server's ``HMAC-SHA256(server_seed, "tortuga-seat/1" 0x00 u64be(i))``, fixed by the commitment.
A bot sends its bytes only once it has seen the commitment (bytes sent before it would let the
server choose the deal), keeps the first commitment it saw, and checks at the end that the
seed revealed was made from its bytes (``check``).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field

LABEL = b"tortuga-seed/2"
SEAT_LABEL = b"tortuga-seat/1"
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def server_bytes(server_seed: bytes, seat: int) -> bytes:
    message = SEAT_LABEL + b"\x00" + seat.to_bytes(8, "big")
    return hmac.new(server_seed, message, hashlib.sha256).digest()


def derive(server_seed: bytes, contributions: Sequence[bytes]) -> bytes:
    return hashlib.sha256(LABEL + b"\x00" + server_seed + b"".join(contributions)).digest()


@dataclass
class Contributor:
    """One bot's contributions, room by room: made once per room, after its commitment."""

    commitments: dict[str, str] = field(default_factory=dict)  # room -> first one seen
    entropy: dict[str, str] = field(default_factory=dict)  # room -> our 32 bytes (hex)

    def note(self, room: str, commitment: str | None) -> None:
        if commitment and _HEX64.match(commitment):
            self.commitments.setdefault(room, commitment)

    def bytes_for(self, room: str, commitment: str | None) -> str | None:
        """The bytes to send with ``ready``, or None while the room's commitment is unseen
        (or differs from the first one seen)."""
        self.note(room, commitment)
        if commitment is None or self.commitments.get(room) != commitment:
            return None
        return self.entropy.setdefault(room, secrets.token_hex(32))

    def check(
        self,
        room: str,
        seat: int,
        seed: str,
        server_seed: str,
        contributions: Sequence[tuple[int, str, str]],  # (seat, entropy, by)
    ) -> str | None:
        """None when the revealed seed was made as promised from the commitment this bot saw
        and its own bytes; else what is wrong."""
        committed = self.commitments.get(room)
        raw = bytes.fromhex(server_seed)
        if committed is None or hashlib.sha256(raw).hexdigest() != committed:
            return "the server seed does not match the commitment this bot saw"
        parts: list[bytes] = []
        for i, (at, entropy, by) in enumerate(sorted(contributions)):
            if at != i:
                return "the contributions do not cover every seat"
            if by == "server" and bytes.fromhex(entropy) != server_bytes(raw, i):
                return f"seat {i}'s server bytes are not the ones the commitment fixed"
            if at == seat and entropy != self.entropy.get(room):
                return "this bot's contribution is not the one it sent"
            parts.append(bytes.fromhex(entropy))
        if derive(raw, parts).hex() != seed:
            return "the seed is not derived from the server seed and the contributions"
        return None
