"""A few hundred fast rooms through one node with the default settings.

As shipped, a node failed at 50 rooms: redis-py's pool (100 connections, raising when
exhausted) ran dry -- players got ``server-error``, games failed to start, sockets were
closed with 1011. Here one node, in a process of its own and with the default settings (but
the guest quota: every test client comes from 127.0.0.1), serves ``ROOMS`` one-round games
started at the same instant: most are three bots watched by their host, every fourth has
two fast test clients beside a bot (their commits and reveals come in together). Every game
must finish; no socket may get ``server-error`` or be closed.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from test_node_death import spawn_node
from tortuga_client import Client, autoplay, seat_players

ROOMS = 160
WITH_PLAYERS = 4  # every fourth room has two test clients seated


async def _guest(http: httpx.AsyncClient, name: str) -> tuple[str, dict[str, str]]:
    r = await http.post("/api/guest", json={"name": name})
    assert r.status_code == 200, r.text
    return r.json()["token"], r.json()["user"]


async def _prepare(
    node: Any, http: httpx.AsyncClient, i: int, setup: asyncio.Semaphore
) -> tuple[str, list[Client]]:
    """Room ``i`` ready to start: its host's socket first, then its seated clients."""
    async with setup:
        token, user = await _guest(http, f"host{i}")
        r = await http.post(
            "/api/rooms",
            json={"game": "skull-king", "seats": 3, "options": {"rounds": 1}},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert r.status_code == 201, r.text
        room = r.json()
        host = await Client.connect(node, token=token, user=user)
        clients = [host]
        if i % WITH_PLAYERS == 0:
            token, user = await _guest(http, f"guest{i}")
            clients.append(await Client.connect(node, token=token, user=user))
            for seat, c in enumerate(clients):
                await c.send("join", room=room["id"])
                await c.of("snapshot")
                assert (await c.call("sit", seat=seat))["type"] == "ok"
                assert (await c.call("ready"))["type"] == "ok"
            bots = [2]
        else:
            await host.send("join", room=room["id"], **{"as": "spectator"})
            await host.of("snapshot")
            bots = [0, 1, 2]
        for seat in bots:
            assert (await host.call("add_bot", seat=seat))["type"] == "ok"
        return room["id"], clients


async def _finish(room_id: str, clients: list[Client]) -> dict[str, Any]:
    if len(clients) > 1:
        views = await asyncio.gather(*(autoplay(c, "skull-king") for c in clients))
        assert all(v["outcome"] is not None for v in views)
    host = clients[0]
    return await host.seen(
        lambda f: f["type"] == "event" and f["event"]["status"] == "finished", 90
    )


async def test_hundreds_of_rooms_through_one_node(redis_url: str, redis_prefix: str) -> None:
    node = await spawn_node(redis_url, redis_prefix, "a", TORTUGA_GUESTS_PER_ADDRESS_PER_HOUR="0")
    clients: list[Client] = []
    try:
        setup = asyncio.Semaphore(64)
        async with httpx.AsyncClient(base_url=node.url) as http:
            rooms = await asyncio.gather(*(_prepare(node, http, i, setup) for i in range(ROOMS)))
        clients = [c for _, cs in rooms for c in cs]
        # Every game starts at once.
        started = await asyncio.gather(*(cs[0].call("start") for _, cs in rooms))
        assert [s for s in started if s["type"] != "ok"] == []
        ends = await asyncio.wait_for(
            asyncio.gather(*(_finish(room_id, cs) for room_id, cs in rooms)), 150
        )
        assert len(ends) == ROOMS
        errors = [f for c in clients for f in c.frames if f["type"] == "error"]
        assert [e for e in errors if e["code"] not in ("stale-version", "not-your-turn")] == []
        assert [c.closed for c in clients if c.closed is not None] == []
    except BaseException:
        print(node.output())
        raise
    finally:
        await asyncio.gather(*(c.close() for c in clients))
        node.process.terminate()
        node.process.wait(10)
        node.stderr.close()


async def test_no_bot_work_at_a_table_of_people(start: Any) -> None:
    """A bot task ran on every move, even at tables without bots. Now bots are told of a
    turn only where a bot seat or a seat taken over (away) owes something: a game of two
    players who stay start no bot run at all, on any move, join or sweep."""
    node = await start("a", sweep_seconds=0.2)
    table = await seat_players([node], 2, options={"rounds": 2})
    assert (await table.clients[0].call("start"))["type"] == "ok"
    views = await asyncio.wait_for(
        asyncio.gather(*(autoplay(c, "skull-king") for c in table.clients)), 30
    )
    assert views[0]["outcome"] is not None
    assert node.server.config.app.state.bots.scheduled == 0  # type: ignore[attr-defined]
    # The same table with a bot: its moves are driven.
    table = await seat_players([node], 2, options={"rounds": 1}, bots={1: "heuristic"})
    assert (await table.clients[0].call("start"))["type"] == "ok"
    views = await asyncio.wait_for(autoplay(table.clients[0], "skull-king"), 30)
    assert views["outcome"] is not None
    assert node.server.config.app.state.bots.scheduled > 0  # type: ignore[attr-defined]
