"""A room's chat: a message published to everyone in the room and kept among its last
``chat_keep`` (what snapshots and resumes carry). The text is checked before it gets
here (server/realtime/session.py, server/identity/text.py)."""

from __future__ import annotations

import json
import secrets
from typing import Any

from server import protocol as p
from server.redis.store import Store
from server.table.entry import Published, now_iso, pack
from server.table.room import RoomError, now_ms


class Chat:
    """Saying something in a room, and the room's recent chat."""

    def __init__(self, store: Store, *, chat_keep: int) -> None:
        self.store = store
        self.chat_keep = chat_keep

    async def say(self, room_id: str, user_id: str, name: str, text: str) -> None:
        """Publish a chat message and keep it among the room's last ``chat_keep``. Each
        message has an ``id`` of its own (an operator hides a message by it)."""
        data = {"id": secrets.token_hex(6), "user": user_id, "name": name, "text": text}
        data["at"] = now_iso()
        payload = pack(Published(k="chat", room=room_id, data=data))
        kept = json.dumps(data, separators=(",", ":")).encode()
        if not await self.store.chat(room_id, kept, self.chat_keep, payload, now_ms()):
            raise RoomError(p.NO_SUCH_ROOM, "there is no such room")

    async def hide(self, room_id: str, message_id: str) -> dict[str, Any] | None:
        """Take a message out of the room's kept chat (snapshots and resumes no longer carry
        it) and tell every socket in the room (``chat_hidden``); the message as it was, or
        None if the room does not keep it (any more)."""
        payload = pack(Published(k="chat_hidden", room=room_id, data={"id": message_id}))
        raw = await self.store.hide_chat(room_id, message_id, payload)
        if raw is None:
            return None
        try:
            message: dict[str, Any] = json.loads(raw)
        except ValueError:
            return None
        return message

    async def history(self, room_id: str) -> list[dict[str, Any]]:
        """The room's recent chat, oldest first (what snapshots and resumes carry)."""
        out = []
        for raw in await self.store.chat_history(room_id):
            try:
                out.append(json.loads(raw))
            except ValueError:
                continue
        return out
