"""Ratings cannot be farmed: a game is rated only among established
users (first seen more than a day before, with enough finished games) when it has two of
them; a leaderboard lists users with enough rated games; a seated player who ends a game
under way takes it as their loss."""

from __future__ import annotations

import asyncio
import json
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from archive_helpers import encode, play_record
from sqlalchemy import select
from starlette.applications import Starlette
from starlette.routing import Mount
from tortuga_client import Client, autoplay, final_records, seat_players

from server.archive.db import Database
from server.archive.models import Game, Rating, Seat
from server.archive.record import decode_record
from server.archive.routes import routes
from server.archive.write import RatingRules, save_record

RULES = RatingRules(min_games=2, min_age_seconds=24 * 3600)
NOW = datetime.now(UTC)


async def _save(db: Database, record: dict[str, Any], rules: RatingRules = RULES) -> None:
    async with db.session() as session, session.begin():
        await save_record(session, decode_record(encode(record)), rules=rules)


async def _veteran(db: Database, user: str, partner: str) -> None:
    """Two finished games three days ago: ``user`` (and ``partner``) are established."""
    for _ in range(2):
        await _save(
            db,
            play_record(players=2, rounds=1, users=[user, partner], t0=NOW - timedelta(days=3)),
            RatingRules(),  # rated then (the rules of the time did not matter here)
        )


async def _ratings(db: Database, users: list[str]) -> dict[str, tuple[float, int]]:
    """Each rated user's (mu, games) at the game."""
    async with db.session() as s:
        rows = await s.scalars(select(Rating).where(Rating.user_id.in_(users)))
        return {r.user_id: (r.mu, r.games) for r in rows}


async def test_throwaway_guests_farm_nothing(db: Database) -> None:
    """ "Rated games need at least two distinct registered identities that are not fresh":
    a veteran beating two fresh guests is not rated; with a second veteran the game is
    rated, among the veterans only."""
    main, friend, old_partner = (f"u-{secrets.token_hex(4)}" for _ in range(3))
    await _veteran(db, main, old_partner)
    await _veteran(db, friend, old_partner)
    before = await _ratings(db, [main, friend])
    throwaways = [f"u-{secrets.token_hex(4)}" for _ in range(2)]
    farm = play_record(players=3, rounds=1, users=[main, *throwaways], t0=NOW)
    await _save(db, farm)
    async with db.session() as s:
        game = await s.get(Game, farm["game_id"])
        assert game is not None and game.rated_at is None
    assert await _ratings(db, [main, friend]) == before  # nothing moved
    assert await _ratings(db, throwaways) == {}

    fresh = f"u-{secrets.token_hex(4)}"
    real = play_record(players=3, rounds=1, users=[main, friend, fresh], t0=NOW)
    await _save(db, real)
    after = await _ratings(db, [main, friend, fresh])
    assert set(after) == {main, friend}  # the fresh player is not rated yet
    assert after[main][1] == before[main][1] + 1
    assert after[friend][1] == before[friend][1] + 1


async def test_a_guest_of_the_day_is_fresh_however_many_games(db: Database) -> None:
    """Age counts as well as games: two users with many games, all today, stay fresh."""
    anne, ben = (f"u-{secrets.token_hex(4)}" for _ in range(2))
    for _ in range(3):
        await _save(db, play_record(players=2, rounds=1, users=[anne, ben], t0=NOW))
    assert await _ratings(db, [anne, ben]) == {}


async def test_the_leaderboard_lists_players_with_enough_rated_games(db: Database) -> None:
    """ "a leaderboard shows players with enough rated games\""""
    many, once = (f"u-{secrets.token_hex(4)}" for _ in range(2))
    for _ in range(3):
        await _save(
            db,
            play_record(players=2, rounds=1, users=[many, once if _ == 0 else None]),
            RatingRules(),
        )
    await _save(
        db,
        play_record(players=2, rounds=1, users=[many, f"u-{secrets.token_hex(4)}"]),
        RatingRules(),
    )
    app = Starlette(routes=[Mount("/api/history", routes=routes)])
    app.state.db = db
    app.state.leaderboard_min_games = 2
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://test"
    ) as http:
        board = (await http.get("/api/history/leaderboard/skull-king?limit=200")).json()
    listed = {e["user"] for e in board["entries"]}
    assert many in listed and once not in listed and board["min_games"] == 2
    assert all(e["games"] >= 2 for e in board["entries"])


