"""The archive record of one game: what the archiver (server/archive/) writes to Postgres.

The shape is a contract with the archiver (docs/ARCHITECTURE.md, "The archive record"):
one JSON object per game, XADDed to ``Keys.archive_of(room)`` as the field ``record``. Each
event carries ``digest = sha256(game.encode(state))`` of the state after it, so that
``tortuga verify`` can recompute every state from the seed and the moves and compare.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import msgspec

from server.table.room import Room

_json = msgspec.json.decode


def quitter_loses(view: dict[str, Any], players: int, quitter: int) -> dict[str, Any]:
    """The outcome of a game a seated player ended under way: that player last, the others
    ranked among themselves by the scores so far (the view's ``scores``, when the game has
    them; else they tie) -- what ratings use (server/archive/ratings.py)."""
    raw = view.get("scores")
    scores = (
        [int(x) for x in raw] if isinstance(raw, list) and len(raw) == players else [0] * players
    )
    others = [s for s in range(players) if s != quitter]
    ranks = [0] * players
    for s in others:
        ranks[s] = 1 + sum(1 for o in others if scores[o] > scores[s])
    ranks[quitter] = players
    return {"scores": scores, "ranks": ranks}


def build_record(
    room: Room, log: Sequence[dict[str, bytes]], events_from: int = 1
) -> dict[str, Any]:
    """The record of the game played in ``room``, from the room hash and its log stream
    (``log``: its entries from version ``events_from`` on; 1: all of them).

    The seed is included only once the game is over (``status`` finished or abandoned);
    a game under way gives a "playing" record of the events so far (no seed, no outcome).
    The log's ``abandon`` entry is not an event: it changes no state (the record's
    ``status`` and ``ended_at`` say the game was abandoned)."""
    over = room.status in ("finished", "abandoned")
    outcome = None
    if room.status == "finished" and room.state is not None:
        result = room.game.outcome(room.game.decode(room.state))
        outcome = result.to_json() if result is not None else None
    elif room.status == "abandoned" and room.abandoned_by is not None and room.state is not None:
        outcome = quitter_loses(
            room.game.final_view(room.game.decode(room.state)), room.players, room.abandoned_by
        )
    events = []
    for fields in log:
        if fields.get("kind") == b"abandon":
            continue
        event: dict[str, Any] = {
            "version": int(fields["v"]),
            "moves": _json(fields.get("moves", b"{}")),
            "defaults": _json(fields.get("defaults", b"[]")),
            "proxies": _json(fields.get("proxies", b"[]")),
            "at": fields["at"].decode(),
            "digest": hashlib.sha256(fields["state"]).hexdigest(),
        }
        if fields.get("kind") == b"reveal" and fields.get("private") != b"1":
            event["moves_public"] = True  # a sealed phase's moves, revealed to all
        if fields.get("undoes"):
            # A take-back: the state is the one of the version before the undone move.
            event["takeback"] = int(fields["undoes"])
        events.append(event)
    return {
        "game_id": room.game_id or f"{room.id}-1",
        "room": room.id,
        "engine": room.engine,
        "options": room.options,
        "players": room.players,
        "public": room.public,
        "seats": [
            {"seat": i, "user": s.user, "name": s.name, "bot": s.bot}
            for i, s in enumerate(room.seats)
        ],
        "seed": room.seed if over else None,
        "seed_digest": room.seed_digest,
        "created_at": room.created_at,
        "started_at": room.started_at,
        "ended_at": room.ended_at,
        "status": room.status,
        "outcome": outcome,
        "abandoned_by": room.abandoned_by if room.status == "abandoned" else None,
        "deal": (
            {
                "commitment": room.seed_commitment,
                "server_seed": room.server_seed if over else None,
                "contributions": room.contributions,
            }
            if room.contributions is not None
            else None
        ),
        "events_from": events_from,
        "events": events,
    }
