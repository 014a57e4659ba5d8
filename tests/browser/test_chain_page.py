"""A game played in Chromium, then its archived record rewritten in Postgres by an insider
who recomputes every digest and hash they can (tests/server/insider.py): a move changed, an
event dropped, two events swapped, a seat's contribution to the deal replaced. Each time the
player's own page says the record differs from what the browser saw, at that move, and
``tortuga verify`` (server/archive/commands.py, what the CLI runs) names the broken
signature. The honest record passes both."""

from __future__ import annotations

import asyncio
import concurrent.futures
import copy
import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from players import Person, play_until_over
from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
import insider

from server.archive.commands import read_heads, verify
from server.archive.db import Database

pytestmark = pytest.mark.browser


def _run(coro: Any) -> Any:
    """A coroutine run to its end beside Playwright's own event loop."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


async def _load(url: str, game_id: str) -> dict[str, Any]:
    """The game as the insider reads it from Postgres, in the record's shape."""
    db = Database(url)
    try:
        async with db.session() as s:
            game = (
                (await s.execute(text("SELECT * FROM games WHERE id = :g"), {"g": game_id}))
                .mappings()
                .one()
            )
            rows = (
                (
                    await s.execute(
                        text("SELECT * FROM events WHERE game_id = :g ORDER BY version"),
                        {"g": game_id},
                    )
                )
                .mappings()
                .all()
            )
    finally:
        await db.close()
    events = [
        {
            k: row[k]
            for k in (
                "version",
                "moves",
                "defaults",
                "proxies",
                "takeback",
                "moves_public",
                "moves_private",
                "digest",
                "head",
                "chain",
            )
        }
        | {"at": row["at"].isoformat()}
        for row in rows
    ]
    return {
        "game_id": game_id,
        "engine": game["engine"],
        "options": game["options"],
        "players": game["players"],
        "seed": game["seed"],
        "seed_digest": game["seed_digest"],
        "deal": game["deal"],
        "outcome": game["outcome"],
        "events": events,
    }


async def _store(url: str, record: dict[str, Any]) -> None:
    """The insider writes the rewritten game back: the game's row and every event."""
    db = Database(url)
    try:
        async with db.session() as s, s.begin():
            await s.execute(
                text(
                    "UPDATE games SET seed = :seed, seed_digest = :sd, "
                    "deal = CAST(:deal AS jsonb), "
                    "outcome = CAST(:outcome AS jsonb), last_version = :last WHERE id = :g"
                ),
                {
                    "g": record["game_id"],
                    "seed": record["seed"],
                    "sd": record["seed_digest"],
                    "deal": json.dumps(record["deal"]),
                    "outcome": json.dumps(record["outcome"]),
                    "last": max(e["version"] for e in record["events"]),
                },
            )
            await s.execute(text("DELETE FROM events WHERE game_id = :g"), {"g": record["game_id"]})
            for e in record["events"]:
                await s.execute(
                    text(
                        "INSERT INTO events (game_id, version, moves, defaults, proxies, takeback, "
                        "moves_public, moves_private, at, digest, head, chain) VALUES (:g, :v, "
                        "CAST(:moves AS jsonb), CAST(:defaults AS jsonb), CAST(:proxies AS jsonb), "
                        ":takeback, :public, :private, :at, :digest, :head, "
                        "CAST(:chain AS jsonb))"
                    ),
                    {
                        "g": record["game_id"],
                        "v": e["version"],
                        "moves": json.dumps(e["moves"]),
                        "defaults": json.dumps(e["defaults"]),
                        "proxies": json.dumps(e["proxies"]),
                        "takeback": e["takeback"],
                        "public": e["moves_public"],
                        "private": e["moves_private"],
                        "at": datetime.fromisoformat(e["at"]),
                        "digest": e["digest"],
                        "head": e["head"],
                        "chain": json.dumps(e["chain"]),
                    },
                )
    finally:
        await db.close()


def _page_says(ann: Person, code: str) -> tuple[str, str]:
    """The room page, loaded afresh: what its chain line says (state, text)."""
    ann.open(f"/r/{code}")
    line = ann.page.wait_for_selector("p.chain-check", timeout=30_000)
    return str(line.get_attribute("data-chain")), line.inner_text()


def test_the_players_browser_tells_a_rewritten_record(
    site: str, chromium: Any, database_url: str
) -> None:
    ann = Person(chromium, site, "Ann", hold_ms=50)
    try:
        ann.open("/")
        ann.choose_name()
        code = ann.create_room(rounds=2, seats=2)
        ann.add_bot("heuristic")
        ann.ready()
        ann.page.get_by_role("button", name="Start the game").click()
        play_until_over([ann])
        state, said = _page_says(ann, code)
        assert state == "ok", said
        assert "is exactly the game your browser saw" in said
        game_id = f"{code}-1"
        # The player saves the heads her browser was sent: the file `tortuga verify --heads`
        # checks any copy of the archive against, without her browser.
        with ann.page.expect_download() as download:
            ann.page.get_by_role("button", name="Save what my browser saw").click()
        saved = json.loads(Path(download.value.path()).read_text())
        assert saved["room"] == code and saved["game_id"] == game_id
        seen = read_heads(json.dumps(saved))
        assert len(seen) >= 4
        report = _run(verify(database_url, game_id, seen))
        assert report.ok, report.message
        assert "head(s) the device saw are the archive's" in report.message
        assert "the move chain holds from the deal to the end" in report.message
        original = _run(_load(database_url, game_id))
        # Ann's own moves are signed by her browser's key; the bot's by the server's.
        bys = {s: p["by"] for e in original["events"] for s, p in e["chain"]["moves"].items()}
        assert bys == {"0": "player", "1": "server"}
        opens = [
            e["version"]
            for e in original["events"]
            if e["version"] > 2
            and any(p["l"].startswith("act@") for p in e["chain"]["moves"].values())
        ]

        def rewritten(change: Any) -> dict[str, Any]:
            record = copy.deepcopy(original)
            change(record)
            insider.recompute(record)
            return record

        cases = [
            ("a move rewritten", lambda r: insider.rewrite_bid(r), None),
            ("an event dropped", lambda r: insider.drop_event(r, opens[0]), opens[0]),
            ("two events swapped", lambda r: insider.swap_events(r, opens[0]), opens[0]),
            ("a contribution replaced", lambda r: insider.replace_contribution(r, 0), 1),
        ]
        for what, change, at in cases:
            changed: list[int] = []
            record = rewritten(lambda r, c=change, out=changed: out.append(c(r) or 0))
            where = at if at is not None else changed[0]
            _run(_store(database_url, record))
            state, said = _page_says(ann, code)
            assert state == "bad", (what, said)
            assert (
                f"This game's record differs from what your browser saw at move {where}." in said
            ), (
                what,
                said,
            )
            report = _run(verify(database_url, game_id))
            assert not report.ok, what
            assert "broken signature" in report.message, (what, report.message)
            report = _run(verify(database_url, game_id, seen))
            assert not report.ok and report.version == where, (what, report.message)
            assert f"differs from what the device saw at move {where}" in report.message
            _run(_store(database_url, original))  # the next insider starts from the truth
        state, said = _page_says(ann, code)
        assert state == "ok", said
        assert not [e for e in ann.errors if "signature" in e or "unknown-key" in e]
    finally:
        ann.close()
