"""The bot ladder: the arena matches ready bot accounts with each other and the server's bots,
the games are archived with replays and rated on the bot ladder only -- never on people's
ratings, also when a person sat at a bot's table."""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path
from typing import Any

import httpx
from archive_helpers import encode, play_record
from sqlalchemy import select
from tortuga_bot import ladder
from tortuga_bot.loader import load
from tortuga_client import guest

from server.archive.db import Database
from server.archive.models import Game, LadderRating, Rating
from server.archive.record import decode_record
from server.archive.write import RatingRules, save_record

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


async def test_the_arena_plays_a_round_and_rates_it_on_the_ladder_only(
    start: Any, archive_url: str, db: Database
) -> None:
    """ "The ladder runs a round of matches and rates them on the bot ladder only": two bot
    accounts say they are ready; the arena seats them with a server bot, in a shuffled
    order; both play through the library; the archived game has a replay, the ladder lists
    both bots and the server's bot, and no person's rating moved."""
    node = await start(
        "a",
        database_url=archive_url,
        ladder_tables=1,
        ladder_players=3,
        ladder_every_seconds=0.2,
        ladder_options={"pearates": {"removed": 60}},  # a short game
    )
    owner_token, owner = await guest(node, "Owner")
    tokens = []
    async with httpx.AsyncClient(base_url=node.url) as http:
        for name in ("Polly", "Flint"):
            r = await http.post(
                "/api/me/bots",
                json={"name": f"{name} {secrets.token_hex(2)}"},
                headers={"Authorization": f"Bearer {owner_token}"},
            )
            tokens.append(r.json()["token"])
    bot, _ = load(str(EXAMPLES / "pearates.py"))
    results = await asyncio.wait_for(
        asyncio.gather(
            *(ladder(node.url, bot, t, ["pearates"], count=1, poll=0.2) for t in tokens)
        ),
        60,
    )
    (a,), (b,) = results
    assert a.room == b.room and a.status == b.status == "finished"
    assert a.seed_check is None and b.seed_check is None
    game_id = a.game_id
    async with httpx.AsyncClient(base_url=node.url) as http:
        for _ in range(100):  # the node's archiver stores the record
            board = (await http.get("/api/history/ladder/pearates")).json()
            if any(g["game_id"] == game_id for g in board["games"]):
                break
            await asyncio.sleep(0.1)
        mine = [e for e in board["entries"] if e["owner"] and e["owner"]["id"] == owner["id"]]
        assert len(mine) == 2 and all(e["games"] == 1 for e in mine)
        assert any(e["entrant"] == "server:heuristic" for e in board["entries"])
        replay = (await http.get(f"/api/history/games/{game_id}/replay")).json()
        assert replay["verified"] is True
        record = (await http.get(f"/api/history/games/{game_id}")).json()
    assert sorted(s["bot"] or "account" for s in record["seats"]) == [
        "account",
        "account",
        "heuristic",
    ]
    async with db.session() as session:
        users = [s["user"] for s in record["seats"] if s["user"]]
        people = await session.scalars(select(Rating).where(Rating.user_id.in_(users)))
        assert list(people) == []
        assert (await session.get(Game, game_id)).ladder is True


async def test_a_person_at_a_bots_table_is_not_rated(db: Database) -> None:
    """ "Bots' games are rated on a separate bot ladder; they never change people's
    ratings": two people and a bot account, a finished game: no rating of theirs moves."""
    anne, bert = (f"u-{secrets.token_hex(4)}" for _ in range(2))
    parrot = f"b_{secrets.token_hex(4)}"
    record = play_record(players=3, rounds=1, users=[anne, bert, parrot])
    async with db.session() as session, session.begin():
        await save_record(session, decode_record(encode(record)), rules=RatingRules())
    async with db.session() as session:
        rated = await session.scalars(select(Rating).where(Rating.user_id.in_([anne, bert])))
        assert list(rated) == []
        ladder_rows = await session.scalars(
            select(LadderRating).where(LadderRating.entrant == parrot)
        )
        assert list(ladder_rows) == []  # one bot alone is no ladder game
        assert (await session.get(Game, record["game_id"])).ladder is True
