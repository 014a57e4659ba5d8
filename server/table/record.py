"""The archive record of one game: the contract between the room server, which puts it on
the archive stream (server/table/game_end.py), and the archiver (server/archive/), which
writes it to Postgres. One JSON object per game, XADDed to ``Keys.archive_of(room)`` as the
field ``record`` (docs/ARCHITECTURE.md, "The archive record"):

    {"game_id": "<room>-<n>", "room": "<room>", "engine": "<game id>", "options": {...},
     "players": 4, "public": true,
     "seats": [{"seat": 0, "user": "<id>" | null, "name": "Anne",
                "bot": null | "heuristic"}, ...],
     "seed": "<hex>" | null, "seed_digest": "<sha256 hex of the seed bytes>",
     "created_at": ISO, "started_at": ISO, "ended_at": ISO | null,
     "status": "finished" | "abandoned" | "playing",
     "outcome": {"scores": [...], "ranks": [...]} | null, "abandoned_by": <seat> | null,
     "deal": {"commitment", "server_seed", "contributions"} | null, "events_from": 1,
     "inspected": {"count": 2, "at": [ISO, ...]} | null,
     "events": [{"version": 1, "moves": {}, "defaults": [], "proxies": [], "at": ISO,
                 "digest": hex, "moves_public": true (only when they are),
                 "moves_private": true (a private prompt's: only when they are),
                 "takeback": <version undone> (only on a take-back),
                 "head": hex, "chain": {"moves": {seat: proof}, "game"?}}, ...],
     "keys": {kid: {"user": <id> | null, "key": base64url}}}

Version 1 is the deal (``game.start``); each later version is ``game.step`` with the logged
moves, or -- a take-back (``takeback: u``) -- the state of version ``u - 1`` again;
``digest`` is sha256 of ``game.encode(state)`` after that step, so that ``tortuga verify``
can recompute every state from the seed and the moves and compare. ``proxies`` are the
seats whose move a stand-in made while their player was away (the grace-time bot, or the
default of ``absent: "default"``); ``defaults`` the seats given the engine's default move.
A ``playing`` record (a long game archived progressively) has no seed yet and may arrive
several times; it carries only the events since the checkpoint before it, from
``events_from`` on (absent: 1, every event -- a final record always has every event).
``inspected`` says that admins looked at the game's hidden state while it was played (how
many times, and the last times: never who, why or what), as the room kept it.

Times are ISO 8601 UTC text as the room has them when the room server writes a record
(``GameRecord[str]``: the record's ``ended_at`` is the room's, character for character),
and datetimes when the archiver reads one (``GameRecord[datetime]``,
server/archive/record.py). A field the archiver reads with a default may be absent: the
records of older servers lack some (``public``, ``deal``, ``proxies``, ``events_from``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Generic, Literal, TypeVar, cast

import msgspec
from msgspec import UNSET, UnsetType

from server.table.room import ABANDONED, FINISHED, Room

Status = Literal["playing", "finished", "abandoned"]
Time = TypeVar("Time", str, datetime)

_json = msgspec.json.decode


class SeatRecord(msgspec.Struct, kw_only=True):
    seat: int
    user: str | None = None
    name: str = ""
    bot: str | None = None
    # A player's bot account sat here: the player who owns it (left out of the JSON for a
    # person's seat or a server bot's).
    owner: str | msgspec.UnsetType = msgspec.UNSET
    owner_name: str | msgspec.UnsetType = msgspec.UNSET

    @property
    def human(self) -> bool:
        """A user's seat that no bot played: only these are rated."""
        return self.user is not None and self.bot is None


