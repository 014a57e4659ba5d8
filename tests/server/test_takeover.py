"""A seat whose player is gone: held for the grace time, then played for them (a bot, or the
engine's default move, as the host chose) until they come back and play again themselves.
The grace time (0.5 s here) is fired by the clock on whichever node claims it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from human import Human
from test_clock import FAST, clock_of
from tortuga_client import Client, Node, final_records, seat_players

from engines.registry import GAMES

GRACE = {"grace_seconds": 0.5, **FAST}


async def log_entries(redis: Any, prefix: str, room_id: str) -> list[dict[str, Any]]:
    out = []
    for _, fields in await redis.xrange(f"{prefix}room:{{{room_id}}}:log"):
        fields.setdefault(b"proxies", b"[]")
        entry = {k.decode(): v for k, v in fields.items() if k != b"state"}
        for name in ("seats", "moves", "defaults", "salts", "opened", "proxies"):
            if name in entry:
                entry[name] = json.loads(entry[name])
        for name in ("kind", "phase", "status"):
            if name in entry:
                entry[name] = entry[name].decode()
        entry["v"] = int(entry["v"])
        out.append(entry)
    return out


async def humans(table: Any, game: str = "skull-king") -> list[Human]:
    """A ``Human`` for every client of the table, adopting its open socket."""
    out = []
    for seat, client in enumerate(table.clients):
        h = Human(client.token, client.user, table.id, game, seat)
        h.client = client
        h.version = 0
        out.append(h)
    return out


async def without_bert(
    table: Any, redis_client: Any, redis_prefix: str, game: str = "skull-king"
) -> tuple[list[dict[str, Any]], Any]:
    """Anne (seat 0) starts the game and plays it to the end; Bert (seat 1) leaves after
    the deal and never comes back (his seat is taken over once the grace time is over).
    The room's log, and Anne's socket (what she was sent)."""
    anne, bert = await humans(table, game)
    assert (await anne.client.call("start"))["type"] == "ok"  # type: ignore[union-attr]
    await bert.client.has_version(1)  # type: ignore[union-attr]
    await bert.drop()
    assert await asyncio.wait_for(anne.play(), 60) == "over"
    watch = anne.client
    assert watch is not None
    await watch.seen(lambda f: f["type"] == "presence" and f["away"] == [1])
    return await log_entries(redis_client, redis_prefix, table.id), watch


async def test_a_bot_plays_for_the_absent_until_they_return(
    start: Any, redis_client: Any, redis_prefix: str
) -> None:
    nodes: list[Node] = [await start("a", **GRACE), await start("b", **GRACE)]
    table = await seat_players(nodes, 3, options={"rounds": 2}, bots={2: "heuristic"})
    anne, bert = await humans(table)  # seat 0 on node a, seat 1 on node b
    anne.hold.clear()  # Anne waits: the game cannot run away from the test
    assert (await anne.client.call("start"))["type"] == "ok"  # type: ignore[union-attr]
    await bert.client.has_version(1)  # type: ignore[union-attr]
    bert.version = 1
    await bert.drop()
    playing = asyncio.create_task(anne.play())
    watch = anne.client
    assert watch is not None
    # After the grace time the seat is taken over, and its bot commits the bid.
    away = await watch.wait(lambda f: f["type"] == "presence" and f["away"] == [1], timeout=10)
    assert 1 not in away["connected"]
    committed = await watch.seen(lambda f: f["type"] == "committed" and f["seat"] == 1)
    bots = clock_of(nodes[0]).bots
    room = await bots.rooms.get(table.id)
    game = room.game
    state = game.decode(room.state)
    mine = bots._sealed(game, state, room, "bid@1", 1, "heuristic", "commit")
    assert committed["digest"] == mine.digest  # the away bot's, through the commit path
    # Bert comes back (on the other node) while the phase waits for Anne: the seat is his.
    await bert.connect(nodes[0])
    await watch.wait(lambda f: f["type"] == "presence" and f["away"] == [] and 1 in f["connected"])
    back_at = bert.version
    bert_plays = asyncio.create_task(bert.play())
    anne.hold.set()
    assert await asyncio.wait_for(asyncio.gather(playing, bert_plays), 60) == ["over", "over"]
    log = await log_entries(redis_client, redis_prefix, table.id)
    assert [e["v"] for e in log] == list(range(1, len(log) + 1))
    assert log[-1]["status"] == "finished"
    # The bid the bot committed for Bert was opened by the bot (Bert never knew its salt).
    first = log[1]
    assert first["phase"] == "bid@1" and first["opened"]["1"] == mine.move
    assert first["salts"]["1"] == mine.salt and first["defaults"] == []
    # ... and it is flagged as a stand-in's, in the log and in every frame.
    assert first["proxies"] == [1]
    revealed = await watch.seen(lambda f: f["type"] == "revealed" and f["phase"] == "bid@1")
    assert revealed["proxies"] == [1]
    event = await watch.has_version(2)
    assert event["event"]["proxies"] == [1]
    # From his return on, every move of seat 1 is the one Bert's socket sent.
    later = [e for e in log[2:] if 1 in e["seats"]]
    assert later and back_at <= 1
    for entry in later:
        if entry["kind"] == "move":
            assert entry["moves"]["1"] == bert.sent[entry["v"] - 1]
        else:
            move, salt = bert.sealed[entry["phase"]]
            assert entry["opened"]["1"] == move and entry["salts"]["1"] == salt
        assert entry["defaults"] == [] and entry["proxies"] == []
    took = [m for n in nodes for m, r in clock_of(n).fired if m.startswith("grace|")]
    assert len([m for m in took if f"|{table.id}|1|" in m]) == 1


async def test_absent_plays_the_default_move(
    start: Any, redis_client: Any, redis_prefix: str
) -> None:
    """The host chose ``absent: "default"``: after the grace time the absent seat's every
    move is the engine's default, flagged in the log, to the end of the game."""
    nodes = [await start("a", **GRACE), await start("b", **GRACE)]
    table = await seat_players(
        nodes, 3, options={"rounds": 2}, bots={2: "random"}, absent="default"
    )
    assert table.room["absent"] == "default"
    log, watch = await without_bert(table, redis_client, redis_prefix)
    assert [e["v"] for e in log] == list(range(1, len(log) + 1))
    seat_1 = [e for e in log if 1 in e["seats"]]
    assert len(seat_1) >= 3
    assert all(1 in e["defaults"] for e in seat_1)
    assert all(e["defaults"] == [1] for e in log if e["kind"] == "move" and e["seats"] == [1])
    # Played for the absent player: stand-in moves, flagged beside the defaults -- in the
    # log, the frames and the archive record; the timeouts of present players are not.
    assert all(e["proxies"] == [1] for e in seat_1)
    assert all(e["proxies"] == [] for e in log if 1 not in e["seats"])
    moved = [f for f in watch.frames if f["type"] == "event" and f["event"]["seats"] == [1]]
    assert moved and all(f["event"]["proxies"] == [1] for f in moved)
    for _ in range(100):
        records = [
            json.loads(f[b"record"]) for _, f in await final_records(redis_client, redis_prefix)
        ]
        if record := next((r for r in records if r["room"] == table.id), None):
            break
        await asyncio.sleep(0.05)
    assert record is not None
    assert [e["proxies"] for e in record["events"]] == [e["proxies"] for e in log]
    # The missed commit was a marker: nothing for seat 1 was opened or salted.
    for e in log:
        if e["kind"] == "reveal":
            assert e["opened"]["1"] is None and "1" not in e["salts"]
    # The seat is still taken when a spectator looks (the player has not come back).
    spy = await Client.connect(nodes[1], "Spy")
    await spy.send("join", room=table.id, **{"as": "spectator"})
    snap = await spy.of("snapshot")
    assert snap["room_state"]["seats"][1]["away"] is True
    assert snap["room_state"]["seats"][1]["connected"] is False


