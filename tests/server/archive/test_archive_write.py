"""The write of a record (server/archive/write.py) runs statements built once, not one
statement object per record (issue 15: building them cost a node about 8 ms of CPU per
record, a third of its CPU under load), and stores what it stored before."""

from __future__ import annotations

from typing import Any

from archive_helpers import encode, play_record, snapshot_of
from sqlalchemy import select

from server.archive import write
from server.archive.db import Database
from server.archive.models import Event, Game, Seat, User
from server.archive.record import decode_record

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
