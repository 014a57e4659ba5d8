"""A game played through two real server nodes reaches Postgres whole: archived from the
real archive stream, verified from its revealed seed, replayable, rated."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from tortuga_client import Node, archive_entries, autoplay, seat_players

from server.archive import history
from server.archive.archiver import Archiver
from server.archive.commands import verify
from server.archive.db import Database


@pytest.mark.parametrize(
    ("game_id", "options"),
    [
        ("skull-king", {"rounds": 2}),
        ("loon-tricks", {"rounds": 3}),
        ("pirate-king", {}),
        ("pearates", {"removed": 20, "more_actions": True}),
    ],
)
async def test_a_game_played_on_the_server_is_archived_verified_and_rated(
    two: list[Node],
    redis_client: Any,
    redis_prefix: str,
    archive_url: str,
    db: Database,
    game_id: str,
    options: dict[str, Any],
) -> None:
    table = await seat_players(two, 3, game=game_id, options=options)
    marks = [len(c.frames) for c in table.clients]
    assert (await table.clients[0].call("start"))["type"] == "ok"
    await asyncio.wait_for(
        asyncio.gather(
            *(autoplay(c, game_id, m) for c, m in zip(table.clients, marks, strict=True))
        ),
        60,
    )
    for _ in range(100):  # the final record is written just after the last step
        entries = await archive_entries(redis_client, redis_prefix)
        if any(json.loads(f[b"record"])["status"] == "finished" for _, f in entries):
            break
        await asyncio.sleep(0.05)

    archiver = Archiver(redis_client, db, redis_prefix, consumer="e2e")
    done = await archiver.drain()
    archived_id = f"{table.id}-1"
    # "playing" records at each sealed phase, then the finished one: one game.
    assert done.error is None and set(done.archived) == {archived_id}

    report = await verify(archive_url, archived_id)
    assert report.ok, report.message
    async with db.session() as session:
        record = await history.game_record(session, archived_id)
        replay = await history.replay_game(session, archived_id)
    assert record["status"] == "finished" and record["rated"] is True
    assert [s["user"] for s in record["seats"]] == [c.user["id"] for c in table.clients]
    assert all(s["rating_after"] is not None for s in record["seats"])
    assert replay["verified"] is True
    assert len(replay["frames"]) == record["versions"] == len(record["events"])
    assert replay["frames"][-1]["view"]["outcome"] == record["outcome"]
