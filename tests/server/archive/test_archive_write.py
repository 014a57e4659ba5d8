"""The write of a record (server/archive/write.py) runs statements built once, not one
statement object per record (building them cost a node about 8 ms of CPU per
record, a third of its CPU under load), and stores what it stored before."""

from __future__ import annotations

import json
from typing import Any

import pytest
from archive_helpers import encode, play_record, snapshot_of, store
from sqlalchemy import bindparam, select, text
from sqlalchemy.dialects.postgresql import JSONB

from server.archive import write
from server.archive.db import Database
from server.archive.models import Event, Game, Seat, User
from server.archive.record import RecordError, decode_record

PREBUILT = {
    id(write._UPSERT_USERS),
    id(write._UPSERT_SEATS),
    id(write._INSERT_GAME),
    id(write._STORED_GAME),
    id(write._UPDATE_GAME),
    id(write._LAST_VERSION),
    id(write._INSERT_EVENT),
}


async def test_checkpoints_and_the_end_use_only_prebuilt_statements(db: Database) -> None:
    record = play_record(players=4, rounds=2)
    executed: list[Any] = []
    snapshots = [snapshot_of(record, upto) for upto in (1, 5, 9)]
    for one in [*snapshots, snapshots[1], record]:  # a late, shorter snapshot changes nothing
        async with db.session() as session, session.begin():

            async def spy(
                statement: Any, *args: Any, real: Any = session.execute, **kw: Any
            ) -> Any:
                executed.append(statement)
                return await real(statement, *args, **kw)

            session.execute = spy  # type: ignore[method-assign]
            await write.save_record(session, decode_record(encode(one)))
    # Ratings (once per game, at its end) build theirs; every other statement is shared.
    built = [s for s in executed if id(s) not in PREBUILT]
    assert all("ratings" in str(s) or "rated_at" in str(s) or "ordinal" in str(s) for s in built)
    assert len(executed) - len(built) >= 5 * 4

    game_id = record["game_id"]
    async with db.session() as session:
        game = (await session.execute(select(Game).where(Game.id == game_id))).scalar_one()
        assert game.status == "finished" and game.last_version == len(record["events"])
        assert game.seed == record["seed"] and game.outcome == record["outcome"]
        versions = (
            await session.scalars(
                select(Event.version).where(Event.game_id == game_id).order_by(Event.version)
            )
        ).all()
        assert versions == [e["version"] for e in record["events"]]
        seats = (
            await session.scalars(select(Seat).where(Seat.game_id == game_id).order_by(Seat.seat))
        ).all()
        assert [s.score for s in seats] == record["outcome"]["scores"]
        users = {s["user"] for s in record["seats"]}
        named = (await session.scalars(select(User.id).where(User.id.in_(users)))).all()
        assert set(named) == users


def checkpoint_of(record: dict[str, Any], since: int, upto: int) -> dict[str, Any]:
    """A checkpoint as the room server writes it now: the events ``since .. upto`` only."""
    return {
        **snapshot_of(record, upto),
        "events_from": since,
        "events": record["events"][since - 1 : upto],
    }


async def stored_versions(db: Database, game_id: str) -> tuple[int, list[int]]:
    async with db.session() as session:
        game = (await session.execute(select(Game).where(Game.id == game_id))).scalar_one()
        versions = (
            await session.scalars(
                select(Event.version).where(Event.game_id == game_id).order_by(Event.version)
            )
        ).all()
    return int(game.last_version), list(versions)


async def test_checkpoints_carry_the_events_since_the_one_before_and_add_up(
    db: Database,
) -> None:
    """A checkpoint holds only "the events since the checkpoint before it (events_from)":
    stored in order, the game's events are every version so far, each once."""
    record = play_record(players=4, rounds=2)
    game_id = record["game_id"]
    await store(db, checkpoint_of(record, 1, 1))
    await store(db, checkpoint_of(record, 2, 5))
    assert await stored_versions(db, game_id) == (5, [1, 2, 3, 4, 5])
    await store(db, checkpoint_of(record, 2, 5))  # the same checkpoint again: nothing new
    await store(db, checkpoint_of(record, 6, 9))
    assert await stored_versions(db, game_id) == (9, list(range(1, 10)))
    await store(db, record)
    last = len(record["events"])
    assert await stored_versions(db, game_id) == (last, list(range(1, last + 1)))


