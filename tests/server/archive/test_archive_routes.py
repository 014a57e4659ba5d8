"""The history endpoints, mounted under /api/history as the app does, on the real Postgres."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import AsyncIterator

import httpx
import pytest
from archive_helpers import play_record, store
from starlette.applications import Starlette
from starlette.routing import Mount

from server.archive.db import Database
from server.archive.routes import routes
from server.identity.tokens import Identity, Tokens, User

TOKENS = Tokens(b"archive-routes-test-secret-0123456789")


async def _generation(user_id: str) -> int:
    return 1 if user_id == "u-signed-out" else 0


def bearer(user_id: str) -> dict[str, str]:
    """The header of a token of ``user_id`` (as the room server issues them)."""
    return {"Authorization": f"Bearer {TOKENS.issue(User(user_id, user_id))}"}


@pytest.fixture
async def client(db: Database) -> AsyncIterator[httpx.AsyncClient]:
    app = Starlette(routes=[Mount("/api/history", routes=routes)])
    app.state.db = db
    app.state.identity = Identity(TOKENS, _generation, refresh_after=3600)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        yield http


async def test_history_endpoints(client: httpx.AsyncClient, db: Database) -> None:
    anne, ben, cleo = (f"u-{secrets.token_hex(4)}" for _ in range(3))
    users: list[str | None] = [anne, ben, cleo]
    games = [play_record(players=3, rounds=1, users=users) for _ in range(3)]
    playing = play_record(players=3, rounds=2, users=users, stop_after=4)
    for record in [*games, playing]:
        await store(db, record)

    r = await client.get(f"/api/history/users/{anne}/games", headers=bearer(anne))
    assert r.status_code == 200
    data = r.json()
    assert data["user"]["id"] == anne
    assert {g["id"] for g in data["games"]} == {g["game_id"] for g in [*games, playing]}
    finished = [g for g in data["games"] if g["status"] == "finished"]
    assert all(
        g["seat"]["user"] == anne and g["seat"]["rating_after"] is not None for g in finished
    )
    assert all(len(g["seats"]) == 3 for g in data["games"])
    live = next(g for g in data["games"] if g["status"] == "playing")
    assert live["seed"] is None and live["outcome"] is None
    r = await client.get(f"/api/history/users/{anne}/games", params={"limit": 1, "offset": 1})
    assert len(r.json()["games"]) == 1
    r = await client.get(f"/api/history/users/{anne}/games?limit=x")
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad-request"
    assert "limit" in r.json()["error"]["message"]
    r = await client.get("/api/history/users/nobody-at-all/games")
    assert r.status_code == 404 and r.json()["error"]["code"] == "not-found"

    game_id = games[0]["game_id"]
    r = await client.get(f"/api/history/games/{game_id}")
    assert r.status_code == 200
    record = r.json()
    assert record["seed"] == games[0]["seed"] and record["outcome"] == games[0]["outcome"]
    assert [e["digest"] for e in record["events"]] == [e["digest"] for e in games[0]["events"]]
    assert [s["name"] for s in record["seats"]] == [anne, ben, cleo]
    r = await client.get("/api/history/games/nope-1")
    assert r.status_code == 404 and set(r.json()) == {"error"}
    assert set(r.json()["error"]) == {"code", "message"}
    assert r.json()["error"]["code"] == "not-found"

    r = await client.get(f"/api/history/games/{game_id}/replay")
    assert r.status_code == 200
    replay = r.json()
    assert replay["verified"] is True and len(replay["frames"]) == len(games[0]["events"])
    assert "hands" in replay["frames"][0]["view"]
    # Only some fields of each view (the game-over chart needs the scores, not the cards).
    r = await client.get(f"/api/history/games/{game_id}/replay", params={"view": "round,scores"})
    slim = r.json()["frames"]
    assert [f["version"] for f in slim] == [f["version"] for f in replay["frames"]]
    assert all(set(f["view"]) == {"round", "scores"} for f in slim)
    assert [f["view"]["scores"] for f in slim] == [f["view"]["scores"] for f in replay["frames"]]
    for bad in ("", "round,Hands", "a;b", ",".join(["x"] * 17)):
        r = await client.get(f"/api/history/games/{game_id}/replay", params={"view": bad})
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad-request", bad
    r = await client.get(f"/api/history/games/{playing['game_id']}/replay")
    assert r.status_code == 409 and r.json()["error"]["code"] == "not-over"
    assert (await client.get("/api/history/games/nope-1/replay")).status_code == 404

    r = await client.get(f"/api/history/games/{game_id}/verify")
    assert r.status_code == 200 and r.json()["ok"] is True
    assert r.json()["message"].startswith("verified")
    r = await client.get(f"/api/history/games/{playing['game_id']}/verify")
    assert r.status_code == 200 and r.json()["ok"] is False
    assert (await client.get("/api/history/games/nope-1/verify")).status_code == 404

    r = await client.get("/api/history/leaderboard/skull-king", params={"limit": 200})
    assert r.status_code == 200
    entries = r.json()["entries"]
    ratings = [e["rating"] for e in entries]
    assert ratings == sorted(ratings, reverse=True)
    ours = [e for e in entries if e["user"] in (anne, ben, cleo)]
    assert len(ours) == 3 and all(e["games"] == 3 for e in ours)
    assert [e["rank"] for e in entries] == list(range(1, len(entries) + 1))
    assert r.json()["you"] is None  # nobody asked
    # A reader is told their own rating there (listed or not yet), or null without one.
    r = await client.get("/api/history/leaderboard/skull-king", headers=bearer(anne))
    hers = next(e for e in ours if e["user"] == anne)
    assert r.json()["you"] == {"rating": hers["rating"], "games": 3}
    r = await client.get("/api/history/leaderboard/pearates", headers=bearer(anne))
    assert r.json()["you"] is None
    r = await client.get("/api/history/leaderboard/chess")
    assert r.status_code == 404 and r.json()["error"]["code"] == "not-found"
    r = await client.get("/api/history/leaderboard/skull-king?offset=z")
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad-request"


async def test_query_parameters_out_of_range_are_bad_requests(
    client: httpx.AsyncClient, db: Database
) -> None:
    """A huge ``offset`` answered 500 (a number too large for Postgres). Every query
    parameter's range is checked first: a clear 400 ``bad-request`` naming it."""
    anne = f"u-{secrets.token_hex(4)}"
    await store(db, play_record(players=3, rounds=1, users=[anne, None, None]))
    paths = [f"/api/history/users/{anne}/games", "/api/history/leaderboard/skull-king"]
    for path in paths:
        for name, value in [
            ("offset", "9" * 40),
            ("offset", "99999999999999999999"),
            ("offset", "-1"),
            ("offset", "1e3"),
            ("limit", "0"),
            ("limit", "-5"),
            ("limit", "100000"),
            ("limit", "٣"),  # a digit, but not an ASCII one
        ]:
            r = await client.get(path, params={name: value})
            assert r.status_code == 400, (path, name, value, r.text)
            error = r.json()["error"]
            assert error["code"] == "bad-request" and name in error["message"]
        r = await client.get(path, params={"limit": "200", "offset": "1000000"})
        assert r.status_code == 200 and r.json()["offset"] == 1000000


