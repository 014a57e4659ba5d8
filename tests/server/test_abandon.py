"""Games that end without finishing (abandoned), and games archived while under way.

The host ends a game for everyone (``abandon``: only the host, only while it is played; a
refusal changes nothing); the clock abandons a game no human player has been connected to
for ``abandon_after_seconds`` (exactly once, with two nodes' clocks looking). Either way
every socket gets the last event with the seed, the room leaves the public list and "my
rooms", and the record goes on the archive stream marked ``abandoned``. A game under way is
put on the archive stream as a "playing" record (no seed) at each sealed prompt and every
``archive_every_versions`` versions.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from typing import Any

import httpx
from test_clock import APPLIED, applied, clock_of
from test_protocol import started
from tortuga_client import (
    Client,
    Node,
    advance,
    archive_entries,
    dump,
    latest,
    records_on_stream,
    seat_players,
)

FAST = {"clock_poll_seconds": 0.05}


async def records(redis: Any, prefix: str) -> list[dict[str, Any]]:
    """The records on the archive stream, oldest first, with their raw bytes."""
    out = []
    for _, fields in await archive_entries(redis, prefix):
        out.append({**json.loads(fields[b"record"]), "raw": fields[b"record"]})
    return out


async def listed(node: Node, client: Client) -> tuple[list[str], list[str]]:
    """The public room list and the client's "my rooms", as room ids."""
    auth = {"Authorization": f"Bearer {client.token}"}
    async with httpx.AsyncClient(base_url=node.url) as http:
        public = (await http.get("/api/rooms", headers=auth)).json()["rooms"]
        mine = (await http.get("/api/me/rooms", headers=auth)).json()["rooms"]
    return [r["id"] for r in public], [r["id"] for r in mine]


async def room_hash(redis: Any, prefix: str, room_id: str) -> dict[str, str]:
    raw = await redis.hgetall(f"{prefix}room:{{{room_id}}}")
    return {k.decode(): v.decode(errors="replace") for k, v in raw.items()}


async def test_the_host_abandons_the_game_for_everyone(
    two: list[Node], redis_client: Any, redis_prefix: str
) -> None:
    # In the lobby: nothing to abandon.
    lobby = await seat_players(two, 3)
    assert (await lobby.clients[0].call("abandon"))["code"] == "game-not-started"

    table = await started(two, 3)
    host, bob, cat = table.clients
    assert table.id in (await listed(two[0], bob))[0]
    assert table.id in (await listed(two[1], bob))[1]
    version = await advance(table.clients)  # the bids: version 2

    before = await dump(redis_client, redis_prefix)
    assert (await bob.call("abandon"))["code"] == "not-host"
    assert (await cat.call("abandon", extra=1))["code"] == "bad-message"
    assert await dump(redis_client, redis_prefix) == before

    assert (await host.call("abandon"))["type"] == "ok"
    seed = ""
    for c in table.clients:
        end = await c.has_version(version + 1)
        event = end["event"]
        assert event["kind"] == "abandon" and event["status"] == "abandoned"
        assert event["reason"] == "host" and event["game_id"] == f"{table.id}-1"
        assert hashlib.sha256(bytes.fromhex(event["seed"])).hexdigest() == table_digest(c)
        assert end["view"] == (await c.has_version(version))["view"]  # nothing moved
        assert not [f for f in c.frames if f["type"] == "sealed" and f["version"] > version]
        seed = event["seed"]
    room = await room_hash(redis_client, redis_prefix, table.id)
    assert room["status"] == "abandoned" and room["ended_at"] and room["archived"] == "1"
    public, mine = await listed(two[1], bob)
    assert table.id not in public and table.id not in mine

    # Over: nothing more happens, and every refusal changes nothing.
    before = await dump(redis_client, redis_prefix)
    assert (await host.call("abandon"))["code"] == "game-over"
    assert (await bob.call("abandon"))["code"] == "not-host"
    assert (await cat.call("act", move={"card": 0}))["code"] == "game-over"
    assert await dump(redis_client, redis_prefix) == before

    # A latecomer's snapshot says so too, seed included.
    late = await Client.connect(two[1], "Late")
    await late.send("join", room=table.id, **{"as": "spectator"})
    snap = await late.of("snapshot")
    assert snap["room_state"]["status"] == "abandoned" and snap["seed"] == seed
    assert snap["room_state"]["reason"] == "host"  # a reload still knows why
    await late.close()

    final = [r for r in await records(redis_client, redis_prefix) if r["status"] != "playing"]
    assert len(final) == 1
    (record,) = final
    assert record["status"] == "abandoned" and record["seed"] == seed
    assert record["ended_at"] == room["ended_at"]
    # The host sat at seat 0: ending the game is their loss (ratings cannot be farmed by
    # ending a losing game).
    assert record["abandoned_by"] == 0 and record["outcome"]["ranks"][0] == len(record["seats"])
    assert [e["version"] for e in record["events"]] == list(range(1, version + 1))


