"""The archiver: records from the Redis archive stream into Postgres, exactly once in effect."""

from __future__ import annotations

import asyncio
import json
import secrets
from typing import Any

import pytest
import redis.asyncio as aioredis
from archive_helpers import dead_letters, play_record, push, put, snapshot_of, stream_state
from sqlalchemy import select

from server.archive.archiver import Archiver
from server.archive.db import Database
from server.archive.models import Event, Game, Rating, Seat, User
from server.redis.store import Keys


def make(redis: aioredis.Redis, db: Database | str, prefix: str, **kw: Any) -> Archiver:
    kw.setdefault("consumer", f"test-{secrets.token_hex(3)}")
    return Archiver(redis, db, prefix, backoff_min=0.01, **kw)


async def snapshot(db: Database, game_id: str) -> dict[str, Any]:
    """Every stored row that belongs to one game (and its users' ratings)."""
    async with db.session() as s:
        game = await s.get(Game, game_id)
        seats = (await s.scalars(select(Seat).where(Seat.game_id == game_id))).all()
        events = (await s.scalars(select(Event).where(Event.game_id == game_id))).all()
        users = [x.user_id for x in seats if x.user_id]
        ratings = (await s.scalars(select(Rating).where(Rating.user_id.in_(users)))).all()
        people = (await s.scalars(select(User).where(User.id.in_(users)))).all()

    def row(obj: Any) -> dict[str, Any]:
        return {c.key: getattr(obj, c.key) for c in obj.__table__.columns}

    return {
        "game": row(game) if game else None,
        "seats": sorted((row(x) for x in seats), key=lambda r: r["seat"]),
        "events": sorted((row(x) for x in events), key=lambda r: r["version"]),
        "ratings": sorted((row(x) for x in ratings), key=lambda r: r["user_id"]),
        "users": sorted((row(x) for x in people), key=lambda r: r["id"]),
    }


async def test_a_finished_game_is_archived_whole(
    redis_client: aioredis.Redis, redis_prefix: str, db: Database
) -> None:
    record = play_record(players=4, rounds=2)
    await put(redis_client, redis_prefix, record)
    done = await make(redis_client, db, redis_prefix).drain()
    assert done.error is None
    assert done.archived == [record["game_id"]]
    assert await stream_state(redis_client, redis_prefix) == (0, 0)

    got = await snapshot(db, record["game_id"])
    game = got["game"]
    assert game["status"] == "finished" and game["engine"] == "skull-king"
    assert game["seed"] == record["seed"] and game["seed_digest"] == record["seed_digest"]
    assert game["outcome"] == record["outcome"]
    assert game["last_version"] == len(record["events"])
    assert game["rated_at"] is not None
    assert [(s["user_id"], s["score"], s["rank"]) for s in got["seats"]] == [
        (seat["user"], score, rank)
        for seat, score, rank in zip(
            record["seats"], record["outcome"]["scores"], record["outcome"]["ranks"], strict=True
        )
    ]
    assert [(e["version"], e["moves"], e["digest"]) for e in got["events"]] == [
        (e["version"], e["moves"], e["digest"]) for e in record["events"]
    ]
    assert [u["id"] for u in got["users"]] == sorted(s["user"] for s in record["seats"])
    assert len(got["ratings"]) == 4 and all(r["games"] == 1 for r in got["ratings"])
    winners = {
        seat["user"]
        for seat, rank in zip(record["seats"], record["outcome"]["ranks"], strict=True)
        if rank == 1
    }
    best = max(got["ratings"], key=lambda r: r["ordinal"])
    assert best["user_id"] in winners


async def test_the_same_record_twice_changes_nothing(
    redis_client: aioredis.Redis, redis_prefix: str, db: Database
) -> None:
    record = play_record(players=3, rounds=2)
    archiver = make(redis_client, db, redis_prefix)
    await put(redis_client, redis_prefix, record)
    assert (await archiver.drain()).archived == [record["game_id"]]
    before = await snapshot(db, record["game_id"])

    await put(redis_client, redis_prefix, record)
    await put(redis_client, redis_prefix, record)
    again = await archiver.drain()
    assert again.error is None and again.archived == []
    assert again.unchanged == [record["game_id"]] * 2
    assert await snapshot(db, record["game_id"]) == before
    assert await stream_state(redis_client, redis_prefix) == (0, 0)


