"""What leaves a node besides the frames: the room's pub/sub
channel carries no state and no seed, and no socket compresses frames (a hand and chat an
attacker chose must never share a compression window)."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
import pytest
import redis.asyncio as aioredis
from tortuga_client import Client, Node, autoplay, guest, open_socket, seat_players

from engines.registry import GAMES


@pytest.mark.parametrize(
    ("game_id", "options"), [("skull-king", {"rounds": 1}), ("pearates", {"removed": 100})]
)
async def test_the_channel_carries_no_state_and_no_seed(
    node: Node, redis_url: str, redis_prefix: str, game_id: str, options: dict[str, Any]
) -> None:
    """ "a Redis shared with another site must not be able to read a live seed from the
    channel": a subscriber sees that version N exists, nothing of the game. Pearates too:
    "Private open moves (a card put aside, a face-down bid, a look at a hidden card) never
    appear in any ... pub/sub payload"."""
    table = await seat_players([node], 2, game=game_id, options=options)
    outsider = aioredis.Redis.from_url(redis_url)
    pubsub = outsider.pubsub()
    await pubsub.subscribe(f"{redis_prefix}room:{{{table.id}}}")
    heard: list[bytes] = []

    async def listen() -> None:
        async for message in pubsub.listen():
            if message["type"] == "message":
                heard.append(message["data"])

    listener = asyncio.create_task(listen())
    try:
        assert (await table.clients[0].call("start"))["type"] == "ok"
        await asyncio.wait_for(asyncio.gather(*(autoplay(c, game_id) for c in table.clients)), 60)
        end = next(f for f in reversed(table.clients[0].frames) if f["type"] == "event")
        await asyncio.sleep(0.2)  # the last publications reach the outsider too
    finally:
        listener.cancel()
        await pubsub.aclose()  # type: ignore[no-untyped-call]
        await outsider.aclose()
    seed = bytes.fromhex(end["event"]["seed"])
    server_seed = bytes.fromhex(end["event"]["server_seed"])
    # No card of the game is named on the channel (Skull King's id is also a card's name).
    cards = [c.encode() for c in GAMES[game_id].deck(GAMES[game_id].options(options), 2)]
    cards = [c for c in cards if game_id != "skull-king" or c != b"skull-king"]
    steps = []
    for payload in heard:
        assert not [c for c in cards if c in payload], payload
        assert seed not in payload and seed.hex().encode() not in payload
        assert server_seed not in payload and server_seed.hex().encode() not in payload
        message: dict[str, Any] = msgspec.msgpack.decode(payload)
        if message["k"] == "step":
            # The version, and the publishing time for the fan-out latency metric: no state.
            assert set(message) == {"k", "room", "data"}
            assert set(message["data"]) <= {"version", "t"}
            assert isinstance(message["data"].get("t", 0.0), float)
            steps.append(message["data"]["version"])
    assert steps == list(range(1, end["version"] + 1))


async def test_no_socket_compresses_its_frames(node: Node) -> None:
    """ "Turn off per-message compression for frames that carry a hand": a client that
    offers permessage-deflate is not granted it."""
    token, user = await guest(node, "Cleo")
    ws = await open_socket(node.ws_url, token, compression="deflate")
    try:
        assert ws.response.headers.get("Sec-WebSocket-Extensions") is None
        assert not ws.protocol.extensions
    finally:
        await ws.close()
    c = await Client.connect(node, token=token, user=user)
    assert c.frames[0]["type"] == "hello"
    await c.close()