def table_digest(client: Client) -> str:
    for frame in client.frames:
        if frame["type"] == "event" and frame["event"].get("seed_digest"):
            return str(frame["event"]["seed_digest"])
    raise AssertionError("no seed digest")


async def test_a_game_nobody_comes_back_to_is_abandoned_once(
    start: Any, redis_client: Any, redis_prefix: str
) -> None:
    """Every player leaves; a spectator does not keep the game alive. One player coming back
    in time puts it off; once nobody has been there for ``abandon_after_seconds`` the clock
    of exactly one node abandons it."""
    knobs = {**FAST, "abandon_after_seconds": 0.6}
    nodes = [await start("a", **knobs), await start("b", **knobs)]
    table = await started(nodes, 3, public=False)
    host, bob, cat = table.clients
    watcher = await Client.connect(nodes[0], "Watcher")
    await watcher.send("join", room=table.id, **{"as": "spectator"})
    await watcher.of("snapshot")

    for c in (host, cat):
        await c.close()
    await asyncio.sleep(0.8)  # bob is still here
    assert (await room_hash(redis_client, redis_prefix, table.id))["status"] == "playing"
    await bob.close()
    await asyncio.sleep(0.3)
    back = await Client.connect(nodes[1], token=cat.token, user=cat.user)
    await back.send("join", room=table.id)
    await back.of("snapshot")
    await asyncio.sleep(0.8)  # cat came back in time
    assert (await room_hash(redis_client, redis_prefix, table.id))["status"] == "playing"
    await back.close()

    end = await watcher.wait(lambda f: f["type"] == "event" and f["version"] == 2, timeout=10)
    assert end["event"]["kind"] == "abandon" and end["event"]["reason"] == "idle"
    assert end["event"]["seed"]
    assert (await room_hash(redis_client, redis_prefix, table.id))["ended_reason"] == "idle"
    await asyncio.sleep(0.5)  # every other idle member comes due and does nothing
    idle = [m for m in applied(nodes) if m.startswith(f"idle|{table.id}|")]
    assert len(idle) == 1 and applied(nodes)[idle[0]] == 1
    assert any(r == APPLIED for n in nodes for m, r in clock_of(n).fired if m == idle[0])
    entries = await redis_client.xrange(f"{redis_prefix}room:{{{table.id}}}:log")
    assert [f[b"kind"] for _, f in entries] == [b"start", b"abandon"]
    final = [r for r in await records(redis_client, redis_prefix) if r["status"] != "playing"]
    assert [r["status"] for r in final] == ["abandoned"]
    await watcher.close()


