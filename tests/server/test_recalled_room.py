"""A move checked against the room as this node's own last step left it (server/table/steps.py,
``Steps.written``): the memory is exactly the room as read, it saves the read, and when it
is behind -- a step another node wrote, a seat that changed hands -- the move is decided by
the room as read, written once or refused, never decided by the memory."""

from __future__ import annotations

import asyncio
from typing import Any

from test_protocol import started
from tortuga_client import Client, Node, advance, choose, latest

from engines.rng import Rng
from server.table.room import Room


def services(node: Node) -> Any:
    return node.server.config.app.state.services  # type: ignore[attr-defined]


async def log_versions(redis_client: Any, redis_prefix: str, room_id: str) -> list[int]:
    entries = await redis_client.xrange(f"{redis_prefix}room:{{{room_id}}}:log")
    return [int(fields[b"v"]) for _, fields in entries]


async def test_the_memory_of_a_step_is_the_room_as_read(node: Node) -> None:
    """After every step this node wrote during play, its memory of the room equals a fresh
    read field for field (state, version, revision, deadline, activity, checkpoint)."""
    table = await started([node], 4, options={"rounds": 2})
    rooms = services(node).rooms
    compared = 0
    while latest(table.clients[0])["view"]["outcome"] is None:
        await advance(table.clients)
        remembered = rooms.steps.written(table.id)
        read: Room = await rooms.get(table.id)
        if read.status == "playing":
            assert remembered == read
            compared += 1
        else:
            assert remembered is None  # the game is over: nothing more to move against
    assert compared >= 8  # bids and card plays of two rounds


async def test_a_move_by_memory_reads_no_room(node: Node) -> None:
    """At a table whose sockets are all on this node, an open move is checked against the
    memory of the last step: the room is not read for it."""
    table = await started([node], 3, options={"rounds": 2})
    while latest(table.clients[0])["view"]["phase"] != "play":
        await advance(table.clients)
    rooms = services(node).rooms
    reads: list[str] = []
    reader = rooms.steps.reader
    real_get = reader.get

    async def counted(room_id: str) -> Room:
        reads.append(room_id)
        return await real_get(room_id)  # type: ignore[no-any-return]

    reader.get = counted
    real_rooms_get = rooms.get
    rooms.get = counted
    try:
        before = latest(table.clients[0])["version"]
        after = await advance(table.clients)
    finally:
        reader.get = real_get
        rooms.get = real_rooms_get
    assert after == before + 1
    assert table.id not in reads


async def test_a_move_the_memory_refuses_is_decided_by_the_room(
    two: list[Node], redis_client: Any, redis_prefix: str
) -> None:
    """A memory behind the room never refuses a move the room allows, nor accepts one it
    refuses: seat 1 moved on node b, so node a remembers seat 1 to move; seat 2's move on a
    is written once, and seat 1's second card on a is refused ("not your turn")."""
    table = await started(two, 3, options={"rounds": 3})
    clients = table.clients  # seats 0 and 2 on node a, seat 1 on node b
    while True:
        view = latest(clients[0])["view"]
        # seat 0 leads a trick: seats 1 and 2 follow in it, whatever the round
        if view["phase"] == "play" and view["prompt"]["seats"] == [0] and not view["trick"]:
            break
        await advance(clients)
    await advance(clients)  # seat 0 leads on node a: a remembers seat 1 to move
    steps_a = services(two[0]).rooms.steps
    assert steps_a.written(table.id) is not None
    behind = steps_a.written(table.id).version
    # Seat 1's second tab, on node a; seat 1 plays on node b.
    tab = await Client.connect(two[0], token=clients[1].token, user=clients[1].user)
    await tab.send("join", room=table.id)
    behind_view = (await tab.of("snapshot"))["view"]
    rng = Rng(b"recalled", "test")
    await advance(clients)  # seat 1's move, written by node b
    assert steps_a.written(table.id).version == behind  # a's memory is behind now
    # seat 1 again, from a: a card legal by a's memory (seat 1's view then), refused
    card = choose("skull-king", behind_view, rng)
    await tab.has_version(behind + 1)
    writes: list[int] = []
    store = steps_a.store
    real_write = store.write_step

    async def counted(room_id: str, **kw: Any) -> Any:
        writes.append(kw["expected_version"])
        return await real_write(room_id, **kw)

    store.write_step = counted
    try:
        error = await tab.call("act", move=card)
    finally:
        store.write_step = real_write
    assert error["type"] == "error" and error["code"] == "not-your-turn", error
    # The tab was sent a version past a's memory: the memory is not even tried (no write
    # that could only lose).
    assert writes == []
    # seat 2, from a: refused by a's memory, allowed by the room
    versions = await log_versions(redis_client, redis_prefix, table.id)
    card = choose("skull-king", latest(clients[2])["view"], rng)
    assert (await clients[2].call("act", move=card))["type"] == "ok"
    for c in clients:
        await c.has_version(behind + 2)
    assert await log_versions(redis_client, redis_prefix, table.id) == [
        *versions,
        behind + 2,
    ]


async def test_a_seat_handed_on_since_the_memory_is_not_moved_by_its_old_player(
    start: Any, redis_client: Any, redis_prefix: str
) -> None:
    """Taken over ("the seat is played by a bot"), the seat is no longer its old player's:
    a move from them that the node's memory (from before the change) would allow is
    refused by the room as read, and nothing is written."""
    node = await start("a", bot_delay=2.0)  # the bot waits (1.5 s at least): the seat stays to move
    table = await started([node], 3, options={"rounds": 2})
    clients = table.clients
    while True:
        view = latest(clients[0])["view"]
        if view["phase"] == "play" and view["prompt"]["seats"] == [1]:
            break
        await advance(clients)
    rooms = services(node).rooms
    remembered = rooms.steps.written(table.id)
    assert remembered is not None and remembered.seats[1].user is not None
    await rooms.seats.to_bot(table.id, 1, "random")  # a seat change: the revision moves
    assert rooms.steps.written(table.id).rev == remembered.rev  # the memory is from before
    versions = await log_versions(redis_client, redis_prefix, table.id)
    card = choose("skull-king", latest(clients[1])["view"], Rng(b"recalled", "seat"))
    error = await clients[1].call("act", move=card)
    assert error["type"] == "error" and error["code"] == "not-seated", error
    await asyncio.sleep(0.2)
    assert await log_versions(redis_client, redis_prefix, table.id) == versions
