"""The presence hash of a room: who has a socket open in it, and which seats are away.

One field per open socket (``conn id`` -> seat or ``-``), ``drop:<seat>`` -> when the last
socket of a seat went away (its grace time runs from then), ``away:<seat>`` -> when a bot
(or the default move) took the seat over, ``held:<seat>`` -> when a slow game began to wait
for the seat's player instead (server/table/deadlines.py). The hash lives as long as its
room.
"""

from __future__ import annotations

from server.redis.lua import Lua
from server.redis.part import StorePart, text_pairs

PRESENCE = Lua.load("presence")
AWAY = Lua.load("away")
STAND_IN = Lua.load("stand_in")


def stamp(at: float) -> str:
    """A time as stored in presence (``drop:<seat>``) and named in grace members."""
    return f"{at:.3f}"


class PresenceStore(StorePart):
    """Sockets arriving and leaving, seats dropped and taken over."""

    async def presence(
        self, room_id: str, conn_id: str, seat: int | None, joining: bool, at: float
    ) -> int:
        """Record a socket arriving or leaving; how many sockets the seat has now (-1: the
        socket was not there). A seat left without sockets records ``drop:<seat>`` = ``at``.
        Arriving also notes the room under the socket's node instance, for reaping."""
        if joining:
            instance = conn_id.rsplit(":", 1)[0]
            index = self.keys.node_rooms(instance)
            await self.wire.call("SADD", index, room_id, key=index)
        args = [conn_id, "-" if seat is None else str(seat), "1" if joining else "0", stamp(at)]
        result = await self._run(
            PRESENCE, [self.keys.presence(room_id), self.keys.room(room_id)], args
        )
        return int(result)

    async def mark_away(
        self, room_id: str, seat: int, drop_stamp: str, at: float, mark: str = "away"
    ) -> bool:
        """The seat's grace time is over: True if this call marked it taken over (``mark``
        "away"), or held for its player ("held")."""
        args = [str(seat), drop_stamp, stamp(at), mark]
        return bool(await self._run(AWAY, [self.keys.presence(room_id)], args))

    async def stand_in(self, room_id: str, seat: int, at: float) -> bool:
        """A held seat is taken over (``away``) instead: True if it was held."""
        args = [str(seat), stamp(at)]
        return bool(await self._run(STAND_IN, [self.keys.presence(room_id)], args))

    async def load_presence(self, room_id: str) -> dict[str, str]:
        key = self.keys.presence(room_id)
        return text_pairs(await self.wire.call("HGETALL", key, key=key))

    async def clear_seat_presence(self, room_id: str, seat: int) -> None:
        """Forget that ``seat`` was dropped, taken over or held (it is a bot's now)."""
        key = self.keys.presence(room_id)
        await self.wire.call("HDEL", key, f"drop:{seat}", f"away:{seat}", f"held:{seat}")
