"""Take-back: a player takes back their own open move while nobody has acted since and the
move revealed nothing new. The take-back is a new version (the state before the move);
every refusal has its own code and changes nothing; the archive record verifies."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from test_protocol import refused, started
from test_takeover import log_entries
from tortuga_client import Client, Node, advance, final_records, latest, salted

from engines.registry import GAMES
from engines.rng import Rng
from server.archive.record import decode_record
from server.archive.replay import log_of, verify_log
from server.redis.store import Keys
from server.table.steps import reveals_nothing

SK = GAMES["skull-king"]


async def owner(clients: list[Client]) -> tuple[int, dict[str, Any]]:
    """The seat that owes the open move now, and its frame of the latest version (waited
    for: the mover's socket may have the version before the others')."""
    top = max((latest(c) for c in clients), key=lambda f: int(f["version"]))
    (seat,) = top["view"]["prompt"]["seats"]
    return seat, await clients[seat].has_version(int(top["version"]))


async def play(client: Client, frame: dict[str, Any], pick: int = 0) -> int:
    """Play a legal card of ``frame``'s view; the version it produced."""
    move = frame["view"]["legal"][pick % len(frame["view"]["legal"])]
    answer = await client.call("act", move=move, version=frame["version"])
    assert answer["type"] == "ok", answer
    await client.has_version(frame["version"] + 1)
    return int(frame["version"]) + 1


async def state_of(redis: Any, prefix: str, room: str, version: int) -> bytes:
    ((_, fields),) = await redis.xrange(
        f"{prefix}room:{{{room}}}:log", f"{version}-0", f"{version}-0"
    )
    return bytes(fields[b"state"])


async def test_take_back_an_open_move(
    two: list[Node], redis_client: Any, redis_prefix: str
) -> None:
    table = await started(two, 3, options={"rounds": 2}, takeback=True, deadlines={"move": 600})
    clients = table.clients
    room = table.id
    assert await advance(clients) == 2  # the bids (a sealed resolution)
    mover, frame = await owner(clients)
    other = clients[(mover + 1) % 3]
    # A sealed resolution is nobody's own move.
    await refused(
        clients[mover], redis_client, redis_prefix, "takeback-not-yours", "takeback", version=2
    )
    v3 = await play(clients[mover], frame)
    assert v3 == 3
    for code, who, version in [
        ("takeback-not-yours", other, 3),  # someone else's move
        ("takeback-too-late", clients[mover], 2),  # not the latest version
        ("takeback-too-late", clients[mover], 99),
    ]:
        await refused(who, redis_client, redis_prefix, code, "takeback", version=version)
    spy = await Client.connect(two[1], "Spy")
    await spy.send("join", room=room, **{"as": "spectator"})
    await spy.of("snapshot")

    assert (await clients[mover].call("takeback", version=3))["type"] == "ok"
    for c in [*clients, spy]:
        event = await c.has_version(4)
        assert event["event"]["kind"] == "takeback" and event["event"]["undoes"] == 3
        assert event["event"]["seats"] == [mover] and event["event"]["moves"] == {}
        if c is not spy:
            before = next(f for f in c.frames if f["type"] == "event" and f["version"] == 2)
            assert event["view"] == before["view"]  # the table as it was before the move
        # The turn is the mover's again, on the clock it had (taking back buys no time).
        assert event["view"]["prompt"]["seats"] == [mover]
        assert event["deadline"] == before["deadline"] is not None
    assert await state_of(redis_client, redis_prefix, room, 4) == await state_of(
        redis_client, redis_prefix, room, 2
    )
    log = await log_entries(redis_client, redis_prefix, room)
    assert log[3]["kind"] == "takeback" and int(log[3]["undoes"]) == 3
    raw = await redis_client.hgetall(f"{redis_prefix}room:{{{room}}}")
    assert int(raw[b"version"]) == 4 and int(raw[b"deadline"]) == before["deadline"]
    due = await redis_client.zscore(Keys(redis_prefix).clock_of(f"move|{room}|4"), f"move|{room}|4")
    assert due == before["deadline"]
    # A take-back cannot itself be taken back.
    await refused(
        clients[mover], redis_client, redis_prefix, "takeback-not-yours", "takeback", version=4
    )

    # The mover plays another card; once the next player has acted it is too late.
    mover_frame = latest(clients[mover])
    await play(clients[mover], mover_frame, pick=1)
    nxt, frame = await owner(clients)
    await play(clients[nxt], frame)
    await refused(
        clients[mover], redis_client, redis_prefix, "takeback-too-late", "takeback", version=5
    )
    # The third card ends round 1 and deals round 2: new hands, so it stands.
    last, frame = await owner(clients)
    v7 = await play(clients[last], frame)
    assert latest(clients[last])["view"]["round"] == 2
    await refused(
        clients[last], redis_client, redis_prefix, "takeback-reveals", "takeback", version=v7
    )
    # Round 2: the bids, then a whole trick; its last card can be taken back (nothing new
    # was dealt, no ghost played), and played again.
    await advance(clients)
    for _ in range(2):
        await advance(clients)
    closer, frame = await owner(clients)
    v = await play(clients[closer], frame)
    assert latest(clients[closer])["view"]["trick"] == []  # the trick was complete
    assert (await clients[closer].call("takeback", version=v))["type"] == "ok"
    await clients[0].has_version(v + 1)
    while latest(clients[0])["view"]["outcome"] is None:
        await advance(clients)
    assert latest(clients[1])["event"]["game_id"] == f"{room}-1"
    assert "game_id" not in (await clients[1].has_version(v))["event"]
    # The archive record carries the take-backs, and verifies.
    for _ in range(100):  # the winner puts the record on the stream just after the step
        entries = await final_records(redis_client, redis_prefix)
        records = [json.loads(f[b"record"]) for _, f in entries]
        if records := [r for r in records if r["room"] == room]:
            break
        await asyncio.sleep(0.05)
    (record,) = records
    assert [e["takeback"] for e in record["events"] if "takeback" in e] == [3, v]
    assert record["game_id"] == f"{room}-1"
    report = verify_log(log_of(decode_record(json.dumps(record))))
    assert report.ok, report.message


