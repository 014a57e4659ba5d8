"""Deadlines on the clock (server/table/deadlines.py): the default move when time runs out,
for open moves, commits and openings -- each deadline fired exactly once with two nodes'
clocks looking, and a deadline whose moment passed doing nothing.

Deadlines here are a fraction of a second; the waits for them are generous.
"""

from __future__ import annotations

import asyncio
import collections
import json
import math
from typing import Any

import pytest
from test_protocol import started
from tortuga_client import Node, advance, autoplay, latest, salted

from server.realtime.heartbeat import Heartbeat
from server.redis.store import Keys, stamp
from server.table.deadlines import APPLIED, STALE, Clock, after_stamp

FAST = {"clock_poll_seconds": 0.05}


def clock_of(node: Node) -> Clock:
    return node.server.config.app.state.clock  # type: ignore[attr-defined,no-any-return]


def heartbeat_of(node: Node) -> Heartbeat:
    return node.server.config.app.state.heartbeat  # type: ignore[attr-defined,no-any-return]


def applied(nodes: list[Node]) -> collections.Counter[str]:
    """How often each clock member took effect, over every node."""
    return collections.Counter(m for n in nodes for m, r in clock_of(n).fired if r == APPLIED)


def fired(nodes: list[Node], name: str) -> list[str]:
    return [r for n in nodes for m, r in clock_of(n).fired if m == name]


async def wait_fired(nodes: list[Node], name: str, timeout: float = 15.0) -> list[str]:
    for _ in range(int(timeout / 0.05)):
        if results := fired(nodes, name):
            return results
        await asyncio.sleep(0.05)
    raise AssertionError(f"{name} never fired")


async def log_of(redis: Any, prefix: str, room_id: str) -> list[dict[str, Any]]:
    entries = await redis.xrange(f"{prefix}room:{{{room_id}}}:log")
    out = []
    for _, fields in entries:
        out.append(
            {
                "v": int(fields[b"v"]),
                "kind": fields[b"kind"].decode(),
                "seats": json.loads(fields[b"seats"]),
                "defaults": json.loads(fields[b"defaults"]),
                "status": fields[b"status"].decode(),
            }
        )
    return out


@pytest.mark.cluster
async def test_a_game_nobody_plays_ends_by_deadlines(
    start: Any, redis_client: Any, redis_prefix: str
) -> None:
    """Nobody moves: the commit deadline defaults every bid (the phase resolves at once,
    nobody owes an opening), then each open move's deadline plays the default, until the
    game ends. Two nodes' clocks look; every deadline takes effect exactly once."""
    nodes = [await start("a", **FAST), await start("b", **FAST)]
    deadlines = {"move": 0.4, "commit": 0.6, "reveal": 0.6}
    table = await started(nodes, 3, options={"rounds": 1}, deadlines=deadlines)
    a, b, c = table.clients
    sealed = await a.seen(lambda f: f["type"] == "sealed" and f["version"] == 1)
    assert sealed["commit_by"] is not None and sealed["open_by"] is None
    first = await a.has_version(1)
    assert first["deadline"] == sealed["commit_by"]
    end = await a.wait(
        lambda f: f["type"] == "event" and f["event"]["status"] == "finished", timeout=20
    )
    assert end["version"] == 5 and end["deadline"] is None and end["view"]["outcome"]
    for client in (a, b, c):
        await client.has_version(5)
        assert client.versions() == [1, 2, 3, 4, 5]
    log = await log_of(redis_client, redis_prefix, table.id)
    assert [e["v"] for e in log] == [1, 2, 3, 4, 5]
    assert log[1]["kind"] == "reveal" and log[1]["defaults"] == [0, 1, 2]
    for entry in log[2:]:
        assert entry["kind"] == "move" and entry["defaults"] == entry["seats"]
    # Every client was told about the defaults and about each move's deadline.
    revealed = await b.seen(lambda f: f["type"] == "revealed")
    assert revealed["defaults"] == [0, 1, 2] and revealed["salts"] == {}
    committed = [f for f in b.frames if f["type"] == "committed"]
    assert sorted(f["seat"] for f in committed) == [0, 1, 2]
    assert {f["digest"] for f in committed} == {"default"}
    events = [f for f in c.frames if f["type"] == "event"]
    assert all(f["deadline"] is not None for f in events[1:-1])
    room = table.id
    assert await wait_fired(nodes, f"move|{room}|4") == [APPLIED]
    counts = applied(nodes)
    expected = {f"commit|{room}|1", f"move|{room}|2", f"move|{room}|3", f"move|{room}|4"}
    assert {m for m in counts if f"|{room}|" in m and not m.startswith("bot")} == expected
    assert all(counts[m] == 1 for m in expected), counts
    # The reveal deadline was set when the phase opened; by then nobody owed an opening.
    assert await wait_fired(nodes, f"reveal|{room}|1") == [STALE]