async def test_progressive_snapshots_merge_and_never_go_back(
    redis_client: aioredis.Redis, redis_prefix: str, db: Database
) -> None:
    record = play_record(players=3, rounds=3)
    game_id = record["game_id"]
    archiver = make(redis_client, db, redis_prefix)

    await put(redis_client, redis_prefix, snapshot_of(record, 8))
    await archiver.drain()
    got = await snapshot(db, game_id)
    assert got["game"]["status"] == "playing" and got["game"]["seed"] is None
    assert len(got["events"]) == 8 and got["ratings"] == []

    # A longer snapshot, then a late shorter one: the log only grows.
    await put(redis_client, redis_prefix, snapshot_of(record, 20))
    await put(redis_client, redis_prefix, snapshot_of(record, 5))
    done = await archiver.drain()
    assert done.archived == [game_id] and done.unchanged == [game_id]
    got = await snapshot(db, game_id)
    assert got["game"]["last_version"] == 20 and len(got["events"]) == 20

    # The finished record completes it and rates it, once.
    await put(redis_client, redis_prefix, record)
    await put(redis_client, redis_prefix, snapshot_of(record, 12))
    await archiver.drain()
    got = await snapshot(db, game_id)
    assert got["game"]["status"] == "finished" and got["game"]["seed"] == record["seed"]
    assert len(got["events"]) == len(record["events"])
    assert [r["games"] for r in got["ratings"]] == [1, 1, 1]
    final = got

    # A late snapshot after the end changes nothing at all.
    await put(redis_client, redis_prefix, snapshot_of(record, 25))
    await put(redis_client, redis_prefix, record)
    assert (await archiver.drain()).archived == []
    assert await snapshot(db, game_id) == final


async def test_abandoned_games_are_kept_and_not_rated(
    redis_client: aioredis.Redis, redis_prefix: str, db: Database
) -> None:
    record = play_record(players=3, rounds=3, stop_after=10, status="abandoned")
    await put(redis_client, redis_prefix, record)
    assert (await make(redis_client, db, redis_prefix).drain()).archived == [record["game_id"]]
    got = await snapshot(db, record["game_id"])
    assert got["game"]["status"] == "abandoned" and got["game"]["seed"] == record["seed"]
    assert got["game"]["outcome"] is None and got["game"]["rated_at"] is None
    assert len(got["events"]) == 10 and got["ratings"] == []


async def test_only_two_or_more_humans_are_rated_and_only_them(
    redis_client: aioredis.Redis, redis_prefix: str, db: Database
) -> None:
    lone = play_record(players=3, users=[f"u-{secrets.token_hex(4)}", None, None])
    pair = play_record(
        players=4,
        users=[f"u-{secrets.token_hex(4)}", None, f"u-{secrets.token_hex(4)}", None],
        bots={1: "heuristic", 3: "random"},
    )
    await put(redis_client, redis_prefix, lone)
    await put(redis_client, redis_prefix, pair)
    await make(redis_client, db, redis_prefix).drain()

    got = await snapshot(db, lone["game_id"])
    assert got["ratings"] == [] and got["game"]["rated_at"] is None
    got = await snapshot(db, pair["game_id"])
    assert [r["user_id"] for r in got["ratings"]] == sorted(
        s["user"] for s in pair["seats"] if s["user"]
    )
    assert [s["bot"] for s in got["seats"]] == [None, "heuristic", None, "random"]
    rated = [s for s in got["seats"] if s["ordinal_after"] is not None]
    assert [s["seat"] for s in rated] == [0, 2]


async def test_ratings_accumulate_over_games(
    redis_client: aioredis.Redis, redis_prefix: str, db: Database
) -> None:
    users: list[str | None] = [f"u-{secrets.token_hex(4)}" for _ in range(3)]
    records = [play_record(players=3, rounds=1, users=users) for _ in range(3)]
    for record in records:  # one stream: the order of its entries is the order of rating
        await push(redis_client, Keys(redis_prefix).archive_streams[0], record)
    await make(redis_client, db, redis_prefix).drain()
    got = await snapshot(db, records[-1]["game_id"])
    assert [r["games"] for r in got["ratings"]] == [3, 3, 3]
    # Each game's seats remember the rating before and after it, chained.
    chain = []
    for record in records:
        seats = (await snapshot(db, record["game_id"]))["seats"]
        chain.append((seats[0]["ordinal_before"], seats[0]["ordinal_after"]))
    assert chain[0][0] == 0.0
    assert chain[1][0] == chain[0][1] and chain[2][0] == chain[1][1]