async def test_take_back_needs_the_room_to_allow_it(
    node: Node, redis_client: Any, redis_prefix: str
) -> None:
    table = await started([node], 3, options={"rounds": 1})
    assert table.room["takeback"] is False
    clients = table.clients
    await advance(clients)
    mover, frame = await owner(clients)
    v = await play(clients[mover], frame)
    await refused(clients[mover], redis_client, redis_prefix, "takeback-off", "takeback", version=v)
    await refused(clients[mover], redis_client, redis_prefix, "bad-message", "takeback")
    spy = await Client.connect(node, "Spy")
    await spy.send("join", room=table.id, **{"as": "spectator"})
    await spy.of("snapshot")
    await refused(spy, redis_client, redis_prefix, "not-a-player", "takeback", version=v)


async def test_a_bot_waits_for_the_take_back(
    start: Any, redis_client: Any, redis_prefix: str
) -> None:
    """The bot after the mover is thinking when the move is taken back: it does not play
    (the turn is the mover's again); it plays only after the mover's new move."""
    node = await start("a", bot_delay=0.4)
    table = await started([node], 3, options={"rounds": 3}, takeback=True, bots={1: "random"})
    humans = {0: table.clients[0], 2: table.clients[1]}
    while True:
        top = latest(humans[0])
        view = top["view"]
        prompt = view["prompt"]
        if prompt["sealed"]:
            phase = f"bid@{top['version']}"
            salts = {}
            for seat, c in humans.items():
                salts[seat], dig = salted(phase, seat, {"bid": 0})
                await c.send("commit", phase=phase, digest=dig)
            for seat, c in humans.items():
                await c.of("open", phase=phase, timeout=10)
                await c.send("reveal", phase=phase, move={"bid": 0}, salt=salts[seat])
            await humans[0].has_version(top["version"] + 1)
            continue
        seat = prompt["seats"][0]
        if seat == 1:
            await humans[0].has_version(top["version"] + 1)
            continue
        frame = latest(humans[seat])
        if seat == 0 and len(view["trick"]) < 2:
            break  # seat 0 plays, and the bot (seat 1) is next
        await play(humans[seat], frame)
    v = await play(humans[0], frame)
    assert latest(humans[0])["view"]["prompt"]["seats"] == [1]
    assert (await humans[0].call("takeback", version=v))["type"] == "ok"
    await asyncio.sleep(1.0)  # the bot's delay is over: it saw the turn was not its own
    assert humans[0].versions()[-1] == v + 1
    assert latest(humans[0])["view"]["prompt"]["seats"] == [0]
    await play(humans[0], latest(humans[0]), pick=1)
    await humans[0].has_version(v + 3, timeout=5)  # now the bot plays
    log = await log_entries(redis_client, redis_prefix, table.id)
    assert log[v + 2]["seats"] == [1] and log[v + 2]["kind"] == "move"


def test_what_a_move_reveals() -> None:
    """The rule, on engine states: a card played mid-trick or closing a trick reveals only
    itself; a ghost's card coming into view, or a new deal, reveals more."""
    rng = Rng(b"what-a-move-reveals", "test")
    for players in (2, 3, 4):
        state = SK.start(SK.options({"rounds": 4}), players, bytes(range(32)))
        seen = {"mid": 0, "closing": 0, "refused": 0}
        while not SK.prompt(state).over:
            prompt = SK.prompt(state)
            if prompt.sealed:
                state = SK.step(state, {s: rng.choice(SK.legal(state, s)) for s in prompt.seats})
                continue
            (seat,) = prompt.seats
            before = state
            state = SK.step(before, {seat: rng.choice(SK.legal(before, seat))})
            was, after = SK.view(before, None), SK.view(state, None)
            ok = reveals_nothing(SK, before, state, seat, players)
            new_round = after["round"] != was["round"] or after["outcome"]
            ghost = players == 2 and after["ghost"]["pile"] != was["ghost"]["pile"]
            if new_round or ghost:
                assert not ok
                seen["refused"] += 1
            elif after["trick"]:
                assert ok
                seen["mid"] += 1
            else:
                assert ok
                seen["closing"] += 1
        assert seen["refused"] and seen["mid"], (players, seen)
        if players > 2:
            assert seen["closing"], seen


