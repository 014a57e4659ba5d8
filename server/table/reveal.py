"""Commit/reveal for sealed prompts (docs/PROTOCOL.md, "Sealed phases").

A seat first commits ``digest = sha256(phase ":" seat ":" canonical_json(move) ":" salt)``
-- a field of the room's seal hash, no version bump, so seats committing together never
conflict. The commit that completes the set opens the phase (inside the same script: exactly
once). Each reveal is checked against its digest and the engine's ``validate`` and stored;
the reveal that completes the set resolves the phase: ONE versioned compare-and-set steps the
engine with every move. When the revealer's read already holds every other opening, its
opening and that step are one script (``Store.write_step`` with an ``Opening``), one round
trip; else the reveal script stores it and the one that completes the set resolves after.
Two nodes resolving at the same instant both try the same version; one wins, the other
finds the version moved and stops. A move that matches its digest but
that the rules refuse is replaced by ``game.default`` and flagged.

Before every seat has committed, no move exists in clear anywhere: only digests.
"""

from __future__ import annotations

import hmac
import json
import logging
import secrets
from typing import Any

from engines.core import MoveError
from server import protocol as p
from server.redis.store import Opening, RevealRefused, member
from server.table import chain
from server.table.entry import REVEAL, Published, pack
from server.table.room import SEAL_DEFAULT, Room, RoomError, now_ms, phase_name, playing
from server.table.rooms import RoomService

log = logging.getLogger("tortuga.reveal")

DEFAULT = SEAL_DEFAULT  # the commitment recorded for a seat whose commit deadline passed


def _owed_reveals(seats: tuple[int, ...], seal: dict[str, str]) -> int:
    """Reveals that complete the phase: every seat but those defaulted at commit time."""
    return sum(1 for seat in seats if seal.get(f"c:{seat}") != DEFAULT)


def opened_all(seats: tuple[int, ...], seal: dict[str, str]) -> bool:
    """Whether every seat of the phase has its opening in ``seal`` (a seat defaulted at
    commit time needs none): the phase is ready to resolve."""
    return all(f"r:{s}" in seal or seal.get(f"c:{s}") == DEFAULT for s in seats)


def _openings(
    game: Any, state: Any, seats: tuple[int, ...], seal: dict[str, str], but: int | None = None
) -> dict[int, dict[str, Any]] | None:
    """Every seat's opening in ``seal`` (``but``'s excepted), in ``seats`` order; None if
    one is missing. A seat that missed its commit gets the engine's default, computed only
    now (after the phase opened)."""
    openings: dict[int, dict[str, Any]] = {}
    for seat in seats:
        if seat == but:
            continue
        raw = seal.get(f"r:{seat}")
        if seal.get(f"c:{seat}") == DEFAULT:
            move = game.default(state, seat).to_json()
            openings[seat] = {"move": None, "salt": None, "applied": move, "default": True}
        elif raw is None:
            return None
        else:
            openings[seat] = json.loads(raw)
    return openings


canonical_json = chain.canonical_json


def digest(phase: str, seat: int, move: Any, salt: str) -> str:
    """The commitment to ``move`` (hex sha256); the client computes the same."""
    return chain.commitment(phase, seat, move, salt)


def _proofs(
    phase: str, openings: dict[int, dict[str, Any]], seal: dict[str, str]
) -> dict[int, chain.Proof]:
    """The players' signed proofs of a phase's moves: their signed commits (``s:<seat>``),
    with their openings' signatures by the same key. A seat whose move the server made
    (a default, a stand-in's) gets the server's proof instead (server/table/chained.py)."""
    proofs: dict[int, chain.Proof] = {}
    for seat, o in openings.items():
        kept = seal.get(f"s:{seat}")
        if kept is None or o.get("salt") is None or o.get("default"):
            continue
        kid, sig = kept.split(" ", 1)
        opened = o.get("sig") if o.get("key") == kid else None
        proofs[seat] = chain.Proof(
            by=chain.PLAYER, c=seal.get(f"c:{seat}", ""), l=phase, salt=o["salt"],
            key=kid, sig=sig, open=opened,
        )  # fmt: skip
    return proofs