@pytest.mark.cluster
async def test_records_that_cannot_be_stored_go_to_the_dead_letter_stream(
    redis_client: aioredis.Redis, redis_prefix: str, db: Database
) -> None:
    """Each dead letter goes to its own stream's dead-letter stream (in that stream's slot:
    on a cluster the move is one transaction on that stream's primary)."""
    keys = Keys(redis_prefix)
    good = play_record(players=2, rounds=1)
    no_seed = {**play_record(players=2, rounds=1), "seed": None}  # finished, seed withheld
    await put(redis_client, redis_prefix, b"{not json")
    await put(redis_client, redis_prefix, no_seed)
    await put(redis_client, redis_prefix, good)
    done = await make(redis_client, db, redis_prefix).drain()
    assert done.error is None
    assert done.archived == [good["game_id"]] and len(done.dead) == 2
    assert await stream_state(redis_client, redis_prefix) == (0, 0)
    dead = await dead_letters(redis_client, redis_prefix)
    assert len(dead) == 2
    ((garbled_stream, _),) = [d for d in dead if d[1][b"record"] == b"{not json"]
    assert garbled_stream == keys.archive_streams[0]
    ((seedless_stream, seedless),) = [d for d in dead if d[1][b"record"] != b"{not json"]
    assert seedless_stream == keys.archive_of(no_seed["room"])
    assert b"reveals its seed" in seedless[b"error"]
    assert json.loads(seedless[b"record"])["game_id"] == no_seed["game_id"]
    assert (await snapshot(db, no_seed["game_id"]))["game"] is None


@pytest.mark.cluster
async def test_entries_of_a_dead_consumer_are_claimed(
    redis_client: aioredis.Redis, redis_prefix: str, archive_url: str, db: Database
) -> None:
    """A node took entries and died before writing them: another archiver claims them."""
    records = [play_record(players=2, rounds=1) for _ in range(3)]
    for record in records:
        await put(redis_client, redis_prefix, record)
    dying = make(redis_client, "postgresql+asyncpg://postgres@127.0.0.1:1/none", redis_prefix)
    failed = await dying.run_once()
    await dying.db.close()
    assert failed.error is not None and failed.archived == []
    assert await stream_state(redis_client, redis_prefix) == (3, 3)

    patient = make(redis_client, db, redis_prefix, claim_idle_ms=60_000)
    assert (await patient.drain()).read == 0  # not idle long enough to be presumed dead
    survivor = make(redis_client, db, redis_prefix, claim_idle_ms=0)
    done = await survivor.drain()
    assert sorted(done.archived) == sorted(r["game_id"] for r in records)
    assert await stream_state(redis_client, redis_prefix) == (0, 0)


