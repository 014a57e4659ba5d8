"""The connection to the history database: one async engine and its session factory.

The app keeps one ``Database`` on ``app.state.db`` (the history routes read it there):

    app.state.db = await Database.connect(settings.database_url)
    ...
    await app.state.db.close()

Connecting is lazy: no connection is made until the first query, so a node starts (and
its archiver waits) while Postgres is unreachable.
"""

from __future__ import annotations

import errno
import json
import socket
from typing import Any

import msgspec
from sqlalchemy import exc as sa
from sqlalchemy import text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)


def async_url(url: str | URL) -> URL:
    """``postgresql://...`` (or ``postgres://``) -> the asyncpg form SQLAlchemy needs."""
    parsed = make_url(url) if isinstance(url, str) else url
    if parsed.drivername in ("postgresql", "postgres", "postgresql+psycopg2"):
        parsed = parsed.set(drivername="postgresql+asyncpg")
    return parsed


def safe_url(url: str | URL) -> str:
    """The URL without its password, for messages and logs."""
    return async_url(url).render_as_string(hide_password=True)


_encode_json = msgspec.json.Encoder().encode


def _json_text(value: Any) -> str:
    """A JSONB parameter's text: msgspec's encoder (a tenth of the standard library's
    cost; the archive writes every move's JSON), the standard library's for what msgspec
    does not encode (an integer past 64 bits)."""
    try:
        return _encode_json(value).decode()
    except (TypeError, OverflowError, msgspec.EncodeError):
        return json.dumps(value)


def make_engine(url: str | URL) -> AsyncEngine:
    return create_async_engine(
        async_url(url),
        json_serializer=_json_text,
        pool_pre_ping=True,  # a Postgres restart costs one failed ping, not an error
        pool_size=5,
        max_overflow=5,
        connect_args={"timeout": 5},  # seconds to connect: an unreachable server fails fast
        hide_parameters=True,  # an error's text never carries the rows (names, moves) to logs
    )


# SQLSTATE classes of a server that is not there to answer: 08 connection exception, 57P
# operator intervention (shutting down, crashed, starting up).
_GONE_STATES = ("08", "57P")
_UNREACHABLE_ERRNOS = (None, errno.ENETUNREACH, errno.EHOSTUNREACH, errno.EADDRNOTAVAIL)


def unreachable(error: BaseException) -> bool:
    """Whether ``error`` says the database could not be reached or went away (refused, cut,
    timed out, shutting down or starting up, no free connection in time) -- an outage to
    answer with 503, not a bug in a query (those stay errors)."""
    if isinstance(error, ConnectionError | TimeoutError | socket.gaierror | sa.TimeoutError):
        return True
    if type(error) is OSError:  # asyncio's "Connect call failed", "Multiple exceptions"
        return error.errno in _UNREACHABLE_ERRNOS
    if isinstance(error, sa.DBAPIError):
        state = getattr(error.orig, "sqlstate", None) or ""
        return error.connection_invalidated or state.startswith(_GONE_STATES)
    return False


class Database:
    """An async engine and an ``async_sessionmaker`` on it."""

    def __init__(self, url: str | URL) -> None:
        self.url = async_url(url)
        self.engine = make_engine(self.url)
        self.sessions: async_sessionmaker[AsyncSession] = async_sessionmaker(
            self.engine, expire_on_commit=False
        )

    @classmethod
    async def connect(cls, url: str | URL) -> Database:
        """A Database on ``url`` (lazy: nothing is contacted yet)."""
        return cls(url)

    def session(self) -> AsyncSession:
        return self.sessions()

    async def ping(self) -> None:
        """Raise unless the database answers."""
        async with self.engine.connect() as conn:
            await conn.execute(text("SELECT 1"))

    async def close(self) -> None:
        await self.engine.dispose()

    def __repr__(self) -> str:
        return f"Database({safe_url(self.url)!r})"
