"""The deal seed: a function of entropy the server committed to before the players added
theirs, so that not even the server chooses the deal (README, "The deal seed").

- When a room is set up the server draws ``server_seed`` (32 random bytes) and publishes
  ``commitment = hex(sha256(server_seed))``.
- Each human player's client sends 32 random bytes (``ready {entropy}``). A seat that sent
  nothing (a bot, an older client) gets the server's bytes for that seat, marked
  ``"server"``: ``HMAC-SHA256(key=server_seed, msg=utf8("tortuga-seat/1") || 0x00 ||
  u64be(seat))`` -- fixed by the commitment before anyone contributes, so the server cannot
  pick them once it knows the players' bytes, and anyone can recompute them at the end.
- At the start every contribution is shown to all, and the game's seed is
  ``sha256(utf8("tortuga-seed/2") || 0x00 || server_seed || c_0 || c_1 || ... || c_{n-1})``,
  the contributions in seat order. The server seed is revealed when the game is over.

Records from before the server's bytes were fixed used the label ``tortuga-seed/1`` with
bytes the server drew at the start: ``check`` says so, and passes one only when no seat had
the server's bytes.

Pure: no I/O, no randomness. The server, ``tortuga verify`` and the browser's twin
(``web-client/js/seeding.js``) implement the same text; test vectors are in
``tests/server/seed_vectors.json``.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

LABEL = b"tortuga-seed/2"
# The derivation of games from before the server's bytes were fixed by the commitment.
LEGACY_LABEL = b"tortuga-seed/1"
SEAT_LABEL = b"tortuga-seat/1"
SIZE = 32  # bytes of the server seed and of every contribution
PLAYER = "player"  # a contribution sent by the seat's client
SERVER = "server"  # the server's bytes for a seat that sent none: server_bytes(seed, seat)

_HEX64 = re.compile(r"[0-9a-f]{64}")


class BadDeal(ValueError):
    """A server seed or contribution of the wrong shape."""


def commitment(server_seed: bytes) -> str:
    """What the room publishes before anyone contributes: hex sha256 of the server seed."""
    return hashlib.sha256(server_seed).hexdigest()


def server_bytes(server_seed: bytes, seat: int) -> bytes:
    """The bytes the server supplies for ``seat``: fixed by the server seed, hence by the
    commitment published before any player contributes."""
    if len(server_seed) != SIZE or not 0 <= seat < 2**64:
        raise BadDeal(f"a server seed has {SIZE} bytes and a seat is a small number")
    message = SEAT_LABEL + b"\x00" + seat.to_bytes(8, "big")
    return hmac.new(server_seed, message, hashlib.sha256).digest()


def derive(server_seed: bytes, contributions: Sequence[bytes], *, label: bytes = LABEL) -> bytes:
    """The game seed from the server seed and every seat's contribution, in seat order."""
    if len(server_seed) != SIZE or any(len(c) != SIZE for c in contributions):
        raise BadDeal(f"the server seed and every contribution have {SIZE} bytes")
    return hashlib.sha256(label + b"\x00" + server_seed + b"".join(contributions)).digest()


def entropy(text: object) -> bytes:
    """A contribution as sent: 64 lowercase hex digits; BadDeal otherwise."""
    if not isinstance(text, str) or not _HEX64.fullmatch(text):
        raise BadDeal(f"a contribution is {SIZE} bytes as lowercase hex")
    return bytes.fromhex(text)


def contributions(server_seed: bytes, sent: Sequence[str | None]) -> list[dict[str, Any]]:
    """Every seat's contribution, in seat order: the bytes its player sent, else the
    server's bytes for that seat (``server_bytes``)."""
    out: list[dict[str, Any]] = []
    for seat, mine in enumerate(sent):
        if mine is not None:
            out.append({"seat": seat, "entropy": mine, "by": PLAYER})
        else:
            drawn = server_bytes(server_seed, seat).hex()
            out.append({"seat": seat, "entropy": drawn, "by": SERVER})
    return out


@dataclass(frozen=True, slots=True)
class DealCheck:
    """``problem``: what is wrong (None: the seed is derived as it should be); ``by_server``:
    the seats whose bytes are the server's; ``legacy``: derived the way of older records."""

    problem: str | None
    by_server: tuple[int, ...] = ()
    legacy: bool = False


def check(deal: Mapping[str, Any] | None, seed_hex: str | None, players: int) -> DealCheck:
    """What is wrong with a game's ``deal`` record (``commitment``, ``server_seed``,
    ``contributions``: ``[{seat, entropy, by}]`` in seat order) given its revealed seed, if
    anything. A record without one, or without a commitment, fails: nothing shows the seed
    was not chosen by the server alone."""
    if deal is None:
        return DealCheck(
            "the record has no deal data (commitment, server seed, contributions; records "
            "archived before it was kept have none): nothing shows the seed was not chosen by "
            "the server alone"
        )
    committed = deal.get("commitment")
    if not isinstance(committed, str) or not _HEX64.fullmatch(committed):
        return DealCheck(
            "the room published no server-seed commitment before the players contributed: "
            "nothing shows the seed was not chosen by the server alone"
        )
    server_hex = deal.get("server_seed")
    if server_hex is None or seed_hex is None:
        return DealCheck("the server seed is not revealed yet: the game is still going on")
    listed = deal.get("contributions")
    if not isinstance(listed, list) or not listed:
        return DealCheck("the record lists no contributions: the seed's makings are missing")
    try:
        if not isinstance(server_hex, str) or not _HEX64.fullmatch(server_hex):
            raise BadDeal(f"the server seed is {SIZE} bytes as lowercase hex")
        server_seed = bytes.fromhex(server_hex)
        parts = [entropy(c.get("entropy")) for c in listed]
        seats = [c.get("seat") for c in listed]
        kinds = [c.get("by") for c in listed]
    except (BadDeal, AttributeError) as exc:
        return DealCheck(f"the deal record is malformed: {exc}")
    if seats != list(range(players)):
        return DealCheck(f"the contributions are not one per seat in seat order: seats {seats}")
    if any(k not in (PLAYER, SERVER) for k in kinds):
        return DealCheck(f"a contribution is by {PLAYER!r} or {SERVER!r}: {kinds}")
    if commitment(server_seed) != committed:
        return DealCheck(
            "the revealed server seed does not match the commitment published when the room "
            f"was set up: sha256 is {commitment(server_seed)}, the commitment {committed}"
        )
    by_server = tuple(s for s, k in zip(seats, kinds, strict=True) if k == SERVER)
    if derive(server_seed, parts).hex() == seed_hex:
        for seat in by_server:
            fixed = server_bytes(server_seed, seat)
            if parts[seat] != fixed:
                return DealCheck(
                    f"seat {seat}'s bytes are marked the server's, but they are not the ones "
                    f"its committed seed fixes ({fixed.hex()}): the server chose them",
                    by_server,
                )
        return DealCheck(None, by_server)
    if derive(server_seed, parts, label=LEGACY_LABEL).hex() == seed_hex:
        if by_server:
            seats_text = ", ".join(str(s) for s in by_server)
            return DealCheck(
                "a record from before the server's bytes were fixed by its commitment "
                f"(tortuga-seed/1): the bytes of seat(s) {seats_text} were drawn by the "
                "server at the start, after the players' were known, so this deal is not "
                "proven",
                by_server,
                legacy=True,
            )
        return DealCheck(None, by_server, legacy=True)
    return DealCheck(
        f"the seed {seed_hex} is not derived from the server seed and the players' "
        f"contributions (the derivation gives {derive(server_seed, parts).hex()})",
        by_server,
    )