@pytest.mark.cluster
async def test_commit_and_reveal_deadlines(
    start: Any, redis_client: Any, redis_prefix: str
) -> None:
    """A sealed bid: seat 0 commits and opens in time, seat 1 commits but never opens,
    seat 2 never commits. The commit deadline gives seat 2 the marker (the phase opens),
    the reveal deadline opens seat 1's default; one ``revealed`` flags both."""
    nodes = [await start("a", **FAST), await start("b", **FAST)]
    table = await started(nodes, 3, options={"rounds": 2}, deadlines={"commit": 1.0, "reveal": 1.0})
    a, b, c = table.clients  # on nodes a, b, a
    phase = "bid@1"
    salt_a, dig_a = salted(phase, 0, {"bid": 1})
    _, dig_b = salted(phase, 1, {"bid": 0})
    assert (await a.call("commit", phase=phase, digest=dig_a))["type"] == "ok"
    assert (await b.call("commit", phase=phase, digest=dig_b))["type"] == "ok"
    opened = await a.wait(lambda f: f["type"] == "open", timeout=15)
    assert opened["open_by"] is not None
    late = await c.seen(lambda f: f["type"] == "committed" and f["seat"] == 2)
    assert late["digest"] == "default"
    assert (await a.call("reveal", phase=phase, move={"bid": 1}, salt=salt_a))["type"] == "ok"
    for client in (a, b, c):
        revealed = await client.seen(lambda f: f["type"] == "revealed", timeout=15)
        assert revealed["defaults"] == [1, 2]
        assert set(revealed["moves"]) == {"0", "1", "2"} and revealed["moves"]["0"] == {"bid": 1}
        assert revealed["opened"]["1"] is None and revealed["opened"]["2"] is None
        assert set(revealed["salts"]) == {"0"}
        await client.has_version(2)
    room = table.id
    # The clock notes a member as fired once its hook returned, just after the frames left.
    assert await wait_fired(nodes, f"reveal|{room}|1") == [APPLIED]
    counts = applied(nodes)
    assert counts[f"commit|{room}|1"] == 1 and counts[f"reveal|{room}|1"] == 1
    log = await log_of(redis_client, redis_prefix, table.id)
    assert [e["v"] for e in log] == [1, 2] and log[1]["defaults"] == [1, 2]
    # The game goes on (no move deadline): nothing more fires by itself.
    await advance(table.clients)
    mine = {k for k in applied(nodes) if f"|{room}|" in k and not k.startswith("bot")}
    assert mine == {f"commit|{room}|1", f"reveal|{room}|1"}


async def test_a_deadline_whose_moment_passed_does_nothing(
    start: Any, redis_client: Any, redis_prefix: str
) -> None:
    """The seat to move plays in time: its deadline fires later and changes nothing; the
    next seat does not, and its deadline plays the default."""
    nodes = [await start("a", **FAST), await start("b", **FAST)]
    table = await started(nodes, 3, options={"rounds": 2}, deadlines={"move": 0.8})
    clients = table.clients
    version = await advance(clients)  # the bids (no commit deadline)
    top = latest(clients[0])
    assert top["view"]["phase"] == "play" and top["deadline"] is not None
    (seat,) = top["view"]["prompt"]["seats"]
    version = await advance(clients)  # the seat to move plays at once
    (after,) = latest(clients[0])["view"]["prompt"]["seats"]
    assert after != seat
    room = table.id
    assert await wait_fired(nodes, f"move|{room}|{version - 1}") == [STALE]
    event = await clients[0].has_version(version + 1, timeout=15)  # nobody plays now
    assert event["event"]["defaults"] == event["event"]["seats"] == [after]
    log = await log_of(redis_client, redis_prefix, room)
    assert log[version - 1]["defaults"] == []  # the move made in time
    assert log[version]["defaults"] == log[version]["seats"]  # the one that timed out
    assert applied(nodes)[f"move|{room}|{version}"] == 1


