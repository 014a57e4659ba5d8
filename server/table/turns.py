"""Whose move it is in a room (``turn_of``: the room page, "my rooms", the console) and a
user's rooms with it ("my rooms": the rooms the user sits in, most recent activity
first)."""

from __future__ import annotations

from typing import Any

from server.table.room import LOBBY, PLAYING, SEAL_DEFAULT, Room, RoomError, RoomReader, phase_name

MY_ROOMS_LISTED = 50  # rooms in a user's "my rooms"


class Turns:
    """Reading whose move it is, for one room or for every room a user sits in."""

    def __init__(self, reader: RoomReader) -> None:
        self.reader = reader
        self.store = reader.store

    async def turn_of(self, room: Room, user_id: str | None = None) -> dict[str, Any] | None:
        """Whose move it is in a game under way (None otherwise): the prompt's ``kind``,
        ``sealed`` and ``seats``; ``stage`` (``move``, or ``commit`` / ``reveal`` in a
        sealed phase), the seats that still ``owe`` something at this stage, the
        ``deadline`` (epoch ms) and, for ``user_id``, its ``seat`` and whether ``you`` owe."""
        if room.status != PLAYING or room.state is None:
            return None
        game = room.game
        prompt = game.prompt(game.decode(room.state))
        owe = list(prompt.seats)
        stage = "move"
        deadline = room.deadline
        if prompt.sealed:
            seal = await self.store.load_seal(room.id)
            same = seal.get("phase") == phase_name(prompt, room.version)
            if same and seal.get("open") == "1":
                stage = "reveal"
                owe = [
                    s
                    for s in prompt.seats
                    if f"r:{s}" not in seal and seal.get(f"c:{s}") != SEAL_DEFAULT
                ]
                deadline = int(seal["open_by"]) if seal.get("open_by") else None
            else:
                stage = "commit"
                owe = [s for s in prompt.seats if not (same and f"c:{s}" in seal)]
        seat = room.seat_of(user_id) if user_id is not None else None
        return {
            "kind": prompt.kind,
            "sealed": prompt.sealed,
            "seats": list(prompt.seats),
            "stage": stage,
            "owe": owe,
            "deadline": deadline,
            "seat": seat,
            "you": seat is not None and seat in owe,
        }

    async def my_rooms(self, user_id: str) -> list[dict[str, Any]]:
        """The rooms ``user_id`` sits in, in the lobby or playing, most recent activity
        first, each with whose move it is (``turn``) and the user's ``seat``. Rooms that
        are gone, over, or where the user no longer sits are dropped from the set."""
        out = []
        for room_id in await self.store.user_room_ids(user_id, MY_ROOMS_LISTED):
            try:
                room = await self.reader.get(room_id, presence=True)
            except RoomError:
                room = None
            seat = room.seat_of(user_id) if room is not None else None
            if room is None or seat is None or room.status not in (LOBBY, PLAYING):
                await self.store.forget_user_room(user_id, room_id)
                continue
            item = room.summary(self.reader.base_url)
            item["seat"] = seat
            item["turn"] = await self.turn_of(room, user_id)
            out.append(item)
        return out
