"""A room's kept chat: its recent messages (JSON), oldest first, capped, expiring with it."""

from __future__ import annotations

from typing import Any

from server.redis.lua import Lua
from server.redis.part import StorePart

CHAT = Lua.load("chat")
HIDE_CHAT = Lua.load("hide_chat")


class ChatStore(StorePart):
    """Chat messages kept, published, read back and hidden."""

    async def chat(
        self, room_id: str, message: bytes, keep: int, payload: bytes, at_ms: int = 0
    ) -> bool:
        """Keep ``message`` among the room's last ``keep`` and publish ``payload`` (the
        room's last activity: ``at_ms``); False if the room is gone."""
        k = self.keys
        args: list[bytes | str] = [message, str(keep), k.channel(room_id), payload, str(at_ms)]
        return bool(await self._run(CHAT, [k.room(room_id), k.chat(room_id)], args))

    async def hide_chat(self, room_id: str, message_id: str, payload: bytes) -> bytes | None:
        """Take the message ``message_id`` out of the room's kept chat and publish
        ``payload``; the message as it was kept, or None if it is not (or no longer) there."""
        k = self.keys
        args: list[bytes | str] = [message_id, k.channel(room_id), payload]
        raw: Any = await self._run(HIDE_CHAT, [k.chat(room_id)], args)
        return raw if isinstance(raw, bytes) else (raw.encode() if raw else None)

    async def chat_history(self, room_id: str) -> list[bytes]:
        """The room's recent chat messages, oldest first."""
        key = self.keys.chat(room_id)
        return list(await self.wire.call("LRANGE", key, 0, -1, key=key))