async def test_deadline_and_absent_options(node: Node) -> None:
    """What a host may ask for at creation; each refusal has its code."""
    import httpx
    from tortuga_client import guest

    token, _ = await guest(node, "Host")
    async with httpx.AsyncClient(
        base_url=node.url, headers={"Authorization": f"Bearer {token}"}
    ) as http:

        async def create(**body: Any) -> httpx.Response:
            return await http.post("/api/rooms", json={"game": "skull-king", **body})

        for deadlines in ({"turn": 30}, {"move": 0}, {"move": -5}, {"reveal": 10**9}):
            r = await create(deadlines=deadlines)
            assert r.json()["error"]["code"] == "bad-deadlines", (deadlines, r.text)
        r = await create(deadlines={"commit": "soon"})  # not a number: the message's type
        assert r.json()["error"]["code"] == "bad-message"
        r = await create(absent="nobody")
        assert r.json()["error"]["code"] == "bad-message"
        r = await create(deadlines={"move": 90, "commit": None, "reveal": 15.5}, absent="default")
        room = r.json()
        assert r.status_code == 201, room
        assert room["deadlines"] == {"move": 90, "reveal": 15.5} and room["absent"] == "default"
        plain = (await create()).json()
        assert plain["deadlines"] == {} and plain["absent"] == "bot"


async def test_a_lost_deadline_is_armed_again(
    start: Any, redis_client: Any, redis_prefix: str
) -> None:
    """As if the node that opened the phase died before putting the reveal deadline on the
    clock: the deadline is gone from the set. A node with a socket in the room re-arms its
    rooms every ``sweep_seconds``; the deadline fires, once."""
    knobs = {**FAST, "sweep_seconds": 0.5, "heartbeat_seconds": 0.1}
    nodes = [await start("a", **knobs), await start("b", **knobs)]
    table = await started(nodes, 2, options={"rounds": 2}, deadlines={"reveal": 0.8})
    a, b = table.clients
    phase = "bid@1"
    salt_a, dig_a = salted(phase, 0, {"bid": 1})
    _, dig_b = salted(phase, 1, {"bid": 0})
    assert (await a.call("commit", phase=phase, digest=dig_a))["type"] == "ok"
    assert (await b.call("commit", phase=phase, digest=dig_b))["type"] == "ok"
    await a.seen(lambda f: f["type"] == "open")
    name = f"reveal|{table.id}|1"
    assert await redis_client.zrem(Keys(redis_prefix).clock_of(name), name) == 1  # lost
    assert (await a.call("reveal", phase=phase, move={"bid": 1}, salt=salt_a))["type"] == "ok"
    revealed = await a.seen(lambda f: f["type"] == "revealed", timeout=15)
    assert revealed["defaults"] == [1]
    assert await wait_fired(nodes, name) == [APPLIED]
    assert applied(nodes)[name] == 1


