"""Realistic archive records for the tests: games played with the engines directly.

``play_record`` plays a whole game (random legal moves from ``engines.rng.Rng``) and builds the
record the room server would put on the archive stream, digests computed the same way
(sha256 of ``game.encode(state)`` after each step).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
from redis.exceptions import ResponseError

from engines import registry
from engines.rng import Rng
from server.redis.store import Keys
from server.table import seeding

T0 = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)


def iso(t: datetime) -> str:
    return t.isoformat().replace("+00:00", "Z")


def play_record(
    *,
    engine: str = "skull-king",
    players: int = 3,
    rounds: int = 2,
    users: list[str | None] | None = None,
    bots: dict[int, str] | None = None,
    seed: bytes | None = None,
    game_id: str | None = None,
    stop_after: int | None = None,
    status: str | None = None,
    t0: datetime = T0,
    takebacks: int = 0,
    public: bool | None = None,
    defaults: int = 0,
) -> dict[str, Any]:
    """One game's archive record.

    ``users[i]`` sits at seat i (None: a bot of ``bots[i]``, default "random"). With
    ``stop_after`` the record is a progressive "playing" snapshot of the first versions
    (seed withheld). ``status`` overrides the status ("abandoned" stops early, seed revealed).
    ``takebacks``: that many open moves (the first that reveal nothing) are taken back right
    after they were made, as the room server logs it (``takeback``: the version undone).
    ``defaults``: that many open moves are the engine's default, flagged in ``defaults``.
    ``public``: the room's (None: left out, as in records from before it was written).
    A sealed phase's moves are flagged ``moves_public`` (revealed to all) unless private;
    a private prompt's ``moves_private`` (their movers' alone for good).
    The seed is derived as the room server does (server/table/seeding.py: a committed
    server seed, each player's bytes, the server's for a bot) and the record keeps the
    ``deal``; with ``seed`` given the record has no deal, as records from before it was kept.
    """
    from server.table.steps import reveals_nothing

    game = registry.get(engine)
    room = game_id.rsplit("-", 1)[0] if game_id else f"r{secrets.token_hex(4)}"
    game_id = game_id or f"{room}-1"
    users = users if users is not None else [f"u-{secrets.token_hex(4)}" for _ in range(players)]
    bots = bots or {}
    deal: dict[str, Any] | None = None
    if seed is None:
        server_seed = secrets.token_bytes(seeding.SIZE)
        sent = [
            secrets.token_hex(seeding.SIZE) if i < len(users) and users[i] is not None else None
            for i in range(players)
        ]
        contributions = seeding.contributions(server_seed, sent)
        seed = seeding.derive(server_seed, [bytes.fromhex(c["entropy"]) for c in contributions])
        deal = {
            "commitment": seeding.commitment(server_seed),
            "server_seed": server_seed.hex(),
            "contributions": contributions,
        }
    # Games without rounds (pirate-king, pearates) play their default options; the options
    # are kept as a room stores them: normalized (a game with editions of its rules names its
    # current one: docs/ENGINES.md).
    options = msgspec.to_builtins(
        game.options({"rounds": rounds} if "rounds" in game.options_schema() else {})
    )
    state = game.start(game.recorded_options(options), players, seed)
    moves_rng = Rng(seed, "test-moves")
    events: list[dict[str, Any]] = [
        {
            "version": 1,
            "moves": {},
            "defaults": [],
            "at": iso(t0),
            "digest": hashlib.sha256(game.encode(state)).hexdigest(),
        }
    ]
    while not game.prompt(state).over:
        if stop_after is not None and len(events) >= stop_after:
            break
        prompt = game.prompt(state)
        seats = prompt.seats if prompt.sealed else prompt.seats[:1]
        moves = {s: moves_rng.choice(game.legal(state, s)) for s in seats}
        flagged: list[int] = []
        if defaults and not prompt.sealed:
            defaults -= 1
            moves = {s: game.default(state, s) for s in seats}
            flagged = list(seats)
        before, state = state, game.step(state, moves)
        version = len(events) + 1
        events.append(
            {
                "version": version,
                "moves": {str(s): m.to_json() for s, m in moves.items()},
                "moves_public": prompt.sealed and not prompt.private,
                **({"moves_private": True} if prompt.private else {}),
                "defaults": flagged,
                "at": iso(t0 + timedelta(seconds=version)),
                "digest": hashlib.sha256(game.encode(state)).hexdigest(),
            }
        )
        if (
            takebacks
            and not prompt.sealed
            and reveals_nothing(game, before, state, seats[0], players)
        ):
            takebacks -= 1
            state = before
            events.append(
                {
                    "version": version + 1,
                    "moves": {},
                    "defaults": [],
                    "takeback": version,
                    "at": iso(t0 + timedelta(seconds=version + 1)),
                    "digest": hashlib.sha256(game.encode(state)).hexdigest(),
                }
            )
    over = game.prompt(state).over
    status = status or ("finished" if over else "playing")
    outcome = game.outcome(state)
    final = status in ("finished", "abandoned")
    record = {
        "game_id": game_id,
        "room": room,
        "engine": engine,
        "options": options,
        "players": players,
        "seats": [
            {
                "seat": i,
                "user": users[i] if i < len(users) else None,
                "name": (users[i] or f"Bot {i}") if i < len(users) else f"Bot {i}",
                "bot": None if i < len(users) and users[i] is not None else bots.get(i, "random"),
            }
            for i in range(players)
        ],
        "seed": seed.hex() if final else None,
        "seed_digest": hashlib.sha256(seed).hexdigest(),
        "created_at": iso(t0 - timedelta(minutes=1)),
        "started_at": iso(t0),
        "ended_at": iso(t0 + timedelta(seconds=len(events))) if final else None,
        "status": status,
        "outcome": outcome.to_json() if outcome and status == "finished" else None,
        "events": events,
    }
    if deal is not None:
        record["deal"] = {**deal, "server_seed": deal["server_seed"] if final else None}
    if public is not None:
        record["public"] = public
    return record


def encode(record: dict[str, Any]) -> bytes:
    return json.dumps(record, separators=(",", ":")).encode()


def snapshot_of(record: dict[str, Any], upto: int) -> dict[str, Any]:
    """The progressive "playing" record of ``record``'s first ``upto`` versions."""
    snapshot = {
        **record,
        "status": "playing",
        "seed": None,
        "ended_at": None,
        "outcome": None,
        "events": record["events"][:upto],
    }
    if record.get("deal"):
        snapshot["deal"] = {**record["deal"], "server_seed": None}
    return snapshot


