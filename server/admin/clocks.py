"""An admin's hand on a room's clock: ``extend`` pushes the current deadline.

The room's own record of the deadline (``deadline`` of the room, or the seal's ``open_by``
in the reveal stage) is what the clock obeys: a clock member that comes due before it is
moved to it (server/clock.py), so moving the record is enough. The move is one
compare-and-set (``Store.extend_deadline``): if the game moved on since the deadline was
read, nothing changes and the admin is told to try again.
"""

from __future__ import annotations

from typing import Any

from server.entry import Published, pack
from server.rooms import RoomError, RoomService

MAX_EXTEND_SECONDS = 24 * 3600

NO_DEADLINE = "no-deadline"
MOVED_ON = "moved-on"


async def extend(rooms: RoomService, room_id: str, seconds: int) -> dict[str, Any]:
    """Push the deadline of what the room waits for now by ``seconds``; the new
    ``{version, stage, deadline}``. Every socket in the room gets a ``deadline`` frame.
    RoomError: the room is unknown or not playing (``game-not-started``), it has no
    deadline now (``no-deadline``), or it moved on meanwhile (``moved-on``)."""
    room = await rooms.get(room_id)
    turn = await rooms.turn_of(room)
    if turn is None:
        raise RoomError("game-not-started", f"the room is {room.status}: no game under way")
    old = turn["deadline"]
    if old is None:
        raise RoomError(NO_DEADLINE, "the room waits for nothing with a deadline now")
    new = int(old) + seconds * 1000
    notice = {"version": room.version, "stage": turn["stage"], "deadline": new, "by": "admin"}
    payload = pack(Published(k="deadline", room=room_id, data=notice))
    done = await rooms.store.extend_deadline(
        room_id, room.version, turn["stage"], int(old), new, payload
    )
    if not done:
        raise RoomError(MOVED_ON, "the game moved on while the deadline was read: try again")
    return notice