async def test_checkpoints_put_playing_records_on_the_archive_stream(
    start: Any, redis_client: Any, redis_prefix: str
) -> None:
    """One round of three players: versions 1 (deal, bids sealed) .. 5 (the end). With a
    checkpoint every 3 versions: "playing" records at 1 (a sealed prompt) and 3, then the
    finished one. A playing record has no seed, no outcome, no end, and only the events
    since the checkpoint before it ("events_from"); the final one has every event. No bid
    appears anywhere before its reveal."""
    node = await start("a", archive_every_versions=3)
    table = await started([node], 3, options={"rounds": 1})
    # Each checkpoint goes on the stream after its step (GameEnd.later); one whose game is
    # over by the time its turn comes is left out (the final record has every event).
    await records_on_stream(redis_client, redis_prefix, 1)
    for _ in range(2):
        await advance(table.clients)
    await records_on_stream(redis_client, redis_prefix, 2)
    for _ in range(2):
        await advance(table.clients)
    for _ in range(100):
        got = await records(redis_client, redis_prefix)
        if got and got[-1]["status"] == "finished":
            break
        await asyncio.sleep(0.05)
    assert [(r["status"], r["events_from"], [e["version"] for e in r["events"]]) for r in got] == [
        ("playing", 1, [1]),
        ("playing", 2, [2, 3]),
        ("finished", 1, [1, 2, 3, 4, 5]),
    ]
    seed = got[-1]["seed"]
    for r in got[:-1]:
        assert r["seed"] is None and r["outcome"] is None and r["ended_at"] is None
        assert seed.encode() not in r["raw"]
        first = r["events_from"]
        assert [e["version"] for e in r["events"]] == list(range(first, first + len(r["events"])))
        assert r["events"] == got[-1]["events"][first - 1 : first - 1 + len(r["events"])]
    assert got[0]["events"][0]["moves"] == {}  # the deal: the bids are not in it


async def test_the_host_abandons_a_pirate_king_game(
    two: list[Node], redis_client: Any, redis_prefix: str
) -> None:
    """For Pirate King!, "abandon ... work[s] for this game with no game-specific code in
    `server/`". Mid-round (Pirates picked, beats under way) the host ends the game: every
    socket gets the last event with the seed of the published digest, nothing moves, the
    record goes on the archive stream as ``abandoned`` with the host's loss, and its events
    replay from that seed to the very states logged (as `tortuga verify` recomputes them)."""
    from engines.registry import GAMES

    table = await started(two, 3, game="pirate-king", options={})
    host = table.clients[0]
    version = 1
    while version < 7:  # three picks, then beats of round 1
        version = await advance(table.clients, "pirate-king")
    assert latest(host)["view"]["round"] == 1
    assert (await table.clients[1].call("abandon"))["code"] == "not-host"
    assert (await host.call("abandon"))["type"] == "ok"
    seed = ""
    for c in table.clients:
        end = await c.has_version(version + 1)
        assert end["event"]["kind"] == "abandon" and end["event"]["status"] == "abandoned"
        assert hashlib.sha256(bytes.fromhex(end["event"]["seed"])).hexdigest() == table_digest(c)
        assert end["view"] == (await c.has_version(version))["view"]  # nothing moved
        seed = end["event"]["seed"]
    assert (await host.call("abandon"))["code"] == "game-over"
    for _ in range(100):
        final = [r for r in await records(redis_client, redis_prefix) if r["status"] != "playing"]
        if final:
            break
        await asyncio.sleep(0.05)
    (record,) = final
    assert record["status"] == "abandoned" and record["seed"] == seed
    assert record["abandoned_by"] == 0 and record["outcome"]["ranks"][0] == 3
    assert [e["version"] for e in record["events"]] == list(range(1, version + 1))
    game = GAMES["pirate-king"]
    state = game.start(game.options(record["options"]), 3, bytes.fromhex(seed))
    assert hashlib.sha256(game.encode(state)).hexdigest() == record["events"][0]["digest"]
    for event in record["events"][1:]:
        moves = {int(s): game.decode_move(m) for s, m in event["moves"].items()}
        state = game.step(state, moves)
        assert hashlib.sha256(game.encode(state)).hexdigest() == event["digest"]
