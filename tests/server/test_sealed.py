"""Commit/reveal: nothing in clear before everyone committed, every misuse refused, and the
phase resolved exactly once -- inspected in Redis and on the wire."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from test_protocol import refused, started
from tortuga_client import Client, Node, advance, choose, dump, latest, salted

from engines.rng import Rng
from server.table.reveal import canonical_json, digest


async def committed(
    clients: dict[int, Client], phase: str, moves: dict[int, Any]
) -> dict[int, str]:
    """Each of ``clients`` (by seat) commits to its move of ``moves``; the salts, by seat."""
    salts = {}
    for seat, client in clients.items():
        salt, dig = salted(phase, seat, moves[seat])
        salts[seat] = salt
        assert (await client.call("commit", phase=phase, digest=dig))["type"] == "ok"
    return salts


def test_digest_vector() -> None:
    """The exact digest a client must compute (shared with the web client's helper)."""
    assert canonical_json({"play": "scary-mary", "as": "escape"}) == (
        '{"as":"escape","play":"scary-mary"}'
    )
    salt = "00112233445566778899aabbccddeeff"
    text = 'bid@1:2:{"bid":3}:' + salt
    import hashlib

    assert digest("bid@1", 2, {"bid": 3}, salt) == hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.cluster
async def test_nothing_in_clear_before_all_committed(
    two: list[Node], redis_client: Any, redis_prefix: str
) -> None:
    table = await started(two, 3)
    a, b, c = table.clients
    watcher = await Client.connect(two[1], "Watcher")
    await watcher.send("join", room=table.id, **{"as": "spectator"})
    await watcher.of("snapshot")
    phase = "bid@1"
    moves = {0: {"bid": 1}, 1: {"bid": 0}, 2: {"bid": 1}}
    salts = await committed({0: a, 1: b}, phase, moves)
    for client in (a, b, c, watcher):
        await client.seen(lambda f: f["type"] == "committed" and f["seat"] == 1)
    # Redis: every key of the room, every value -- digests only, no move, no salt.
    keys = await dump(redis_client, redis_prefix)
    blob = repr(keys).encode()
    assert b'"bid"' not in blob and b"'bid'" not in blob
    assert not any(s.encode() in blob for s in salts.values())
    seal = next(v for k, v in keys.items() if k.endswith(b":seal"))
    # n:<seat> is the nonce of the commit call (random: it says nothing about the move).
    assert set(seal) == {b"phase", b"commits", b"reveals", b"c:0", b"c:1", b"n:0", b"n:1"}
    log = next(v for k, v in keys.items() if k.endswith(b":log"))
    assert len(log) == 1  # only the deal
    # Frames so far: nobody's choice, anywhere (views show no bid, no revealed frame).
    for client in (a, b, c, watcher):
        for frame in client.frames:
            assert frame["type"] not in ("revealed", "open"), frame
            if frame["type"] in ("event", "snapshot") and frame["view"]:
                assert frame["view"]["bids"] == [None, None, None]
            elif frame["type"] == "committed":
                assert set(frame) == {"type", "room", "phase", "seat", "digest", "version"}
    # Reveal before everyone committed.
    await refused(
        a,
        redis_client,
        redis_prefix,
        "not-open",
        "reveal",
        phase=phase,
        move=moves[0],
        salt=salts[0],
    )
    salt, dig = salted(phase, 2, moves[2])
    salts[2] = salt
    assert (await c.call("commit", phase=phase, digest=dig))["type"] == "ok"
    for client in (a, b, c, watcher):
        await client.seen(lambda f: f["type"] == "open" and f["phase"] == phase)
    # The last two reveals arrive at the same instant on two nodes: resolved exactly once.
    assert (await a.call("reveal", phase=phase, move=moves[0], salt=salts[0]))["type"] == "ok"
    await asyncio.gather(
        b.send("reveal", phase=phase, move=moves[1], salt=salts[1]),
        c.send("reveal", phase=phase, move=moves[2], salt=salts[2]),
    )
    for client in (a, b, c, watcher):
        revealed = await client.seen(lambda f: f["type"] == "revealed")
        assert revealed["moves"] == {str(s): m for s, m in moves.items()}
        assert revealed["salts"] == {str(s): v for s, v in salts.items()}
        await client.has_version(2)
    await asyncio.sleep(0.2)
    for client in (a, b, c, watcher):
        assert [f["type"] for f in client.frames].count("revealed") == 1
        assert client.versions() == ([2] if client is watcher else [1, 2])
    assert latest(watcher)["view"]["bids"] == [1, 0, 1]
    entries = await redis_client.xrange(f"{redis_prefix}room:{{{table.id}}}:log")
    assert [e[1][b"v"] for e in entries] == [b"1", b"2"]


async def test_commit_and_reveal_errors(node: Node, redis_client: Any, redis_prefix: str) -> None:
    table = await started([node], 2)
    a, b = table.clients
    r = redis_client, redis_prefix
    watcher = await Client.connect(node, "Watcher")
    await watcher.send("join", room=table.id, **{"as": "spectator"})
    await watcher.of("snapshot")
    phase = "bid@1"
    move_a, move_b = {"bid": 1}, {"bid": 9}  # b holds one card: 9 is illegal (but committed)
    salt_a, dig_a = salted(phase, 0, move_a)
    salt_b, dig_b = salted(phase, 1, move_b)
    await refused(a, *r, "wrong-phase", "commit", phase="bid@7", digest=dig_a)
    await refused(a, *r, "not-your-seat", "commit", phase=phase, digest=dig_a, seat=1)
    await refused(watcher, *r, "not-a-player", "commit", phase=phase, digest=dig_a)
    await refused(a, *r, "sealed-phase", "act", move=move_a)
    assert (await a.call("commit", phase=phase, digest=dig_a))["type"] == "ok"
    await refused(a, *r, "already-committed", "commit", phase=phase, digest=dig_a)
    await refused(a, *r, "not-open", "reveal", phase=phase, move=move_a, salt=salt_a)
    assert (await b.call("commit", phase=phase, digest=dig_b))["type"] == "ok"
    await a.seen(lambda f: f["type"] == "open")
    await refused(a, *r, "digest-mismatch", "reveal", phase=phase, move=move_a, salt=salt_b)
    await refused(a, *r, "digest-mismatch", "reveal", phase=phase, move={"bid": 0}, salt=salt_a)
    await refused(a, *r, "not-your-seat", "reveal", phase=phase, move=move_b, salt=salt_b, seat=1)
    await refused(a, *r, "wrong-phase", "reveal", phase="bid@2", move=move_a, salt=salt_a)
    assert (await a.call("reveal", phase=phase, move=move_a, salt=salt_a))["type"] == "ok"
    await refused(a, *r, "already-revealed", "reveal", phase=phase, move=move_a, salt=salt_a)
    # An illegal bid that matches its commitment: the engine's default, flagged to all.
    assert (await b.call("reveal", phase=phase, move=move_b, salt=salt_b))["type"] == "ok"
    for client in (a, b, watcher):
        revealed = await client.seen(lambda f: f["type"] == "revealed")
        assert revealed["defaults"] == [1]
        assert revealed["opened"]["1"] == move_b
        assert revealed["moves"]["1"] != move_b
    entries = await redis_client.xrange(f"{redis_prefix}room:{{{table.id}}}:log")
    assert json.loads(entries[-1][1][b"defaults"]) == [1]
    # After the phase: a commit for it is refused.
    await refused(a, *r, "not-sealed", "commit", phase=phase, digest=dig_a)


async def test_a_private_sealed_phase_stays_with_its_movers(
    two: list[Node], redis_client: Any, redis_prefix: str
) -> None:
    """loon-tricks' ditch is sealed and private ("Ditch two: each player puts 2 cards out of
    play (private, in parallel)"). Before everyone committed Redis holds digests only; once
    revealed, each seat's move reaches that seat only -- no other seat's or spectator's
    frame carries it -- and the views show each seat its own ditched cards only."""
    table = await started(two, 3, game="loon-tricks", options={"rounds": 3})
    clients = table.clients
    watcher = await Client.connect(two[1], "Watcher")
    await watcher.send("join", room=table.id, **{"as": "spectator"})
    await watcher.of("snapshot")
    while latest(clients[0])["view"]["prompt"]["kind"] != "ditch":
        await advance(clients, "loon-tricks")
    version = latest(clients[0])["version"]
    phase = f"ditch@{version}"
    rng = Rng(b"private", "ditch")
    moves = {s: choose("loon-tricks", latest(c)["view"], rng) for s, c in enumerate(clients)}
    salts = await committed({0: clients[0], 1: clients[1]}, phase, moves)
    for client in (*clients, watcher):
        await client.seen(lambda f: f["type"] == "committed" and f["seat"] == 1)
    blob = repr(await dump(redis_client, redis_prefix)).encode()
    for seat in (0, 1):
        assert canonical_json(moves[seat]).encode() not in blob
        assert salts[seat].encode() not in blob
    salt, dig = salted(phase, 2, moves[2])
    salts[2] = salt
    assert (await clients[2].call("commit", phase=phase, digest=dig))["type"] == "ok"
    for seat, client in enumerate(clients):
        await client.of("open", phase=phase)
        await client.send("reveal", phase=phase, move=moves[seat], salt=salts[seat])
    for client in (*clients, watcher):
        await client.has_version(version + 1)
    for seat, client in enumerate(clients):
        revealed = await client.seen(lambda f: f["type"] == "revealed" and f["phase"] == phase)
        assert revealed["private"] is True
        assert revealed["moves"] == {str(seat): moves[seat]}
        view = latest(client)["view"]
        assert view["ditched"] == moves[seat]["ditch"]
    revealed = await watcher.seen(lambda f: f["type"] == "revealed" and f["phase"] == phase)
    assert revealed["moves"] == {} and latest(watcher)["view"]["ditched"] is None
    for seat, client in enumerate((*clients, watcher)):
        for frame in client.frames:
            if frame["type"] not in ("revealed", "event") or frame.get("version") != version + 1:
                continue
            shown = frame.get("moves") or frame.get("event", {}).get("moves") or {}
            assert set(shown) <= {str(seat)}, (seat, frame["type"], shown)


async def test_pirate_king_parallel_decisions_stay_with_their_movers(
    two: list[Node], redis_client: Any, redis_prefix: str
) -> None:
    """Pirate King!: "Effects that ask their owner for a decision (Look, Flip, Choose,
    Retrieve, Give) are parallel private decisions of those players" -- when several owe one
    at once they are one sealed, private phase. Before the last commit Redis holds digests
    only (no salt); once revealed each seat's move reaches that seat only, the spectator
    sees none, and the log entry is flagged private. The deal is the server's and the
    players' (not ours to choose), so games are played until two decisions meet (about four
    games in five with four players reach one)."""
    for _ in range(8):
        table = await started(two, 4, game="pirate-king", options={})
        clients = table.clients
        view = latest(clients[0])["view"]
        while view["outcome"] is None and not view["prompt"]["private"]:
            await advance(clients, "pirate-king")
            view = latest(clients[0])["view"]
        if view["outcome"] is None:
            break
    else:
        raise AssertionError("no two decisions at once in eight games")
    watcher = await Client.connect(two[1], "Watcher")
    await watcher.send("join", room=table.id, **{"as": "spectator"})
    await watcher.of("snapshot")
    top = latest(clients[0])
    version, prompt = top["version"], top["view"]["prompt"]
    assert prompt["sealed"] and prompt["private"] and len(prompt["seats"]) >= 2
    phase = f"{prompt['kind']}@{version}"
    rng = Rng(b"private", "pirate-king")
    seats = prompt["seats"]
    moves = {s: choose("pirate-king", latest(clients[s])["view"], rng) for s in seats}
    salts = await committed({s: clients[s] for s in seats[:-1]}, phase, moves)
    keys = await dump(redis_client, redis_prefix)
    blob = repr(keys).encode()
    assert not any(s.encode() in blob for s in salts.values())
    seal = next(v for k, v in keys.items() if k.endswith(b":seal"))
    assert {k for k in seal if k.startswith(b"c:")} == {f"c:{s}".encode() for s in seats[:-1]}
    salt, dig = salted(phase, seats[-1], moves[seats[-1]])
    salts[seats[-1]] = salt
    assert (await clients[seats[-1]].call("commit", phase=phase, digest=dig))["type"] == "ok"
    for seat in seats:
        await clients[seat].of("open", phase=phase)
        await clients[seat].send("reveal", phase=phase, move=moves[seat], salt=salts[seat])
    for client in (*clients, watcher):
        await client.has_version(version + 1)
    for seat, client in enumerate(clients):
        revealed = await client.seen(lambda f: f["type"] == "revealed" and f["phase"] == phase)
        assert revealed["private"] is True
        assert revealed["moves"] == ({str(seat): moves[seat]} if seat in seats else {})
    revealed = await watcher.seen(lambda f: f["type"] == "revealed" and f["phase"] == phase)
    assert revealed["moves"] == {}
    entries = await redis_client.xrange(f"{redis_prefix}room:{{{table.id}}}:log")
    last = entries[-1][1]
    assert last[b"v"] == str(version + 1).encode() and last.get(b"private") == b"1"


async def test_pearates_hand_or_score_stays_with_each_player(
    two: list[Node], redis_client: Any, redis_prefix: str
) -> None:
    """Pearates' hand-or-score is "decided by all at once as a sealed prompt" and private:
    Redis holds digests only until everyone committed; once revealed, each seat's choice
    reaches that seat only -- the others learn it from their views (hand sizes, scored
    cards), as at the table."""
    table = await started(two, 3, game="pearates", options={"removed": 20})
    clients = table.clients
    watcher = await Client.connect(two[1], "Watcher")
    await watcher.send("join", room=table.id, **{"as": "spectator"})
    await watcher.of("snapshot")
    for _ in range(500):  # until a hand-or-score with two or more seats
        prompt = latest(clients[0])["view"]["prompt"]
        if prompt["kind"] == "keep" and prompt["sealed"]:
            break
        assert latest(clients[0])["view"]["outcome"] is None, "no sealed keep in this game"
        await advance(clients, "pearates")
    assert prompt["private"] is True
    version = latest(clients[0])["version"]
    phase = f"keep@{version}"
    seats = prompt["seats"]
    rng = Rng(b"private", "keep")
    moves = {s: choose("pearates", latest(clients[s])["view"], rng) for s in seats}
    salts = await committed({s: clients[s] for s in seats[:-1]}, phase, moves)
    keys = await dump(redis_client, redis_prefix)
    blob = repr(keys).encode()
    for seat in seats[:-1]:
        assert salts[seat].encode() not in blob
    # the seal holds digests and nonces only (no move, no salt)
    seal = next(v for k, v in keys.items() if k.endswith(b":seal"))
    fields = {b"phase", b"commits", b"reveals"}
    fields |= {f"{x}:{s}".encode() for s in seats[:-1] for x in ("c", "n")}
    assert set(seal) == fields
    last = seats[-1]
    salt, dig = salted(phase, last, moves[last])
    salts[last] = salt
    assert (await clients[last].call("commit", phase=phase, digest=dig))["type"] == "ok"
    for seat in seats:
        await clients[seat].of("open", phase=phase)
        await clients[seat].send("reveal", phase=phase, move=moves[seat], salt=salts[seat])
    for client in (*clients, watcher):
        await client.has_version(version + 1)
    for seat, client in enumerate(clients):
        revealed = await client.seen(lambda f: f["type"] == "revealed" and f["phase"] == phase)
        assert revealed["private"] is True
        assert revealed["moves"] == ({str(seat): moves[seat]} if seat in seats else {})
    revealed = await watcher.seen(lambda f: f["type"] == "revealed" and f["phase"] == phase)
    assert revealed["moves"] == {}
    for seat, client in enumerate((*clients, watcher)):
        for frame in client.frames:
            if frame["type"] not in ("revealed", "event") or frame.get("version") != version + 1:
                continue
            shown = frame.get("moves") or frame.get("event", {}).get("moves") or {}
            assert set(shown) <= {str(seat)}, (seat, frame["type"], shown)


async def test_a_complete_phase_left_unresolved_is_resolved_on_the_next_visit(
    two: list[Node], redis_client: Any, redis_prefix: str
) -> None:
    """The node that stores a phase's last opening writes the step that resolves it. When
    its read showed every other opening, both go in one script; when two last openings
    race (neither read the other's), the one stored last is followed by a step of its own,
    and a node that dies in between (found by the SIGKILL drill, tests/server/test_drills.py)
    leaves the phase complete but never resolved: a game without deadlines would wait
    forever. Here seat 0's opening is stored that way, by a node that then "dies" (nothing
    resolves); the next visit of the room (a player resuming on node b) resolves it, once."""
    from test_clock import clock_of

    table = await started(two, 2)  # seat 0 on a, seat 1 on b
    zero, one = table.clients
    phase = "bid@1"
    moves = {0: {"bid": 1}, 1: {"bid": 0}}
    salts = await committed({0: zero, 1: one}, phase, moves)
    await one.seen(lambda f: f["type"] == "open")
    assert (await one.call("reveal", phase=phase, move=moves[1], salt=salts[1]))["type"] == "ok"
    store = clock_of(two[0]).sealing.store
    opening = {"move": moves[0], "salt": salts[0], "applied": moves[0], "default": False}
    text = json.dumps(opening, separators=(",", ":"))
    stored = await store.reveal(table.id, version=1, phase=phase, seat=0, opening=text, owed=2)
    assert stored[0] == "all"  # complete: its node would resolve it now, but it "died"
    await asyncio.sleep(0.3)
    assert one.versions() == [1]  # stuck: both opened, nothing resolved
    back = await Client.connect(two[1], token=zero.token, user=zero.user)
    await back.send("resume", room=table.id, version=1)
    revealed = await back.wait(lambda f: f["type"] == "revealed", timeout=10)
    assert revealed["moves"] == {"0": moves[0], "1": moves[1]}
    await one.has_version(2)
    await asyncio.sleep(0.3)
    entries = await redis_client.xrange(f"{redis_prefix}room:{{{table.id}}}:log")
    assert [e[1][b"v"] for e in entries] == [b"1", b"2"]
    assert [f["type"] for f in one.frames].count("revealed") == 1


async def test_the_last_reveal_writes_the_resolving_step_in_the_same_script(
    two: list[Node], redis_client: Any, redis_prefix: str
) -> None:
    """ "The reveal that completes the set resolves the phase: ONE versioned compare-and-set
    steps the engine with every move" (server/table/reveal.py). When the last revealer's read
    shows every other opening, its opening and that step are one script (one round trip):
    the reveal-only script runs for the first opening alone, the phase resolves once, and
    every seat sees both moves."""
    from test_clock import clock_of

    table = await started(two, 2)  # seat 0 on a, seat 1 on b
    zero, one = table.clients
    phase = "bid@1"
    moves = {0: {"bid": 1}, 1: {"bid": 0}}
    salts = await committed({0: zero, 1: one}, phase, moves)
    await zero.seen(lambda f: f["type"] == "open")
    await one.seen(lambda f: f["type"] == "open")
    reveals_alone: list[int] = []
    for node in two:
        store = clock_of(node).sealing.store
        alone = store.reveal

        async def counted(room_id: str, *, alone: Any = alone, **kwargs: Any) -> Any:
            reveals_alone.append(kwargs["seat"])
            return await alone(room_id, **kwargs)

        store.reveal = counted  # type: ignore[method-assign]
    assert (await one.call("reveal", phase=phase, move=moves[1], salt=salts[1]))["type"] == "ok"
    assert (await zero.call("reveal", phase=phase, move=moves[0], salt=salts[0]))["type"] == "ok"
    for client in (zero, one):
        revealed = await client.seen(lambda f: f["type"] == "revealed" and f["phase"] == phase)
        assert revealed["moves"] == {"0": moves[0], "1": moves[1]}
        await client.has_version(2)
    assert reveals_alone == [1]  # seat 0's opening went with the step
    entries = await redis_client.xrange(f"{redis_prefix}room:{{{table.id}}}:log")
    assert [e[1][b"v"] for e in entries] == [b"1", b"2"]
    assert json.loads(entries[-1][1][b"moves"]) == {"0": moves[0], "1": moves[1]}
    assert await redis_client.exists(f"{redis_prefix}room:{{{table.id}}}:seal") == 0
    # The seat that completed the phase cannot open it again: the phase is over.
    await refused(
        zero,
        redis_client,
        redis_prefix,
        "not-sealed",
        "reveal",
        phase=phase,
        move=moves[0],
        salt=salts[0],
    )


async def test_two_last_reveals_at_once_resolve_the_phase_once(
    two: list[Node], redis_client: Any, redis_prefix: str
) -> None:
    """Two seats reveal at the same instant on two nodes: each may read the seal before the
    other's opening is in it (each then stores its own alone, and the one stored last
    resolves), or one reads the other's (its opening and the step go together). Either way
    the phase resolves exactly once, with both moves. Repeated, so that both orders occur."""
    for _ in range(5):
        table = await started(two, 2)
        zero, one = table.clients
        phase = "bid@1"
        moves = {0: {"bid": 0}, 1: {"bid": 1}}
        salts = await committed({0: zero, 1: one}, phase, moves)
        await zero.seen(lambda f: f["type"] == "open")
        await one.seen(lambda f: f["type"] == "open")
        answers = await asyncio.gather(
            zero.call("reveal", phase=phase, move=moves[0], salt=salts[0]),
            one.call("reveal", phase=phase, move=moves[1], salt=salts[1]),
        )
        assert [a["type"] for a in answers] == ["ok", "ok"], answers
        for client in (zero, one):
            await client.has_version(2)
        await asyncio.sleep(0.1)
        entries = await redis_client.xrange(f"{redis_prefix}room:{{{table.id}}}:log")
        assert [e[1][b"v"] for e in entries] == [b"1", b"2"]
        assert json.loads(entries[-1][1][b"moves"]) == {"0": moves[0], "1": moves[1]}
        for client in (zero, one):
            assert [f["type"] for f in client.frames].count("revealed") == 1
            await client.ws.close()


async def test_the_commit_that_opens_a_phase_says_whether_a_stand_in_owes_an_opening(
    redis_client: Any, redis_wire: Any, redis_prefix: str
) -> None:
    """Bots hear of an opened phase "only when one of its seats is theirs: a bot seat, a seat
    taken over, or a seat a stand-in committed for" (server/table/reveal.py). The script that
    opens the phase looks up the last two (``open-stand-in``); its retry answers the same."""
    from server.redis.store import Keys, Store

    keys = Keys(redis_prefix)
    store = Store(redis_client, redis_wire, keys)
    common = {"version": 2, "phase": "bid@2", "owed": 2, "committed": b"c", "opened": b"o"}

    async def opening(room: str, *, away: int | None = None, proxy: bool = False) -> str:
        await redis_client.hset(keys.room(room), mapping={"version": "2", "status": "playing"})
        if away is not None:
            await redis_client.hset(keys.presence(room), f"away:{away}", "1")
        first = await store.commit(room, seat=0, digest="a" * 64, seats=(0, 1), **common)
        assert first == "ok"
        last = {"seat": 1, "digest": "b" * 64, "seats": (0, 1), "nonce": f"{room}-n", **common}
        answer = await store.commit(room, proxy=proxy, **last)  # type: ignore[arg-type]
        again = await store.commit(room, proxy=proxy, **last)  # type: ignore[arg-type]
        assert again == answer  # a retry after a lost reply: the same answer
        return answer

    assert await opening("all-here") == "open"
    assert await opening("one-away", away=0) == "open-stand-in"
    assert await opening("stand-in-committed", proxy=True) == "open-stand-in"
    # Nobody looked up (a bot seat owes: the caller tells the bots anyway).
    await redis_client.hset(keys.room("unlooked"), mapping={"version": "2", "status": "playing"})
    await redis_client.hset(keys.presence("unlooked"), "away:0", "1")
    assert await store.commit("unlooked", seat=0, digest="a" * 64, **common) == "ok"
    assert await store.commit("unlooked", seat=1, digest="b" * 64, **common) == "open"
