"""A throwaway Postgres database beside another, dropped when done: each test session's
(and the tests that need a brand-new one), and ``tortuga loadtest --against``'s (another
revision has another schema)."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Iterator


async def _admin(url: str, sql: str) -> None:
    """Run ``sql`` (CREATE/DROP DATABASE: outside a transaction) on ``url``'s database."""
    import asyncpg  # type: ignore[import-untyped]
    from sqlalchemy.engine import make_url

    u = make_url(url)
    conn = await asyncpg.connect(
        user=u.username,
        password=u.password,
        host=u.query.get("host") or u.host,
        port=u.port,
        database=u.database,
    )
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def with_database(url: str, name: str) -> str:
    """``url`` with another database name (the password kept)."""
    from sqlalchemy.engine import make_url

    return make_url(url).set(database=name).render_as_string(hide_password=False)


@contextlib.contextmanager
def scratch_database(url: str, prefix: str = "tortuga_scratch") -> Iterator[str]:
    """CREATE a uniquely named database beside ``url``'s, yield its URL, DROP it after
    (with its connections: WITH (FORCE))."""
    name = f"{prefix}_{secrets.token_hex(4)}"
    asyncio.run(_admin(url, f'CREATE DATABASE "{name}"'))
    try:
        yield with_database(url, name)
    finally:
        asyncio.run(_admin(url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
