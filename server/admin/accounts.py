"""Admin accounts in Postgres: created, re-passworded and disabled from the command line
(``tortuga admin ...``), checked at login. Passwords are hashed with argon2id
(argon2-cffi); a changed password or a disabled account revokes every open session."""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from server.archive.db import Database
from server.archive.models import Admin, AdminSession

NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{1,63}$")
# The admin the environment's token acts as (server/admin/routes.py): no account may take
# the name, so the audit's "automation" rows are the token's only.
RESERVED = frozenset({"automation"})
MIN_PASSWORD = 12

_hasher = PasswordHasher()
# Checked against when the account does not exist, so that a login takes as long either way.
_DUMMY = _hasher.hash("no such admin, no such password")


class AdminError(ValueError):
    """A bad name or password, an account that exists already or does not exist."""


def check_name(name: str) -> str:
    if not NAME.match(name):
        raise AdminError(
            "an admin name is 2-64 characters: lower-case letters, digits, '.', '_', '-'"
        )
    if name in RESERVED:
        raise AdminError(f"{name!r} is the environment token's name (TORTUGA_ADMIN_TOKEN)")
    return name


def check_password(password: str) -> str:
    if len(password) < MIN_PASSWORD:
        raise AdminError(f"a password has at least {MIN_PASSWORD} characters")
    return password


async def create(db: Database, name: str, password: str) -> None:
    check_name(name)
    digest = await asyncio.to_thread(_hasher.hash, check_password(password))
    async with db.session() as s, s.begin():
        if await s.get(Admin, name) is not None:
            raise AdminError(f"admin {name!r} exists already (use `tortuga admin passwd`)")
        s.add(Admin(name=name, password_hash=digest))


async def _revoke_all(s: AsyncSession, name: str, now: datetime) -> None:
    await s.execute(
        update(AdminSession)
        .where(AdminSession.admin == name, AdminSession.revoked_at.is_(None))
        .values(revoked_at=now)
    )


async def set_password(db: Database, name: str, password: str) -> None:
    """A new password (and the account enabled again); every session of it is revoked."""
    digest = await asyncio.to_thread(_hasher.hash, check_password(password))
    now = datetime.now(UTC)
    async with db.session() as s, s.begin():
        admin = await s.get(Admin, name)
        if admin is None:
            raise AdminError(f"no admin {name!r}")
        admin.password_hash = digest
        admin.password_changed_at = now
        admin.disabled = False
        await _revoke_all(s, name, now)


async def disable(db: Database, name: str) -> None:
    """The account can no longer log in; its sessions end now."""
    async with db.session() as s, s.begin():
        admin = await s.get(Admin, name)
        if admin is None:
            raise AdminError(f"no admin {name!r}")
        admin.disabled = True
        await _revoke_all(s, name, datetime.now(UTC))


async def names(db: Database) -> list[tuple[str, bool]]:
    async with db.session() as s:
        rows = await s.execute(select(Admin.name, Admin.disabled).order_by(Admin.name))
        return [(n, d) for n, d in rows]


async def check(db: Database, name: str, password: str) -> bool:
    """Whether ``name`` is an enabled admin with this password."""
    async with db.session() as s:
        admin = await s.get(Admin, name)
    stored = admin.password_hash if admin is not None else _DUMMY
    ok: bool
    try:
        ok = await asyncio.to_thread(_hasher.verify, stored, password)
    except (VerificationError, InvalidHashError):
        ok = False
    return bool(ok) and admin is not None and not admin.disabled