async def test_pirate_king_takes_back_a_pick_but_not_the_start(
    two: list[Node], redis_client: Any, redis_prefix: str
) -> None:
    """For Pirate King!, "take-back where it reveals nothing": a Pirate picked (an
    open move, public) can be taken back -- every Pirate is offered again; the last pick
    starts the game and every seat's first card comes into view, so it stands."""
    table = await started(
        two, 2, game="pirate-king", options={}, takeback=True, deadlines={"move": 600}
    )
    clients = table.clients
    mover, frame = await owner(clients)
    assert frame["view"]["phase"] == "pick" and len(frame["view"]["pirates"]) == 10
    v2 = await play(clients[mover], frame)
    assert len(latest(clients[mover])["view"]["pirates"]) == 9
    assert (await clients[mover].call("takeback", version=v2))["type"] == "ok"
    for client in clients:
        event = await client.has_version(v2 + 1)
        assert event["event"]["kind"] == "takeback" and event["event"]["undoes"] == v2
        assert event["view"]["pirates"] == frame["view"]["pirates"]
        assert event["view"]["prompt"]["seats"] == [mover]
    mover, frame = await owner(clients)
    await play(clients[mover], frame, pick=3)
    last, frame = await owner(clients)
    v = await play(clients[last], frame)
    assert latest(clients[last])["view"]["round"] == 1
    await refused(
        clients[last], redis_client, redis_prefix, "takeback-reveals", "takeback", version=v
    )


PE = GAMES["pearates"]


async def test_pearates_a_face_down_bid_is_taken_back_a_split_is_not(
    two: list[Node], redis_client: Any, redis_prefix: str
) -> None:
    """Pearates: "take-back where it reveals nothing". A face-down bid shows no
    card to anyone but its owner: taken back, the table is as it was and nobody else ever
    saw the card. The start player "takes no turn": the turns are the others'. Every later
    open move is judged by the engine contract (``reveals_nothing``), and the first that
    shows a card (the split's takes give treasure cards; a new round's treasure) is
    refused with ``takeback-reveals``."""
    table = await started(
        two, 3, game="pearates", options={"removed": 30}, takeback=True, deadlines={"move": 600}
    )
    clients, room = table.clients, table.id
    spy = await Client.connect(two[1], "Spy")
    await spy.send("join", room=room, **{"as": "spectator"})
    await spy.of("snapshot")
    while latest(clients[0])["view"]["prompt"]["kind"] != "turn":
        await advance(clients, "pearates")
    mover, frame = await owner(clients)
    view = frame["view"]
    assert mover != view["start"]  # the start player takes no turn
    bid = next(m for m in view["legal"] if m["move"] == "bid")
    v = await play(clients[mover], {**frame, "view": {**view, "legal": [bid]}})
    assert latest(clients[mover])["view"]["bids"][mover]["known"] == [bid["card"]]
    assert (await clients[mover].call("takeback", version=v))["type"] == "ok"
    for c in [*clients, spy]:
        event = await c.has_version(v + 1)
        assert event["event"]["kind"] == "takeback" and event["event"]["moves"] == {}
        if c is not spy:
            assert event["view"] == (await c.has_version(v - 1))["view"]
    assert await state_of(redis_client, redis_prefix, room, v + 1) == await state_of(
        redis_client, redis_prefix, room, v - 1
    )
    # Nobody but the bidder ever saw the card that was bid and taken back (round 1's first
    # turn: a card of a hand was never shown to anyone else).
    assert view["round"] == 1
    state = PE.decode(await state_of(redis_client, redis_prefix, room, v))
    for seat, c in [*((s, c) for s, c in enumerate(clients) if s != mover), (None, spy)]:
        assert bid["card"] in PE.hidden(state, seat)
        assert bid["card"] not in json.dumps(c.frames), seat
    # On until a move shows something: that one stands.
    for _ in range(400):
        top = latest(clients[0])
        version, prompt = top["version"], top["view"]["prompt"]
        await advance(clients, "pearates")
        if prompt["sealed"] or latest(clients[0])["view"]["outcome"] is not None:
            continue
        (seat,) = prompt["seats"]
        before = PE.decode(await state_of(redis_client, redis_prefix, room, version))
        after = PE.decode(await state_of(redis_client, redis_prefix, room, version + 1))
        if not reveals_nothing(PE, before, after, seat, 3):
            await refused(
                clients[seat],
                redis_client,
                redis_prefix,
                "takeback-reveals",
                "takeback",
                version=version + 1,
            )
            break
    else:
        raise AssertionError("no move showed a card")
