"""Drop a socket mid-round, come back on the other node, get exactly what was missed."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from test_protocol import started
from tortuga_client import Client, Node, advance, autoplay, latest


@pytest.mark.cluster
async def test_resume_on_the_other_node(
    two: list[Node], start: Any, redis_client: Any, redis_prefix: str
) -> None:
    table = await started(two, 3, options={"rounds": 4})
    a, b, c = table.clients  # a on node a, b on node b, c on node a
    clients = [a, b, c]
    while not (latest(a)["view"]["round"] == 2 and latest(a)["view"]["phase"] == "play"):
        await advance(clients)  # round 1, then the bids of round 2
    if latest(a)["view"]["turn"] == 1:
        await advance(clients)  # seat 1 plays first, so the others move while it is away
    # Mid-round 2, seat 1 drops (its node is "b") ...
    seen = latest(b)["version"]
    await b.close()
    await a.seen(lambda f: f["type"] == "presence" and 1 not in f["connected"])
    seats = await redis_client.hget(f"{redis_prefix}room:{{{table.id}}}", "seats")
    assert b.user["id"].encode() in seats  # the seat is held for its player
    presence = await redis_client.hgetall(f"{redis_prefix}room:{{{table.id}}}:presence")
    assert b"drop:1" in presence  # when the grace time started
    # ... the others play on until it is seat 1's turn ...
    while latest(a)["view"]["turn"] != 1:
        top = latest(a)
        (seat,) = top["view"]["prompt"]["seats"]
        mover = clients[seat]
        move = latest(mover)["view"]["legal"][0]
        await mover.send("act", move=move, version=top["version"])
        for other in (a, c):
            await other.has_version(top["version"] + 1)
    missed_to = latest(a)["version"]
    assert missed_to > seen
    # ... and seat 1 comes back on node "a" (the other node) with resume.
    back = await Client.connect(two[0], token=b.token, user=b.user)
    await back.send("resume", room=table.id, version=seen)
    resumed = await back.of("resumed")
    assert resumed["missed"] == missed_to - seen and resumed["seat"] == 1
    assert back.versions() == list(range(seen + 1, missed_to + 1))
    assert not any(f["type"] == "snapshot" for f in back.frames)
    assert latest(back)["view"]["hand"] is not None and latest(back)["view"]["seat"] == 1
    await a.seen(lambda f: f["type"] == "presence" and 1 in f["connected"])
    # The game goes on to its end with the resumed socket.
    marks = [max(i for i, f in enumerate(x.frames) if f["type"] == "event") for x in (a, back, c)]
    views = await asyncio.wait_for(
        asyncio.gather(
            *(autoplay(x, "skull-king", m) for x, m in zip((a, back, c), marks, strict=True))
        ),
        30,
    )
    assert views[0]["outcome"] == views[1]["outcome"] is not None
    assert back.versions() == list(range(seen + 1, latest(a)["version"] + 1))

    # A resume from too far back gets a snapshot instead (a node that keeps only 2).
    third = await start("c", resume_max_versions=2)
    old = await Client.connect(third, token=b.token, user=b.user)
    await old.send("resume", room=table.id, version=1)
    snap = await old.of("snapshot")
    assert snap["version"] == latest(a)["version"] and snap["view"]["outcome"] is not None
    assert snap["seed"] is not None


@pytest.mark.cluster
async def test_resume_mid_sealed_phase(two: list[Node]) -> None:
    """A socket that drops after committing learns, on resume, who committed and whether
    the phase is open, and can reveal what it kept."""
    from tortuga_client import salted

    table = await started(two, 2, options={"rounds": 2})
    a, b = table.clients
    salt, dig = salted("bid@1", 0, {"bid": 1})
    assert (await a.call("commit", phase="bid@1", digest=dig))["type"] == "ok"
    await a.close()
    salt_b, dig_b = salted("bid@1", 1, {"bid": 0})
    assert (await b.call("commit", phase="bid@1", digest=dig_b))["type"] == "ok"
    back = await Client.connect(two[1], token=a.token, user=a.user)
    await back.send("resume", room=table.id, version=1)
    sealed = await back.of("sealed")
    assert sealed["open"] is True and set(sealed["committed"]) == {"0", "1"}
    await back.of("resumed")
    assert (await back.call("reveal", phase="bid@1", move={"bid": 1}, salt=salt))["type"] == "ok"
    assert (await b.call("reveal", phase="bid@1", move={"bid": 0}, salt=salt_b))["type"] == "ok"
    for x in (back, b):
        await x.has_version(2)
