"""What reaching players across devices keeps in Redis: the pushes' turn marks and
once-only keys (server/archive/push.py), one-time sign-in links and WebAuthn challenges
(server/http/signin.py): short-lived, single-use, shared by every node.

- ``push:{ROOM}:<user>``: the user's turn in the room as the pushes last saw it
  (``<version>:<owes>:<since>``; ``scripts/push_turn.lua``): when the user's turn began.
- ``push:{ROOM}:<user>:<kind>:<version>``: a start, end or "your move" push sent (``SET
  NX``; a turn is named by the version it began at): once. ``push:{ROOM}:<user>:invite``:
  the user's invitation to the (new) room pushed: once.
- ``push:users``: the users who ever kept a push subscription (``SADD`` when one is kept,
  seeded from Postgres when a node starts): a step none of whose players is in it is not
  looked at further -- no room read, no state decoded, no turn marks (the common case).
- ``signin:<digest>``: a one-time link, by the SHA-256 of its token (never the token), with
  the user it signs in as; taken with ``GETDEL``: once, whoever asks first.
- ``webauthn:<kind>:<id>``: a WebAuthn ceremony's challenge, taken with ``GETDEL``.
"""

from __future__ import annotations

from server.redis.lua import Lua
from server.redis.part import StorePart

_PUSH_TURN = Lua.load("push_turn")


class ReachStore(StorePart):
    """Pushes' marks, one-time links and ceremony challenges."""

    def _push_key(self, room_id: str, user_id: str) -> str:
        return f"{self.keys.prefix}push:{{{room_id}}}:{user_id}"

    async def push_turn(
        self, room_id: str, user_id: str, version: int, owes: bool, ttl: int
    ) -> tuple[bool, int]:
        """Note whether ``user_id`` owes a move at ``version`` of the room: True only for
        the one caller that sees the user's turn begin there, and the version the user's
        present turn began at (0: they owe nothing), as far as the mark knows."""
        key = self._push_key(room_id, user_id)
        args = (str(version), "1" if owes else "0", str(ttl))
        began, since = await self._run(_PUSH_TURN, (key,), args)
        return int(began) == 1, int(since)

    async def note_push_user(self, *user_ids: str) -> None:
        """These users keep a push subscription (a member stays when they drop it: it only
        costs a closer look at their steps)."""
        if user_ids:
            await self.wire.call("SADD", f"{self.keys.prefix}push:users", *user_ids)

    async def push_users_among(self, user_ids: list[str]) -> bool:
        """Whether any of ``user_ids`` ever kept a push subscription (one command)."""
        if not user_ids:
            return False
        found = await self.wire.call("SMISMEMBER", f"{self.keys.prefix}push:users", *user_ids)
        return any(int(x) for x in found)

    async def push_once(self, room_id: str, user_id: str, what: str, ttl: int) -> bool:
        """True for the first caller only (``what``: the push's kind and version)."""
        key = f"{self._push_key(room_id, user_id)}:{what}"
        return await self.wire.call("SET", key, "1", "NX", "EX", str(ttl)) is not None

    async def put_once(self, kind: str, digest: str, value: str, ttl: int) -> None:
        """Keep ``value`` under ``<kind>:<digest>`` for ``ttl`` seconds."""
        await self.wire.call("SET", f"{self.keys.prefix}{kind}:{digest}", value, "EX", str(ttl))

    async def take_once(self, kind: str, digest: str) -> str | None:
        """The value kept under ``<kind>:<digest>``, removed in the same command: a second
        taker (or one after its time) gets None."""
        raw = await self.wire.call("GETDEL", f"{self.keys.prefix}{kind}:{digest}")
        return raw.decode() if raw is not None else None
