"""Many clients moving at the same instant, on two nodes: exactly the legal moves win,
exactly once, and the versions have no gaps."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from test_protocol import started
from tortuga_client import Client, Node, advance, latest, salted


@pytest.mark.cluster
async def test_simultaneous_moves(two: list[Node], redis_client: Any, redis_prefix: str) -> None:
    table = await started(two, 4, options={"rounds": 3})
    players = table.clients
    # A second tab for every seat, each on the other node than the first.
    tabs = []
    for seat, c in enumerate(players):
        tab = await Client.connect(two[(seat + 1) % 2], token=c.token, user=c.user)
        await tab.send("join", room=table.id)
        await tab.of("snapshot")
        tabs.append(tab)
    everyone = [*players, *tabs]
    log_key = f"{redis_prefix}room:{{{table.id}}}:log"

    # The sealed bids: all eight sockets commit at once (each seat twice), then reveal.
    phase = "bid@1"
    commits = []
    for seat in range(4):
        move = {"bid": 0}
        salt, dig = salted(phase, seat, move)
        commits.append((seat, move, salt, dig))
    await asyncio.gather(
        *(players[s].send("commit", phase=phase, digest=d) for s, _, _, d in commits),
        *(tabs[s].send("commit", phase=phase, digest=d) for s, _, _, d in commits),
    )
    for c in everyone:
        await c.seen(lambda f: f["type"] == "open")
    await asyncio.gather(
        *(players[s].send("reveal", phase=phase, move=m, salt=x) for s, m, x, _ in commits),
        *(tabs[s].send("reveal", phase=phase, move=m, salt=x) for s, m, x, _ in commits),
    )
    for c in everyone:
        await c.has_version(2)
    # Each seat's second commit/reveal was refused as a duplicate, whichever came second.
    await asyncio.sleep(0.3)
    codes = [f["code"] for c in everyone for f in c.frames if f["type"] == "error"]
    assert codes.count("already-committed") == 4
    late = ("already-revealed", "not-sealed", "wrong-phase")
    assert sum(codes.count(code) for code in late) == 4, codes

    # Open moves: at each turn, both tabs of the seat to move play different cards at the
    # same instant, and every other socket tries to play too (out of turn).
    version = 2
    accepted_total = 0
    for round_ in range(30):
        view = latest(players[0])["view"]
        if view["phase"] == "over":
            break
        if view["phase"] != "play":
            version = await advance(players)
            continue
        sends = []
        refs = []
        for seat in range(4):
            hand_view = latest(players[seat])["view"]
            cards = hand_view["legal"] or [
                {"play": c, "as": "escape"} if c == "scary-mary" else {"play": c}
                for c in hand_view["hand"]
            ]
            if not cards:
                continue
            for client, move in ((players[seat], cards[0]), (tabs[seat], cards[-1])):
                ref = f"{round_}:{seat}:{len(refs)}"
                refs.append(ref)
                sends.append(client.send("act", move=move, ref=ref))
        await asyncio.gather(*sends)
        for c in everyone:  # a socket's messages are handled in order: after its pong, all
            await c.call("ping")
        refused = {f["ref"] for c in everyone for f in c.frames if f["type"] == "error"}
        accepted = len([r for r in refs if r not in refused])
        assert accepted >= 1  # the seat to move always gets one of its two cards in
        now = await redis_client.xlen(log_key)
        assert now == version + accepted  # every accepted move is one version, exactly once
        accepted_total += accepted
        version = now
        for c in everyone:
            await c.has_version(version)
    assert accepted_total >= 6
    await asyncio.sleep(0.3)
    entries = await redis_client.xrange(f"{redis_prefix}room:{{{table.id}}}:log")
    versions = [int(e[1][b"v"]) for e in entries]
    assert versions == list(range(1, len(versions) + 1))
    assert versions[-1] == latest(players[0])["version"]
    # One move per open step: each accepted once, by exactly one socket.
    for _, fields in entries[2:]:
        assert len(json.loads(fields[b"moves"])) in (1, 4)
    for c in everyone:  # every socket: each version once, in order, up to the last
        got = c.versions()
        assert got == list(range(got[0], versions[-1] + 1))
    for c in everyone:
        for f in c.frames:
            if f["type"] == "error":
                assert f["code"] in (
                    "already-committed",
                    "already-revealed",
                    "not-sealed",
                    "wrong-phase",
                    "not-your-turn",
                    "not-in-hand",
                    "must-follow-suit",
                    "bidding",
                    "sealed-phase",
                    "game-over",
                ), f


async def test_stale_versions_race(two: list[Node], redis_client: Any, redis_prefix: str) -> None:
    """Two tabs of the seat to move, on two nodes, both naming the same version: one wins,
    the other is told ``stale-version``."""
    table = await started(two, 2, options={"rounds": 3})
    players = table.clients
    await advance(players)
    for _ in range(6):
        top = latest(players[0])
        view, version = top["view"], top["version"]
        if view["phase"] != "play":
            await advance(players)
            continue
        turn = view["turn"]
        mover = players[turn]
        tab = await Client.connect(two[(turn + 1) % 2], token=mover.token, user=mover.user)
        await tab.send("join", room=table.id)
        await tab.of("snapshot")
        legal = latest(mover)["view"]["legal"]
        seen = len(mover.frames)  # the mover's frames of earlier rounds of this loop don't count
        await asyncio.gather(
            mover.send("act", move=legal[0], version=version, ref="first"),
            tab.send("act", move=legal[-1], version=version, ref="second"),
        )
        await mover.has_version(version + 1)
        await asyncio.sleep(0.1)
        frames = mover.frames[seen:] + tab.frames
        errors = [f for f in frames if f["type"] == "error"]
        assert [e["code"] for e in errors] == ["stale-version"], errors
        await tab.close()
        entries = await redis_client.xrange(f"{redis_prefix}room:{{{table.id}}}:log")
        assert [int(e[1][b"v"]) for e in entries] == list(range(1, version + 2))
        await players[1 - turn].has_version(version + 1)
