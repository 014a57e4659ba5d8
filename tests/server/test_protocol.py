"""The websocket protocol, through real sockets on a real node and a real Redis.

Every refused message gets its own error code, echoes the client's ``ref``, and leaves every
key of the room exactly as it was (``dump`` before and after).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import pytest
import websockets
from tortuga_client import (
    Client,
    Node,
    Table,
    advance,
    create_room,
    dump,
    guest,
    latest,
    open_socket,
    seat_players,
)

from engines.registry import GAMES


async def refused(
    client: Client, redis: Any, prefix: str, code: str, type_: str, **fields: Any
) -> dict[str, Any]:
    """Send one message; it must be refused with ``code`` and change nothing in Redis."""
    before = await dump(redis, prefix)
    answer = await client.call(type_, **fields)
    assert answer["type"] == "error", answer
    assert answer["code"] == code, answer
    assert await dump(redis, prefix) == before
    return answer


async def started(nodes: list[Node], players: int = 3, **kw: Any) -> Table:
    table = await seat_players(nodes, players, **kw)
    assert (await table.clients[0].call("start"))["type"] == "ok"
    for c in table.clients:
        await c.has_version(1)
    return table


# -- frames --------------------------------------------------------------------------------
async def test_bad_frames(node: Node, redis_client: Any, redis_prefix: str) -> None:
    c = await Client.connect(node, "Anne")
    before = await dump(redis_client, redis_prefix)
    cases = [
        ("{not json", "bad-json"),
        ("[1, 2]", "bad-message"),
        ('{"type": 7}', "bad-message"),
        ('{"type": "teleport", "ref": "r1"}', "unknown-type"),
        ('{"type": "join"}', "bad-message"),
        ('{"type": "join", "room": "abcd", "extra": 1}', "bad-message"),
        ('{"type": "join", "room": "no/slashes!"}', "bad-message"),
        ('{"type": "join", "room": "abcd", "as": "referee"}', "bad-message"),
        ('{"type": "sit", "seat": -1}', "bad-message"),
        ('{"type": "commit", "phase": "bid@1", "digest": "XYZ"}', "bad-message"),
        ('{"type": "reveal", "phase": "bid@1", "move": {}, "salt": "ab"}', "bad-message"),
        (json.dumps({"type": "chat", "text": "x" * 20000}), "frame-too-large"),
    ]
    for frame, code in cases:
        await c.send_raw(frame)
        error = await c.of("error")
        assert error["code"] == code, (frame, error)
    assert error["ref"] is None
    await c.send_raw('{"type": "teleport", "ref": "r1"}')
    assert (await c.of("error"))["ref"] == "r1"
    await c.send_raw(b"\x00\x01")
    assert (await c.of("error"))["code"] == "bad-json"
    assert await dump(redis_client, redis_prefix) == before
    # The socket still works after all that.
    await c.send("ping", t=1)
    assert (await c.of("pong"))["t"] == 1


async def test_flood_is_limited_then_closed(start: Any) -> None:
    node = await start("a", rate_per_second=1.0, rate_burst=5, flood_strikes=10)
    c = await Client.connect(node, "Flood")
    for i in range(40):
        try:
            await c.send("ping", t=i)
        except Exception:
            break
    await c.error("rate-limited")
    await c._reader
    assert c.closed is not None and c.closed[0] == 4008
    pongs = [f for f in c.frames if f["type"] == "pong"]
    assert 4 <= len(pongs) <= 6


async def test_a_users_sockets_share_one_budget(start: Any) -> None:
    """Opening more sockets buys no more messages: a user's sockets on a node draw on one
    bucket (``rate_burst`` saved up), another user's on their own."""
    node = await start("a", rate_per_second=0.5, rate_burst=6, flood_strikes=100)
    first = await Client.connect(node, "Many")
    second = await Client.connect(node, token=first.token, user=first.user)
    other = await Client.connect(node, "Other")
    for i in range(5):
        for c in (first, second, other):
            await c.send("ping", t=i)
    for c in (first, second, other):  # every ping answered: a pong or a refusal
        await c.wait(lambda f, c=c: len(c.frames) == 6, 10)  # type: ignore[misc]
    answers = [f["type"] for c in (first, second) for f in c.frames if f["type"] != "hello"]
    assert 6 <= answers.count("pong") <= 7  # the burst, and at most one refilled
    assert answers.count("error") == 10 - answers.count("pong")
    assert [f["type"] for f in other.frames[1:]] == ["pong"] * 5


