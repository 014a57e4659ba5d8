"""Resume and snapshots: what a socket that joins a room, or comes back to it, is sent.

A socket that says which version it saw last is sent the frames of every version since,
read from the room's log and rendered for its seat, then ``resumed``; one too far behind
(more than ``resume_max_versions``, or older than the log holds), or new to the room, gets
a ``snapshot`` of the room as it is. Either way the sealed phase under way follows (who
committed, who opened, the deadlines): a lost ``open`` would leave players waiting.
The socket's own writer sends these in turn (``Connection.sync``,
server/realtime/connection.py); this module only builds them.

Each join and resume is priced first (``entry_wait``): a room read and a snapshot or the
missed versions, drawn from two token buckets in Redis shared by every node, one per user
and one per client address, so that many guests from one address resuming in a loop are
refused before they cost a read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from server.realtime.render import entry_frames, sealed_frame
from server.redis.store import Store
from server.settings import Settings
from server.table import moderation
from server.table.entry import from_fields
from server.table.room import Room, now_ms

if TYPE_CHECKING:
    from server.table.rooms import RoomService


async def entry_wait(store: Store, settings: Settings, user_id: str, address: str | None) -> int:
    """Take a token for one join or resume from the user's bucket (``resume_burst``,
    ``resume_per_second``), then from the address's (``address``: its keyed hash;
    ``resume_address_burst``, ``resume_address_per_second``); a burst of 0 turns one off.
    0 if both gave one, else the milliseconds until the empty one has one again. The
    user's bucket first: one user's own loop does not drain their address's."""
    now = now_ms()
    buckets = [("user", user_id, settings.resume_burst, settings.resume_per_second)]
    if address is not None:
        burst, rate = settings.resume_address_burst, settings.resume_address_per_second
        buckets.append(("address", address, burst, rate))
    for kind, who, burst, rate in buckets:
        if burst > 0:
            wait = await store.token_wait(store.keys.resumes(kind, who), now, rate, burst)
            if wait:
                return wait
    return 0


async def missed(
    rooms: RoomService, room: Room, version: int, seat: int | None, resume_max: int
) -> list[dict[str, Any]] | None:
    """The frames of versions ``version+1 ..`` for ``seat``, or None if too old."""
    if room.version - version > resume_max:
        return None
    if version == room.version:
        return []
    entries = await rooms.store.log_range(room.id, version + 1, room.version)
    if [v for v, _ in entries] != list(range(version + 1, room.version + 1)):
        return None  # the log no longer holds them all
    game = room.game
    frames: list[dict[str, Any]] = []
    for _, fields in entries:
        frames.extend(entry_frames(game, from_fields(fields), seat))
    return frames


async def resumed(rooms: RoomService, room: Room, version: int, seat: int | None) -> dict[str, Any]:
    """The frame that closes a resume from ``version``, after the missed frames."""
    return {
        "type": "resumed",
        "room": room.id,
        "version": room.version,
        "from": version,
        "missed": room.version - version,
        "seat": seat,
        "room_state": room.summary(rooms.base_url),
        "deadline": room.deadline,
        "head": room.head,  # the game's chain head at this version (server/table/chain.py)
        "chat": await rooms.chat.history(room.id),
        "announce": await moderation.announcement(rooms.store, room),
    }


async def snapshot(rooms: RoomService, room: Room, seat: int | None, role: str) -> dict[str, Any]:
    """The room as it is, viewed from ``seat`` (None: a spectator)."""
    view = None
    if room.state is not None:
        view = room.game.view(room.game.decode(room.state), seat)
    return {
        "type": "snapshot",
        "room": room.id,
        "version": room.version,
        "seat": seat,
        "role": role,
        "view": view,
        "room_state": room.summary(rooms.base_url),
        "seed_digest": room.seed_digest,
        "seed": room.seed if room.status in ("finished", "abandoned") else None,
        "deadline": room.deadline,
        "head": room.head,  # the game's chain head at this version (server/table/chain.py)
        "chat": await rooms.chat.history(room.id),
        "announce": await moderation.announcement(rooms.store, room),
    }


async def seal_status(rooms: RoomService, room: Room) -> dict[str, Any] | None:
    """The sealed phase under way (``sealed``), if the game is in one."""
    if room.state is None or room.status != "playing":
        return None
    game = room.game
    seal = await rooms.store.load_seal(room.id)
    state = game.decode(room.state)
    return sealed_frame(game, state, room.id, room.version, seal, room.deadline)
