"""What the site keeps of its users: their token generations, the rooms they sit in and
host, guests per address, rate-limit buckets, and moderation (bans, mutes, flooders, the
operators' announcement)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence

from server.identity.tokens import Standing
from server.redis.lua import Lua
from server.redis.part import StorePart, decoded, text_pairs

TAKE_TOKEN = Lua.load("take_token")
HOLD = Lua.load("hold")


class UserStore(StorePart):
    """Users' keys and the site-wide moderation hashes."""

    # -- tokens ---------------------------------------------------------------------------
    async def token_generation(self, user_id: str) -> int:
        raw = await self.wire.call("GET", self.keys.user_gen(user_id))
        return int(raw) if raw is not None else 0

    async def sign_out(self, user_id: str, payload: Callable[[int], bytes]) -> int:
        """Raise the user's token generation: every token issued before dies; publish
        ``payload(new generation)`` so that every node closes the user's open sockets. The
        new generation."""
        gen = int(await self.wire.call("INCR", self.keys.user_gen(user_id)))
        await self.wire.call("PUBLISH", self.keys.users_channel, payload(gen))
        return gen

    # -- device keys (server/identity/signing.py) -----------------------------------------
    async def register_key(self, user_id: str, kid: str, public: str, most: int) -> bool:
        """Keep a device's public key with the user (again: no change); False when the user
        has ``most`` keys already. A key is never dropped: the archive's records name it."""
        key = self.keys.user_keys(user_id)
        if await self.wire.call("HEXISTS", key, kid, key=key):
            return True
        if int(await self.wire.call("HLEN", key, key=key)) >= most:
            return False
        await self.wire.call("HSET", key, kid, public, key=key)
        return True

    async def device_key(self, user_id: str, kid: str) -> str | None:
        """A public key the user registered, by its kid (None: none such)."""
        key = self.keys.user_keys(user_id)
        return decoded(await self.wire.call("HGET", key, kid, key=key))

    async def user_standing(
        self, user_id: str, marks: Sequence[str] = (), lookup: bool = False
    ) -> Standing:
        """The user's token generation, their site ban (JSON) if any, and whether one of the
        address ``marks`` is banned, in one round trip (the commands at once; on a cluster
        each to its own slot's primary). With ``lookup`` (a token without a mark) the mark
        the guest was made with is read too, and checked in a second trip if it is new."""
        gen_key, bans, addresses = self.keys.user_gen(user_id), self.keys.site_bans, None
        calls = [
            self.wire.call("GET", gen_key, key=gen_key),
            self.wire.call("HGET", bans, user_id, key=bans),
        ]
        if marks:
            addresses = self.keys.banned_addresses
            calls.append(self.wire.call("HMGET", addresses, *marks, key=addresses))
        if lookup:
            made = self.keys.guest_address(user_id)
            calls.append(self.wire.call("GET", made, key=made))
        found = await asyncio.gather(*calls)
        gen, ban = found[0], decoded(found[1])
        banned = bool(marks) and any(hit is not None for hit in found[2])
        mark = decoded(found[-1]) if lookup else None
        if mark is not None and mark not in marks and not banned:
            banned = await self.address_banned(mark)
        return Standing(int(gen) if gen is not None else 0, ban, banned, mark)

    async def publish_users(self, payload: bytes) -> None:
        """A publication to every node about users (sign-outs, bans)."""
        await self.wire.call("PUBLISH", self.keys.users_channel, payload)

    # -- "my rooms" -----------------------------------------------------------------------
    async def seat_users(self, room_id: str, users: Mapping[str, bool], at_ms: int) -> None:
        """Note (True: score ``at_ms``) or forget (False) ``room_id`` in each user's set."""
        if not users:
            return
        writes = []
        for user_id, seated in users.items():
            key = self.keys.user_rooms(user_id)
            if seated:
                writes.append(self.wire.call("ZADD", key, at_ms, room_id, key=key))
            else:
                writes.append(self.wire.call("ZREM", key, room_id, key=key))
        await asyncio.gather(*writes)  # at once: one round trip (each user's key its own slot)

    async def user_room_ids(self, user_id: str, limit: int) -> list[str]:
        """The rooms a user sits in, most recent activity first."""
        raw = await self.wire.call("ZREVRANGE", self.keys.user_rooms(user_id), 0, limit - 1)
        return [x.decode() for x in raw]

    async def forget_user_room(self, user_id: str, room_id: str) -> None:
        await self.wire.call("ZREM", self.keys.user_rooms(user_id), room_id)

    # -- quotas (server/table/quotas.py) --------------------------------------------------
    async def held_rooms(self, key: str) -> list[tuple[str, float, bytes | None, bytes | None]]:
        """The rooms a quota's sorted set holds (``Keys.user_hosted``, ``user_bot_games``,
        ``address_public``), each with when it was noted and its ``status`` and ``seats``
        (None: gone, or not made yet)."""
        raw = await self.wire.call("ZRANGE", key, 0, -1, "WITHSCORES")
        it = iter(raw)
        held = [(room.decode(), float(at)) for room, at in zip(it, it, strict=True)]
        if not held:
            return []
        rows = await self.wire.many(
            *(("HMGET", self.keys.room(room_id), "status", "seats") for room_id, _ in held)
        )
        return [(r, at, row[0], row[1]) for (r, at), row in zip(held, rows, strict=True)]

    async def hold_room(
        self, key: str, room_id: str, at: float, limit: int, gone: Sequence[str], ttl: int = 0
    ) -> bool:
        """Drop ``gone`` from a quota's set, then add ``room_id`` unless ``limit`` rooms are
        held already (0: no limit): one script, so that requests at once cannot all pass.
        The set expires ``ttl`` seconds after (0: never). True if the room holds a place."""
        args: list[int | str] = [limit, room_id, repr(float(at)), ttl, *gone]
        return bool(await self._run(HOLD, [key], args))

    async def release_room(self, key: str, room_id: str) -> None:
        await self.wire.call("ZREM", key, room_id)

    async def count_guest(self, address: str, hour: int) -> int:
        """One more guest for ``address`` in ``hour``; how many there are now."""
        key = self.keys.guests(address, hour)
        count, _ = await self.wire.many(("INCR", key), ("EXPIRE", key, 3700), key=key)
        return int(count)

    async def take_token(self, key: str, now_ms: int, rate: float, burst: int) -> bool:
        """Take one token from the shared bucket ``key`` (``rate`` per second, at most
        ``burst`` saved); False if it is empty. The bucket expires once it would be full."""
        return await self.token_wait(key, now_ms, rate, burst) == 0

    async def token_wait(self, key: str, now_ms: int, rate: float, burst: int) -> int:
        """``take_token``, answering 0 if a token was taken, else the milliseconds until the
        bucket holds one."""
        ttl = max(1, int(burst / rate) + 1) if rate > 0 else 24 * 3600
        args: list[int | str] = [now_ms, repr(float(rate)), burst, min(ttl, 24 * 3600)]
        return int(await self._run(TAKE_TOKEN, [key], args))

    # -- moderation (server/table/moderation.py) ------------------------------------------
    async def note_guest_address(self, user_id: str, mark: str, seconds: int) -> None:
        await self.wire.call("SET", self.keys.guest_address(user_id), mark, "EX", seconds)

    async def guest_address_of(self, user_id: str) -> str | None:
        return decoded(await self.wire.call("GET", self.keys.guest_address(user_id)))

    async def address_banned(self, mark: str) -> bool:
        return bool(await self.wire.call("HEXISTS", self.keys.banned_addresses, mark))

    async def ban_address(self, mark: str, user_id: str) -> None:
        await self.wire.call("HSET", self.keys.banned_addresses, mark, user_id)

    async def unban_addresses_of(self, user_id: str) -> int:
        """Lift the address bans that came with ``user_id``'s; how many."""
        raw = text_pairs(await self.wire.call("HGETALL", self.keys.banned_addresses))
        marks = [k for k, v in raw.items() if v == user_id]
        if not marks:
            return 0
        return int(await self.wire.call("HDEL", self.keys.banned_addresses, *marks))

    async def shut_flooder(self, user_id: str, seconds: float) -> None:
        """Every node turns the user's new sockets away for ``seconds`` (flooding)."""
        ms = max(1, int(seconds * 1000))
        await self.wire.call("SET", self.keys.flooder(user_id), "1", "PX", ms)

    async def flooder_left(self, user_id: str) -> float:
        """Seconds the user is still shut out for flooding on the site (0: not)."""
        key = self.keys.flooder(user_id)
        ms = await self.wire.call("PTTL", key, key=key)
        return max(0, int(ms)) / 1000

    async def site_list(self, key: str) -> dict[str, str]:
        """A site-wide moderation hash (``Keys.site_bans`` or ``site_mutes``): user -> JSON."""
        return text_pairs(await self.wire.call("HGETALL", key))

    async def site_entry(self, key: str, user_id: str) -> str | None:
        return decoded(await self.wire.call("HGET", key, user_id))

    async def set_site_entry(self, key: str, user_id: str, value: str | None) -> bool:
        """Set (or with None remove) a user's entry; True if it changed the hash's members."""
        if value is None:
            return bool(await self.wire.call("HDEL", key, user_id))
        return bool(await self.wire.call("HSET", key, user_id, value))

    async def announcement(self) -> str | None:
        return decoded(await self.wire.call("GET", self.keys.site_announcement))

    async def set_announcement(self, value: str | None, ttl_ms: int = 0) -> None:
        if value is None:
            await self.wire.call("DEL", self.keys.site_announcement)
        else:
            await self.wire.call("SET", self.keys.site_announcement, value, "PX", max(1, ttl_ms))
