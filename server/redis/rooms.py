"""A room's hash and its log: the game's steps, the lobby's changes, the clock's due times.

Two kinds of write change a room, each one atomic script: ``write_step`` (a new game state:
compare-and-set on ``version``, and for the start on the lobby revision ``rev``; the state
written, the log entry appended, the seal cleared and the step published, all or nothing:
two nodes can never both win a version) and ``write_meta`` (lobby changes: compare-and-set
on ``rev``; published).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from server.redis.lua import Lua, reveal_step
from server.redis.part import StorePart, decoded, flat, pairs, text_pairs
from server.redis.seals import Opening, RevealRefused

WRITE_STEP = Lua.load("write_step")
REVEAL_STEP = reveal_step()
WRITE_META = Lua.load("write_meta")
TOUCH_LOBBY = Lua.load("touch_lobby")
EXTEND_DEADLINE = Lua.load("extend_deadline")
PAUSE = Lua.load("pause")
UNPAUSE = Lua.load("unpause")
ROOM_FIELD = Lua.load("room_field")
INSPECTED = Lua.load("inspected")


class RoomStore(StorePart):
    """Rooms: their hashes, their steps and lobby changes, their log, their channels."""

    async def create_room(self, room_id: str, fields: Mapping[str, bytes | str]) -> bool:
        """Create the room hash; False if the id is taken (HSETNX on ``id``)."""
        key = self.keys.room(room_id)
        if not await self.wire.call("HSETNX", key, "id", room_id):
            return False
        await self.wire.call("HSET", key, *flat(fields))
        return True

    async def load_room(self, room_id: str) -> dict[str, bytes] | None:
        key = self.keys.room(room_id)
        raw: Any = await self.wire.call("HGETALL", key, key=key)
        return pairs(raw) if raw else None

    async def load_room_and_presence(
        self, room_id: str
    ) -> tuple[dict[str, bytes] | None, dict[str, str]]:
        """The room hash and its presence hash in one round trip."""
        key = self.keys.room(room_id)
        raw, seen = await self.wire.many(
            ("HGETALL", key), ("HGETALL", self.keys.presence(room_id)), key=key
        )
        return (pairs(raw) if raw else None), text_pairs(seen)

    async def load_rooms_and_presence(
        self, room_ids: list[str]
    ) -> list[tuple[dict[str, bytes] | None, dict[str, str]]]:
        """``load_room_and_presence`` for many rooms, in one round trip (the console's list)."""
        if not room_ids:
            return []
        commands: list[tuple[str, ...]] = []
        for room_id in room_ids:
            commands.append(("HGETALL", self.keys.room(room_id)))
            commands.append(("HGETALL", self.keys.presence(room_id)))
        replies = await self.wire.many(*commands)
        return [
            ((pairs(raw) if raw else None), text_pairs(seen))
            for raw, seen in zip(replies[::2], replies[1::2], strict=True)
        ]

    async def load_room_and_seal(
        self, room_id: str
    ) -> tuple[dict[str, bytes] | None, dict[str, str]]:
        """The room hash and its seal hash (the sealed phase under way) in one round trip."""
        key = self.keys.room(room_id)
        raw, seal = await self.wire.many(
            ("HGETALL", key), ("HGETALL", self.keys.seal(room_id)), key=key
        )
        return (pairs(raw) if raw else None), text_pairs(seal)

    async def write_step(
        self,
        room_id: str,
        *,
        expected_version: int,
        expected_rev: int | None,
        fields: Mapping[str, bytes | str],
        log_fields: Mapping[str, bytes | str],
        new_version: int,
        payload: bytes,
        ttl: int = 0,
        away_seats: Sequence[int] = (),
        reveal: Opening | None = None,
    ) -> int:
        """Compare-and-set a new state: 0 if this call lost ``new_version``, 1 if it won it,
        2 if it won and one of ``away_seats`` is taken over (a stand-in plays it).
        ``reveal``: the opening that completes a sealed phase, stored in the same script
        (reveal_step.lua); ``RevealRefused`` if it is refused or does not complete it."""
        k = self.keys
        field_pairs: list[bytes | str] = [x for item in fields.items() for x in item]
        log_pairs: list[bytes | str] = [x for item in log_fields.items() for x in item]
        args: list[bytes | str | int] = [
            str(expected_version),
            "" if expected_rev is None else str(expected_rev),
            k.channel(room_id),
            payload,
            f"{new_version}-0",
            str(ttl),
            str(len(fields)),
            ",".join(str(seat) for seat in away_seats),
            *field_pairs,
            *log_pairs,
        ]
        keys = [
            k.room(room_id),
            k.log(room_id),
            k.seal(room_id),
            k.presence(room_id),
            k.chat(room_id),
        ]
        if reveal is None:
            won = int(await self._run(WRITE_STEP, keys, args))
        else:
            result = await self._run(REVEAL_STEP, keys, [*reveal.args(), *args])
            if not isinstance(result, list):
                raise RevealRefused(cast(str, decoded(result)))
            won = int(result[1])
        if won:
            self.metrics.step_written(log_fields)
        else:
            self.metrics.step_lost()
        return won

    async def write_meta(
        self,
        room_id: str,
        *,
        expected_rev: int,
        fields: Mapping[str, str],
        payload: bytes,
        status: str = "",
    ) -> bool:
        """Compare-and-set seat fields on the room's revision (and its ``status`` when one is
        given); True if this call won."""
        field_pairs = [x for item in fields.items() for x in item]
        args: list[bytes | str] = [
            str(expected_rev),
            self.keys.channel(room_id),
            payload,
            status,
            *field_pairs,
        ]
        return bool(await self._run(WRITE_META, [self.keys.room(room_id)], args))

    async def touch_lobby(self, room_id: str, seconds: int) -> bool:
        """If the room is in the lobby, its keys expire ``seconds`` from now. True if so."""
        k = self.keys
        keys = [k.room(room_id), k.presence(room_id), k.chat(room_id)]
        return bool(await self._run(TOUCH_LOBBY, keys, [seconds]))

    async def set_fields(self, room_id: str, fields: Mapping[str, str]) -> None:
        """Plain writes of bookkeeping fields that no compare-and-set depends on."""
        await self.wire.call("HSET", self.keys.room(room_id), *flat(fields))

    async def room_field(
        self, room_id: str, field: str, value: str | None, payload: bytes = b""
    ) -> bool:
        """Set (or with None delete) one bookkeeping field of an existing room and publish
        ``payload`` on its channel (none if empty); False if the room is gone."""
        k = self.keys
        args: list[bytes | str] = [field, value or "", k.channel(room_id), payload]
        return bool(await self._run(ROOM_FIELD, [k.room(room_id)], args))

    async def note_inspected(
        self, room_id: str, game_no: int, at: str, keep: int, payload: bytes
    ) -> int:
        """An admin looked at the hidden state of the room's game ``game_no`` at ``at``: kept
        in the room (its ``inspected`` field: how many times, the last ``keep`` times) and
        ``payload`` published, in one script. How many looks at this game; 0 (nothing kept,
        nothing said) if the room is gone or plays another game since."""
        k = self.keys
        args: list[bytes | str | int] = [str(game_no), at, keep, k.channel(room_id), payload]
        return int(await self._run(INSPECTED, [k.room(room_id)], args))

    async def extend_deadline(
        self, room_id: str, version: int, stage: str, old_ms: int, new_ms: int, payload: bytes
    ) -> bool:
        """Compare-and-set the due time of ``version``'s ``stage`` (``deadline`` of the room,
        or the seal's ``open_by`` for ``reveal``) from ``old_ms`` to ``new_ms`` and publish
        ``payload``; False if the room moved on (or the stage changed) since it was read."""
        k = self.keys
        args: list[bytes | str] = [
            str(version),
            stage,
            str(old_ms),
            str(new_ms),
            k.channel(room_id),
            payload,
        ]
        return bool(await self._run(EXTEND_DEADLINE, [k.room(room_id), k.seal(room_id)], args))

    async def pause(self, room_id: str, at_ms: int, by: str, payload: bytes) -> bool:
        """Mark the playing room paused since ``at_ms`` (fields ``paused_at``, ``paused_by``
        of the room hash: they survive any node) and publish; False if it was paused already
        or is not playing."""
        args: list[bytes | str] = [str(at_ms), by, self.keys.channel(room_id), payload]
        return bool(await self._run(PAUSE, [self.keys.room(room_id)], args))

    async def unpause(
        self,
        room_id: str,
        paused_at: int,
        version: int,
        stage: str,
        old_ms: int | None,
        new_ms: int | None,
        payload: bytes,
    ) -> bool:
        """End the pause begun at ``paused_at``, moving the due time of ``version``'s
        ``stage`` from ``old_ms`` to ``new_ms``; False if anything moved meanwhile."""
        k = self.keys
        args: list[bytes | str] = [
            str(paused_at),
            str(version),
            stage,
            "" if old_ms is None else str(old_ms),
            "" if new_ms is None else str(new_ms),
            k.channel(room_id),
            payload,
        ]
        return bool(await self._run(UNPAUSE, [k.room(room_id), k.seal(room_id)], args))

    async def log_range(
        self, room_id: str, first: int, last: int | str = "+"
    ) -> list[tuple[int, dict[str, bytes]]]:
        """Log entries with versions ``first .. last`` (inclusive), in order."""
        end = last if isinstance(last, str) else f"{last}-0"
        key = self.keys.log(room_id)
        raw: Any = await self.wire.call("XRANGE", key, f"{first}-0", end, key=key)
        return [(int(entry_id.split(b"-", 1)[0]), pairs(data)) for entry_id, data in raw]

    async def publish(self, channel: str, payload: bytes) -> None:
        """Publish on a room's channel (sharded on a cluster) or a site-wide one."""
        if self.sharded and channel not in (self.keys.rooms_channel, self.keys.users_channel):
            await self.wire.call("SPUBLISH", channel, payload, key=channel)
        else:
            await self.wire.call("PUBLISH", channel, payload, key=channel)