async def test_a_flooder_is_shut_out_for_a_while(start: Any) -> None:
    """A socket closed for flooding (4008) shuts its user out of the node for
    ``flood_cooldown_seconds``: a new socket gets ``rate-limited`` and 4008 after its auth,
    until the time is over; other users are not affected."""
    node = await start(
        "a", rate_per_second=1.0, rate_burst=5, flood_strikes=5, flood_cooldown_seconds=1.5
    )
    flood = await Client.connect(node, "Flood")
    for i in range(20):
        with contextlib.suppress(Exception):
            await flood.send("ping", t=i)
    await flood._reader
    assert flood.closed is not None and flood.closed[0] == 4008
    again = await open_socket(node.ws_url, flood.token)
    refused = json.loads(await again.recv())
    assert refused["type"] == "error" and refused["code"] == "rate-limited", refused
    with pytest.raises(websockets.ConnectionClosed) as closed:
        await again.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4008
    bystander = await Client.connect(node, "Bystander")
    await bystander.send("ping", t=1)
    assert (await bystander.of("pong"))["t"] == 1
    await asyncio.sleep(1.6)  # the cooldown is over
    back = await Client.connect(node, token=flood.token, user=flood.user)
    await back.send("ping", t=2)
    assert (await back.of("pong"))["t"] == 2


async def test_a_flooder_is_shut_out_of_every_node(start: Any) -> None:
    """Limits are per user, not per socket or node: a user closed for flooding (4008) on
    node a is turned away on node b too (``rate-limited``, 4008 after its auth) until the
    cooldown is over; b never saw a frame of theirs."""
    knobs = {
        "rate_per_second": 1.0,
        "rate_burst": 5,
        "flood_strikes": 5,
        "flood_cooldown_seconds": 2.0,
    }
    a = await start("a", **knobs)
    b = await start("b", **knobs)
    flood = await Client.connect(a, "Flood")
    for i in range(20):
        with contextlib.suppress(Exception):
            await flood.send("ping", t=i)
    await flood._reader
    assert flood.closed is not None and flood.closed[0] == 4008
    refused = None
    for _ in range(50):  # a tells the site in a moment (a write of its own, not awaited)
        elsewhere = await open_socket(b.ws_url, flood.token)
        first = json.loads(await elsewhere.recv())
        if first["type"] == "error":
            refused = first
            break
        await elsewhere.close()
        await asyncio.sleep(0.02)
    assert refused is not None and refused["code"] == "rate-limited", refused
    assert 0 < refused["retry_after_ms"] <= 2000  # what is left of the cooldown
    with pytest.raises(websockets.ConnectionClosed) as closed:
        await elsewhere.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4008
    bystander = await Client.connect(b, "Bystander")
    await bystander.send("ping", t=1)
    assert (await bystander.of("pong"))["t"] == 1
    await asyncio.sleep(2.1)  # the cooldown is over, on both nodes
    back = await Client.connect(b, token=flood.token, user=flood.user)
    await back.send("ping", t=2)
    assert (await back.of("pong"))["t"] == 2


async def test_a_frame_too_big_to_read_shuts_its_user_out(start: Any) -> None:
    """A frame past what uvicorn reads (``ws_max_size``, 64 KB) is cut with 1009 before the
    app sees it; no client of ours sends one, so its user is shut out as a flooder is."""
    node = await start("a", flood_cooldown_seconds=30.0)
    big = await Client.connect(node, "Big")
    with contextlib.suppress(Exception):
        await big.send("chat", text="x" * 100_000)
    await big._reader
    assert big.closed is not None and big.closed[0] == 1009
    again = await open_socket(node.ws_url, big.token)
    assert json.loads(await again.recv())["code"] == "rate-limited"
    with pytest.raises(websockets.ConnectionClosed) as closed:
        await again.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4008


@pytest.mark.parametrize("token", ["", "garbage", "a.b"])
async def test_bad_token_is_refused(node: Node, token: str) -> None:
    import websockets

    async with websockets.connect(node.ws_url) as ws:
        await ws.send(json.dumps({"type": "auth", "token": token}))
        frame = json.loads(await ws.recv())
        assert frame["code"] == "bad-token"
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await ws.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4001


async def test_token_cannot_be_edited_into_another_user(node: Node) -> None:
    import base64

    import websockets

    token, user = await guest(node, "Anne")
    body, sig = token.split(".")
    payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    payload["u"] = "g_someone_else"
    forged = base64.urlsafe_b64encode(json.dumps(payload).encode()).rstrip(b"=").decode()
    async with websockets.connect(node.ws_url) as ws:
        await ws.send(json.dumps({"type": "auth", "token": f"{forged}.{sig}"}))
        assert json.loads(await ws.recv())["code"] == "bad-token"
    # The genuine token names the genuine user.
    c = await Client.connect(node, token=token, user=user)
    assert c.frames[0]["user"] == user


