"""During a Postgres outage the routes that need it answer a clean 503 ``unavailable``
(JSON, at once) rather than a 500 or a wait, and serve again once Postgres is back; play and
``/readyz`` do not depend on it (``/readyz`` says ``postgres`` is down, and stays 200)."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import httpx
from own_services import OwnPostgres
from tortuga_client import guest

from server.admin import accounts
from server.archive.db import Database

PASSWORD = "correct horse battery"
TOKEN = secrets.token_urlsafe(32)


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_routes_that_need_postgres_answer_503_while_it_is_down(
    start: Any, own_postgres: OwnPostgres
) -> None:
    node = await start("a", database_url=own_postgres.url, admin_token=TOKEN)
    db = await Database.connect(own_postgres.url)
    try:
        await accounts.create(db, "op", PASSWORD)
    finally:
        await db.close()
    player, user = await guest(node, "Anne")
    login = {"name": "op", "password": PASSWORD}
    async with httpx.AsyncClient(base_url=node.url, timeout=30) as http:
        r = await http.post("/admin/api/login", json=login)
        assert r.status_code == 200, r.text
        session = r.json()["token"]
        needing = [
            ("GET", f"/api/history/users/{user['id']}/games", {}, None),
            ("GET", "/api/history/games/nope-1", _bearer(player), None),
            ("GET", "/api/history/games/nope-1/replay", {}, None),
            ("GET", "/api/history/games/nope-1/verify", {}, None),
            ("GET", "/api/history/leaderboard/skull-king", {}, None),
            ("POST", "/admin/api/login", {}, login),
            ("GET", "/admin/api/me", _bearer(session), None),
            ("GET", "/admin/api/audit", _bearer(session), None),
            ("GET", "/admin/api/audit", _bearer(TOKEN), None),
            ("POST", "/admin/api/lobby", _bearer(TOKEN), {"locked": True, "reason": "x"}),
        ]
        for method, path, headers, body in needing:  # Postgres up: served
            r = await http.request(method, path, headers=headers, json=body)
            assert r.status_code < 500, (path, r.status_code, r.text)
        await asyncio.to_thread(own_postgres.stop, "immediate")
        for method, path, headers, body in needing:
            r = await http.request(method, path, headers=headers, json=body)
            assert r.status_code == 503, (path, r.status_code, r.text)
            assert r.json()["error"]["code"] == "unavailable", (path, r.text)
            assert r.headers["retry-after"] == "5"
        # What needs no Postgres goes on: a node stays ready, a guest signs in.
        ready = await http.get("/readyz")
        assert ready.status_code == 200 and ready.json()["postgres"] != "up", ready.text
        assert (await http.post("/api/guest", json={"name": "Ben"})).status_code == 200
        await asyncio.to_thread(own_postgres.start)
        for method, path, headers, body in needing:  # back: served again
            r = await http.request(method, path, headers=headers, json=body)
            assert r.status_code < 500, (path, r.status_code, r.text)
        ready = await http.get("/readyz")
        assert ready.status_code == 200 and ready.json()["postgres"] == "up", ready.text
