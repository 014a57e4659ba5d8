"""``tortuga verify``'s check of a game's move chain (server/table/chain.py): the heads from
the first event to the last, what the first commits to, every move's commitment, and every
signature against the key registered for it (docs/PROTOCOL.md, "The move chain").

Pure: no I/O. ``check_chain`` needs no engine: it runs before the replay, so that a record
an insider rewrote and recomputed (digests, commitments, heads) is refused for the
signature it could not make. ``check_labels`` then compares each proof's label with the one
the replay knows the move was made under (``act@<v>``, or the sealed phase's name).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from server.identity.signing import BadKey, public_key, verify
from server.table import chain


@dataclass(frozen=True, slots=True)
class ChainReport:
    problem: str | None = None
    version: int | None = None  # where the problem is
    chained: bool = True  # False: a record from before the chain
    signed: int = 0  # moves (and contributions) signed by their player's device
    made: int = 0  # moves the server made for a seat, signed by its key
    unsigned: int = 0  # players' moves (and contributions) without a signature

    def note(self) -> str:
        if not self.chained:
            return "recorded before the move chain: no heads or signatures to check"
        return (
            f"the move chain holds from the deal to the end; {self.signed} move(s) signed by "
            f"their player's device, {self.made} made and signed by the server for a seat, "
            f"{self.unsigned} unsigned (a client without a key: not counted as signed)"
        )


def _key(keys: Mapping[str, Mapping[str, Any]], kid: Any) -> tuple[Any, Any] | None:
    """(user, public key) of a registered kid whose key is the one it names; None if not."""
    entry = keys.get(kid) if isinstance(kid, str) else None
    if entry is None:
        return None
    try:
        named, key = public_key(str(entry.get("key")))
    except BadKey:
        return None
    return (entry.get("user"), key) if named == kid else None


def check_chain(
    *,
    room: str,
    game_id: str,
    engine: str,
    options: Mapping[str, Any],
    players: int,
    seed_digest: str,
    deal: Mapping[str, Any] | None,
    end_seats: Sequence[Mapping[str, Any]],
    steps: Sequence[Any],
    keys: Mapping[str, Mapping[str, Any]],
) -> ChainReport:
    """``steps``: the replayed log's ``LoggedStep``s (with ``head`` and ``chain``)."""
    if all(s.head is None for s in steps):
        return ChainReport(chained=False)
    counts = {"signed": 0, "made": 0, "unsigned": 0}

    def fail(version: int | None, why: str) -> ChainReport:
        where = f"version {version}: " if version is not None else ""
        problem = f"the move chain is broken at {where}{why}"
        return ChainReport(
            problem, version, True, counts["signed"], counts["made"], counts["unsigned"]
        )

    first = steps[0].chain or {}
    game = first.get("game")
    if not isinstance(game, dict):
        return fail(1, "the first event commits to no game (options, seats, deal)")
    expected = {
        "engine": engine,
        "game_id": game_id,
        "options": dict(options),
        "players": players,
        "room": room,
        "seed_digest": seed_digest,
        "seed_commitment": (deal or {}).get("commitment"),
    }
    for name, value in expected.items():
        if game.get(name) != value:
            return fail(1, f"the first event commits to {name} {game.get(name)!r}, not {value!r}")
    made = [
        (c.get("seat"), c.get("entropy"), c.get("by"))
        for c in (deal or {}).get("contributions") or []
    ]
    committed = [
        (c.get("seat"), c.get("entropy"), c.get("by")) for c in game.get("contributions") or []
    ]
    if made != committed:
        return fail(1, "the deal's contributions are not the ones the first event commits to")
    seats = {s.get("seat"): s for s in game.get("seats") or []}
    for c in game.get("contributions") or []:
        if c.get("by") != "player":
            continue
        seat = c.get("seat")
        problem = _signed(keys, c, seats.get(seat, {}).get("user"), counts, chain.ENTROPY,
                          room, 0, seat, c.get("entropy"))  # fmt: skip
        if problem is not None:
            return fail(1, f"seat {seat}'s contribution to the deal {problem}")

    bots_at_end = {s.get("seat") for s in end_seats if s.get("bot") is not None}
    prev = chain.GENESIS
    for step in steps:
        v = step.version
        if step.head is None or not isinstance(step.chain, dict):
            return fail(v, "the event has no head or no proofs")
        proofs = step.chain.get("moves") or {}
        if set(proofs) != set(step.moves):
            return fail(
                v, f"proofs for seats {sorted(proofs)}, moves by seats {sorted(step.moves)}"
            )
        link = chain.link(
            prev=prev,
            version=v,
            at=step.at,
            digest=step.digest,
            moves={s: _public(p) for s, p in proofs.items()},
            defaults=list(step.defaults),
            proxies=list(step.proxies),
            takeback=step.takeback,
            game=game if v == 1 else None,
        )
        if chain.head(link) != step.head:
            return fail(v, f"its head {step.head} is not the hash of its link on the one before")
        for text, move in step.moves.items():
            seat = int(text)
            problem = _move(
                proofs[text], seat, move, v, step, seats, bots_at_end, keys, counts, room
            )
            if problem is not None:
                return fail(v, f"seat {seat}'s move {problem}")
        prev = step.head
    return ChainReport(signed=counts["signed"], made=counts["made"], unsigned=counts["unsigned"])