# -- the lobby -----------------------------------------------------------------------------
async def test_lobby_errors_change_nothing(
    node: Node, redis_client: Any, redis_prefix: str
) -> None:
    token, user = await guest(node, "Host")
    room = await create_room(node, token, seats=3, spectators=False)
    host = await Client.connect(node, token=token, user=user)
    anne = await Client.connect(node, "Anne")
    r = redis_client, redis_prefix
    await refused(anne, *r, "not-in-room", "sit", seat=0)
    await refused(anne, *r, "no-such-room", "join", room="nosuchroom")
    await refused(anne, *r, "no-spectators", "join", room=room["id"], **{"as": "spectator"})
    for c in (host, anne):
        await c.send("join", room=room["id"])
        snap = await c.of("snapshot")
        assert snap["version"] == 0 and snap["view"] is None
    assert (await host.call("sit", seat=0))["type"] == "ok"
    await refused(anne, *r, "seat-taken", "sit", seat=0)
    await refused(anne, *r, "no-such-seat", "sit", seat=3)
    await refused(anne, *r, "not-seated", "ready")
    await refused(anne, *r, "not-seated", "stand")
    await refused(anne, *r, "not-host", "add_bot", seat=2, level="random")
    await refused(anne, *r, "not-host", "start")
    await refused(host, *r, "bad-bot-level", "add_bot", seat=2, level="genius")
    await refused(host, *r, "seats-empty", "start")
    await refused(host, *r, "not-a-bot", "remove_bot", seat=1)
    await refused(host, *r, "seat-empty", "kick", seat=1)
    await refused(host, *r, "cannot-kick-self", "kick", seat=0)
    await refused(host, *r, "game-not-started", "act", move={"bid": 1})
    assert (await anne.call("sit", seat=1))["type"] == "ok"
    assert (await host.call("add_bot", seat=2, level="random"))["type"] == "ok"
    await refused(host, *r, "seat-taken", "add_bot", seat=1, level="random")
    await refused(host, *r, "not-ready", "start")
    # Everyone sees the lobby change: seats, ready flags, bots, the host.
    assert (await anne.call("ready"))["type"] == "ok"
    state = await host.wait(lambda f: f["type"] == "room" and f["room_state"]["seats"][1]["ready"])
    assert state["room_state"]["host"] == user["id"]
    assert state["room_state"]["seats"][2]["bot"] == "random"
    # Kick, then the kicked player can sit again; remove the bot and put it back.
    assert (await host.call("kick", seat=1))["type"] == "ok"
    assert (await anne.call("sit", seat=1))["type"] == "ok"
    assert (await anne.call("ready"))["type"] == "ok"
    assert (await host.call("remove_bot", seat=2))["type"] == "ok"
    assert (await host.call("add_bot", seat=2, level="random"))["type"] == "ok"
    assert (await host.call("ready"))["type"] == "ok"
    assert (await host.call("start"))["type"] == "ok"
    event = await anne.has_version(1)
    assert len(event["event"]["seed_digest"]) == 64
    await anne.of("committed", seat=2)  # the bot bids at once; then nothing else moves
    await refused(anne, *r, "game-started", "sit", seat=2)
    await refused(anne, *r, "game-started", "stand")
    await refused(host, *r, "game-started", "kick", seat=1)
    await refused(host, *r, "game-started", "start")


async def test_spectators_do_not_play(node: Node, redis_client: Any, redis_prefix: str) -> None:
    table = await started([node], 2, bots={})
    watcher = await Client.connect(node, "Watcher")
    await watcher.send("join", room=table.id, **{"as": "spectator"})
    snap = await watcher.of("snapshot")
    assert snap["seat"] is None and snap["view"]["hand"] is None
    await refused(watcher, redis_client, redis_prefix, "not-a-player", "sit", seat=0)
    await refused(watcher, redis_client, redis_prefix, "not-a-player", "act", move={"bid": 0})
    # A player who joined but has no seat.
    late = await Client.connect(node, "Late")
    await late.send("join", room=table.id)
    await late.of("snapshot")
    await refused(late, redis_client, redis_prefix, "not-seated", "act", move={"bid": 0})