async def test_a_bot_stands_in_for_an_absent_pirate_king_player(
    start: Any, redis_client: Any, redis_prefix: str
) -> None:
    """For Pirate King!, "absent players' bots ... work for this game with no game-specific code in
    `server/`". Bert leaves right after the start: once his grace time is over a bot plays
    his seat through Pirate King!'s open moves (a Pirate pick, a battle or loot choice, an
    effect's decision) and its sealed beats ("reveal or stop", committed and opened by the
    bot: never a default marker) to the end of the game, every one of them flagged as a
    stand-in's."""
    nodes = [await start("a", **GRACE), await start("b", **GRACE)]
    table = await seat_players(nodes, 3, game="pirate-king", options={}, bots={2: "heuristic"})
    log, _ = await without_bert(table, redis_client, redis_prefix, "pirate-king")
    assert [e["v"] for e in log] == list(range(1, len(log) + 1))
    assert log[-1]["status"] == "finished"
    seat_1 = [e for e in log if 1 in e["seats"]]
    # Bert never moved: every step that waited for him was played by his stand-in.
    assert seat_1 and all(e["proxies"] == [1] for e in seat_1)
    assert all(1 not in e["defaults"] for e in seat_1)  # the bot's moves, not the clock's
    assert all(e["proxies"] == [] for e in log if 1 not in e["seats"])
    kinds = {e["kind"] for e in seat_1}
    assert {"move", "reveal"} <= kinds  # open moves and sealed beats alike
    beats = [e for e in seat_1 if e["kind"] == "reveal"]
    assert all(e["opened"]["1"] is not None for e in beats)  # committed, then opened
    game = GAMES["pirate-king"]
    entries = await redis_client.xrange(f"{redis_prefix}room:{{{table.id}}}:log")
    final = game.decode(bytes(entries[-1][1][b"state"]))
    outcome = game.outcome(final)
    assert outcome is not None and len(outcome.scores) == 3