async def test_a_record_that_keeps_failing_while_postgres_answers_is_given_up(
    redis_client: aioredis.Redis,
    redis_prefix: str,
    db: Database,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Not an outage: the database answers, yet this one record fails every time. After a
    few tries it goes to the dead-letter stream instead of blocking every game behind it."""
    from server.archive import archiver as module

    cursed, good = play_record(players=2, rounds=1), play_record(players=2, rounds=1)
    real = module.save_record

    async def flaky(session: Any, record: Any, **options: Any) -> Any:
        if record.game_id == cursed["game_id"]:
            raise RuntimeError("a bug this record triggers")
        return await real(session, record, **options)

    monkeypatch.setattr(module, "save_record", flaky)
    stream = Keys(redis_prefix).archive_streams[0]  # the good one behind the cursed one
    await push(redis_client, stream, cursed)
    await push(redis_client, stream, good)
    archiver = make(redis_client, db, redis_prefix, max_strikes=3)
    passes = [await archiver.run_once() for _ in range(4)]
    assert [p.error is not None for p in passes] == [True, True, False, False]
    assert passes[2].dead and passes[2].archived == [good["game_id"]]
    assert await stream_state(redis_client, redis_prefix) == (0, 0)
    ((dead_stream, dead),) = await dead_letters(redis_client, redis_prefix)
    assert dead_stream == stream
    assert b"failed 3 times while the database answered" in dead[b"error"]


@pytest.mark.cluster
async def test_archivers_on_several_nodes_share_the_stream(
    redis_client: aioredis.Redis, redis_prefix: str, db: Database
) -> None:
    """Three archivers (as on three nodes) take entries concurrently: every record of the
    same players, duplicates and snapshots of one game included, lands exactly once."""
    users: list[str | None] = [f"u-{secrets.token_hex(4)}" for _ in range(3)]
    records = [play_record(players=3, rounds=2, users=users) for _ in range(6)]
    archivers = [
        Archiver(redis_client, db, redis_prefix, consumer=f"node-{i}", batch=3, block_ms=20)
        for i in range(3)
    ]
    for archiver in archivers:
        archiver.start()
    try:
        for record in records:
            for upto in (4, 9):
                await put(redis_client, redis_prefix, snapshot_of(record, upto))
            await put(redis_client, redis_prefix, record)
            await put(redis_client, redis_prefix, record)
        await archivers[0].ensure_group()
        for _ in range(400):
            if await stream_state(redis_client, redis_prefix) == (0, 0):
                break
            await asyncio.sleep(0.025)
    finally:
        for archiver in archivers:
            await archiver.stop()
    assert await stream_state(redis_client, redis_prefix) == (0, 0)
    for record in records:
        got = await snapshot(db, record["game_id"])
        assert got["game"]["status"] == "finished"
        assert len(got["events"]) == len(record["events"])
    assert [r["games"] for r in got["ratings"]] == [6, 6, 6]


@pytest.mark.cluster
async def test_a_quiet_stream_never_holds_up_another(
    redis_client: aioredis.Redis, redis_prefix: str, db: Database
) -> None:
    """Each stream is read in a lane of its own: with every lane waiting (a minute) for
    new entries, a record on any one stream is archived at once -- a reader going round
    the streams one blocking read at a time would sit out the minute on each empty one."""
    records = [play_record(players=2, rounds=1) for _ in range(12)]
    keys = Keys(redis_prefix)
    assert len({keys.archive_of(r["room"]) for r in records}) > 1  # several streams
    archiver = make(redis_client, db, redis_prefix, block_ms=60_000)
    await archiver.ensure_group()
    archiver.start()
    try:
        for _ in range(200):  # every lane is in its blocking read
            if all(lane.reading for lane in archiver.lanes):
                break
            await asyncio.sleep(0.01)
        for record in records:
            await put(redis_client, redis_prefix, record)
        for _ in range(400):  # bounded well below the minute
            if await stream_state(redis_client, redis_prefix) == (0, 0):
                break
            await asyncio.sleep(0.025)
        assert await stream_state(redis_client, redis_prefix) == (0, 0)
    finally:
        await archiver.stop()
    for record in records:
        assert (await snapshot(db, record["game_id"]))["game"]["status"] == "finished"


@pytest.mark.cluster
async def test_the_backlog_counts_every_stream_and_every_dead_letter(
    redis_client: aioredis.Redis, redis_wire: Any, redis_prefix: str
) -> None:
    """``/metrics`` reads the backlog, its oldest record and the dead letters over every
    archive stream, not one."""
    from server.redis.store import Store

    keys = Keys(redis_prefix)
    store = Store(redis_client, redis_wire, keys)
    assert await store.archive_backlog() == (0, None, 0)
    records = [play_record(players=2, rounds=1) for _ in range(7)]
    first = await put(redis_client, redis_prefix, records[0])
    for record in records[1:]:
        await put(redis_client, redis_prefix, record)
    stream = keys.archive_of(records[0]["room"])
    other = next(s for s in keys.archive_streams if s != stream)
    await redis_client.xadd(keys.archive_dead(stream), {"e": "x"})
    await redis_client.xadd(keys.archive_dead(other), {"e": "y"})
    length, oldest, dead = await store.archive_backlog()
    assert (length, dead) == (7, 2)
    assert oldest == int(first.split(b"-")[0])


def _checkpoint(record: dict[str, Any], since: int, upto: int) -> dict[str, Any]:
    return {
        **snapshot_of(record, upto),
        "events_from": since,
        "events": record["events"][since - 1 : upto],
    }


async def test_a_checkpoint_read_before_the_one_before_it_waits_for_it(
    redis_client: aioredis.Redis, redis_prefix: str, db: Database
) -> None:
    """Archivers on several nodes read one stream: a game's second checkpoint can be taken
    up while the first is still being written. It stays pending ("the one before is not
    stored yet") and is written once that one is: every event, each once."""
    record = play_record(players=3, rounds=3)
    game_id = record["game_id"]
    archiver = make(redis_client, db, redis_prefix)
    await put(redis_client, redis_prefix, _checkpoint(record, 6, 12))  # read first
    await put(redis_client, redis_prefix, _checkpoint(record, 1, 5))
    first = await archiver.run_once()
    assert first.waiting == 1 and first.archived == [game_id]
    assert len((await snapshot(db, game_id))["events"]) == 5
    await archiver.drain()
    got = await snapshot(db, game_id)
    assert [e["version"] for e in got["events"]] == list(range(1, 13))
    assert got["game"]["last_version"] == 12
    assert await stream_state(redis_client, redis_prefix) == (0, 0)


async def test_a_checkpoint_whose_predecessor_never_comes_is_stored_without_its_events(
    redis_client: aioredis.Redis, redis_prefix: str, db: Database
) -> None:
    """After ``gap_wait`` the one before is taken for lost (its node died before writing
    it): the game is stored, its events wait for the final record, the entry goes."""
    record = play_record(players=3, rounds=3)
    game_id = record["game_id"]
    archiver = make(redis_client, db, redis_prefix, gap_wait=0.05)
    await put(redis_client, redis_prefix, _checkpoint(record, 6, 12))
    assert (await archiver.run_once()).waiting == 1
    await asyncio.sleep(0.1)
    again = await archiver.run_once()
    assert again.waiting == 0 and again.archived == [game_id]
    got = await snapshot(db, game_id)
    assert got["game"]["status"] == "playing" and got["events"] == []
    assert await stream_state(redis_client, redis_prefix) == (0, 0)
    await put(redis_client, redis_prefix, record)
    await archiver.drain()
    assert len((await snapshot(db, game_id))["events"]) == len(record["events"])