async def test_moves_are_checked(node: Node, redis_client: Any, redis_prefix: str) -> None:
    table = await started([node], 4, options={"rounds": 5})
    clients = table.clients
    r = redis_client, redis_prefix
    await refused(clients[0], *r, "sealed-phase", "act", move={"bid": 1})
    await refused(clients[0], *r, "not-your-seat", "act", move={"bid": 1}, seat=1)
    await refused(clients[0], *r, "wrong-room", "resume", room="otherroom", version=1)
    await advance(clients)  # the bids
    turn = latest(clients[0])["view"]["turn"]
    view = latest(clients[turn])["view"]
    other = (turn + 1) % 4
    await refused(clients[turn], *r, "stale-version", "act", move=view["legal"][0], version=0)
    await refused(clients[turn], *r, "malformed-move", "act", move={"play": "joker"})
    await refused(clients[turn], *r, "malformed-move", "act", move="play black-1")
    await refused(clients[turn], *r, "not-sealed", "commit", phase="bid@2", digest="0" * 64)
    other_card = latest(clients[other])["view"]["hand"][0]
    # A well-formed move of theirs (Scary Mary says how she is played, or it is malformed).
    out_of_turn = {"play": other_card, **({"as": "pirate"} if other_card == "scary-mary" else {})}
    await refused(clients[other], *r, "not-your-turn", "act", move=out_of_turn)
    mine = set(view["hand"])
    foreign = next(c for c in GAMES["skull-king"].deck(None, 4) if c not in mine)  # type: ignore[arg-type]
    await refused(clients[turn], *r, "not-in-hand", "act", move={"play": foreign})
    # Play on until someone holds a card they may not play: must follow suit.
    for _ in range(400):
        frame = latest(clients[0])
        v = frame["view"]
        if v["phase"] == "play":
            seat = v["turn"]
            sv = latest(clients[seat])["view"]
            plays = {m["play"] for m in sv["legal"]}
            blocked = [c for c in sv["hand"] if c not in plays]
            if blocked:
                await refused(
                    clients[seat], *r, "must-follow-suit", "act", move={"play": blocked[0]}
                )
                return
        await advance(clients)
    raise AssertionError("nobody ever had to follow suit")


async def test_chat(node: Node, redis_client: Any, redis_prefix: str) -> None:
    table = await seat_players([node], 2)
    anne, bob = table.clients
    await anne.send("chat", text="<b>ahoy</b>")
    said = await bob.of("chat")
    assert said["text"] == "<b>ahoy</b>" and said["user"] == anne.user["id"]
    r = redis_client, redis_prefix
    await refused(anne, *r, "chat-too-long", "chat", text="x" * 501)
    await refused(anne, *r, "bad-message", "chat", text="   ")
    codes = [(await anne.call("chat", text=f"m{i}")).get("code") for i in range(8)]
    assert "rate-limited" in codes


async def test_leave_and_two_tabs(node: Node) -> None:
    table = await started([node], 2)
    anne = table.clients[0]
    tab = await Client.connect(node, token=anne.token, user=anne.user)
    await tab.send("join", room=table.id)
    snap = await tab.of("snapshot")
    assert snap["seat"] == 0 and snap["view"]["hand"] == latest(anne)["view"]["hand"]
    # Either tab may move for the seat; both see every version.
    version = await advance([tab, table.clients[1]])
    await anne.has_version(version)
    assert (await anne.call("leave"))["type"] == "ok"
    await anne.seen(lambda f: f["type"] == "left")
    await advance([tab, table.clients[1]])
    assert anne.versions()[-1] == version


async def test_ping_and_presence(node: Node) -> None:
    table = await seat_players([node], 2)
    anne, bob = table.clients
    await anne.seen(lambda f: f["type"] == "presence" and f["connected"] == [0, 1])
    await bob.close()
    await anne.wait(
        lambda f: f["type"] == "presence" and f["connected"] == [0] and f["watchers"] == 0
    )
    room = await anne.call("ping")
    assert room["type"] == "ok"


SAMPLE_FRAMES = [
    {"type": "join", "room": "ABCD1234"},
    {"type": "resume", "room": "ABCD1234", "version": 3},
    {"type": "act", "move": {"play": "p14"}, "version": 5, "ref": "r1"},
    {"type": "commit", "phase": "3:bid", "digest": "0" * 64},
    {"type": "ping", "t": 1.5},
    {"type": "chat", "text": "hello"},
    {"type": "act", "version": "five", "move": {}},  # a bad field
    {"type": "act", "move": {}, "extra": 1},  # an unknown field
    {"type": "sit"},  # a missing field
]


def test_frames_decode_as_the_union_does() -> None:
    """A frame is converted to the struct its ``type`` names (not the union of every
    message, which cost msgspec ~35 us a frame): the same message, or the same refusal."""
    import msgspec

    from server import protocol as p

    assert set(p.BY_TYPE) == p.TYPES and len(p.TYPES) == len(p.Inbound.__args__)
    for frame in SAMPLE_FRAMES:
        raw = json.dumps(frame)
        try:
            expected: Any = msgspec.convert(frame, p.Inbound)
        except msgspec.ValidationError as exc:
            expected = (p.BAD_MESSAGE, str(exc)[:200])
        try:
            got: Any = p.decode(raw, 65536)
        except p.ProtocolError as exc:
            got = (exc.code, exc.message)
        assert got == expected, frame
