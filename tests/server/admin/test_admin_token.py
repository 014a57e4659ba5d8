"""The admin token from the environment (TORTUGA_ADMIN_TOKEN), for automation: a request
bearing it acts as the admin ``automation`` -- audited under that name -- compared in
constant time; a near miss, or the same token on a node where none is set, is refused
(401 ``not-admin``); it cannot sign out; a token too short to be a secret stops the node
at start-up, and no account may take the name ``automation``."""

from __future__ import annotations

import secrets
from typing import Any

import httpx
import pytest
from admin_helpers import bearer

from server.admin import accounts, audit
from server.archive.db import Database
from server.settings import Settings

TOKEN = secrets.token_urlsafe(32)


async def test_the_environment_token_acts_as_automation_and_is_audited(
    start: Any, admin_url: str, admin_db: Database
) -> None:
    with_token = await start("a", database_url=admin_url, admin_token=TOKEN)
    without = await start("b", database_url=admin_url)
    reason = f"nightly maintenance {secrets.token_hex(4)}"
    async with httpx.AsyncClient(base_url=with_token.url) as http:
        r = await http.get("/admin/api/me", headers=bearer(TOKEN))
        assert r.status_code == 200 and r.json() == {"admin": "automation", "expires_at": None}
        near = TOKEN[:-1] + ("A" if TOKEN[-1] != "A" else "B")
        r = await http.get("/admin/api/me", headers=bearer(near))
        assert r.status_code == 401 and r.json()["error"]["code"] == "not-admin"
        for locked in (True, False):
            r = await http.post(
                "/admin/api/lobby",
                json={"locked": locked, "reason": reason},
                headers=bearer(TOKEN),
            )
            assert r.status_code == 200, r.text
        r = await http.post("/admin/api/logout", headers=bearer(TOKEN))
        assert r.status_code == 400 and r.json()["error"]["code"] == "not-a-session"
    entries = await audit.search(admin_db, admin="automation", text=reason)
    assert [e["action"] for e in entries] == ["unlock-lobby", "lock-lobby"]
    async with httpx.AsyncClient(base_url=without.url) as http:
        r = await http.get("/admin/api/me", headers=bearer(TOKEN))
    assert r.status_code == 401  # no token set on this node: refused


def test_a_short_token_stops_the_node_and_the_name_is_reserved(monkeypatch: Any) -> None:
    monkeypatch.setenv("TORTUGA_ADMIN_TOKEN", "too-short")
    monkeypatch.setenv("TORTUGA_SECRET", "ab" * 32)
    with pytest.raises(SystemExit):
        Settings.from_env()
    with pytest.raises(accounts.AdminError):
        accounts.check_name("automation")
