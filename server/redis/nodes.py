"""The site's nodes: their heartbeats, the rooms they have sockets in, their drains.

Nodes announce themselves in the sorted set ``nodes`` (score: when their heartbeat
expires); the clock's claim (server/redis/clock.py) finds dead ones there, whose sockets
then stop counting in presence. What each node said in its last heartbeat outlives it for a
while (``node_info``, indexed by ``nodes_seen``), for the console.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from server.redis.clock import DONE
from server.redis.lua import Lua
from server.redis.part import StorePart, decoded, flat, text_pairs

DRAIN_NODE = Lua.load("drain_node")


class NodeStore(StorePart):
    """Node instances alive, dead and draining."""

    async def heartbeat(
        self,
        instance: str,
        expires_ms: int,
        keep_seconds: int,
        info: Mapping[str, str] | None = None,
        *,
        now_ms: int = 0,
        shown_seconds: int = 3600,
    ) -> bool:
        """This node instance is alive until ``expires_ms``. False if it was missing from
        ``nodes`` (first beat, or it was reaped as dead while alive: re-announce sockets).

        ``info`` (what the node says of itself) is kept ``shown_seconds`` after the last
        beat, with the instance in ``nodes_seen``: the console shows it dead until then."""
        commands: list[tuple[Any, ...]] = [
            ("ZADD", self.keys.nodes, expires_ms, instance),
            ("EXPIRE", self.keys.node_rooms(instance), keep_seconds),
        ]
        if info is not None:
            commands += [
                ("HSET", self.keys.node_info(instance), *flat(info)),
                ("EXPIRE", self.keys.node_info(instance), shown_seconds),
                ("ZADD", self.keys.nodes_seen, now_ms, instance),
                ("ZREMRANGEBYSCORE", self.keys.nodes_seen, 0, now_ms - shown_seconds * 1000),
            ]
        added, *_ = await self.wire.many(*commands)
        return not added

    async def node_room_ids(self, instance: str) -> list[str]:
        raw = await self.wire.call("SMEMBERS", self.keys.node_rooms(instance))
        return sorted(x.decode() for x in raw)

    async def forget_node(self, instance: str, lease_end: int | None = None) -> None:
        """A node instance reaped (claimed until ``lease_end``) or stopped (None): its room
        index and its heartbeat go -- unless a reaped one beat again meanwhile. A stopped
        node's heartbeat info goes too; a reaped one's stays (the console shows it dead)."""
        await self.wire.call("DEL", self.keys.node_rooms(instance))
        await self.wire.call("HDEL", self.keys.draining, instance)
        if lease_end is None:
            await self.wire.many(
                ("ZREM", self.keys.nodes, instance),
                ("ZREM", self.keys.nodes_seen, instance),
                ("DEL", self.keys.node_info(instance)),
            )
        else:  # done with the claimed member, as the clock's ``done``
            await self._run(DONE, [self.keys.nodes], [instance, lease_end])

    async def live_nodes(self) -> list[tuple[str, int | None, int, dict[str, str]]]:
        """Node instances in ``nodes`` or heard from lately (``nodes_seen``): (instance,
        heartbeat expiry in epoch ms or None once reaped, rooms it has sockets in, what its
        last heartbeat said)."""
        beating = await self.wire.call("ZRANGE", self.keys.nodes, 0, -1, "WITHSCORES")
        seen = await self.wire.call("ZRANGE", self.keys.nodes_seen, 0, -1)
        expiry = {
            name.decode(): int(float(score))
            for name, score in zip(beating[::2], beating[1::2], strict=True)
        }
        names = sorted({*expiry, *(name.decode() for name in seen)})
        commands: list[tuple[Any, ...]] = []
        for name in names:
            commands.append(("SCARD", self.keys.node_rooms(name)))
            commands.append(("HGETALL", self.keys.node_info(name)))
        replies = await self.wire.many(*commands) if commands else []
        out = []
        for i, name in enumerate(names):
            count, raw = replies[2 * i], replies[2 * i + 1]
            out.append((name, expiry.get(name), int(count), text_pairs(raw)))
        return out

    async def mark_draining(self, instance: str, info: str) -> None:
        """``instance`` drains (or is asked to): ``info`` is its JSON ``{by, reason, at}``."""
        await self.wire.call("HSET", self.keys.draining, instance, info)

    async def drain_node(
        self, instance: str, info: str, live: Sequence[str], *, force: bool = False
    ) -> int:
        """An admin's drain of ``instance`` (``info``: its JSON), in one script: 1 if marked;
        0 if it drains already; -1 (nothing marked) if none of the other ``live`` instances
        would be left serving -- unless ``force``."""
        args = [instance, info, "1" if force else "0", *live]
        return int(await self._run(DRAIN_NODE, [self.keys.draining], args))

    async def lift_draining(self, instance: str) -> None:
        """An admin's drain of ``instance`` is lifted: the node sees its field gone within a
        heartbeat and serves again (server/realtime/drain.py)."""
        await self.wire.call("HDEL", self.keys.draining, instance)

    async def draining_of(self, instance: str) -> str | None:
        """Why ``instance`` drains (its JSON), or None if nobody asked it to."""
        return decoded(await self.wire.call("HGET", self.keys.draining, instance))

    async def draining_nodes(self) -> dict[str, str]:
        """Every instance draining or asked to: instance -> its JSON ``{by, reason, at}``."""
        return text_pairs(await self.wire.call("HGETALL", self.keys.draining))
