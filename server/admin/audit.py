"""The admin audit: every admin action is one row of ``admin_audit`` (who, what, which
room, when, why). Rows are only ever inserted -- the database refuses UPDATE and DELETE
(migration 0005) -- and an action that shows hidden state is written before it is shown.

The rows form a hash chain the database computes as each is inserted (migration 0006, which
specifies the encoding): ``verify_chain`` recomputes it here, independently of the database's
functions, and names the first entry that was edited, removed, re-hashed or inserted out of
its place (``tortuga admin audit --verify``)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import String, cast, or_, select, text

from server.archive.db import Database
from server.archive.models import AdminAudit

MAX_REASON = 500


async def write(
    db: Database,
    admin: str,
    action: str,
    *,
    target: str | None = None,
    reason: str | None = None,
    details: dict[str, Any] | None = None,
) -> int:
    """Append one entry (committed when this returns); its id."""
    entry = AdminAudit(
        admin=admin, action=action, target=target, reason=reason, details=details or {}
    )
    async with db.session() as s, s.begin():
        s.add(entry)
        await s.flush()
        return int(entry.id)


def _json(entry: AdminAudit) -> dict[str, Any]:
    return {
        "id": entry.id,
        "at": entry.at.isoformat(),
        "admin": entry.admin,
        "action": entry.action,
        "target": entry.target,
        "reason": entry.reason,
        "details": entry.details,
    }


async def search(
    db: Database,
    *,
    admin: str | None = None,
    action: str | None = None,
    target: str | None = None,
    text: str | None = None,
    before: int | None = None,
    limit: int = 50,
) -> list[dict[str, Any]]:
    """Newest first; ``text`` is a case-insensitive substring of the target, the reason or
    the details (a user id, a hidden chat message, a node's name);
    ``before``: entries with a smaller id (the next page)."""
    query = select(AdminAudit).order_by(AdminAudit.id.desc()).limit(limit)
    if admin:
        query = query.where(AdminAudit.admin == admin)
    if action:
        query = query.where(AdminAudit.action == action)
    if target:
        query = query.where(AdminAudit.target == target)
    if text:
        pattern = "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        query = query.where(
            or_(
                AdminAudit.target.ilike(pattern),
                AdminAudit.reason.ilike(pattern),
                cast(AdminAudit.details, String).ilike(pattern),
            )
        )
    if before is not None:
        query = query.where(AdminAudit.id < before)
    async with db.session() as s:
        return [_json(e) for e in (await s.scalars(query)).all()]


GENESIS = "0" * 64  # the prev_hash of the first entry
_VERIFY_BATCH = 1000


def _field(value: str | None) -> str:
    if value is None:
        return "-"
    return f"{len(value.encode())}:{value}"


def entry_hash(
    prev_hash: str,
    entry_id: int,
    at: datetime,
    admin: str,
    action: str,
    target: str | None,
    reason: str | None,
    details: str,
) -> str:
    """The hash the database gives an entry (migration 0006); ``details`` as Postgres prints
    the jsonb (``details::text``)."""
    stamp = at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    fields = (str(entry_id), stamp, admin, action, target, reason, details)
    message = f"tortuga-audit-1\n{prev_hash}\n" + "".join(_field(f) for f in fields)
    return hashlib.sha256(message.encode()).hexdigest()


@dataclass(frozen=True)
class ChainReport:
    ok: bool
    message: str
    entries: int  # entries checked (up to the first that does not match)
    bad_entry: int | None = None  # the id of the first entry that does not match


_ROWS = text(
    "SELECT id, at, admin, action, target, reason, details::text AS details, prev_hash, hash "
    "FROM admin_audit WHERE id > :after ORDER BY id LIMIT :limit"
)


async def verify_chain(db: Database) -> ChainReport:
    """Walk the whole audit in id order: each entry's hash must be what its fields give, its
    prev_hash the hash of the entry before it (64 zeros for the first), and the last entry
    the chain's head. Reads a batch at a time (memory bounded, whatever the audit's size)."""
    prev_hash, prev_id, count = GENESIS, 0, 0
    async with db.session() as s:
        while True:
            rows = (await s.execute(_ROWS, {"after": prev_id, "limit": _VERIFY_BATCH})).all()
            for row in rows:
                given = entry_hash(
                    row.prev_hash or "",
                    row.id,
                    row.at,
                    row.admin,
                    row.action,
                    row.target,
                    row.reason,
                    row.details,
                )
                if given != row.hash:
                    return ChainReport(
                        False,
                        f"entry {row.id} was changed after it was written: its fields (or "
                        "the link it holds) do not give its hash",
                        count,
                        row.id,
                    )
                if row.prev_hash != prev_hash:
                    before = f"entry {prev_id}" if prev_id else "the start of the audit"
                    return ChainReport(
                        False,
                        f"entry {row.id} does not follow {before}: an entry between them was "
                        "removed, or this one was put out of its place, or the one before "
                        "was changed and hashed again",
                        count,
                        row.id,
                    )
                prev_hash, prev_id, count = row.hash, row.id, count + 1
            if len(rows) < _VERIFY_BATCH:
                break
        head = (await s.execute(text("SELECT id, hash FROM admin_audit_head"))).first()
        may_edit = await s.scalar(
            text("SELECT has_table_privilege(current_user, 'admin_audit', 'UPDATE')")
        )
    if head is None:
        return ChainReport(False, "the chain's head (admin_audit_head) is missing", count)
    if head.id != prev_id or head.hash != prev_hash:
        last = f"entry {prev_id}" if prev_id else "no entry"
        return ChainReport(
            False,
            f"the audit ends at {last} but its chain ends at entry {head.id}: entries at "
            "the end were removed, or the last one was changed and hashed again",
            count,
            prev_id or None,
        )
    message = f"the audit's {count} entries form one unbroken chain; its last link: " + (
        f"entry {prev_id}, hash {prev_hash}" if count else "none yet"
    )
    if may_edit:
        message += (
            "\nnote: the role connected here may UPDATE the audit (it owns it or is a "
            "superuser): the nodes should connect as a role that may not (README)"
        )
    return ChainReport(True, message, count)


def _printable(value: object) -> str:
    """No control characters reach the terminal (an admin's reason is their text)."""
    return "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in str(value))


def lines(entries: list[dict[str, Any]]) -> list[str]:
    """``search``'s entries as the CLI prints them, oldest first."""
    return [
        "  ".join(
            _printable(v)
            for v in (
                e["id"],
                e["at"],
                e["admin"],
                e["action"],
                e["target"] or "-",
                e["reason"] or "-",
                e["details"] or "",
            )
        )
        for e in reversed(entries)
    ]
