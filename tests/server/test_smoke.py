from __future__ import annotations

import asyncio

from tortuga_client import Node, autoplay, seat_players


async def test_two_nodes_play_with_a_bot(two: list[Node]) -> None:
    table = await seat_players(two, 3, bots={2: "heuristic"})
    host = table.clients[0]
    marks = [len(c.frames) for c in table.clients]
    assert (await host.call("start"))["type"] == "ok"
    views = await asyncio.wait_for(
        asyncio.gather(
            *(autoplay(c, "skull-king", m) for c, m in zip(table.clients, marks, strict=True))
        ),
        30,
    )
    assert views[0]["outcome"] == views[1]["outcome"] is not None
