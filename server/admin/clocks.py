"""An admin's hand on a room's clock: ``extend`` pushes the current deadline; ``pause``
stops the room's clocks and ``resume`` starts them again.

A pause is two fields of the room hash (``paused_at``, ``paused_by``: ``Store.pause``), so
it holds on every node and survives any of them. While they are there the clock fires
nothing of the room (a deadline, grace or idle member that comes due is looked at again
later: server/table/deadlines.py) and bots and stand-ins do not move (server/table/bots.py); players
may
still make their own moves. On resume the current deadline gets the time it had left when
the pause began -- ``min(deadline - paused_at, the stage's full time)``: a prompt opened
during the pause (a player moved) gets its full time, counted from the resume.

The room's own record of the deadline (``deadline`` of the room, or the seal's ``open_by``
in the reveal stage) is what the clock obeys: a clock member that comes due before it is
moved to it (server/table/deadlines.py), so moving the record is enough. The move is one
compare-and-set (``Store.extend_deadline``): if the game moved on since the deadline was
read, nothing changes and the admin is told to try again.
"""

from __future__ import annotations

from typing import Any

from server.redis.store import member
from server.table.entry import Published, pack
from server.table.room import PLAYING, RoomError, now_ms
from server.table.rooms import RoomService

MAX_EXTEND_SECONDS = 24 * 3600

NO_DEADLINE = "no-deadline"
MOVED_ON = "moved-on"
PAUSED = "paused"
NOT_PAUSED = "not-paused"
GAME_NOT_STARTED = "game-not-started"


async def extend(rooms: RoomService, room_id: str, seconds: int) -> dict[str, Any]:
    """Push the deadline of what the room waits for now by ``seconds``; the new
    ``{version, stage, deadline}``. Every socket in the room gets a ``deadline`` frame.
    RoomError: the room is unknown or not playing (``game-not-started``), it has no
    deadline now (``no-deadline``), or it moved on meanwhile (``moved-on``)."""
    room = await rooms.get(room_id)
    if room.paused_at is not None:
        raise RoomError(PAUSED, "the room's clocks are paused: resume them first")
    turn = await rooms.turns.turn_of(room)
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


async def pause(rooms: RoomService, room_id: str) -> dict[str, Any]:
    """Stop the room's clocks; ``{by, at}``, also sent to every socket as ``paused``.
    RoomError: unknown, not playing, or paused already."""
    room = await rooms.get(room_id)
    if room.status != PLAYING:
        raise RoomError(GAME_NOT_STARTED, f"the room is {room.status}: no game under way")
    at = now_ms()
    notice: dict[str, Any] = {"by": "admin", "at": at}
    payload = pack(Published(k="paused", room=room_id, data=notice))
    if not await rooms.store.pause(room_id, at, "admin", payload):
        raise RoomError(PAUSED, "the room's clocks are paused already (or the game ended)")
    return notice


async def resume(rooms: RoomService, room_id: str) -> dict[str, Any]:
    """Start the room's clocks again: the current deadline gets the time it had left;
    ``{version, stage, deadline, paused_ms}``, also sent to every socket as ``unpaused``.
    Bots and stand-ins are told it is their turn. RoomError: unknown, not playing, or not
    paused."""
    for _ in range(5):  # a player's move between the read and the write: read again
        room = await rooms.get(room_id)
        if room.status != PLAYING:
            raise RoomError(GAME_NOT_STARTED, f"the room is {room.status}: no game under way")
        if room.paused_at is None:
            raise RoomError(NOT_PAUSED, "the room's clocks are not paused")
        turn = await rooms.turns.turn_of(room)
        stage = turn["stage"] if turn else ""
        old = turn["deadline"] if turn else None
        now = now_ms()
        new = None
        if old is not None:
            left = max(0, int(old) - room.paused_at)
            full = room.deadlines.get(stage)
            if full:
                left = min(left, int(full * 1000))
            new = now + left
        notice = {
            "version": room.version,
            "stage": stage,
            "deadline": new,
            "paused_ms": now - room.paused_at,
        }
        payload = pack(Published(k="unpaused", room=room_id, data=notice))
        old_ms = None if old is None else int(old)
        store = rooms.store
        if await store.unpause(room_id, room.paused_at, room.version, stage, old_ms, new, payload):
            if new is not None:
                await store.reschedule(member(stage, room_id, room.version), new)
            rooms.hooks.turn(room_id)
            return notice
    raise RoomError(MOVED_ON, "the game kept moving while the clocks were resumed: try again")
