"""A player's devices in Postgres: Web Push subscriptions (what each device receives and
when it is quiet), passkeys, and the devices that signed in by a one-time link or a passkey
(models in server/archive/models.py, migrations 0011 and 0012)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import delete, func, select, update
from sqlalchemy.dialects.postgresql import insert

from server.archive.db import Database
from server.archive.models import Passkey, PushSubscription, SignIn

KINDS = ("turn", "start", "invite", "end")  # what a device may choose to receive
SIGN_INS_LISTED = 20


@dataclass(frozen=True, slots=True)
class Prefs:
    """What one device receives: ``kinds`` (of ``KINDS``), and its quiet hours -- minutes
    of the day from ``quiet_from`` to ``quiet_to`` (wrapping over midnight) in the time zone
    ``tz`` (None: never quiet) -- and the language its notifications are written in."""

    kinds: tuple[str, ...] = KINDS
    quiet_from: int | None = None
    quiet_to: int | None = None
    tz: str = "UTC"
    lang: str = "en"


async def keep_subscription(
    db: Database,
    user_id: str,
    gen: int,
    endpoint: str,
    p256dh: str,
    auth: str,
    prefs: Prefs,
    device: str,
    most: int,
) -> None:
    """Keep a device's subscription for ``user_id`` (the endpoint's row, whoever had it
    before: one browser profile is one subscription), then drop the user's oldest beyond
    ``most``."""
    values = {
        "user_id": user_id,
        "endpoint": endpoint,
        "p256dh": p256dh,
        "auth": auth,
        "kinds": list(prefs.kinds),
        "quiet_from": prefs.quiet_from,
        "quiet_to": prefs.quiet_to,
        "tz": prefs.tz,
        "lang": prefs.lang,
        "gen": gen,
        "device": device,
    }
    async with db.session() as session, session.begin():
        stmt = insert(PushSubscription).values(**values)
        fresh = {k: v for k, v in values.items() if k != "endpoint"}
        await session.execute(
            stmt.on_conflict_do_update(
                index_elements=[PushSubscription.endpoint],
                set_={**fresh, "created_at": func.now()},
            )
        )
        kept = (
            select(PushSubscription.id)
            .where(PushSubscription.user_id == user_id)
            .order_by(PushSubscription.created_at.desc(), PushSubscription.id.desc())
            .limit(most)
        )
        await session.execute(
            delete(PushSubscription).where(
                PushSubscription.user_id == user_id, PushSubscription.id.not_in(kept)
            )
        )


async def drop_subscription(db: Database, endpoint: str, user_id: str | None = None) -> int:
    """Forget a subscription (its user's choice, or the push service said it is gone)."""
    async with db.session() as session, session.begin():
        stmt = delete(PushSubscription).where(PushSubscription.endpoint == endpoint)
        if user_id is not None:
            stmt = stmt.where(PushSubscription.user_id == user_id)
        result = await session.execute(stmt)
        return int(result.rowcount)  # type: ignore[attr-defined]


async def subscribed_users(db: Database) -> list[str]:
    """Every user with a push subscription kept."""
    async with db.session() as session:
        return list(await session.scalars(select(PushSubscription.user_id).distinct()))


async def subscriptions_of(db: Database, user_ids: Sequence[str]) -> list[PushSubscription]:
    if not user_ids:
        return []
    async with db.session() as session:
        rows = await session.scalars(
            select(PushSubscription).where(PushSubscription.user_id.in_(list(user_ids)))
        )
        return list(rows)


async def drop_signed_out(db: Database, user_id: str, gen: int) -> int:
    """Forget the user's subscriptions made before they signed out everywhere."""
    async with db.session() as session, session.begin():
        result = await session.execute(
            delete(PushSubscription).where(
                PushSubscription.user_id == user_id, PushSubscription.gen < gen
            )
        )
        return int(result.rowcount)  # type: ignore[attr-defined]


async def note_sent(db: Database, ids: Sequence[int]) -> None:
    if not ids:
        return
    async with db.session() as session, session.begin():
        await session.execute(
            update(PushSubscription)
            .where(PushSubscription.id.in_(list(ids)))
            .values(last_sent_at=func.now())
        )


async def note_sign_in(db: Database, user_id: str, how: str, device: str) -> None:
    async with db.session() as session, session.begin():
        session.add(SignIn(user_id=user_id, how=how, device=device[:100]))


async def sign_ins_of(db: Database, user_id: str) -> list[SignIn]:
    async with db.session() as session:
        rows = await session.scalars(
            select(SignIn)
            .where(SignIn.user_id == user_id)
            .order_by(SignIn.at.desc(), SignIn.id.desc())
            .limit(SIGN_INS_LISTED)
        )
        return list(rows)


async def add_passkey(
    db: Database,
    credential_id: str,
    user_id: str,
    name: str,
    public_key: bytes,
    count: int,
    transports: Sequence[str],
    device: str,
) -> bool:
    """Keep a new passkey; False (nothing changed) when its credential id is kept already."""
    async with db.session() as session, session.begin():
        result = await session.execute(
            insert(Passkey)
            .values(
                id=credential_id,
                user_id=user_id,
                name=name[:100],
                public_key=public_key,
                sign_count=count,
                transports=list(transports),
                device=device[:100],
            )
            .on_conflict_do_nothing(index_elements=[Passkey.id])
        )
        return int(result.rowcount) == 1  # type: ignore[attr-defined]


async def passkey(db: Database, credential_id: str) -> Passkey | None:
    async with db.session() as session:
        return await session.get(Passkey, credential_id)


async def passkeys_of(db: Database, user_id: str) -> list[Passkey]:
    async with db.session() as session:
        rows = await session.scalars(
            select(Passkey)
            .where(Passkey.user_id == user_id)
            .order_by(Passkey.created_at, Passkey.id)
        )
        return list(rows)


async def use_passkey(db: Database, credential_id: str, seen: int, count: int) -> bool:
    """Note a use of a passkey whose counter was ``seen`` and is now ``count``: False when
    another use got there first (the counter moved meanwhile: this one is a replay or a
    clone)."""
    async with db.session() as session, session.begin():
        result = await session.execute(
            update(Passkey)
            .where(Passkey.id == credential_id, Passkey.sign_count == seen)
            .values(sign_count=count, last_used_at=dt.datetime.now(dt.UTC))
        )
        return int(result.rowcount) == 1  # type: ignore[attr-defined]


async def drop_passkey(db: Database, user_id: str, credential_id: str) -> bool:
    """Forget one of the user's passkeys (another user's: nothing, False)."""
    async with db.session() as session, session.begin():
        result = await session.execute(
            delete(Passkey).where(Passkey.id == credential_id, Passkey.user_id == user_id)
        )
        return int(result.rowcount) == 1  # type: ignore[attr-defined]