async def test_pirate_king_deadlines_play_the_engines_defaults(
    start: Any, redis_client: Any, redis_prefix: str
) -> None:
    """Deadlines and defaults work for Pirate King! with nothing of it in server/.
    Nobody moves: each Pirate pick's move deadline plays the engine's default (the heuristic
    bot's pick), then any decision a picked Pirate asks for at the start (a Look, about one
    deal in five), then the first sealed beat's commit deadline defaults both "reveal or
    stop" choices at once -- each a default the engine itself would make there."""
    from engines.registry import GAMES

    game = GAMES["pirate-king"]
    nodes = [await start("a", **FAST)]
    deadlines = {"move": 0.3, "commit": 0.4, "reveal": 0.4}
    table = await started(nodes, 2, game="pirate-king", options={}, deadlines=deadlines)
    a, b = table.clients
    await a.has_version(4, timeout=20)  # two picks, then at least one more step
    log = await log_of(redis_client, redis_prefix, table.id)
    while not any(e["kind"] == "reveal" for e in log[1:]):  # up to the first sealed beat
        await a.has_version(len(log) + 1, timeout=20)
        log = await log_of(redis_client, redis_prefix, table.id)
    first = next(i for i, e in enumerate(log) if i > 0 and e["kind"] == "reveal")
    assert first >= 3 and [e["kind"] for e in log[1:3]] == ["move", "move"]
    for entry in log[1 : first + 1]:
        assert entry["defaults"] == sorted(entry["seats"]) and entry["seats"]
    assert sorted(log[first]["seats"]) == [0, 1]
    # The moves logged are the engine's defaults at each state (as `tortuga verify` checks).
    entries = await redis_client.xrange(f"{redis_prefix}room:{{{table.id}}}:log")
    states = {int(f[b"v"]): game.decode(bytes(f[b"state"])) for _, f in entries}
    for _, fields in entries[1 : first + 1]:
        v = int(fields[b"v"])
        moves = json.loads(fields[b"moves"])
        assert moves, v
        for seat, move in moves.items():
            assert move == game.default(states[v - 1], int(seat)).to_json(), (v, seat)
    assert latest(b)["view"]["round"] == 1


async def test_the_sweep_leaves_out_a_game_moving_here_and_takes_it_once_still(
    start: Any,
) -> None:
    """The sweep re-arms every room with a socket on the node, but a game this node moved
    within ``sweep_seconds`` at a table whose every seat is a player with a socket here:
    each of its steps put its deadline on the clock before it was written. A game that
    stops moving, or loses a player's socket, is swept again."""
    node = await start("a", **FAST, sweep_seconds=1.0, heartbeat_seconds=0.1)
    heartbeat: Heartbeat = node.server.config.app.state.heartbeat
    table = await started([node], 2, options={"rounds": 2})
    # The deal changes more of the room than a step writes: the node keeps no memory of it.
    assert table.id in heartbeat._to_sweep()

    async def to(version: int) -> None:
        """Both seats play on, from the last view each was sent, to ``version``."""

        def last_view(frames: list[dict[str, Any]]) -> int:
            return max((i for i, f in enumerate(frames) if f.get("view")), default=0)

        await asyncio.gather(
            *(
                autoplay(c, "skull-king", start=last_view(c.frames), stop_at=version)
                for c in table.clients
            )
        )

    await to(2)  # the bids' step, written here
    assert table.id not in heartbeat._to_sweep()
    await asyncio.sleep(1.2)
    assert table.id in heartbeat._to_sweep()  # still for longer than a sweep's period
    await to(3)  # the first card
    assert table.id not in heartbeat._to_sweep()

    await table.clients[1].close()
    for _ in range(50):  # the socket leaves the room's followers
        if table.id in heartbeat._to_sweep():
            break
        await asyncio.sleep(0.05)
    assert table.id in heartbeat._to_sweep()  # a seat with no socket here: swept


@pytest.mark.parametrize("at", [1000.0004, 1000.0007, 1000.9996, 1_764_900_000.12351])
def test_the_unlist_member_comes_due_once_the_kept_drop_says_away_long_enough(at: float) -> None:
    """A public lobby leaves the list once its host "has had no socket in it for
    ``lobby_host_away_seconds``", checked against the drop as presence keeps it (to the
    millisecond, rounded). The member that checks must not come due before that holds: at
    a drop measured 0.7 ms into a millisecond the kept stamp is up to half a millisecond
    later, and a member due from the measured time found the host away 0.999 s of 1 and did
    nothing, for good (the lobby stayed listed). Due from the kept stamp, rounded up to
    the clock's millisecond, the check holds a microsecond after it fires."""
    kept = stamp(at)
    due_ms = math.ceil(after_stamp(kept, 1.0) * 1000)  # as ``Clock._schedule`` keeps it
    fired_at = due_ms / 1000 + 1e-6
    assert fired_at - float(kept) >= 1.0
