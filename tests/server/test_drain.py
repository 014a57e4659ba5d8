"""Graceful drain (server/realtime/drain.py): a node told to stop (SIGTERM) hands its
sockets to another node and exits without losing a move.

Two nodes run as processes of their own (tests/server/node_process.py). Rooms of Skull
King are played on node a -- human seats as websocket clients at a quick pace, some rooms
with a bot seat whose runs a owns -- and a is sent SIGTERM mid-game. Its clients get
``reconnect``, close their sockets themselves and resume on node b (``drills.Player``).
Then: every game finishes; the log holds each version once and every move a player sent,
once, where the player sent it (nothing lost, nothing made twice); each player received
every version once, in order, over its two sockets; each game is archived once; a said it
drained (no socket left when its drain time ran out) and exited 0.
"""

from __future__ import annotations

import asyncio
import signal
from typing import Any

import httpx
from drills import archived_once, check_room, start_all, tables
from test_node_death import NodeProcess, spawn_node

NODE = {
    "TORTUGA_BOT_DELAY": "0.2",  # bot runs are under way when the signal comes
    "TORTUGA_RECONNECT_SPREAD_MS": "300",
    "TORTUGA_CLOCK_POLL_SECONDS": "0.05",
    "TORTUGA_HEARTBEAT_SECONDS": "0.5",
    "TORTUGA_GUESTS_PER_ADDRESS_PER_HOUR": "0",
    "TORTUGA_DRAIN_SECONDS": "20",
}


def _stop(*nodes: NodeProcess) -> None:
    for node in nodes:
        if node.process.poll() is None:
            node.process.kill()
        node.process.wait(10)
        node.stderr.close()


async def test_sigterm_drains_a_node_mid_game(
    redis_url: str, redis_prefix: str, redis_client: Any
) -> None:
    a, b = await asyncio.gather(
        *(spawn_node(redis_url, redis_prefix, n, ready_within=60, **NODE) for n in "ab")
    )
    try:
        made = await tables(a, 3, lambda: b, rounds=3, pace=0.03)  # type: ignore[arg-type]
        made += await tables(a, 3, lambda: b, rounds=3, bots={2: "heuristic"}, pace=0.03)  # type: ignore[arg-type]
        await start_all(made)
        players = [p for _, ps in made for p in ps]
        # Every room is held at version 4 until all are there, then the node is told to
        # stop and the moves go out: the drain comes mid-game for every room (a fast node
        # would otherwise finish some games first, their players done reading).
        released = asyncio.Event()
        for p in players:
            p.hold = (4, released)
        plays = [asyncio.create_task(p.play(60)) for p in players]
        for _, ps in made:  # every game under way
            await ps[0].client.has_version(4, timeout=30)
        async with httpx.AsyncClient(base_url=a.url) as http:
            assert (await http.get("/readyz")).status_code == 200
        started = asyncio.get_running_loop().time()
        a.process.send_signal(signal.SIGTERM)
        released.set()
        code = await asyncio.to_thread(a.process.wait, 40)
        took = asyncio.get_running_loop().time() - started
        views = await asyncio.wait_for(asyncio.gather(*plays), 60)
        print(f"node a drained {len(players)} sockets and exited in {took:.2f} s")
        assert code == 0, a.output()
        assert '"msg": "drained"' in a.output(), a.output()
        for room_id, ps in made:
            mine = [views[players.index(p)] for p in ps]
            await check_room(redis_client, redis_prefix, room_id, ps, mine)
        # Every player left a on the hint (none found its socket dead), and none twice.
        assert [p.hinted for p in players] == [1] * len(players)
        assert [p.hops for p in players] == [1] * len(players)
        assert all(p.errors == [] for p in players)
        await archived_once(redis_client, redis_prefix, [room_id for room_id, _ in made])
    except BaseException:
        print(a.output())
        print(b.output())
        raise
    finally:
        _stop(a, b)
