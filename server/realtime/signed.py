"""Signed moves at the socket (docs/PROTOCOL.md, "Signed moves"): a socket that signed in
with a device key (``auth {token, key}``) must sign every move it sends -- an ``act``, a
``commit``, a ``reveal`` and the deal's ``entropy`` -- with it; the signature is checked
here, before anything is written, and the step keeps it (server/table/chain.py).

- a socket with a key sends a move without ``sig``: ``signature-required``;
- a signature that does not verify (or comes from a socket without a key): ``bad-signature``;
- a socket without a key (a guest without WebCrypto, an older client, a test client) may
  play unsigned: its moves are marked ``unsigned`` in the chain, never counted as signed.
"""

from __future__ import annotations

from typing import Any

from cryptography.hazmat.primitives.asymmetric import ec

from server import protocol as p
from server.identity.signing import verify
from server.table import chain
from server.table.room import RoomError

DeviceKey = tuple[str, ec.EllipticCurvePublicKey]  # kid, public key


def checked(
    key: DeviceKey | None,
    sig: str | None,
    *,
    kind: str,
    room: str,
    version: int,
    seat: int,
    c: str,
) -> tuple[str, str] | None:
    """The (kid, signature) of a move this socket signed, None for an unsigned socket's
    move; RoomError when the signature is missing or wrong."""
    if key is None:
        if sig is not None:
            raise RoomError(p.BAD_SIGNATURE, "this socket signed in without a key: sign in with it")
        return None
    if sig is None:
        raise RoomError(p.SIGNATURE_REQUIRED, "this device signs its moves: the move has no sig")
    if not verify(key[1], chain.sig_message(kind, room, version, seat, c), sig):
        raise RoomError(
            p.BAD_SIGNATURE, f"the signature is not this device's for {kind} at version {version}"
        )
    return key[0], sig


def act_proof(key: DeviceKey | None, m: p.Act, room: str, seat: int) -> chain.Proof | None:
    """The proof of a signed open move (``act {move, version, salt, sig}``), or None."""
    if key is None and m.sig is None:
        return None
    if m.sig is not None and (m.version is None or m.salt is None):
        raise RoomError(p.BAD_MESSAGE, "a signed act names its version and its salt")
    if m.version is None or m.salt is None:
        raise RoomError(p.SIGNATURE_REQUIRED, "this device signs its moves: the move has no sig")
    label = f"act@{m.version}"
    c = chain.commitment(label, seat, m.move, m.salt)
    signed = checked(key, m.sig, kind=chain.ACT, room=room, version=m.version, seat=seat, c=c)
    assert signed is not None
    return chain.Proof(by=chain.PLAYER, c=c, l=label, salt=m.salt, key=signed[0], sig=signed[1])


def opening_fields(signed: tuple[str, str] | None) -> dict[str, Any]:
    """What a sealed opening keeps of its signature."""
    return {} if signed is None else {"key": signed[0], "sig": signed[1]}
