"""Sealed phases: the commitment to a move, as the server checks it (docs/PROTOCOL.md,
"Sealed phases"; the browser's web-client/js/seal.js).

``digest = hex(sha256(phase ":" seat ":" canonical_json(move) ":" salt))``, the salt being the
hex of 32 random bytes: nobody can tell the move from the digest, and the seat cannot open it
as another move.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from typing import Any


def canonical_json(move: Any) -> str:
    return json.dumps(move, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest(phase: str, seat: int, move: Any, salt: str) -> str:
    text = f"{phase}:{seat}:{canonical_json(move)}:{salt}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def new_salt() -> str:
    return secrets.token_hex(32)