async def test_a_seated_host_who_ends_the_game_takes_the_loss(
    start: Any, archive_url: str, db: Database, redis_client: Any, redis_prefix: str
) -> None:
    """ "an abandon by a seated player during play counts as that player's loss when rated
    (the others keep their ranks)\""""
    nodes = [await start("a", database_url=archive_url)]
    table = await seat_players(nodes, 3, options={"rounds": 3})
    host, bert, _cleo = table.clients
    assert (await host.call("start"))["type"] == "ok"
    await asyncio.wait_for(
        asyncio.gather(*(autoplay(c, "skull-king", stop_at=9) for c in table.clients)), 30
    )
    assert (await host.call("abandon"))["type"] == "ok"
    for _ in range(100):
        records = await final_records(redis_client, redis_prefix)
        if records:
            break
        await asyncio.sleep(0.05)
    record = json.loads(records[0][1][b"record"])
    assert record["status"] == "abandoned" and record["abandoned_by"] == 0
    scores, ranks = record["outcome"]["scores"], record["outcome"]["ranks"]
    assert ranks[0] == 3  # the host: last, whatever the score
    expected = [1 + (scores[2] > scores[1]), 1 + (scores[1] > scores[2])]
    assert ranks[1:] == expected  # the others keep their ranks
    game_id = record["game_id"]
    for _ in range(200):
        async with db.session() as s:
            game = await s.get(Game, game_id)
            if game is not None and game.status == "abandoned":
                break
        await asyncio.sleep(0.1)
    async with db.session() as s:
        game = await s.get(Game, game_id)
        seats = (await s.scalars(select(Seat).where(Seat.game_id == game_id))).all()
    assert game is not None and game.rated_at is not None
    change = {seat.seat: (seat.ordinal_after or 0) - (seat.ordinal_before or 0) for seat in seats}
    assert change[0] < min(change[1], change[2])
    await Client.close(bert)


async def _history(db: Database, path: str, rules: RatingRules = RULES) -> Any:
    """GET /api/history/<path> on an app with the site's rating rules set."""
    app = Starlette(routes=[Mount("/api/history", routes=routes)])
    app.state.db = db
    app.state.rating_rules = rules
    app.state.leaderboard_min_games = 5
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://test"
    ) as http:
        res = await http.get(f"/api/history/{path}")
        assert res.status_code == 200, res.text
        return res.json()


async def test_a_game_that_moved_no_rating_says_why(db: Database) -> None:
    """Where a player looks, a game not rated says why, by the archiver's own rules
    (``write.verdict``), and each seat whether its player was still new to the ratings: a
    veteran among fresh guests (new players), a person among bots (few people), one person
    in two seats, a game ended before the finish; a rated game names its new player. Every
    answer about ratings carries the rules."""
    main, friend, old_partner = (f"u-{secrets.token_hex(4)}" for _ in range(3))
    await _veteran(db, main, old_partner)
    await _veteran(db, friend, old_partner)
    fresh = [f"u-{secrets.token_hex(4)}" for _ in range(3)]
    games = {
        "new-players": play_record(players=3, rounds=1, users=[main, *fresh[:2]], t0=NOW),
        "few-people": play_record(players=3, rounds=1, users=[main, None, None], t0=NOW),
        "same-person": play_record(players=3, rounds=1, users=[main, main, friend], t0=NOW),
        "not-finished": play_record(
            players=3, rounds=2, users=[main, friend, fresh[2]], status="abandoned", t0=NOW
        ),
        None: play_record(players=3, rounds=1, users=[main, friend, fresh[2]], t0=NOW),
    }
    for record in games.values():
        await _save(db, record)
    for reason, record in games.items():
        got = await _history(db, f"games/{record['game_id']}")
        assert got["unrated"] == reason, (reason, got["unrated"])
        assert got["rating_rules"] == {"min_games": 2, "min_age_hours": 24, "listed_after": 5}
    new = {
        reason: [
            s["seat"] for s in (await _history(db, f"games/{r['game_id']}"))["seats"] if s["new"]
        ]
        for reason, r in games.items()
    }
    assert new["new-players"] == [1, 2]  # the two fresh guests
    assert new[None] == [2]  # rated among the veterans; the fresh player's rating did not move
    assert new["few-people"] == new["same-person"] == new["not-finished"] == []
    # A player's page says the same of each game, and the rules.
    page = await _history(db, f"users/{fresh[2]}/games")
    assert page["rating_rules"]["listed_after"] == 5
    by_id = {g["id"]: g for g in page["games"]}
    rated = by_id[games[None]["game_id"]]
    assert rated["unrated"] is None and rated["seat"]["new"] is True
    assert by_id[games["not-finished"]["game_id"]]["unrated"] == "not-finished"
    board = await _history(db, "leaderboard/skull-king")
    assert board["rating_rules"] == {"min_games": 2, "min_age_hours": 24, "listed_after": 5}
    # With rules that rate everyone, the guests' game would have been rated: the answer
    # follows the rules the site runs (the game was archived under stricter ones).
    lax = await _history(db, f"games/{games['new-players']['game_id']}", RatingRules())
    assert lax["unrated"] == "not-rated"
    # A player's bot at the table: the bot ladder's game, never people's ratings.
    bot = f"b_{secrets.token_hex(4)}"
    ladder = play_record(players=3, rounds=1, users=[main, friend, bot], t0=NOW)
    await _save(db, ladder)
    assert (await _history(db, f"games/{ladder['game_id']}"))["unrated"] == "ladder"
