"""Who is an admin: accounts in Postgres, sessions apart from player tokens,
which expire and can be revoked; every admin route refuses anything but a live admin
session; login attempts are rate-limited per address and per (name, address) in Redis,
never per name alone; a login is JSON; password checks at once are bounded per node."""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

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


async def _account(admin_url: str, name: str) -> None:
    db = await Database.connect(admin_url)
    try:
        await accounts.create(db, name, PASSWORD)
    except accounts.AdminError:
        pass  # a rerun on the same database
    finally:
        await db.close()


async def _login_from(
    node: Node, address: str, name: str, password: str = PASSWORD
) -> httpx.Response:
    """A login from ``address`` (the test client is a trusted proxy: X-Forwarded-For)."""
    async with httpx.AsyncClient(base_url=node.url) as http:
        return await http.post(
            "/admin/api/login",
            json={"name": name, "password": password},
            headers={"X-Forwarded-For": address},
        )


async def test_login_attempts_are_limited_per_name_and_address(
    start: object, admin_url: str
) -> None:
    node = await start(  # type: ignore[operator]
        "a", database_url=admin_url, admin_logins_per_name_and_address=3
    )
    await _account(admin_url, "limited-one")
    for _ in range(3):
        r = await _login_from(node, "198.51.100.7", "limited-one", "wrong password!!")
        assert r.status_code == 401
    # The right password, too late from that address: its attempts at this name are used up.
    r = await _login_from(node, "198.51.100.7", "limited-one")
    assert r.status_code == 429 and r.json()["error"]["code"] == "too-many-logins"


async def test_wrong_passwords_from_one_address_do_not_lock_the_admin_out_elsewhere(
    start: object, admin_url: str
) -> None:
    node = await start("a", database_url=admin_url)  # type: ignore[operator]
    await _account(admin_url, "alice-op")
    for _ in range(5):
        await _login_from(node, "203.0.113.9", "alice-op", "wrong password!!")
    assert (await _login_from(node, "203.0.113.9", "alice-op")).status_code == 429
    # The real admin, from an address of their own: in.
    r = await _login_from(node, "192.0.2.44", "alice-op")
    assert r.status_code == 200, r.text


async def test_login_attempts_are_limited_per_address(start: object, admin_url: str) -> None:
    node = await start(  # type: ignore[operator]
        "a", database_url=admin_url, admin_logins_per_address=3
    )
    for i in range(3):
        r = await _login_from(node, "198.51.100.8", f"someone-{i}", "wrong password!!")
        assert r.status_code == 401
    r = await _login_from(node, "198.51.100.8", "someone-else", "wrong password!!")
    assert r.status_code == 429


async def test_one_ipv6_host_counts_as_one_address(start: object, admin_url: str) -> None:
    """Every address of one /64 spends the same bucket: a host cannot cycle its own."""
    node = await start(  # type: ignore[operator]
        "a", database_url=admin_url, admin_logins_per_address=3
    )
    for i in range(3):
        r = await _login_from(node, f"2001:db8:1:2::{i + 1:x}", f"someone-{i}", "wrong pw!!!!")
        assert r.status_code == 401
    r = await _login_from(node, "2001:db8:1:2:ffff::9", "someone-else", "wrong password!!")
    assert r.status_code == 429
    r = await _login_from(node, "2001:db8:1:3::1", "someone-else", "wrong password!!")
    assert r.status_code == 401


@pytest.mark.parametrize(
    "content_type",
    ["application/x-www-form-urlencoded", "text/plain", "multipart/form-data; boundary=x", None],
)
async def test_a_login_that_is_not_json_is_refused(
    admin_node: Node, admin_name: str, content_type: str | None
) -> None:
    """What a cross-site page can post without asking (a form, text/plain) is refused before
    anything is counted or checked: it cannot spend an admin's attempts."""
    body = f'{{"name": "{admin_name}", "password": "{PASSWORD}"}}'
    headers = {"Content-Type": content_type} if content_type else {}
    async with httpx.AsyncClient(base_url=admin_node.url) as http:
        r = await http.post("/admin/api/login", content=body, headers=headers)
    assert r.status_code == 415 and r.json()["error"]["code"] == "not-json"
    async with httpx.AsyncClient(base_url=admin_node.url) as http:
        r = await http.post(
            "/admin/api/login",
            content=body,
            headers={"Content-Type": "application/json; charset=utf-8"},
        )
    assert r.status_code == 200, r.text


class _CountingHasher:
    """The accounts' argon2 hasher, counting the verifications that run at once."""

    def __init__(self, real: Any) -> None:
        self.real, self.lock = real, threading.Lock()
        self.running = self.most = self.calls = 0

    def verify(self, stored: str, password: str) -> bool:
        with self.lock:
            self.running += 1
            self.calls += 1
            self.most = max(self.most, self.running)
        try:
            time.sleep(0.05)  # long enough for the others to pile up
            return bool(self.real.verify(stored, password))
        finally:
            with self.lock:
                self.running -= 1

    def hash(self, password: str) -> str:
        return str(self.real.hash(password))


async def test_password_checks_at_once_are_bounded(
    start: object, admin_url: str, admin_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Many wrong passwords at once, from many addresses: at most ``admin_login_checks``
    argon2 verifications run at the same time; the rest are refused at once (503 busy)."""
    node = await start(  # type: ignore[operator]
        "a", database_url=admin_url, admin_login_checks=2
    )
    counting = _CountingHasher(accounts._hasher)
    monkeypatch.setattr(accounts, "_hasher", counting)
    answers = await asyncio.gather(
        *(
            _login_from(node, f"198.18.{i // 200}.{i % 200 + 1}", admin_name, "wrong password!!")
            for i in range(40)
        )
    )
    codes = [r.status_code for r in answers]
    assert set(codes) <= {401, 503} and 503 in codes
    assert counting.most <= 2
    assert counting.calls == codes.count(401)
    assert all(r.headers.get("retry-after") == "1" for r in answers if r.status_code == 503)
    # A name no account can have costs no verification at all.
    before = counting.calls
    r = await _login_from(node, "198.18.9.9", "No Such Name!", "wrong password!!")
    assert r.status_code == 401 and counting.calls == before


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
