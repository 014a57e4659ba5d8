"""An admin's look at a game's hidden state is kept with the room and with the game's record:
a player whose socket was closed while it happened learns of it when they come back (the
resume's room state carries it), a socket joining later sees it in its snapshot, and the
archived record and the history API say it too -- how often and when, never who, why or
what."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from admin_helpers import admin_token, bearer
from test_protocol import started
from tortuga_client import Client

from server.archive import history
from server.archive.db import Database


async def test_a_player_away_during_a_reveal_is_told_on_return_and_the_record_keeps_it(
    start: Any, admin_url: str, admin_name: str, admin_db: Database
) -> None:
    nodes = [
        await start("a", database_url=admin_url),
        await start("b", database_url=admin_url),
    ]
    table = await started(nodes, 3)
    token = await admin_token(nodes[0], admin_name)
    away = table.clients[2]
    seen = max(away.versions())
    await away.close()  # offline while the admin looks

    async def reveal(reason: str) -> None:
        async with httpx.AsyncClient(base_url=nodes[1].url) as http:
            r = await http.post(
                f"/admin/api/rooms/{table.id}/reveal",
                json={"reason": reason},
                headers=bearer(token),
            )
        assert r.status_code == 200, r.text

    await reveal("a player reports a bug")
    told = await table.clients[0].of("inspected")
    assert set(told) == {"type", "room", "at"}

    # Back on the other node, resuming from the version it saw: told in the resume.
    back = await Client.connect(nodes[0], token=away.token, user=away.user)
    await back.send("resume", room=table.id, version=seen)
    resumed = await back.of("resumed")
    assert resumed["room_state"]["inspected"] == {"count": 1, "at": [told["at"]]}

    # A socket joining now: its snapshot says it, as does the room's every summary.
    watcher = await Client.connect(nodes[1], "Watcher")
    await watcher.send("join", room=table.id, **{"as": "spectator"})
    snapshot = await watcher.of("snapshot")
    assert snapshot["room_state"]["inspected"] == {"count": 1, "at": [told["at"]]}
    assert set(snapshot["room_state"]["inspected"]) == {"count", "at"}  # nothing of who or why

    # A second look counts; then the game ends and its record carries both.
    await reveal("checking again")
    await back.of("inspected")
    async with httpx.AsyncClient(base_url=nodes[0].url) as http:
        r = await http.post(
            f"/admin/api/rooms/{table.id}/close", json={"reason": "done"}, headers=bearer(token)
        )
        assert r.status_code == 200, r.text
    game_id = f"{table.id}-1"
    record: dict[str, Any] = {}
    for _ in range(200):  # the node's archiver stores the final record shortly
        async with admin_db.session() as session:
            try:
                record = await history.game_record(session, game_id)
            except history.NotFound:
                record = {}
        if record.get("status") == "abandoned":
            break
        await asyncio.sleep(0.05)
    assert record.get("status") == "abandoned", record
    assert record["inspected"]["count"] == 2 and len(record["inspected"]["at"]) == 2
    async with httpx.AsyncClient(base_url=nodes[1].url) as http:
        r = await http.get(
            f"/api/history/games/{game_id}", headers={"Authorization": f"Bearer {back.token}"}
        )
    assert r.status_code == 200, r.text
    assert r.json()["inspected"] == record["inspected"]
