"""The admin audit: every admin action is one row of ``admin_audit`` (who, what, which
room, when, why). Rows are only ever inserted -- the database refuses UPDATE and DELETE
(migration 0005) -- and an action that shows hidden state is written before it is shown."""

from __future__ import annotations

from typing import Any

from sqlalchemy import String, cast, or_, select

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
