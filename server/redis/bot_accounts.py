"""Players' bot accounts and the ladder's bookkeeping (server/http/bots.py,
server/ladder/arena.py): who owns which bot, which bots are ready for ladder games, the
arena's rooms and the lease of the node that makes matches."""

from __future__ import annotations

import json
from typing import Any

from server.redis.part import StorePart, decoded


class BotAccountStore(StorePart):
    # -- bot accounts ---------------------------------------------------------------------
    async def add_bot_account(self, owner: str, account: dict[str, Any]) -> None:
        key = self.keys.user_bots(owner)
        mine = {k: account[k] for k in ("id", "name", "created_at", "revoked")}
        await self.wire.call("HSET", key, account["id"], json.dumps(mine), key=key)
        one = self.keys.bot_account(account["id"])
        await self.wire.call("SET", one, json.dumps(account), key=one)

    async def bot_accounts(self, owner: str) -> list[dict[str, Any]]:
        raw = await self.wire.call("HGETALL", self.keys.user_bots(owner))
        found = [json.loads(v) for v in (raw[1::2] if isinstance(raw, list) else raw.values())]
        return sorted(found, key=lambda a: (a["created_at"], a["id"]))

    async def bot_account(self, bot_id: str) -> dict[str, Any] | None:
        raw = decoded(await self.wire.call("GET", self.keys.bot_account(bot_id)))
        return json.loads(raw) if raw is not None else None

    async def revoke_bot_account(self, owner: str, bot_id: str) -> dict[str, Any] | None:
        """Mark the owner's bot account revoked (None: they have no such bot)."""
        account = await self.bot_account(bot_id)
        if account is None or account.get("owner") != owner:
            return None
        account["revoked"] = True
        await self.add_bot_account(owner, account)
        return account

    # -- the ladder -----------------------------------------------------------------------
    async def ladder_ready(self, engine: str, bot_id: str, until_ms: int) -> None:
        key = self.keys.ladder_ready(engine)
        await self.wire.call("ZADD", key, until_ms, bot_id, key=key)

    async def ladder_waiting(self, engine: str, now_ms: int) -> list[str]:
        """The bots ready for ``engine``'s ladder games now (the others are dropped)."""
        key = self.keys.ladder_ready(engine)
        await self.wire.call("ZREMRANGEBYSCORE", key, "-inf", now_ms, key=key)
        raw = await self.wire.call("ZRANGE", key, 0, -1, key=key)
        return [r.decode() if isinstance(r, bytes) else str(r) for r in raw]

    async def ladder_not_ready(self, engine: str, bot_id: str) -> None:
        key = self.keys.ladder_ready(engine)
        await self.wire.call("ZREM", key, bot_id, key=key)

    async def ladder_tables(self) -> list[str]:
        raw = await self.wire.call("ZRANGE", self.keys.ladder_tables, 0, -1)
        return [r.decode() if isinstance(r, bytes) else str(r) for r in raw]

    async def ladder_table(self, room_id: str, at_ms: int | None) -> None:
        """Note (``at_ms``) or forget (None) one of the arena's rooms."""
        key = self.keys.ladder_tables
        if at_ms is None:
            await self.wire.call("ZREM", key, room_id)
        else:
            await self.wire.call("ZADD", key, at_ms, room_id)

    async def ladder_lease(self, holder: str, seconds: float) -> bool:
        """True when ``holder`` holds the arena's lease for ``seconds`` more (taken, or
        renewed because it held it)."""
        key = self.keys.ladder_lease
        ms = max(1, int(seconds * 1000))
        if await self.wire.call("SET", key, holder, "NX", "PX", ms):
            return True
        if decoded(await self.wire.call("GET", key)) == holder:
            await self.wire.call("PEXPIRE", key, ms)
            return True
        return False