class Sealing:
    """The sealed-phase operations of the room service."""

    def __init__(self, rooms: RoomService) -> None:
        self.rooms = rooms
        self.store = rooms.store

    async def _phase(
        self, room_id: str, seat: int, phase: str, room: Room | None = None
    ) -> tuple[Room, Any, Any]:
        """The room, game and state of a sealed phase that ``seat`` takes part in (``room``:
        as the caller has just read it)."""
        if room is None or room.id != room_id:
            room = await self.rooms.get(room_id)
        game, state = playing(room)
        prompt = game.prompt(state)
        if not prompt.sealed:
            raise RoomError(p.NOT_SEALED, "no sealed phase is under way; use act")
        if phase != phase_name(prompt, room.version):
            raise RoomError(p.WRONG_PHASE, f"the phase now is {phase_name(prompt, room.version)}")
        if seat not in prompt.seats:
            raise RoomError(p.NOT_IN_PHASE, "this seat owes nothing in this phase")
        return room, game, state

    async def commit(
        self,
        room_id: str,
        seat: int,
        phase: str,
        digest_hex: str,
        *,
        proxy: bool = False,
        room: Room | None = None,
        signed: tuple[str, str] | None = None,
    ) -> None:
        """Store one seat's digest (``signed``: its device's kid and signature of it, kept
        in the seal as ``s:<seat>`` for the step's proof: server/table/chain.py). The
        commit that completes the set opens the phase and, if the room has a reveal
        deadline, sets it (``open_by``, epoch ms) in the same script that opens the phase,
        and on the clock. ``proxy``: a stand-in commits for
        the seat's absent player (the resolution lists the seat in ``proxies``). ``room``:
        the room as the caller has just read it (the script checks its version)."""
        room, game, state = await self._phase(room_id, seat, phase, room)
        owed = game.prompt(state).seats
        seconds = room.deadlines.get("reveal")
        open_by = now_ms() + int(seconds * 1000) if seconds else None
        committed = pack(
            Published(
                k="committed",
                room=room_id,
                data={"phase": phase, "seat": seat, "digest": digest_hex, "version": room.version},
            )
        )
        opened = pack(
            Published(
                k="open",
                room=room_id,
                data={"phase": phase, "version": room.version, "open_by": open_by},
            )
        )
        # Bots hear of the phase only when one of its seats is theirs: a bot seat, a seat
        # taken over, or a seat a stand-in committed for (``p:<seat>``: only it can open
        # that commitment, also when its player came back since). The script looks up the
        # last two as it opens the phase ('open-stand-in').
        bots_owe = any(room.seats[s].bot is not None for s in owed)
        result = await self.store.commit(
            room_id,
            version=room.version,
            phase=phase,
            seat=seat,
            digest=digest_hex,
            owed=len(owed),
            committed=committed,
            opened=opened,
            open_by=open_by,
            proxy=proxy,
            seats=() if bots_owe else owed,
            signed=" ".join(signed) if signed is not None else "",
        )
        if result == "already-committed":
            raise RoomError(p.ALREADY_COMMITTED, "this seat has committed already")
        if result == "wrong-phase":
            raise RoomError(p.WRONG_PHASE, "the phase is over")
        log.debug("commit", extra={"room": room_id, "seat": seat, "phase": phase})
        if result in ("open", "open-stand-in"):
            if open_by is not None:
                await self.store.schedule(member("reveal", room_id, room.version), open_by)
            if bots_owe or result == "open-stand-in":
                self.rooms.hooks.turn(room_id)

    async def reveal(
        self,
        room_id: str,
        seat: int,
        phase: str,
        move: Any,
        salt: str,
        *,
        proxy: bool = False,
        read: tuple[Room, dict[str, str]] | None = None,
        signed: tuple[str, str] | None = None,
    ) -> None:
        """Store one seat's opening; the one that completes the set resolves the phase.
        ``read``: the room and its seal as the caller has just read them (one round trip;
        the script checks the version and the phase)."""
        if read is not None and read[0].id == room_id:
            room, game, state = await self._phase(room_id, seat, phase, read[0])
            seal = read[1]
        else:
            room, game, state = await self._phase(room_id, seat, phase)
            seal = await self.store.load_seal(room_id)
        if seal.get("phase") != phase and (await self.rooms.get(room_id)).version != room.version:
            raise RoomError(p.WRONG_PHASE, "the phase is over")
        if seal.get("phase") != phase or seal.get("open") != "1":
            raise RoomError(p.NOT_OPEN, "every seat commits before anyone reveals")
        if f"r:{seat}" in seal:
            raise RoomError(p.ALREADY_REVEALED, "this seat has revealed already")
        if not hmac.compare_digest(seal.get(f"c:{seat}", ""), digest(phase, seat, move, salt)):
            raise RoomError(p.DIGEST_MISMATCH, "this move and salt do not match the commit")
        try:
            applied = game.decode_move(move)
            game.validate(state, seat, applied)
            default = False
        except MoveError:
            # Honest about its commitment, but not a legal move: the engine's default.
            applied = game.default(state, seat)
            default = True
        opening = {"move": move, "salt": salt, "applied": applied.to_json(), "default": default}
        if proxy:
            opening["proxy"] = True
        if signed is not None:  # the device's signature of its opening
            opening["key"], opening["sig"] = signed
        prompt = game.prompt(state)
        owed = _owed_reveals(prompt.seats, seal)
        text = json.dumps(opening, separators=(",", ":"))
        others = _openings(game, state, prompt.seats, seal, but=seat)
        complete: dict[str, str] | None = None
        if others is not None:
            # Every other seat's opening is in the seal as read (each is written once): this
            # one completes the phase, and the step that resolves it is written with it, in
            # one script (server/redis/scripts/reveal_step.lua): the phase's fan-out does not wait
            # for a second round trip. The script refuses it as a reveal alone would.
            openings = {s: opening if s == seat else others[s] for s in prompt.seats}
            stored = Opening(room.version, phase, seat, text, owed, secrets.token_hex(8))
            try:
                await self._advance(room, game, state, prompt, phase, openings, seal, stored)
                return
            except RevealRefused as refused:
                result = refused.result
        else:
            result, complete = await self.store.reveal(
                room_id, version=room.version, phase=phase, seat=seat, opening=text, owed=owed
            )
        if result == "already-revealed":
            raise RoomError(p.ALREADY_REVEALED, "this seat has revealed already")
        if result == "not-open":
            raise RoomError(p.NOT_OPEN, "every seat commits before anyone reveals")
        if result == "wrong-phase":
            raise RoomError(p.WRONG_PHASE, "the phase is over")
        log.debug("reveal", extra={"room": room_id, "seat": seat, "phase": phase})
        if result == "all":
            # The script found the room at ``room.version``: its state is the phase's; and
            # it answered with the seal, every opening in it.
            await self.resolve(room_id, phase, room, complete)

    async def resolve(
        self,
        room_id: str,
        phase: str,
        room: Room | None = None,
        seal: dict[str, str] | None = None,
    ) -> bool:
        """Step the engine once with every opened move. Idempotent: True only for the
        call that wrote the version; False if the phase is not complete or already done.
        ``room``: the room at the phase's version, if the caller has it (the write is a
        compare-and-set on that version all the same); ``seal``: its seal hash with every
        opening, if the caller has it (the reveal that completed the set)."""
        if room is None or room.id != room_id:
            room = await self.rooms.get(room_id)
        game, state = playing(room)
        prompt = game.prompt(state)
        if not prompt.sealed or phase != phase_name(prompt, room.version):
            return False
        if seal is None:
            seal = await self.store.load_seal(room_id)
        if seal.get("phase") != phase:
            return False
        openings = _openings(game, state, prompt.seats, seal)
        if openings is None:
            return False
        return await self._advance(room, game, state, prompt, phase, openings, seal)

    async def _advance(
        self,
        room: Room,
        game: Any,
        state: Any,
        prompt: Any,
        phase: str,
        openings: dict[int, dict[str, Any]],
        seal: dict[str, str],
        reveal: Opening | None = None,
    ) -> bool:
        """Step the engine with every seat's opening and write the step (with ``reveal``,
        the last opening, stored in the same script: ``RevealRefused`` if it is refused)."""
        moves = {seat: game.decode_move(o["applied"]) for seat, o in openings.items()}
        new = game.step(state, moves)
        return await self.rooms.steps.advance(
            room,
            new,
            kind=REVEAL,
            moves={str(s): o["applied"] for s, o in openings.items()},
            defaults=sorted(s for s, o in openings.items() if o["default"]),
            proxies=sorted(s for s, o in openings.items() if o.get("proxy") or f"p:{s}" in seal),
            extra={
                "phase": phase,
                "salts": {str(s): o["salt"] for s, o in openings.items() if o["salt"]},
                "opened": {str(s): o["move"] for s, o in openings.items()},
                "private": prompt.private,
                "secret": prompt.private and prompt.for_good,
            },
            reveal=reveal,
            proofs=_proofs(phase, openings, seal),
        )

    async def default(self, room_id: str, seat: int, phase: str, *, proxy: bool = False) -> bool:
        """The hook for deadlines: ``seat`` missed its commit or its reveal in ``phase``.

        A missed commit records the ``default`` marker (it counts as committed, and the
        engine's default is computed only when the phase resolves, so no move exists in
        clear before the phase opens); a missed reveal stores the default as the seat's
        opening. Flagged in ``defaults`` (and in ``proxies`` with ``proxy``: made because
        the player is away). False if the moment has passed."""
        try:
            room, game, state = await self._phase(room_id, seat, phase)
        except RoomError:
            return False
        seal = await self.store.load_seal(room_id)
        same = seal.get("phase") == phase
        if not same or f"c:{seat}" not in seal:
            try:
                await self.commit(room_id, seat, phase, DEFAULT, proxy=proxy)
            except RoomError:
                return False
            seal = await self.store.load_seal(room_id)
            if seal.get("open") == "1" and _owed_reveals(game.prompt(state).seats, seal) == 0:
                await self.resolve(room_id, phase)
            return True
        if seal.get("open") != "1" or f"r:{seat}" in seal or seal.get(f"c:{seat}") == DEFAULT:
            return False  # not open yet, opened already, or its default comes at resolution
        move = game.default(state, seat).to_json()
        opening = {"move": None, "salt": None, "applied": move, "default": True}
        if proxy:
            opening["proxy"] = True
        result, complete = await self.store.reveal(
            room_id,
            version=room.version,
            phase=phase,
            seat=seat,
            opening=json.dumps(opening, separators=(",", ":")),
            owed=_owed_reveals(game.prompt(state).seats, seal),
        )
        if result == "all":
            await self.resolve(room_id, phase, seal=complete)
        return result in ("ok", "all")
