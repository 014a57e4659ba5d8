"""The seal hash of a room: the digests and openings of the sealed phase in progress.

``commit`` and ``reveal`` write independent fields of the seal (no version bump), each in
one script; the commit that completes the set opens the phase, exactly once. Both carry a
nonce of their call, so that a retry after a lost reply is answered as the first time.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from server.redis.lua import Lua
from server.redis.part import StorePart, decoded, text_pairs

COMMIT = Lua.load("commit")
REVEAL = Lua.load("reveal", after="opening")


@dataclass(frozen=True, slots=True)
class Opening:
    """A seat's opening to store (``Store.reveal``), or to store with the step that it
    completes (``Store.write_step``)."""

    version: int
    phase: str
    seat: int
    opening: str  # JSON
    owed: int
    nonce: str

    def args(self) -> list[str]:
        """The script arguments of opening.lua."""
        return [
            str(self.version),
            self.phase,
            str(self.seat),
            self.opening,
            str(self.owed),
            self.nonce,
        ]


class RevealRefused(Exception):
    """``write_step`` with an ``Opening`` stored nothing, or only the opening: its result
    as ``Store.reveal`` gives it ('ok': stored, but the set is not complete)."""

    def __init__(self, result: str) -> None:
        super().__init__(result)
        self.result = result


class SealStore(StorePart):
    """Sealed phases: each seat's digest, then each seat's opening."""

    async def load_seal(self, room_id: str) -> dict[str, str]:
        key = self.keys.seal(room_id)
        return text_pairs(await self.wire.call("HGETALL", key, key=key))

    async def commit(
        self,
        room_id: str,
        *,
        version: int,
        phase: str,
        seat: int,
        digest: str,
        owed: int,
        committed: bytes,
        opened: bytes,
        open_by: int | None = None,
        proxy: bool = False,
        nonce: str | None = None,
        seats: Sequence[int] = (),
        signed: str = "",
    ) -> str:
        """Store one seat's digest: 'ok', 'open' (this commit completed the set; the seal
        records ``open_by``, the reveal deadline), 'open-stand-in' (the same, and one of
        ``seats`` is taken over or was committed for by a stand-in), 'already-committed' or
        'wrong-phase'.
        ``proxy``: a stand-in commits for an absent player (the seal notes ``p:<seat>``).
        ``signed``: "<kid> <signature>" of a device-signed commit, kept as ``s:<seat>``.
        ``nonce`` names this call (a fresh one by default): redis-py runs the script again
        when a connection error lost its reply, and that repeat gets this call's answer."""
        k = self.keys
        args = [str(version), phase, str(seat), digest, str(owed), k.channel(room_id)]
        by = "" if open_by is None else str(open_by)
        result = await self._run(
            COMMIT,
            [k.room(room_id), k.seal(room_id), k.presence(room_id)],
            [
                *args,
                committed,
                opened,
                by,
                "1" if proxy else "",
                nonce or secrets.token_hex(8),
                ",".join(str(seat) for seat in seats),
                signed,
            ],
        )
        return cast(str, decoded(result))

    async def reveal(
        self,
        room_id: str,
        *,
        version: int,
        phase: str,
        seat: int,
        opening: str,
        owed: int,
        nonce: str | None = None,
    ) -> tuple[str, dict[str, str] | None]:
        """Store one seat's opening: 'ok', 'all' (the set is complete: with the seal hash as
        it is now, every opening in it), 'not-open', 'already-revealed' or 'wrong-phase'.
        ``nonce``: as for ``commit``."""
        k = self.keys
        args = Opening(version, phase, seat, opening, owed, nonce or secrets.token_hex(8)).args()
        result = await self._run(REVEAL, [k.room(room_id), k.seal(room_id)], args)
        if isinstance(result, list):
            return cast(str, decoded(result[0])), text_pairs(result[1])
        return cast(str, decoded(result)), None
