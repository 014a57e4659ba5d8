"""Who is an admin: accounts in Postgres, sessions apart from player tokens,
which expire and can be revoked; every admin route refuses anything but a live admin
session; login attempts are rate-limited per account and per address in Redis."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from admin_helpers import PASSWORD, admin_token, bearer, login
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from tortuga_client import SECRET, Node, guest

from server.admin import accounts, audit, sessions
from server.admin.moderate import routes as moderation_routes
from server.admin.routes import routes as admin_routes
from server.archive.db import Database

ROOT = Path(__file__).resolve().parents[3]


def _every_route() -> list[tuple[str, str]]:
    """Every admin route but the login, as served (path parameters filled in): each must
    refuse anything but a live admin session, before it reads a body or a room."""
    out = []
    for route in [*admin_routes, *moderation_routes]:
        if route.path == "/login":
            continue
        path = re.sub(r"\{[^}]+\}", "X1", route.path)
        for method in sorted((route.methods or {"GET"}) - {"HEAD"}):
            out.append((method, f"/admin/api{path}"))
    return out


ROUTES = _every_route()


async def _codes(node: Node, headers: dict[str, str]) -> list[tuple[int, str]]:
    out = []
    async with httpx.AsyncClient(base_url=node.url) as http:
        for method, path in ROUTES:
            r = await http.request(method, path, headers=headers)
            out.append((r.status_code, r.json()["error"]["code"] if r.status_code >= 400 else ""))
    return out


REFUSED = [(401, "not-admin")] * len(ROUTES)


async def test_login_and_me(admin_node: Node, admin_name: str) -> None:
    token = await admin_token(admin_node, admin_name)
    assert token.startswith("adm_")
    async with httpx.AsyncClient(base_url=admin_node.url) as http:
        r = await http.get("/admin/api/me", headers=bearer(token))
    assert r.status_code == 200 and r.json()["admin"] == admin_name


async def test_wrong_password_and_unknown_name_are_refused(
    admin_node: Node, admin_name: str
) -> None:
    assert (await login(admin_node, admin_name, "not the password!")).status_code == 401
    assert (await login(admin_node, "nobody-here", PASSWORD)).status_code == 401
    r = await login(admin_node, admin_name)
    assert r.status_code == 200


async def test_missing_token_is_refused(admin_node: Node) -> None:
    assert await _codes(admin_node, {}) == REFUSED


async def test_player_token_is_refused(admin_node: Node) -> None:
    token, _ = await guest(admin_node, "Anne")
    assert await _codes(admin_node, bearer(token)) == REFUSED


async def test_forged_admin_token_is_refused(admin_node: Node) -> None:
    assert await _codes(admin_node, bearer("adm_" + "x" * 43)) == REFUSED


async def test_expired_session_is_refused(
    admin_node: Node, admin_name: str, admin_db: Database
) -> None:
    # A session opened already past its end: no waiting in the test.
    token = await sessions.open_session(admin_db, admin_name, -1.0, None)
    assert await _codes(admin_node, bearer(token)) == REFUSED
    with pytest.raises(sessions.NotAdmin, match="expired"):
        await sessions.lookup(admin_db, token)


async def test_revoked_session_is_refused(admin_node: Node, admin_name: str) -> None:
    token = await admin_token(admin_node, admin_name)
    other = await admin_token(admin_node, admin_name)
    async with httpx.AsyncClient(base_url=admin_node.url) as http:
        assert (await http.post("/admin/api/logout", headers=bearer(token))).status_code == 200
    assert await _codes(admin_node, bearer(token)) == REFUSED
    # Another session of the same admin lives on.
    async with httpx.AsyncClient(base_url=admin_node.url) as http:
        assert (await http.get("/admin/api/me", headers=bearer(other))).status_code == 200


async def test_disable_and_passwd_revoke_every_session(
    admin_node: Node, admin_name: str, admin_db: Database
) -> None:
    token = await admin_token(admin_node, admin_name)
    await accounts.set_password(admin_db, admin_name, "a brand new password")
    assert await _codes(admin_node, bearer(token)) == REFUSED
    assert (await login(admin_node, admin_name)).status_code == 401
    token = await admin_token_with(admin_node, admin_name, "a brand new password")
    await accounts.disable(admin_db, admin_name)
    assert await _codes(admin_node, bearer(token)) == REFUSED
    assert (await login(admin_node, admin_name, "a brand new password")).status_code == 401


async def admin_token_with(node: Node, name: str, password: str) -> str:
    r = await login(node, name, password)
    assert r.status_code == 200, r.text
    token: str = r.json()["token"]
    return token


async def test_login_attempts_are_limited_per_account(start: object, admin_url: str) -> None:
    node = await start("a", database_url=admin_url, admin_logins_per_name=3)  # type: ignore[operator]
    db = await Database.connect(admin_url)
    try:
        await accounts.create(db, "limited-one", PASSWORD)
    except accounts.AdminError:
        pass  # a rerun on the same database
    finally:
        await db.close()
    for _ in range(3):
        assert (await login(node, "limited-one", "wrong password!!")).status_code == 401
    # The right password, too late: the account's attempts are used up.
    r = await login(node, "limited-one")
    assert r.status_code == 429 and r.json()["error"]["code"] == "too-many-logins"


async def test_login_attempts_are_limited_per_address(start: object, admin_url: str) -> None:
    node = await start(  # type: ignore[operator]
        "a", database_url=admin_url, admin_logins_per_address=3, admin_logins_per_name=0
    )
    for i in range(3):
        assert (await login(node, f"someone-{i}", "wrong password!!")).status_code == 401
    assert (await login(node, "someone-else", "wrong password!!")).status_code == 429


async def test_login_is_audited_and_the_audit_cannot_be_edited(
    admin_node: Node, admin_name: str, admin_db: Database
) -> None:
    token = await admin_token(admin_node, admin_name)
    async with httpx.AsyncClient(base_url=admin_node.url) as http:
        r = await http.get("/admin/api/audit", params={"admin": admin_name}, headers=bearer(token))
    entries = r.json()["entries"]
    assert [e["action"] for e in entries] == ["login"]
    entry_id = await audit.write(admin_db, admin_name, "look", target="r1", reason="a complaint")
    found = await audit.search(admin_db, text="COMPLAINT")
    assert found[0]["id"] == entry_id and found[0]["reason"] == "a complaint"
    for statement in (
        "UPDATE admin_audit SET reason = 'nothing' WHERE id = :id",
        "DELETE FROM admin_audit WHERE id = :id",
    ):
        with pytest.raises(DBAPIError, match="append-only"):
            async with admin_db.engine.begin() as conn:
                await conn.execute(text(statement), {"id": entry_id})
    assert (await audit.search(admin_db, target="r1", admin=admin_name))[0]["reason"] == (
        "a complaint"
    )


def test_cli_creates_from_stdin_and_refuses_a_short_password(
    admin_url: str, tmp_path: Path
) -> None:
    name = f"cli-{secrets.token_hex(3)}"
    env = {
        **os.environ,
        "TORTUGA_DATABASE_URL": admin_url,
        "TORTUGA_SECRET": SECRET.hex(),
        "TORTUGA_DATA_DIR": str(tmp_path),
    }

    def run(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "server.cli", "admin", *args],
            cwd=ROOT,
            env=env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
        )

    short = run("create", name, stdin="short\n")
    assert short.returncode == 2 and "at least 12" in short.stderr
    made = run("create", name, stdin=PASSWORD + "\n")
    assert made.returncode == 0, made.stderr
    again = run("create", name, stdin=PASSWORD + "\n")
    assert again.returncode == 2 and "exists already" in again.stderr
    assert run("disable", name, stdin="").returncode == 0
    listed = run("list", stdin="")
    assert f"{name} (disabled)" in listed.stdout
