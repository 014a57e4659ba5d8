"""A step's place in its game's chain (server/table/chain.py): the proof of each of its
moves and its link, hashed onto the head the room had (``Steps.advance`` writes the new
head with the step, in the same compare-and-set: only one step follows a head).

Who made a move decides its proof: the server's key signs what the server made for a seat
-- a default, a stand-in's move for an absent player (``proxies``), a bot seat's move (an
admin's replacement included) -- so that no such move passes for the player's; a player's
own move carries the proof its device signed (checked by server/realtime/signed.py), or is
``unsigned`` when it came without one (a client without a key: shown so, never counted as
signed).
"""

from __future__ import annotations

import hashlib
from typing import Any

from server.identity.signing import ServerKey
from server.table import chain
from server.table.entry import START
from server.table.room import Room


def proofs_of(
    room: Room,
    key: ServerKey,
    label: str,
    moves: dict[str, Any],
    defaults: list[int],
    proxies: list[int],
    given: dict[int, chain.Proof] | None,
) -> dict[str, chain.Proof]:
    """Every move's proof, by seat (as text): the server's for what it made, the player's
    (``given``) for their own, else unsigned."""
    out: dict[str, chain.Proof] = {}
    made_here = set(defaults) | set(proxies)
    for text, move in moves.items():
        seat = int(text)
        proof = (given or {}).get(seat)
        if seat in made_here or room.seats[seat].bot is not None:
            out[text] = chain.made(key, room.id, room.version, seat, label, move)
        elif proof is not None and proof.c == chain.commitment(label, seat, move, proof.salt):
            out[text] = proof
        else:
            out[text] = chain.unsigned(label, seat, move)
    return out


def genesis(room: Room, extra: dict[str, Any]) -> dict[str, Any]:
    """The first link's ``game``: the room's options and seats, the deal's inputs."""
    return chain.game_block(
        game_id=f"{room.id}-{room.game_no or 1}",
        room=room.id,
        engine=room.engine,
        options=room.options,
        players=room.players,
        seats=[{"seat": i, "user": s.user, "bot": s.bot} for i, s in enumerate(room.seats)],
        seed_commitment=extra.get("seed_commitment"),
        seed_digest=extra.get("seed_digest"),
        contributions=extra.get("contributions"),
    )


def chain_step(
    room: Room,
    key: ServerKey,
    kind: str,
    version: int,
    at: str,
    blob: bytes,
    moves: dict[str, Any],
    defaults: list[int],
    proxies: list[int],
    undoes: int | None,
    given: dict[int, chain.Proof] | None,
    extra: dict[str, Any],
) -> tuple[str, dict[str, Any]]:
    """The step's head and what its log entry keeps of the chain: ``{"moves": seat ->
    proof with its salt, "game": ... (the deal)}``."""
    label = extra.get("phase") or f"act@{room.version}"
    proofs = proofs_of(room, key, label, moves, defaults, proxies, given)
    game = genesis(room, extra) if kind == START else None
    link = chain.link(
        prev=room.head or chain.GENESIS,
        version=version,
        at=at,
        digest=hashlib.sha256(blob).hexdigest(),
        moves={s: p.public() for s, p in proofs.items()},
        defaults=defaults,
        proxies=proxies,
        takeback=undoes,
        game=game,
    )
    kept: dict[str, Any] = {"moves": {s: msgspec_dict(p) for s, p in proofs.items()}}
    if game is not None:
        kept["game"] = game
    return chain.head(link), kept


def msgspec_dict(proof: chain.Proof) -> dict[str, Any]:
    return {**proof.public(), "salt": proof.salt}