def differs_from_seen(steps: Sequence[Any], seen: Mapping[int, str]) -> int | None:
    """The first version whose archived head is not the one a device was sent while it played
    (``seen``: version -> head, as the browser keeps them and lets its player save them), or
    None when every head it saw is the archive's. A version the archive lacks differs."""
    archived = {s.version: s.head for s in steps}
    last = max(archived, default=0)
    for version in sorted(seen):
        # A version after the last event (a game abandoned there: the abandon is no event of
        # the chain) was sent with the head that event left.
        head = archived.get(version if version <= last else last)
        if head != seen[version]:
            return version
    return None


def check_labels(steps: Sequence[Any], labels: Mapping[int, str]) -> tuple[str, int] | None:
    """The first proof whose label is not the one its move was made under (``labels``,
    from the replay): what is wrong and where, or None."""
    for step in steps:
        for seat, proof in ((step.chain or {}).get("moves") or {}).items():
            label = proof.get("l") if isinstance(proof, dict) else None
            if label != labels.get(step.version):
                expected = labels.get(step.version)
                why = f"seat {seat}'s move is labelled {label!r}, but it was made at {expected!r}"
                return f"the move chain is broken at version {step.version}: {why}", step.version
    return None


def _parts(contributions: Any) -> list[tuple[Any, Any, Any]]:
    return [(c.get("seat"), c.get("entropy"), c.get("by")) for c in contributions or []]


def _public(proof: Any) -> dict[str, Any]:
    p = proof if isinstance(proof, dict) else {}
    return {k: p.get(k) for k in ("by", "c", "key", "l", "open", "sig")}


def _move(
    proof: Any,
    seat: int,
    move: Any,
    v: int,
    step: Any,
    seats: Mapping[Any, Mapping[str, Any]],
    bots_at_end: set[Any],
    keys: Mapping[str, Mapping[str, Any]],
    counts: dict[str, int],
    room: str,
) -> str | None:
    if not isinstance(proof, dict):
        return "has no proof"
    label = proof.get("l")
    if not isinstance(label, str) or not label.endswith(f"@{v - 1}"):
        return f"is labelled {label!r}, not as made at version {v - 1}"
    salt = proof.get("salt")
    if not isinstance(salt, str) or chain.commitment(label, seat, move, salt) != proof.get("c"):
        return "is not the one its commitment c commits to"
    server_made = seat in step.defaults or seat in step.proxies
    bot = seats.get(seat, {}).get("bot") is not None
    by = proof.get("by")
    if (server_made or bot) and by != chain.SERVER:
        return "is a default, a stand-in's or a bot's, but is not marked the server's"
    if by == chain.SERVER:
        if not (server_made or bot or seat in bots_at_end):
            return "is marked the server's, but the seat's player made it"
        found = _key(keys, proof.get("key"))
        if found is None or found[0] is not None:
            return "is signed with a key that is not the server's"
        counts["made"] += 1
        ok = verify(
            found[1], chain.sig_message(chain.MADE, room, v - 1, seat, proof["c"]), proof.get("sig")
        )
        return None if ok else "has a broken signature: the server's key did not sign it"
    if by == chain.UNSIGNED:
        if proof.get("sig") is not None or proof.get("key") is not None:
            return "is marked unsigned but carries a signature"
        counts["unsigned"] += 1
        return None
    if by != chain.PLAYER:
        return f"is marked {by!r}"
    sealed = not label.startswith("act@")
    kind = chain.COMMIT if sealed else chain.ACT
    user = seats.get(seat, {}).get("user")
    problem = _signed(keys, proof, user, counts, kind, room, v - 1, seat, proof.get("c"))
    if problem is not None:
        return problem
    if sealed and proof.get("open") is not None:
        found = _key(keys, proof.get("key"))
        assert found is not None
        message = chain.sig_message(chain.REVEAL, room, v - 1, seat, proof["c"])
        if not verify(found[1], message, proof.get("open")):
            return "has a broken signature of its opening"
    return None


def _signed(
    keys: Mapping[str, Mapping[str, Any]],
    proof: Mapping[str, Any],
    user: Any,
    counts: dict[str, int],
    kind: str,
    room: str,
    version: int,
    seat: Any,
    c: Any,
) -> str | None:
    """What is wrong with a player's signature of ``c`` (None: it verifies)."""
    if proof.get("sig") is None:
        counts["unsigned"] += 1
        return None if proof.get("key") is None else "names a key but has no signature"
    found = _key(keys, proof.get("key"))
    if found is None:
        return f"is signed with key {proof.get('key')}, which is registered nowhere"
    if user is None or found[0] != user:
        return f"is signed with a key of {found[0]!r}, not of the seat's player {user!r}"
    if not isinstance(c, str) or not isinstance(seat, int):
        return "names no commitment"
    if not verify(found[1], chain.sig_message(kind, room, version, seat, c), proof.get("sig")):
        return "has a broken signature: its player's device did not sign this"
    counts["signed"] += 1
    return None