async def test_a_checkpoint_after_the_first_looks_its_game_up_once_and_inserts_no_game(
    db: Database,
) -> None:
    """A checkpoint after the game's first looks the game's row up (locked) to know its
    predecessor is stored; that look-up serves the rest of the write: no insert of the
    game, no second look-up. Its events are stored as before."""
    record = play_record(players=4, rounds=2)
    await store(db, checkpoint_of(record, 1, 1))
    executed: list[Any] = []
    async with db.session() as session, session.begin():

        async def spy(statement: Any, *args: Any, real: Any = session.execute, **kw: Any) -> Any:
            executed.append(statement)
            return await real(statement, *args, **kw)

        session.execute = spy  # type: ignore[method-assign]
        saved = await write.save_record(session, decode_record(encode(checkpoint_of(record, 2, 5))))
    assert saved is write.Saved.UPDATED
    assert executed.count(write._STORED_GAME) == 1 and write._INSERT_GAME not in executed
    assert await stored_versions(db, record["game_id"]) == (5, [1, 2, 3, 4, 5])


async def save(db: Database, record: dict[str, Any], accept_gap: bool = False) -> write.Saved:
    async with db.session() as session, session.begin():
        return await write.save_record(
            session, decode_record(encode(record)), accept_gap=accept_gap
        )


async def test_a_checkpoint_ahead_of_its_game_waits_then_leaves_its_events_to_the_final(
    db: Database,
) -> None:
    """A checkpoint whose predecessor is not stored ("another archiver may be writing it
    this instant") writes nothing and says ``GAP``: the archiver tries it again. Given up
    on (the one before was lost with its node), the game is stored without its events --
    they would leave a hole below them, and a game's events are every version up to its
    last_version -- and the final record, every event, fills it all."""
    record = play_record(players=4, rounds=2)
    game_id = record["game_id"]
    assert await save(db, checkpoint_of(record, 6, 9)) is write.Saved.GAP
    async with db.session() as session:
        assert (await session.execute(select(Game).where(Game.id == game_id))).first() is None
    await save(db, checkpoint_of(record, 6, 9), accept_gap=True)
    assert await stored_versions(db, game_id) == (0, [])
    await store(db, checkpoint_of(record, 1, 1))
    assert await save(db, checkpoint_of(record, 10, 12)) is write.Saved.GAP  # 2..9 missing
    await save(db, checkpoint_of(record, 10, 12), accept_gap=True)
    assert await stored_versions(db, game_id) == (1, [1])
    await store(db, record)
    last = len(record["events"])
    assert await stored_versions(db, game_id) == (last, list(range(1, last + 1)))


def test_a_record_whose_events_start_before_events_from_or_a_partial_final_is_refused() -> None:
    record = play_record(players=4, rounds=1)
    with pytest.raises(RecordError, match="events_from"):
        decode_record(encode({**snapshot_of(record, 3), "events_from": 2}))
    with pytest.raises(RecordError, match="every event"):
        decode_record(encode({**record, "events_from": 2, "events": record["events"][1:]}))


async def test_json_columns_take_msgspecs_text_and_the_standard_librarys_past_64_bits(
    db: Database,
) -> None:
    """JSONB parameters are written with msgspec's encoder (the archive writes every
    move's JSON); a value it cannot encode (an integer past 64 bits) still goes in, as the
    standard library writes it, and both read back as the same values."""
    from server.archive.db import _json_text

    moves = {"0": {"card": "skull-king", "note": 'héllo \u2028 "q"'}, "1": [1, 2.5, None]}
    assert json.loads(_json_text(moves)) == moves
    huge = {"n": 2**70}
    assert json.loads(_json_text(huge)) == huge
    async with db.engine.connect() as conn:
        row = (
            await conn.execute(
                text("SELECT CAST(:a AS jsonb) AS a, CAST(:b AS jsonb) AS b").bindparams(
                    bindparam("a", type_=JSONB), bindparam("b", type_=JSONB)
                ),
                {"a": moves, "b": huge},
            )
        ).one()
    assert row.a == moves and row.b == huge
