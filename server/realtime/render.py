"""What one recipient receives: the frames of a step or a snapshot, rendered for its seat.

This is the send boundary. Every view comes from ``game.view(state, seat)`` for the
recipient's own seat (``None``: a spectator); nothing is computed once and then masked.
Open moves are shown only to the seat that made them (others see their effect in their own
view: the engine decides what is public); sealed moves are shown to all once revealed.
"""

from __future__ import annotations

from typing import Any

from engines.registry import AnyGame
from server.table.entry import ABANDON, REVEAL, Entry
from server.table.room import phase_name


def entry_frames(
    game: AnyGame, entry: Entry, seat: int | None, state: Any = None
) -> list[dict[str, Any]]:
    """``revealed`` (after a sealed phase), ``event``, then ``sealed`` if one begins.
    ``state``: ``entry.state`` decoded already (states are immutable: one decoded state
    serves every seat's view)."""
    if state is None:
        state = game.decode(entry.state)
    frames: list[dict[str, Any]] = []
    public = entry.kind == REVEAL and not entry.private
    own = str(seat) if seat is not None else None
    if entry.kind == REVEAL:
        frames.append(
            {
                "type": "revealed",
                "room": entry.room,
                "version": entry.version,
                "phase": entry.phase,
                "moves": _shown(entry.moves, own, public),
                "opened": _shown(entry.opened, own, public),
                "salts": _shown(entry.salts, own, public),
                "defaults": entry.defaults,
                "proxies": entry.proxies,
                "private": entry.private,
            }
        )
    moves = _shown(entry.moves, own, public) or {}
    event: dict[str, Any] = {
        "kind": entry.kind,
        "seats": entry.seats,
        "moves": moves,
        "defaults": entry.defaults,
        "proxies": entry.proxies,
        "at": entry.at,
        "status": entry.status,
    }
    if entry.undoes is not None:
        event["undoes"] = entry.undoes
    if entry.seed_digest is not None:
        event["seed_digest"] = entry.seed_digest
    if entry.seed_commitment is not None:
        event["seed_commitment"] = entry.seed_commitment
    if entry.contributions is not None:
        event["contributions"] = entry.contributions
    if entry.seed is not None:
        event["seed"] = entry.seed
    if entry.server_seed is not None:
        event["server_seed"] = entry.server_seed
    if entry.game_id is not None:
        event["game_id"] = entry.game_id
    if entry.reason is not None:
        event["reason"] = entry.reason
    frames.append(
        {
            "type": "event",
            "room": entry.room,
            "version": entry.version,
            "seat": seat,
            "view": game.view(state, seat),
            "event": event,
            "deadline": entry.deadline,
            "head": entry.head,  # the game's chain head after it (server/table/chain.py)
        }
    )
    if entry.kind == ABANDON:
        return frames  # the game is over: no phase begins
    sealed = sealed_frame(game, state, entry.room, entry.version, {}, entry.deadline)
    if sealed is not None:
        frames.append(sealed)
    return frames


def _shown(by_seat: dict[str, Any] | None, own: str | None, public: bool) -> dict[str, Any] | None:
    """What a recipient sees of a per-seat mapping of moves: all of it when ``public``
    (a sealed phase's moves, once revealed), else only its own seat's entry (open moves,
    and a private sealed phase's moves: the others learn only what their views show)."""
    if by_seat is None or public:
        return by_seat
    return {s: m for s, m in by_seat.items() if s == own}


def sealed_frame(
    game: AnyGame,
    state: Any,
    room_id: str,
    version: int,
    seal: dict[str, str],
    commit_by: int | None = None,
) -> dict[str, Any] | None:
    """The ``sealed`` announcement of the phase at ``version``, with who has committed so
    far (digests only), whether it is open, and its deadlines (epoch ms or null): commits
    by ``commit_by``, openings by ``open_by`` once open; None when the prompt is not
    sealed."""
    prompt = game.prompt(state)
    if not prompt.sealed:
        return None
    phase = phase_name(prompt, version)
    same = seal.get("phase") == phase
    committed = {k[2:]: v for k, v in seal.items() if same and k.startswith("c:")}
    revealed = sorted(int(k[2:]) for k in seal if same and k.startswith("r:"))
    open_by = seal.get("open_by") if same else None
    return {
        "type": "sealed",
        "room": room_id,
        "version": version,
        "phase": phase,
        "kind": prompt.kind,
        "seats": list(prompt.seats),
        "committed": committed,
        "open": same and seal.get("open") == "1",
        "revealed": revealed,
        "commit_by": commit_by,
        "open_by": int(open_by) if open_by else None,
    }