async def test_a_game_on_its_way_to_the_archive_is_waited_for(
    client: httpx.AsyncClient, db: Database
) -> None:
    """The end of a game's page asks for the game with ``wait``: a game stored a moment
    later is the answer (no "not found" first); without ``wait``, or past it, not found."""
    record = play_record(players=2, rounds=1)
    path = f"/api/history/games/{record['game_id']}"
    assert (await client.get(path)).status_code == 404

    async def later() -> None:
        await asyncio.sleep(0.6)
        await store(db, record)

    began = time.monotonic()
    stored = asyncio.create_task(later())
    r = await client.get(path, params={"wait": 5})
    await stored
    assert r.status_code == 200 and r.json()["status"] == "finished"
    assert 0.5 < time.monotonic() - began < 3
    began = time.monotonic()
    r = await client.get("/api/history/games/nope-1", params={"wait": 1})
    assert r.status_code == 404 and time.monotonic() - began >= 1
    for bad in ("11", "-1", "x"):
        r = await client.get(path, params={"wait": bad})
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad-request"


async def test_a_replay_on_its_way_to_the_archive_is_waited_for(
    client: httpx.AsyncClient, db: Database
) -> None:
    """ "Check this game" asks for the replay with ``wait``: a game whose end is stored a
    moment later is the answer, not a "not found" (nor a "not over") first."""
    record = play_record(players=2, rounds=1)
    path = f"/api/history/games/{record['game_id']}/replay"
    assert (await client.get(path)).status_code == 404

    async def later() -> None:
        await asyncio.sleep(0.6)
        await store(db, record)

    stored = asyncio.create_task(later())
    r = await client.get(path, params={"wait": 5, "view": "round"})
    await stored
    assert r.status_code == 200 and r.json()["frames"], r.text
    r = await client.get(path, params={"wait": "11"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad-request"