async def push(redis: Any, stream: str, record: dict[str, Any] | bytes) -> bytes:
    """XADD a record onto ``stream`` the way the room server does; the entry id."""
    data = record if isinstance(record, bytes) else encode(record)
    entry_id: bytes = await redis.xadd(stream, {"record": data})
    return entry_id


async def put(redis: Any, prefix: str, record: dict[str, Any] | bytes) -> bytes:
    """XADD a record onto the archive stream of its room, as the room server does (bytes
    that are no record: onto the first stream); the entry id."""
    keys = Keys(prefix)
    stream = (
        keys.archive_streams[0] if isinstance(record, bytes) else keys.archive_of(record["room"])
    )
    return await push(redis, stream, record)


async def stream_state(redis: Any, prefix: str) -> tuple[int, int]:
    """(entries in the archive streams, entries pending in their groups)."""
    length = pending = 0
    for stream in Keys(prefix).archive_streams:
        if not await redis.exists(stream):
            continue
        length += await redis.xlen(stream)
        with contextlib.suppress(ResponseError):  # no group yet
            pending += int((await redis.xpending(stream, Keys(prefix).archive_group))["pending"])
    return length, pending


async def dead_letters(redis: Any, prefix: str) -> list[tuple[str, dict[bytes, bytes]]]:
    """Every dead letter, as (the archive stream it came from, its fields)."""
    keys = Keys(prefix)
    return [
        (stream, fields)
        for stream in keys.archive_streams
        for _, fields in await redis.xrange(keys.archive_dead(stream))
    ]


async def store(db: Any, record: dict[str, Any]) -> None:
    """Write a record straight to the archive, as the archiver does (one transaction)."""
    from server.archive.record import decode_record
    from server.archive.write import save_record

    async with db.session() as session, session.begin():
        await save_record(session, decode_record(encode(record)))
