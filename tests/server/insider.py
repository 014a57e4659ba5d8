"""Someone with write access to the archive (Redis or Postgres) rewrites a finished game's
record and recomputes everything they can: the states' digests (replaying the game with the
engine from the seed, as far as it goes), the seed and its digest, the moves' commitments
and labels, every head of the move chain. What they cannot make is a player's signature --
nor the heads the players' devices kept.

Each change works on a record as JSON (server/table/record.py's shape); ``recompute`` then
does what an insider would to make it look whole.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from engines.registry import GAMES
from server.table import chain, seeding


def rewrite_bid(record: dict[str, Any], seat: int = 0) -> int:
    """Seat ``seat``'s first bid becomes another bid of the round; the version changed."""
    for event in record["events"]:
        move = event["moves"].get(str(seat))
        if isinstance(move, dict) and "bid" in move:
            move["bid"] = 1 if move["bid"] == 0 else 0
            return int(event["version"])
    raise AssertionError("no bid in the record")


def drop_event(record: dict[str, Any], version: int) -> None:
    """Event ``version`` goes; the ones after it move down a version."""
    record["events"] = [e for e in record["events"] if e["version"] != version]
    for event in record["events"]:
        if event["version"] > version:
            event["version"] -= 1


def swap_events(record: dict[str, Any], version: int) -> None:
    """Events ``version`` and ``version + 1`` change places (and numbers)."""
    events = {e["version"]: e for e in record["events"]}
    a, b = events[version], events[version + 1]
    a["version"], b["version"] = version + 1, version
    record["events"].sort(key=lambda e: e["version"])


def replace_contribution(record: dict[str, Any], seat: int = 0) -> None:
    """Seat ``seat``'s contribution to the deal seed becomes other bytes (the seed with it)."""
    deal = record["deal"]
    for c in deal["contributions"]:
        if c["seat"] == seat:
            c["entropy"] = secrets.token_hex(32)
    parts = [bytes.fromhex(c["entropy"]) for c in deal["contributions"]]
    seed = seeding.derive(bytes.fromhex(deal["server_seed"]), parts)
    record["seed"] = seed.hex()
    record["seed_digest"] = hashlib.sha256(seed).hexdigest()
    game = record["events"][0]["chain"]["game"]
    game["seed_digest"] = record["seed_digest"]
    for c, kept in zip(game["contributions"], deal["contributions"], strict=True):
        c["entropy"] = kept["entropy"]


def recompute(record: dict[str, Any]) -> None:
    """Digests (by replaying as far as the moves stay legal), outcome, labels,
    commitments and heads, as an insider would."""
    game = GAMES[record["engine"]]
    state = game.start(
        game.options(record["options"]), record["players"], bytes.fromhex(record["seed"])
    )
    states = {}
    for event in record["events"]:
        v = event["version"]
        try:
            if v > 1:
                if event.get("takeback"):
                    state = states[event["takeback"] - 1]
                else:
                    prompt = game.prompt(state)
                    kind = f"{prompt.kind}@{v - 1}" if prompt.sealed else f"act@{v - 1}"
                    for proof in event["chain"]["moves"].values():
                        proof["l"] = kind
                    moves = {int(s): game.decode_move(m) for s, m in event["moves"].items()}
                    state = game.step(state, moves)
            event["digest"] = hashlib.sha256(game.encode(state)).hexdigest()
            states[v] = state
        except Exception:
            for proof in event["chain"]["moves"].values():  # the label at least
                proof["l"] = proof["l"].rsplit("@", 1)[0] + f"@{v - 1}"
    outcome = game.outcome(state)
    if outcome is not None:
        record["outcome"] = outcome.to_json()
    prev = chain.GENESIS
    for event in record["events"]:
        proofs = event["chain"]["moves"]
        for seat, proof in proofs.items():
            proof["c"] = chain.commitment(
                proof["l"], int(seat), event["moves"][seat], proof["salt"]
            )
        link = chain.link(
            prev=prev,
            version=event["version"],
            at=event["at"],
            digest=event["digest"],
            moves={
                s: {k: p.get(k) for k in ("by", "c", "key", "l", "open", "sig")}
                for s, p in proofs.items()
            },
            defaults=event.get("defaults", []),
            proxies=event.get("proxies", []),
            takeback=event.get("takeback"),
            game=event["chain"].get("game") if event["version"] == 1 else None,
        )
        event["head"] = prev = chain.head(link)
