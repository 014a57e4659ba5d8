"""The admin audit is a hash chain the database writes: entries written at once still form
one chain, every kind of rewrite is named by ``tortuga admin audit --verify``, and the role
the nodes connect as (deploy/postgres-roles.sql) cannot rewrite it -- on the real Postgres."""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from tortuga_client import SECRET

from server.admin import accounts, audit
from server.archive.commands import check_schema, migrate
from server.archive.db import Database
from server.archive.scratch import _admin, scratch_database

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
async def chain_db(fresh_database: str) -> AsyncIterator[Database]:
    await migrate(fresh_database)
    db = await Database.connect(fresh_database)
    yield db
    await db.close()


async def _entries(db: Database, n: int) -> list[int]:
    return [
        await audit.write(db, "alice", "kick", target=f"R{k}", reason="rude", details={"k": k})
        for k in range(n)
    ]


async def _as_superuser(db: Database, statement: str) -> None:
    """What only an owner or a superuser can do: set the audit's triggers aside and edit."""
    async with db.engine.begin() as conn:
        await conn.execute(text("SET LOCAL session_replication_role = replica"))
        await conn.execute(text(statement))


def _cli(url: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "TORTUGA_DATABASE_URL": url,
        "TORTUGA_SECRET": SECRET.hex(),
        "TORTUGA_DATA_DIR": str(tmp_path),
    }
    return subprocess.run(
        [sys.executable, "-m", "server.cli", "admin", "audit", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


async def test_concurrent_entries_form_one_chain(
    chain_db: Database, fresh_database: str, tmp_path: Path
) -> None:
    """Forty entries written at once, over several connections, queue on the chain's head:
    ids 1..40 in chain order, each linked to the one before, times in order."""
    ids = await asyncio.gather(
        *(audit.write(chain_db, f"op{k % 4}", "look", target=f"R{k}") for k in range(40))
    )
    assert sorted(ids) == list(range(1, 41))
    async with chain_db.session() as s:
        rows = (
            await s.execute(text("SELECT id, at, prev_hash, hash FROM admin_audit ORDER BY id"))
        ).all()
    prev = audit.GENESIS
    for before, row in zip([None, *rows], rows, strict=False):
        assert row.prev_hash == prev
        if before is not None:
            assert row.at >= before.at
        prev = row.hash
    report = await audit.verify_chain(chain_db)
    assert report.ok and report.entries == 40, report.message
    assert f"entry 40, hash {prev}" in report.message

    listed = _cli(fresh_database, tmp_path, "--limit", "3")
    assert listed.returncode == 0, listed.stderr
    assert [line.split("  ")[0] for line in listed.stdout.splitlines()] == ["38", "39", "40"]
    verified = _cli(fresh_database, tmp_path, "--verify")
    assert verified.returncode == 0 and "40 entries" in verified.stdout, verified.stderr


async def test_a_writer_chooses_neither_place_time_nor_hash(chain_db: Database) -> None:
    """Whatever an INSERT says of id, time or hashes, the trigger sets them."""
    await _entries(chain_db, 2)
    async with chain_db.engine.begin() as conn:
        await conn.execute(
            text(
                "INSERT INTO admin_audit (id, at, admin, action, details, prev_hash, hash) "
                "VALUES (1000, '2001-01-01', 'mallory', 'look', '{}', :zero, :zero)"
            ),
            {"zero": audit.GENESIS},
        )
    async with chain_db.session() as s:
        row = (await s.execute(text("SELECT * FROM admin_audit WHERE admin = 'mallory'"))).one()
    assert row.id == 3 and row.at.year > 2001 and row.prev_hash != audit.GENESIS
    assert (await audit.verify_chain(chain_db)).ok


# Each rewrite (by someone able to set the triggers aside) and the entry --verify names.
TAMPERING = {
    "text edited": ("UPDATE admin_audit SET reason = 'polite' WHERE id = 3", 3, "changed"),
    "back-dated": (
        "UPDATE admin_audit SET at = at - interval '1 day' WHERE id = 3",
        3,
        "changed",
    ),
    "details edited": (
        "UPDATE admin_audit SET details = '{\"k\": 9}' WHERE id = 2",
        2,
        "changed",
    ),
    "removed": ("DELETE FROM admin_audit WHERE id = 3", 4, "does not follow entry 2"),
    "first removed": ("DELETE FROM admin_audit WHERE id = 1", 2, "the start of the audit"),
    "re-hashed": (
        "UPDATE admin_audit SET reason = 'polite', hash = admin_audit_hash(prev_hash, id, at, "
        "admin, action, target, 'polite', details) WHERE id = 3",
        4,
        "does not follow entry 3",
    ),
    "last re-hashed": (
        "UPDATE admin_audit SET reason = 'polite', hash = admin_audit_hash(prev_hash, id, at, "
        "admin, action, target, 'polite', details) WHERE id = 5",
        5,
        "its chain ends at entry 5",
    ),
    "last removed": ("DELETE FROM admin_audit WHERE id = 5", 4, "its chain ends at entry 5"),
    "moved": ("UPDATE admin_audit SET id = 7 WHERE id = 2", 3, "does not follow entry 1"),
}


@pytest.mark.parametrize("kind", sorted(TAMPERING))
async def test_verify_names_the_first_rewritten_entry(chain_db: Database, kind: str) -> None:
    statement, bad, said = TAMPERING[kind]
    await _entries(chain_db, 5)
    assert (await audit.verify_chain(chain_db)).ok
    await _as_superuser(chain_db, statement)
    report = await audit.verify_chain(chain_db)
    assert not report.ok and report.bad_entry == bad, report.message
    assert said in report.message


async def test_the_cli_fails_on_a_broken_chain(
    chain_db: Database, fresh_database: str, tmp_path: Path
) -> None:
    await _entries(chain_db, 3)
    await _as_superuser(chain_db, "UPDATE admin_audit SET admin = 'bob' WHERE id = 2")
    done = _cli(fresh_database, tmp_path, "--verify")
    assert done.returncode == 1 and "entry 2 was changed" in done.stderr, done.stdout


async def test_the_migration_chains_the_entries_already_there(fresh_database: str) -> None:
    await migrate(fresh_database, "0005")
    db = await Database.connect(fresh_database)
    try:
        async with db.engine.begin() as conn:
            for k in range(3):
                await conn.execute(
                    text(
                        "INSERT INTO admin_audit (admin, action, target, details) "
                        "VALUES ('old', 'kick', :t, '{\"é\": [1, 2.50]}')"
                    ),
                    {"t": f"R{k}"},
                )
            await conn.execute(text("SELECT nextval('admin_audit_id_seq')"))  # a gap
        await migrate(fresh_database)
        assert (await audit.verify_chain(db)).entries == 3
        new = await audit.write(db, "alice", "look")
        report = await audit.verify_chain(db)
        assert new == 4 and report.ok and report.entries == 4, report.message
    finally:
        await db.close()


def _psql() -> str:
    found = shutil.which("psql")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("psql is missing (Debian: postgresql-client)")
        pytest.skip("psql is not installed")
    return found


@pytest.fixture
def roles(postgres_admin_url: str) -> Iterator[tuple[str, str]]:
    """A scratch database set up by deploy/postgres-roles.sql, as docker-compose does, with
    roles of its own (roles are the cluster's: unique names, dropped after): the owner's URL
    and the node's."""
    psql, tag = _psql(), secrets.token_hex(4)
    owner, node = f"tortuga_owner_{tag}", f"tortuga_node_{tag}"
    try:
        with scratch_database(postgres_admin_url, "tortuga_roles") as url:
            u = make_url(url)
            variables = {
                "ON_ERROR_STOP": "1",
                "database": str(u.database),
                "owner": owner,
                "node": node,
                "owner_password": "o-secret",
                "node_password": "n-secret",
            }
            where = ["-h", u.host or "127.0.0.1", "-p", str(u.port or 5432)]
            done = subprocess.run(
                [psql, "-X", "-q", *where, "-U", u.username or "postgres", "-d", str(u.database)]
                + [f"--set={k}={v}" for k, v in variables.items()]
                + ["-f", str(ROOT / "deploy" / "postgres-roles.sql")],
                env={**os.environ, "PGPASSWORD": u.password or ""},
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert done.returncode == 0, done.stderr
            yield (
                u.set(username=owner, password="o-secret").render_as_string(hide_password=False),
                u.set(username=node, password="n-secret").render_as_string(hide_password=False),
            )
    finally:
        for role in (node, owner):
            asyncio.run(_admin(postgres_admin_url, f'DROP ROLE IF EXISTS "{role}"'))


NODE_REFUSED = (
    "UPDATE admin_audit SET reason = 'polite'",
    "DELETE FROM admin_audit",
    "TRUNCATE admin_audit",
    "ALTER TABLE admin_audit DISABLE TRIGGER admin_audit_append_only",
    "ALTER TABLE admin_audit DISABLE TRIGGER admin_audit_chain",
    "ALTER TABLE admin_audit DISABLE TRIGGER ALL",
    "DROP TRIGGER admin_audit_chain ON admin_audit",
    "CREATE TRIGGER later BEFORE INSERT ON admin_audit "
    "FOR EACH ROW EXECUTE FUNCTION admin_audit_chain()",
    "SET session_replication_role = replica",
    "UPDATE admin_audit_head SET id = 0",
    "DELETE FROM admin_audit_head",
    "INSERT INTO admin_audit_head (one, id, hash, at) VALUES (false, 0, '', now())",
    "CREATE OR REPLACE FUNCTION admin_audit_hash(prev text, id bigint, at timestamptz, "
    "admin text, action text, target text, reason text, details jsonb) RETURNS text "
    "LANGUAGE sql AS $$ SELECT 'x' $$",
    "ALTER TABLE admin_audit OWNER TO CURRENT_USER",
)


async def test_the_node_role_cannot_rewrite_the_audit(roles: tuple[str, str]) -> None:
    owner_url, node_url = roles
    await migrate(owner_url)
    node = await Database.connect(node_url)
    try:
        # The node works: the schema is at head, an admin account, entries, migrate at head.
        assert await check_schema(node_url) is None
        await migrate(node_url)
        await accounts.create(node, f"op-{secrets.token_hex(3)}", "a long password!")
        await _entries(node, 3)
        for statement in NODE_REFUSED:
            with pytest.raises(DBAPIError, match=r"permission denied|must be owner"):
                async with node.engine.begin() as conn:
                    await conn.execute(text(statement))
        # A temporary table of its own named as the head does not lead the trigger astray.
        async with node.engine.begin() as conn:
            await conn.execute(
                text(
                    "CREATE TEMP TABLE admin_audit_head ON COMMIT DROP AS "
                    "SELECT * FROM public.admin_audit_head"
                )
            )
            await conn.execute(text("UPDATE admin_audit_head SET id = 100, hash = 'x'"))
            await conn.execute(text("INSERT INTO admin_audit (admin, action) VALUES ('n', 'a')"))
        report = await audit.verify_chain(node)
        assert report.ok and report.entries == 4 and "note" not in report.message, report.message
    finally:
        await node.close()
    owner = await Database.connect(owner_url)
    try:
        assert (
            "note: the role connected here may UPDATE" in (await audit.verify_chain(owner)).message
        )
    finally:
        await owner.close()
