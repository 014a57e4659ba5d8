"""The fan-out caches: what a node reads and renders once for all of its sockets.

A step's entry is read from the room's log once per node (or kept from this node's own
write of it), and its frames are rendered and encoded once per seat, plus once for every
spectator: a view depends on the seat alone (server/realtime/render.py), so the sockets of
one seat are sent the same bytes, framed for the wire once (``Rendered``). A publication
whose frame is the same for every socket of its room is framed once too (``framed``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict, defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engines.registry import GAMES
from server.protocol import encode_bytes as protocol_encode
from server.realtime.render import entry_frames
from server.realtime.socket_protocol import text_frame
from server.table.entry import Entry, Published, from_fields

if TYPE_CHECKING:
    from server.table.rooms import RoomService

ENTRY_CACHE = 1024  # log entries a node keeps for its sockets
FRAME_CACHE = 4096  # (entry, seat) renderings a node keeps for its sockets
PENDING_WAIT = 5.0  # seconds a socket waits for this node's own write before reading the log


# Publications each socket of the room is sent as they are (``{type: k, room, **data}``):
# those of the version the socket is at, and those of any moment.
VERSIONED = frozenset({"committed", "open", "deadline"})
PLAIN = frozenset(
    {
        "chat",
        "chat_hidden",
        "presence",
        "announce",
        "unannounce",
        "inspected",
        "paused",
        "unpaused",
        "replaced",
    }
)


@dataclass(slots=True)
class Rendered:
    """A step's frames for one seat (or every spectator): each frame's JSON, and all of them
    framed for the wire at once (the same bytes for every socket of that seat)."""

    payloads: list[bytes]
    frames: bytes


def framed(message: Published) -> bytes | None:
    """The frame a publication makes for every socket of its room alike (``PLAIN`` and
    ``VERSIONED`` kinds), framed once; None for the others (rendered per socket)."""
    if message.k not in PLAIN and message.k not in VERSIONED:
        return None
    frame = {"type": message.k, "room": message.room, **(message.data or {})}
    return text_frame(protocol_encode(frame))


class FanOut:
    """Entries read from rooms' logs and their renderings per seat, shared by this node's
    sockets (most recent last, the oldest dropped), and the versions this node is writing
    (their readers wait for the writer rather than read the log)."""

    def __init__(self, rooms: RoomService) -> None:
        self.rooms = rooms
        self._entries: OrderedDict[tuple[str, int], Entry] = OrderedDict()
        self._reading: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        # Versions this node is writing: done when its writer knows whether it won.
        self._pending: dict[tuple[str, int], asyncio.Future[None]] = {}
        # A step's frames for one seat (None: every spectator), rendered and encoded once
        # and sent to each socket of that seat on this node.
        self._rendered: OrderedDict[tuple[str, int, int | None], Rendered] = OrderedDict()
        self._decoded: tuple[Entry, Any] | None = None  # the last entry rendered, its state

    async def entries(self, room_id: str, first: int, last: int) -> list[Entry]:
        """The log entries ``first..last`` of a room, in order (those the log still has).
        One read per room at a time, and what was read is kept for the other sockets. A
        version this node is writing is waited for (its writer keeps the entry: see
        ``keep``) rather than read: its notice can come before the writer's reply."""
        wanted = range(first, last + 1)
        cached = self._entries
        if all((room_id, v) in cached for v in wanted):
            return [cached[(room_id, v)] for v in wanted]  # the usual case: no lock
        async with self._reading[room_id]:
            for v in wanted:
                pending = self._pending.get((room_id, v))
                if pending is not None and (room_id, v) not in cached:
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(PENDING_WAIT):
                            await asyncio.shield(pending)
            missing = [v for v in wanted if (room_id, v) not in cached]
            if missing:
                read = await self.rooms.store.log_range(room_id, missing[0], last)
                for v, fields in read:
                    cached[(room_id, v)] = from_fields(fields)
                while len(cached) > ENTRY_CACHE:
                    cached.popitem(last=False)
            return [cached[(room_id, v)] for v in wanted if (room_id, v) in cached]

    def expect(self, room_id: str, version: int) -> None:
        """This node is about to try to write ``version`` of ``room_id``: readers of it
        wait for ``keep`` (at most ``PENDING_WAIT``)."""
        key = (room_id, version)
        if key not in self._pending and key not in self._entries:
            self._pending[key] = asyncio.get_running_loop().create_future()

    def expecting(self, room_id: str, version: int) -> bool:
        """Whether this node is writing ``version`` of ``room_id`` and does not know yet
        whether it won."""
        return (room_id, version) in self._pending

    def keep(self, room_id: str, version: int, entry: Entry | None) -> None:
        """This node's try at ``version`` is over (``entry``: it won with it, kept as if
        read from the log; None: lost or failed, or nobody here follows the room): whoever
        waited for it goes on."""
        key = (room_id, version)
        if entry is not None and key not in self._entries:
            self._entries[key] = entry
            while len(self._entries) > ENTRY_CACHE:
                self._entries.popitem(last=False)
        pending = self._pending.pop(key, None)
        if pending is not None and not pending.done():
            pending.set_result(None)

    def forget_room(self, room_id: str) -> None:
        """No socket of this node follows ``room_id`` any more."""
        self._reading.pop(room_id, None)

    def cached(self, room_id: str | None, version: int) -> Entry | None:
        """The entry of ``version`` if this node has it (written or read), else None."""
        return self._entries.get((room_id or "", version))

    def rendered(self, entry: Entry, seat: int | None) -> Rendered:
        """The frames of ``entry`` for ``seat`` (None: a spectator), encoded and framed. A
        view depends on the seat alone (server/realtime/render.py), so each seat's frames,
        and one set for all spectators, are rendered once per step on this node, not per
        socket."""
        key = (entry.room, entry.version, seat)
        rendered = self._rendered.get(key)
        if rendered is None:
            game = GAMES[entry.engine]
            decoded = self._decoded
            if decoded is None or decoded[0] is not entry:
                decoded = self._decoded = (entry, game.decode(entry.state))  # once per step
            payloads = [protocol_encode(f) for f in entry_frames(game, entry, seat, decoded[1])]
            rendered = Rendered(payloads, b"".join(text_frame(p) for p in payloads))
            self._rendered[key] = rendered
            while len(self._rendered) > FRAME_CACHE:
                self._rendered.popitem(last=False)
        return rendered
