"""Admin sessions: a random bearer token per login, kept in Postgres only as its SHA-256.

Separate from player tokens (server/identity/tokens.py): a player's token is never an admin's, and
an
admin token is not signed by the site's secret, so neither can stand for the other. A
session ends when it expires (``Settings.admin_session_seconds`` after login), when it is
revoked (logout; ``tortuga admin passwd`` / ``disable`` revoke all of an account's), or
when its account is disabled.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from server.archive.db import Database
from server.archive.models import Admin, AdminSession

PREFIX = "adm_"


class NotAdmin(Exception):
    """No token, or one that is not a live admin session."""


@dataclass(frozen=True, slots=True)
class Session:
    """A live admin session; ``automation``: the environment's admin token (no expiry,
    nothing to revoke: it ends when the token is taken out of the environment)."""

    admin: str
    digest: str
    expires_at: datetime | None
    automation: bool = False


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def open_session(db: Database, admin: str, seconds: float, address: str | None) -> str:
    """A new session of ``admin`` (whose password was checked); its token."""
    token = PREFIX + secrets.token_urlsafe(32)
    expires = datetime.now(UTC) + timedelta(seconds=seconds)
    async with db.session() as s, s.begin():
        s.add(
            AdminSession(
                digest=_digest(token),
                admin=admin,
                expires_at=expires,
                address=(address or "")[:64] or None,
            )
        )
    return token


def bearer(header: str | None) -> str:
    if not header or not header.startswith("Bearer "):
        raise NotAdmin("an admin token is required (Authorization: Bearer adm_...)")
    return header.removeprefix("Bearer ").strip()


async def lookup(db: Database, token: str) -> Session:
    """The live session of ``token``; NotAdmin if it has none, expired, was revoked, or its
    account is disabled."""
    if not token.startswith(PREFIX):
        raise NotAdmin("not an admin token")
    digest = _digest(token)
    async with db.session() as s:
        row = (
            await s.execute(
                select(AdminSession, Admin.disabled)
                .join(Admin, Admin.name == AdminSession.admin)
                .where(AdminSession.digest == digest)
            )
        ).first()
    if row is None:
        raise NotAdmin("no such admin session")
    session, disabled = row
    if session.revoked_at is not None:
        raise NotAdmin("this admin session was revoked")
    if session.expires_at <= datetime.now(UTC):
        raise NotAdmin("this admin session expired")
    if disabled:
        raise NotAdmin("this admin account is disabled")
    return Session(session.admin, digest, session.expires_at)


async def revoke(db: Database, session: Session) -> None:
    async with db.session() as s, s.begin():
        row = await s.get(AdminSession, session.digest)
        if row is not None and row.revoked_at is None:
            row.revoked_at = datetime.now(UTC)
