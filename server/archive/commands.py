"""What ``tortuga migrate``, ``tortuga verify`` and the server's start-up call.

await migrate(url)              # upgrade the schema to head (safe with several nodes)
message = await check_schema(url)  # None when at head, else what is wrong and what to do
report = await verify(url, game_id)  # report.ok, report.message ("verified" or what differs)
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection

from server.archive.db import Database, safe_url
from server.archive.history import verify_game
from server.archive.replay import VerifyReport

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"

# pg_advisory_xact_lock key: nodes starting together migrate one after the other.
_MIGRATION_LOCK = 0x7041_7274  # "tort"


def alembic_config() -> Config:
    """Alembic's configuration without alembic.ini: the scripts in ``migrations/``."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def head_revision() -> str:
    heads = ScriptDirectory.from_config(alembic_config()).get_heads()
    return ", ".join(heads)


def _upgrade(connection: Connection, revision: str) -> None:
    connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
    cfg = alembic_config()
    cfg.attributes["connection"] = connection
    command.upgrade(cfg, revision)


def _downgrade(connection: Connection, revision: str) -> None:
    connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
    cfg = alembic_config()
    cfg.attributes["connection"] = connection
    command.downgrade(cfg, revision)


async def migrate(database_url: str, revision: str = "head") -> None:
    """Upgrade the schema to ``revision`` (head), in one transaction."""
    db = Database(database_url)
    try:
        async with db.engine.begin() as conn:
            await conn.run_sync(_upgrade, revision)
    finally:
        await db.close()


async def downgrade(database_url: str, revision: str) -> None:
    """Downgrade the schema to ``revision`` ("base": nothing). For tests and operators."""
    db = Database(database_url)
    try:
        async with db.engine.begin() as conn:
            await conn.run_sync(_downgrade, revision)
    finally:
        await db.close()


def _current(connection: Connection) -> tuple[str, ...]:
    return tuple(MigrationContext.configure(connection).get_current_heads())


async def current_revision(database_url: str) -> tuple[str, ...]:
    """The revision(s) the database is at; empty when it has no schema."""
    db = Database(database_url)
    try:
        async with db.engine.connect() as conn:
            return await conn.run_sync(_current)
    finally:
        await db.close()


async def check_schema(database_url: str) -> str | None:
    """None when the database is at the code's head revision; else a message saying what is
    wrong and what to do (the server refuses to start with it)."""
    script = ScriptDirectory.from_config(alembic_config())
    heads = set(script.get_heads())
    need = ", ".join(sorted(heads))
    try:
        current = set(await current_revision(database_url))
    except Exception as exc:  # unreachable, refused, no such database: say which
        return f"cannot reach the database at {safe_url(database_url)}: {exc}"
    if current == heads:
        return None
    if not current:
        return (
            f"the database at {safe_url(database_url)} has no schema yet, the code needs "
            f"revision {need}: run `tortuga migrate`"
        )
    at = ", ".join(sorted(current))
    known = {rev.revision for rev in script.walk_revisions()}
    if not current <= known:
        return (
            f"the database is at revision {at}, which this code does not know (it needs "
            f"{need}): it was migrated by a newer Tortuga; upgrade this one"
        )
    return f"the database is at revision {at}, the code needs {need}: run `tortuga migrate`"


def read_heads(text: str) -> dict[int, str]:
    """The heads a device saw, from the file its browser saves ("Save what my browser saw"):
    ``{"heads": {"<version>": "<64 hex>", ...}, ...}`` or the bare mapping. ValueError with
    what is wrong otherwise."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"the heads file is not JSON: {exc}") from None
    if isinstance(data, dict) and isinstance(data.get("heads"), dict):
        data = data["heads"]
    if not isinstance(data, dict) or not data:
        raise ValueError("the heads file holds no heads (version -> head)")
    heads: dict[int, str] = {}
    for version, head in data.items():
        if not (isinstance(version, str) and version.isdigit() and int(version) >= 1):
            raise ValueError(f"the heads file names {version!r}, not a version (1, 2, ...)")
        if not (isinstance(head, str) and len(head) == 64 and _HEX.fullmatch(head)):
            raise ValueError(f"the head of version {version} is not 64 hex digits")
        heads[int(version)] = head
    return heads


_HEX = re.compile(r"[0-9a-f]{64}")


async def verify(
    database_url: str, game_id: str, seen: Mapping[int, str] | None = None
) -> VerifyReport:
    """Recompute every state of an archived game from its seed and logged moves; with
    ``seen``, first compare the archive's heads with the ones a device was sent."""
    db = Database(database_url)
    try:
        async with db.session() as session:
            return await verify_game(session, game_id, seen)
    finally:
        await db.close()
