"""Private means private in the history: who asks is known from
the bearer token; a private game exists only for its players; a game under way is not
listed to others; before the end nobody reads another seat's hidden moves; a profile shows
the name, the public games and the ratings."""

from __future__ import annotations

import secrets

import httpx
import pytest
from archive_helpers import play_record, store
from test_archive_routes import bearer, client  # noqa: F401 -- the fixture

from server.archive.db import Database


async def test_a_private_game_exists_only_for_its_players(
    client: httpx.AsyncClient,  # noqa: F811
    db: Database,
) -> None:
    """ "a private game is visible only to its participants ... public listings never carry
    a private room's code\""""
    anne, ben, eve = (f"u-{secrets.token_hex(4)}" for _ in range(3))
    private = play_record(players=3, rounds=1, users=[anne, ben, None], public=False)
    private["room"] = secrets.token_urlsafe(12)  # a private room's 16-character code
    private["game_id"] = f"{private['room']}-1"
    public = play_record(players=3, rounds=1, users=[anne, ben, None], public=True)
    for record in (private, public):
        await store(db, record)
    game_id = private["game_id"]
    for path in (f"/games/{game_id}", f"/games/{game_id}/replay", f"/games/{game_id}/verify"):
        for who in ({}, bearer(eve)):
            r = await client.get(f"/api/history{path}", headers=who)
            assert r.status_code == 404 and r.json()["error"]["code"] == "not-found", path
        r = await client.get(f"/api/history{path}", headers=bearer(ben))
        assert r.status_code == 200, path
    for who in ({}, bearer(eve), bearer(ben)):
        r = await client.get(f"/api/history/users/{anne}/games", headers=who)
        listed = r.json()["games"]
        assert [g["id"] for g in listed] == [public["game_id"]]
        assert private["room"] not in r.text
    r = await client.get(f"/api/history/users/{anne}/games", headers=bearer(anne))
    assert {g["id"] for g in r.json()["games"]} == {game_id, public["game_id"]}
    # A token that is given must be good: no silent downgrade to "nobody".
    r = await client.get(f"/api/history/games/{game_id}", headers={"Authorization": "Bearer x"})
    assert r.status_code == 401 and r.json()["error"]["code"] == "bad-token"
    r = await client.get(f"/api/history/games/{game_id}", headers=bearer("u-signed-out"))
    assert r.status_code == 401


async def test_a_game_under_way_is_not_listed_and_hides_other_seats_moves(
    client: httpx.AsyncClient,  # noqa: F811
    db: Database,
) -> None:
    """ "`playing` games are not listed to others" and "a game record's events must not show
    another seat's open moves or a `private` sealed phase's moves to a reader before the
    game is over"."""
    anne, ben, cleo, eve = (f"u-{secrets.token_hex(4)}" for _ in range(4))
    full = play_record(players=3, rounds=2, users=[anne, ben, cleo], public=True)
    playing = {
        **full,
        "status": "playing",
        "seed": None,
        "ended_at": None,
        "outcome": None,
        "events": full["events"][:12],
    }
    await store(db, playing)
    for who in ({}, bearer(eve), bearer(ben)):
        r = await client.get(f"/api/history/users/{anne}/games", headers=who)
        assert r.json()["games"] == []
    r = await client.get(f"/api/history/users/{anne}/games", headers=bearer(anne))
    assert [g["id"] for g in r.json()["games"]] == [full["game_id"]]

    game_id = full["game_id"]
    logged = {e["version"]: e for e in playing["events"]}
    sealed = [v for v, e in logged.items() if e.get("moves_public")]
    open_moves = [v for v, e in logged.items() if e["moves"] and not e.get("moves_public")]
    assert sealed and open_moves  # the bids of round 1 and 2, and the cards played
    for who, own in (({}, set()), (bearer(eve), set()), (bearer(ben), {"1"})):
        events = (await client.get(f"/api/history/games/{game_id}", headers=who)).json()["events"]
        for event in events:
            moves = logged[event["version"]]["moves"]
            if event["version"] in sealed:
                assert event["moves"] == moves  # revealed to all
            else:
                assert event["moves"] == {s: m for s, m in moves.items() if s in own}
    # Once over, the whole log is everybody's.
    await store(db, full)
    events = (await client.get(f"/api/history/games/{game_id}")).json()["events"]
    assert [e["moves"] for e in events] == [e["moves"] for e in full["events"]]


async def test_a_profile_shows_the_name_public_games_and_ratings(
    client: httpx.AsyncClient,  # noqa: F811
    db: Database,
) -> None:
    """ "A public profile shows only what the user chose to show: the name, public games,
    ratings.\""""
    anne, ben = (f"u-{secrets.token_hex(4)}" for _ in range(2))
    await store(db, play_record(players=3, rounds=1, users=[anne, ben, None], public=True))
    other = (await client.get(f"/api/history/users/{anne}/games")).json()
    assert other["user"] == {"id": anne, "name": anne}
    assert [r["engine"] for r in other["ratings"]] == ["skull-king"]
    assert other["ratings"][0]["games"] == 1
    own = (await client.get(f"/api/history/users/{anne}/games", headers=bearer(anne))).json()
    assert {"created_at", "last_seen_at"} <= set(own["user"])


@pytest.mark.parametrize("engine", ["loon-tricks", "pirate-king", "pearates"])
async def test_the_new_games_hide_private_moves_from_history_readers(
    client: httpx.AsyncClient,  # noqa: F811
    db: Database,
    engine: str,
) -> None:
    """In every game, "private open moves (a card put aside, a face-down bid, a look at a
    hidden card) never appear in any ... history route that anyone else can read before the
    game is over". Half of a game is stored as under way; each reader sees a move only when
    it was public (a sealed phase that is not private, once revealed) or their own."""
    anne, ben, cleo, eve = (f"u-{secrets.token_hex(4)}" for _ in range(4))
    full = play_record(engine=engine, players=3, rounds=3, users=[anne, ben, cleo], public=True)
    cut = full["events"][: len(full["events"]) // 2]
    playing = {**full, "status": "playing", "seed": None, "ended_at": None, "outcome": None}
    await store(db, {**playing, "events": cut})
    logged = {e["version"]: e for e in cut}
    hidden = [v for v, e in logged.items() if e["moves"] and not e.get("moves_public")]
    assert hidden  # open moves, and private sealed phases, are each their mover's
    if engine == "loon-tricks":  # the ditch: three seats' cards put aside, privately
        assert any(len(logged[v]["moves"]) == 3 for v in hidden)
    game_id = full["game_id"]
    for who, own in (({}, set()), (bearer(eve), set()), (bearer(ben), {"1"})):
        events = (await client.get(f"/api/history/games/{game_id}", headers=who)).json()["events"]
        assert len(events) == len(cut)
        for event in events:
            e = logged[event["version"]]
            shown = (
                e["moves"]
                if e.get("moves_public")
                else {s: m for s, m in e["moves"].items() if s in own}
            )
            assert event["moves"] == shown, (engine, event["version"])
