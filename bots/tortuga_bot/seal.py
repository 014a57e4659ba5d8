"""Sealed phases: the commitment to a move, as the server checks it (docs/PROTOCOL.md,
"Sealed phases"; the browser's web-client/js/seal.js).

``digest = hex(sha256(phase ":" seat ":" canonical_json(move) ":" salt))``, the salt being the
hex of 32 random bytes: nobody can tell the move from the digest, and the seat cannot open it
as another move. It is the move chain's commitment with the phase as its label
(``chain.commitment``): an open move's is the same formula under ``act@<version>``.
"""

from __future__ import annotations

import secrets
from typing import Any

from tortuga_bot.chain import canonical_json, commitment

__all__ = ["canonical_json", "digest", "new_salt"]


def digest(phase: str, seat: int, move: Any, salt: str) -> str:
    return commitment(phase, seat, move, salt)


def new_salt() -> str:
    return secrets.token_hex(32)