class GameEvent(msgspec.Struct, Generic[Time], kw_only=True):
    """One version of the game. ``moves_public``, ``moves_private`` and ``takeback`` are
    written only when they say something (``UNSET``: left out of the JSON); read them as
    ``public_moves``, ``private_moves`` and ``undoes``."""

    version: int
    moves: dict[str, Any] = {}
    defaults: list[int] = []
    proxies: list[int] = []  # seats a stand-in played for (the player was away)
    at: Time
    digest: str
    # Its moves are public (a sealed phase's, once revealed); else each is its mover's
    # alone until the game is over.
    moves_public: bool | UnsetType = UNSET
    # Its moves answer a prompt private for good (``Prompt.for_good``): each its mover's alone for
    # good, also once the game is over.
    moves_private: bool | UnsetType = UNSET
    takeback: int | UnsetType | None = UNSET  # a take-back: the version it undid
    # The move chain (server/table/chain.py): the head after this event, and its moves'
    # proofs (seat -> {by, c, key, l, open, sig, salt}; the deal's also ``game``). None in
    # records from before the chain.
    head: str | None = None
    chain: dict[str, Any] | None = None

    @property
    def public_moves(self) -> bool:
        return self.moves_public is True

    @property
    def private_moves(self) -> bool:
        return self.moves_private is True

    @property
    def undoes(self) -> int | None:
        """The version this take-back undid; None: not a take-back."""
        return self.takeback if isinstance(self.takeback, int) else None


class Inspections(msgspec.Struct, Generic[Time], kw_only=True):
    """Admins' looks at a game's hidden state: how many, and when (the last ones kept)."""

    count: int
    at: list[Time] = []


class OutcomeRecord(msgspec.Struct, kw_only=True):
    scores: list[int]
    ranks: list[int]


class GameRecord(msgspec.Struct, Generic[Time], kw_only=True):
    game_id: str
    room: str
    engine: str
    options: dict[str, Any] = {}
    players: int
    # Whether the room was public (None, a record from before: a public room's code has 8
    # characters, a private one's 16).
    public: bool | None = None
    seats: list[SeatRecord]
    seed: str | None = None
    seed_digest: str
    created_at: Time
    started_at: Time | None = None
    ended_at: Time | None = None
    status: Status
    outcome: OutcomeRecord | None = None
    # An abandoned game ended by a seated player: that seat (its outcome ranks it last).
    abandoned_by: int | None = None
    # How the seed was made (server/table/seeding.py): {"commitment", "server_seed" (once
    # over), "contributions": [{seat, entropy, by}]}; None in records from before.
    deal: dict[str, Any] | None = None
    # The first version ``events`` start at: a checkpoint carries the events since the one
    # before it (server/table/game_end.py); 1 -- every event -- in a final record.
    events_from: int = 1
    events: list[GameEvent[Time]] = []
    # Admins looked at the hidden state of the game under way (None: never, or a record
    # from before).
    inspected: Inspections[Time] | None = None
    # The public keys the events' proofs name: kid -> {"user": <id> | null (the server's),
    # "key": base64url point} (server/identity/signing.py).
    keys: dict[str, dict[str, Any]] = {}

    @property
    def final(self) -> bool:
        return self.status in (FINISHED, ABANDONED)

    @property
    def is_public(self) -> bool:
        return self.public if self.public is not None else len(self.room) < 16

    @property
    def last_version(self) -> int:
        return max((e.version for e in self.events), default=0)


def encode_record(record: GameRecord[str]) -> bytes:
    """The record as it goes on the archive stream."""
    return msgspec.json.encode(record)


def quitter_loses(view: dict[str, Any], players: int, quitter: int) -> OutcomeRecord:
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
    return OutcomeRecord(scores=scores, ranks=ranks)


