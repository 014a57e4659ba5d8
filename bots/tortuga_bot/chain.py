"""The move chain as a bot needs it (docs/PROTOCOL.md, "The move chain and signed moves"):
the canonical encoding, a move's commitment, the bytes a device signs, a link's head, and
the heads a bot was sent while it played.

Written from the spec, not from the server's code (server/table/chain.py) -- a bot needs
nothing of the server -- and checked on the same vectors as the server and the browser's
web-client/js/chain.js (tests/server/chain_vectors.json, by tests/bots/test_chain.py):

    canonical(x)   = JSON, keys sorted, no spaces, non-ASCII as UTF-8
    commitment     = hex sha256(label ":" seat ":" canonical(move) ":" salt)
    signed message = canonical({"c", "kind", "room", "seat", "tortuga": "tortuga-sig/1",
                                "version"})
    head           = hex sha256(canonical(link))

The label of an open move made at version ``v`` is ``act@<v>``; a sealed phase's is its name
(``bid@<v>``), so a sealed commit's digest is the commitment of its move.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeGuard

CHAIN = "tortuga-chain/1"
SIG = "tortuga-sig/1"
GENESIS = "0" * 64  # the ``prev`` of a game's first event
# What a device signs: an open move, a sealed commit and its opening, a contribution to the
# deal seed (``version`` 0, ``c`` the 64 hex digits of the contribution).
ACT, COMMIT, REVEAL, ENTROPY = "act", "commit", "reveal", "entropy"
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def canonical(value: Any) -> bytes:
    """The canonical encoding: JSON with keys sorted, no spaces, non-ASCII as UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def canonical_json(value: Any) -> str:
    return canonical(value).decode()


def commitment(label: str, seat: int, move: Any, salt: str) -> str:
    """hex sha256(label ":" seat ":" canonical(move) ":" salt): an open move's commitment
    (label ``act@<v>``), or a sealed commit's digest (label: the phase)."""
    text = f"{label}:{seat}:{canonical_json(move)}:{salt}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sig_message(kind: str, room: str, version: int, seat: int, c: str) -> bytes:
    """The bytes a device signs for one move of ``seat``: ``kind`` (act, commit, reveal,
    entropy), the room's ``version`` the move is made at (0 for a contribution) and ``c``,
    its commitment (a sealed commit's digest; a contribution's entropy)."""
    return canonical(
        {"c": c, "kind": kind, "room": room, "seat": seat, "tortuga": SIG, "version": version}
    )


def phase_version(phase: str) -> int:
    """The version a sealed phase was opened at: ``bid@7`` -> 7."""
    return int(phase.rsplit("@", 1)[1])


def head(link: Mapping[str, Any]) -> str:
    """An event's head: hex sha256 of its link's canonical encoding."""
    return hashlib.sha256(canonical(link)).hexdigest()


def heads_file(room: str, game_id: str | None, heads: Mapping[int, str]) -> dict[str, Any]:
    """The heads a bot was sent, as ``tortuga verify GAME --heads FILE`` reads them (and as
    the browser saves them): ``{"room", "game_id", "heads": {"<version>": head}}``."""
    return {
        "room": room,
        "game_id": game_id,
        "heads": {str(v): heads[v] for v in sorted(heads)},
    }


def save_heads(
    folder: str | os.PathLike[str], room: str, game_id: str | None, heads: Mapping[int, str]
) -> Path:
    """Write ``heads_file`` to ``folder/<game_id>.json`` (the room's code when the game has
    no id yet), whole or not at all (a temporary file renamed); the file's path."""
    where = Path(folder)
    where.mkdir(parents=True, exist_ok=True)
    name = re.sub(r"[^A-Za-z0-9._-]", "_", game_id or room)
    path = where / f"{name}.json"
    temporary = where / f".{name}.json.{os.getpid()}"
    temporary.write_text(json.dumps(heads_file(room, game_id, heads), indent=1) + "\n")
    temporary.replace(path)
    return path


def is_head(value: Any) -> TypeGuard[str]:
    """A head as the site sends it: 64 lowercase hex digits."""
    return isinstance(value, str) and _HEX64.match(value) is not None
