"""A private prompt's moves stay their movers' for good: after a Loon game ("Ditched cards are
never shown to anyone else, not even at the end") neither the history nor the replay shows a
seat's ditched cards to anyone but that seat, while the game still verifies."""

from __future__ import annotations

import secrets
from typing import Any

import httpx
from archive_helpers import play_record, store
from test_archive_routes import bearer, client  # noqa: F401 -- the fixture

from server.archive.db import Database


def _ditched(record: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """version -> the ditch's moves, as logged (the private events)."""
    return {e["version"]: e["moves"] for e in record["events"] if e.get("moves_private")}


async def test_a_finished_loon_game_never_shows_ditched_cards_to_others(
    client: httpx.AsyncClient,  # noqa: F811
    db: Database,
) -> None:
    anne, ben, cleo, eve = (f"u-{secrets.token_hex(4)}" for _ in range(4))
    record = play_record(
        engine="loon-tricks", players=3, rounds=3, users=[anne, ben, cleo], public=True
    )
    assert record["status"] == "finished"
    await store(db, record)
    game_id = record["game_id"]
    ditches = _ditched(record)
    assert len(ditches) == 3 and all(len(m) == 3 for m in ditches.values())  # one per round

    # The history: nobody else sees a ditch, the mover sees their own, once the game is over.
    for who, own in (({}, set()), (bearer(eve), set()), (bearer(ben), {"1"})):
        game = (await client.get(f"/api/history/games/{game_id}", headers=who)).json()
        for event in game["events"]:
            if event["version"] in ditches:
                mine = {s: m for s, m in ditches[event["version"]].items() if s in own}
                assert event["moves"] == mine, event["version"]
                assert event["moves_private"] is True

    # The replay (anyone may read it): no ditch move, and no hand holding a card that its
    # seat ditches in that round (a hand before the ditch would tell them, with the tricks).
    replay = (await client.get(f"/api/history/games/{game_id}/replay")).json()
    assert replay["verified"] is True
    frames = replay["frames"]
    round_of = {f["version"]: f["view"]["round"] for f in frames}
    put_aside: dict[tuple[int, int], set[str]] = {}
    for version, moves in ditches.items():
        for seat, move in moves.items():
            put_aside[(round_of[version], int(seat))] = set(move["ditch"])
    for frame in frames:
        view = frame["view"]
        assert view["ditched"] is None
        if frame["version"] in ditches:
            assert frame["moves"] == {} and frame["private"] is True
        for seat, hand in enumerate(view["hands"] or []):
            assert not set(hand) & put_aside[(view["round"], seat)], frame["version"]
    assert any(f["view"]["hands"] for f in frames)  # the hands show once the cards are out
    shown = str(frames)
    for moves in ditches.values():
        for move in moves.values():
            assert str(move) not in shown

    report = (await client.get(f"/api/history/games/{game_id}/verify")).json()
    assert report["ok"] is True, report