def build_record(
    room: Room, log: Sequence[dict[str, bytes]], events_from: int = 1
) -> GameRecord[str]:
    """The record of the game played in ``room``, from the room hash and its log stream
    (``log``: its entries from version ``events_from`` on; 1: all of them).

    The seed is included only once the game is over (``status`` finished or abandoned);
    a game under way gives a "playing" record of the events so far (no seed, no outcome).
    The log's ``abandon`` entry is not an event: it changes no state (the record's
    ``status`` and ``ended_at`` say the game was abandoned)."""
    over = room.status in (FINISHED, ABANDONED)
    return GameRecord(
        game_id=room.game_id or f"{room.id}-1",
        room=room.id,
        engine=room.engine,
        options=room.options,
        players=room.players,
        public=room.public,
        seats=[
            # A started game's seats are all taken, each with a name.
            SeatRecord(seat=i, user=s.user, name=s.name or "", bot=s.bot)
            if s.owner is None
            else SeatRecord(
                seat=i,
                user=s.user,
                name=s.name or "",
                bot=s.bot,
                owner=s.owner,
                owner_name=s.owner_name or "",
            )
            for i, s in enumerate(room.seats)
        ],
        seed=room.seed if over else None,
        seed_digest=room.seed_digest or "",
        created_at=room.created_at,
        started_at=room.started_at,
        ended_at=room.ended_at,
        status=cast(Status, room.status),  # a game under way or over: a record's statuses
        outcome=_outcome(room),
        abandoned_by=room.abandoned_by if room.status == ABANDONED else None,
        deal=(
            {
                "commitment": room.seed_commitment,
                "server_seed": room.server_seed if over else None,
                "contributions": room.contributions,
            }
            if room.contributions is not None
            else None
        ),
        events_from=events_from,
        events=[_event(fields) for fields in log if fields.get("kind") != b"abandon"],
        inspected=(
            Inspections(count=room.inspected["count"], at=room.inspected["at"])
            if room.inspected
            else None
        ),
    )


def _outcome(room: Room) -> OutcomeRecord | None:
    """A finished game's outcome; an abandoned one's when a seated player ended it (their
    loss); else none."""
    if room.state is None:
        return None
    if room.status == FINISHED:
        result = room.game.outcome(room.game.decode(room.state))
        if result is None:
            return None
        return OutcomeRecord(scores=list(result.scores), ranks=list(result.ranks))
    if room.status == ABANDONED and room.abandoned_by is not None:
        view = room.game.final_view(room.game.decode(room.state))
        return quitter_loses(view, room.players, room.abandoned_by)
    return None


def _event(fields: dict[str, bytes]) -> GameEvent[str]:
    """The event of one log entry (its stream fields, server/table/entry.py)."""
    undoes = fields.get("undoes")
    revealed = fields.get("kind") == b"reveal" and fields.get("private") != b"1"
    return GameEvent(
        version=int(fields["v"]),
        moves=_json(fields.get("moves", b"{}")),
        defaults=_json(fields.get("defaults", b"[]")),
        proxies=_json(fields.get("proxies", b"[]")),
        at=fields["at"].decode(),
        digest=hashlib.sha256(fields["state"]).hexdigest(),
        moves_public=True if revealed else UNSET,  # a sealed phase's moves, revealed to all
        moves_private=True if fields.get("secret") == b"1" else UNSET,  # its movers' for good
        # A take-back: the state is the one of the version before the undone move.
        takeback=int(undoes) if undoes else UNSET,
        head=fields["head"].decode() if fields.get("head") else None,
        chain=_json(fields["chain"]) if fields.get("chain") else None,
    )


def kids_used(record: GameRecord[Any]) -> dict[str, int | None]:
    """The kids the record's proofs name, each with the seat whose player's key it must be
    (None: a key of the server's, ``by: "server"``)."""
    out: dict[str, int | None] = {}
    for event in record.events:
        chain = event.chain or {}
        for seat, proof in (chain.get("moves") or {}).items():
            if isinstance(proof, dict) and proof.get("key"):
                out[proof["key"]] = None if proof.get("by") == "server" else int(seat)
        for c in (chain.get("game") or {}).get("contributions") or []:
            if isinstance(c, dict) and c.get("key"):
                out[c["key"]] = c.get("seat")
    return out
