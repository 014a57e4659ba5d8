"""Web Push end to end, against a push service of the test's own (push_service.py) that
checks every push the way a browser's would and then decrypts it with the subscription's
private key: the encryption (RFC 8291, aes128gcm) and the VAPID JWT (RFC 8292) are proven
on the wire, not mocked.

- A player whose phone is in their pocket (no socket to the room) gets "your move" once per
  turn, and "your game is over"; a player with the room open gets nothing; two nodes that
  both look at every step push once (the turn marks and once-keys in Redis).
- What a push says: the room and the game, never a card.
- A subscription its push service answers 410 for is dropped; one of a user who signed out
  everywhere is never pushed again.
- Endpoints: https only, on the push services' hosts, never a private address (SSRF), unless
  the site allows it (tests, loopback setups).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from push_service import PushService
from sqlalchemy import func, select
from tortuga_client import Client, Node, autoplay, choose, latest, salted, seat_players

from engines.rng import Rng
from server.archive.db import Database
from server.archive.models import PushSubscription
from server.identity.webpush import BadSubscription, check_endpoint

PUSH_SITE = {"push_private_endpoints": True, "push_hosts": (), "grace_seconds": 600.0}
PAYLOAD_KEYS = {"kind", "room", "game", "title", "body", "url"}


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def app_of(node: Node) -> Any:
    return node.server.config.app


async def subscribe(node: Node, token: str, sub: dict[str, Any], **prefs: Any) -> httpx.Response:
    async with httpx.AsyncClient(base_url=node.url) as http:
        return await http.put("/api/me/push", json={**sub, **prefs}, headers=auth(token))


async def settle(nodes: list[Node]) -> None:
    """Every step the pushers were handed is decided and sent."""
    for node in nodes:
        await asyncio.wait_for(app_of(node).state.pusher.queue.join(), 20)


async def connected(node: Node, room: str) -> set[int]:
    found = await app_of(node).state.services.rooms.get(room, presence=True)
    return set(found.connected)


async def until_connected(node: Node, room: str, seats: set[int]) -> None:
    deadline = time.monotonic() + 10
    while await connected(node, room) != seats:
        assert time.monotonic() < deadline, await connected(node, room)
        await asyncio.sleep(0.02)


async def rejoin(node: Node, who: Client, room: str) -> Client:
    """The phone's player opens the room again (a new socket)."""
    again = await Client.connect(node, token=who.token, user=who.user)
    await again.send("join", room=room)
    await again.of("snapshot")
    return again


async def bid_sealed(phase: str, seated: list[Client], rng: Rng) -> None:
    """Each client (seat = its place in ``seated``) commits a chosen move for ``phase``,
    then opens it once the phase is open."""
    opened = []
    for seat, who in enumerate(seated):
        move = choose("skull-king", latest(who)["view"], rng)
        salt, dig = salted(phase, seat, move)
        opened.append((who, move, salt))
        await who.send("commit", phase=phase, digest=dig)
    for who, move, salt in opened:
        await who.of("open", phase=phase)
        await who.send("reveal", phase=phase, move=move, salt=salt)


async def play_until_anne_alone(
    anne: Client, ben: Client, rng: Rng, also: Callable[[dict[str, Any]], bool]
) -> tuple[int, dict[str, Any]]:
    """Anne (seat 0) and Ben (seat 1) play Skull King, tabs open, until Anne alone owes an
    open move and ``also`` holds of the view; that version and Anne's view."""
    while True:
        await ben.has_version(latest(anne)["version"])
        top = latest(anne)
        version, view = top["version"], top["view"]
        assert view["outcome"] is None, "Anne never moved alone"
        prompt = view["prompt"]
        if not prompt["sealed"] and prompt["seats"] == [0] and also(view):
            return version, view
        if prompt["sealed"]:
            await bid_sealed(f"{prompt['kind']}@{version}", [anne, ben], rng)
        else:
            who = anne if prompt["seats"] == [0] else ben
            await who.send("act", move=choose("skull-king", latest(who)["view"], rng))
        await anne.has_version(version + 1)


async def test_your_move_reaches_a_closed_phone_once(start: Any, database_url: str) -> None:
    async with PushService() as service:
        a = await start("a", database_url=database_url, **PUSH_SITE)
        b = await start("b", database_url=database_url, **PUSH_SITE)
        nodes = [a, b]
        # Several nodes see every step: each pusher is also handed the other node's steps.
        app_of(a).state.services.rooms.hooks.on_written.append(app_of(b).state.pusher.written)
        app_of(b).state.services.rooms.hooks.on_written.append(app_of(a).state.pusher.written)
        table = await seat_players(nodes, 2, options={"rounds": 2})
        anne, ben = table.clients
        room = table.id
        for who, node, name in ((anne, a, "anne"), (ben, b, "ben")):
            r = await subscribe(node, who.token, service.subscription(name), tz="Asia/Ho_Chi_Minh")
            assert r.status_code == 200, r.text
            assert r.json()["kinds"] == ["turn", "start", "invite", "end"]
        assert (await anne.call("start"))["type"] == "ok"
        await ben.has_version(1)
        rng = Rng(b"push", "test")
        expected: list[str] = []  # the kinds of Ben's pushes, in order
        ben_open: Client | None = ben
        owed_before = 1 in latest(anne)["view"]["prompt"]["seats"]
        ben_wrote = True  # Ben's socket was open when the deal was written
        while True:
            await settle(nodes)
            top = latest(anne)
            version, view = top["version"], top["view"]
            if view["outcome"] is not None:
                if not ben_wrote:
                    expected.append("end")
                break
            prompt = view["prompt"]
            owes = 1 in prompt["seats"]
            if owes and not owed_before and not ben_wrote:
                expected.append("turn")
            await service.wait("ben", len(expected))
            owed_before = owes
            if owes:
                if ben_open is None:
                    ben_open = await rejoin(b, ben, room)
                    await until_connected(a, room, {0, 1})
                await ben_open.seen(
                    lambda f, v=version: f["type"] in ("snapshot", "event") and f["version"] == v
                )
                if prompt["sealed"]:
                    await bid_sealed(f"{prompt['kind']}@{version}", [anne, ben_open], rng)
                else:
                    move = choose("skull-king", latest(ben_open)["view"], rng)
                    await ben_open.send("act", move=move, version=version)
                await anne.has_version(version + 1)
                ben_wrote = True
            else:
                if ben_open is not None:  # the phone goes back in the pocket
                    await settle(nodes)
                    await ben_open.close()
                    ben_open = None
                    await until_connected(a, room, {0})
                move = choose("skull-king", view, rng)
                await anne.send("act", move=move, version=version)
                await anne.has_version(version + 1)
                ben_wrote = False
        await settle(nodes)
        await asyncio.sleep(0.3)  # nothing more comes
        assert not service.problems, service.problems
        got = service.of("ben")
        assert [r.payload["kind"] for r in got] == expected
        assert "turn" in expected
        assert service.of("anne") == [], "her tab was open the whole game"
        key = (await httpx.AsyncClient(base_url=a.url).get("/api/push")).json()["key"]
        for r in got:
            assert set(r.payload) == PAYLOAD_KEYS, r.payload
            assert r.payload["room"] == room and r.payload["game"] == "skull-king"
            assert r.payload["url"] == f"/r/{room}"
            assert r.payload["body"] == f"Skull King · table {room[:4]}-{room[4:]}"
            assert (
                r.payload["title"]
                == {"turn": "Your move", "end": "Your game is over"}[r.payload["kind"]]
            )
            assert r.vapid_key == key, "signed with the site's VAPID key"


async def test_start_push_and_open_sockets(start: Any, database_url: str) -> None:
    """The deal is pushed ("start") to a seated player without a socket, in their language,
    and not to one with the room open; a device that chose not to hear of starts is not."""
    async with PushService() as service:
        a = await start("a", database_url=database_url, **PUSH_SITE)
        table = await seat_players([a], 3, options={"rounds": 1})
        anne, ben, cleo = table.clients
        assert (await subscribe(a, anne.token, service.subscription("anne"))).status_code == 200
        r = await subscribe(a, ben.token, service.subscription("ben"), lang="vi")
        assert r.status_code == 200
        r = await subscribe(a, cleo.token, service.subscription("cleo"), kinds=["turn"])
        assert r.status_code == 200
        await ben.close()
        await cleo.close()
        await until_connected(a, table.id, {0})
        assert (await anne.call("start"))["type"] == "ok"
        (got,) = await service.wait("ben", 1)
        assert got.payload["kind"] == "start"
        assert got.payload["title"] == "Ván của bạn đã bắt đầu"
        assert got.payload["body"].startswith("Skull King · bàn ")
        await settle([a])
        assert service.of("anne") == [] and service.of("cleo") == []


async def test_gone_subscriptions_are_pruned_and_signed_out_ones_never_pushed(
    start: Any, database_url: str
) -> None:
    async with PushService() as service:
        a = await start("a", database_url=database_url, **PUSH_SITE)
        table = await seat_players([a], 3, options={"rounds": 1})
        anne, ben, cleo = table.clients
        gone = service.subscription("old-phone", status=410)
        assert (await subscribe(a, ben.token, gone)).status_code == 200
        assert (await subscribe(a, ben.token, service.subscription("phone"))).status_code == 200
        assert (await subscribe(a, cleo.token, service.subscription("cleo"))).status_code == 200
        db: Database = app_of(a).state.db

        async def endpoints(user: str | None = None) -> set[str]:
            query = select(PushSubscription.endpoint)
            if user is not None:
                query = query.where(PushSubscription.user_id == user)
            async with db.session() as s:
                return set(await s.scalars(query))

        assert gone["endpoint"] in await endpoints()
        # Cleo signs out everywhere: her subscription was made under the old generation.
        async with httpx.AsyncClient(base_url=a.url) as http:
            r = await http.post("/api/me/signout", headers=auth(cleo.token))
            assert r.status_code == 200
        await ben.close()
        await cleo.close()
        await until_connected(a, table.id, {0})
        assert (await anne.call("start"))["type"] == "ok"
        (got,) = await service.wait("phone", 1)
        assert got.payload["kind"] == "start"
        await settle([a])
        assert service.of("old-phone") == [], "a 410 is no delivery"
        assert gone["endpoint"] not in await endpoints(), "the push service said it is gone"
        assert service.of("cleo") == [], "signed out everywhere: never pushed again"
        assert await endpoints(cleo.user["id"]) == set(), "and her device is forgotten"
        async with db.session() as s:
            left = await s.scalar(select(func.count()).select_from(PushSubscription))
        assert left is not None and left >= 1


async def test_endpoints_that_would_point_the_server_inward_are_refused(
    start: Any, database_url: str
) -> None:
    node = await start("a", database_url=database_url)  # the safe defaults
    async with PushService() as service:
        token = (await Client.connect(node, "Dee")).token
        loopback = service.subscription("dee")  # http://127.0.0.1:...
        r = await subscribe(node, token, loopback)
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad-subscription"
        for endpoint in (
            "https://10.0.0.1/push/x",
            "https://169.254.169.254/latest",
            "https://[::1]/x",
            "https://fcm.googleapis.com.evil.example/x",
            "https://user@fcm.googleapis.com/x",
            "http://fcm.googleapis.com/fcm/send/x",
        ):
            r = await subscribe(node, token, {**loopback, "endpoint": endpoint})
            assert r.status_code == 400, endpoint
        fine = {**loopback, "endpoint": "https://fcm.googleapis.com/fcm/send/abc"}
        assert (await subscribe(node, token, fine)).status_code == 200
        bad_keys = {**fine, "keys": {"p256dh": "AAAA", "auth": "AAAA"}}
        assert (await subscribe(node, token, bad_keys)).status_code == 400
        quiet = await subscribe(node, token, fine, quiet_from=22 * 60, quiet_to=7 * 60)
        assert quiet.json()["quiet_from"] == 1320
    with pytest.raises(BadSubscription):
        check_endpoint("https://127.0.0.1/x", (), allow_private=False)
    assert check_endpoint("https://updates.push.services.mozilla.com/wpush/v2/x", (
        "push.services.mozilla.com",
    ), allow_private=False)  # fmt: skip


async def test_a_table_nobody_can_be_pushed_at_costs_one_look_a_step(
    start: Any, database_url: str, redis_client: Any, redis_prefix: str
) -> None:
    """Most tables have no player a push can reach: each step costs the pusher one look at
    the site's set of subscribed users (``push:users``), never a turn mark or a once-key;
    once one of the players subscribes, their steps are looked at in full."""
    a = await start("a", database_url=database_url, **PUSH_SITE)
    pusher = app_of(a).state.pusher
    table = await seat_players([a], 2, options={"rounds": 1}, bots={1: "random"})
    (anne,) = table.clients
    assert (await anne.call("start"))["type"] == "ok"
    await autoplay(anne, "skull-king")
    await settle([a])
    marks = [k async for k in redis_client.scan_iter(f"{redis_prefix}push:{{{table.id}}}*")]
    assert marks == []
    assert pusher._seated[table.id][1] == (anne.user["id"],)
    async with PushService() as service:
        r = await subscribe(a, anne.token, service.subscription("anne"))
        assert r.status_code == 200, r.text
        assert await redis_client.sismember(f"{redis_prefix}push:users", anne.user["id"])
        again = await seat_players([a], 2, options={"rounds": 1}, bots={1: "random"})
        (bea,) = again.clients
        await subscribe(a, bea.token, service.subscription("bea"))
        assert (await bea.call("start"))["type"] == "ok"
        await autoplay(bea, "skull-king")
        await settle([a])
        marks = [k async for k in redis_client.scan_iter(f"{redis_prefix}push:{{{again.id}}}*")]
        assert marks, "a subscribed player's steps are looked at in full"


async def test_a_turn_in_quiet_hours_is_pushed_when_they_end(
    start: Any, database_url: str, redis_client: Any, redis_prefix: str
) -> None:
    """Quiet hours keep "your move" from a device -- and the player still wants to know in
    the morning. Ben's turn begins in his phone's quiet hours: nothing is sent then, and
    the clock is asked to look again when they end. Then (here: the member moved to now,
    his quiet hours changed to none) he gets one "your move", since the move is still his;
    a second look sends nothing more."""
    from server.redis.store import Keys

    async with PushService() as service:
        a = await start("a", database_url=database_url, **PUSH_SITE)
        table = await seat_players([a], 2, options={"rounds": 3})
        anne, ben = table.clients
        now = time.gmtime()
        minute = now.tm_hour * 60 + now.tm_min
        night = {"quiet_from": (minute - 5) % 1440, "quiet_to": (minute + 5) % 1440, "tz": "UTC"}
        r = await subscribe(a, ben.token, service.subscription("ben"), **night)
        assert r.status_code == 200, r.text
        assert (await anne.call("start"))["type"] == "ok"
        rng = Rng(b"quiet", "push")
        # both play, tabs open, until Anne's open move is next (and Ben's after it)
        version, view = await play_until_anne_alone(anne, ben, rng, lambda v: True)
        await settle([a])
        await ben.close()
        await until_connected(a, table.id, {0})
        await anne.send("act", move=choose("skull-king", view, rng), version=version)
        await anne.has_version(version + 1)
        assert 1 in latest(anne)["view"]["prompt"]["seats"], "Ben's turn now"
        await settle([a])
        assert service.of("ben") == [], "his quiet hours"
        name = f"quiet|{table.id}|1"
        clock = Keys(redis_prefix).clock_of(name)
        due = await redis_client.zscore(clock, name)
        assert due is not None, "asked again when they end"
        ends = (int(time.time()) // 60 * 60 + 5 * 60) * 1000  # the minute they end, as set
        assert abs(due - ends) <= 60_000, (due, ends)

        # Morning: his quiet hours are over (changed here), and the member comes due.
        r = await subscribe(a, ben.token, service.subscription("ben"), tz="UTC")
        assert r.status_code == 200, r.text
        for _ in range(2):  # a second look (another node's, say) sends nothing more
            await redis_client.zadd(clock, {name: int(time.time() * 1000)})
            deadline = time.monotonic() + 10
            while await redis_client.zscore(clock, name) is not None:
                assert time.monotonic() < deadline, "the clock did not fire it"
                await asyncio.sleep(0.05)
            await settle([a])
        (push,) = await service.wait("ben", 1)
        assert push.payload["kind"] == "turn" and push.payload["room"] == table.id
        await asyncio.sleep(0.2)
        assert len(service.of("ben")) == 1, "once"
        assert not service.problems, service.problems


def test_quiet_hours_end_in_the_devices_own_time_zone_across_midnight() -> None:
    """22:00-07:00 in Ho Chi Minh City (UTC+7): at 23:30 there they end at 07:00 the next
    morning, at 01:00 the same morning; at noon they are not on."""
    import datetime as dt

    from server.archive.push import quiet_until

    row = PushSubscription(quiet_from=22 * 60, quiet_to=7 * 60, tz="Asia/Ho_Chi_Minh")
    utc = dt.UTC
    late = dt.datetime(2026, 12, 5, 16, 30, tzinfo=utc)  # 23:30 there
    assert quiet_until(row, late) == dt.datetime(2026, 12, 6, 0, 0, tzinfo=utc)
    small_hours = dt.datetime(2026, 12, 5, 18, 0, tzinfo=utc)  # 01:00 there, the 6th
    assert quiet_until(row, small_hours) == dt.datetime(2026, 12, 6, 0, 0, tzinfo=utc)
    noon = dt.datetime(2026, 12, 5, 5, 0, tzinfo=utc)  # 12:00 there
    assert quiet_until(row, noon) is None


async def test_pushes_sent_and_steps_dropped_are_counted_for_metrics(
    start: Any, database_url: str
) -> None:
    """``tortuga_pushes_total{node, outcome}``: a push a service took is ``sent``; a job
    that finds the queue full (``push_queue``) is ``dropped`` -- never queued up, and now
    seen on /metrics, not only in the node's memory."""
    from prometheus_client import REGISTRY

    def count(outcome: str) -> float:
        found = REGISTRY.get_sample_value("tortuga_pushes_total", {"node": "q", "outcome": outcome})
        return found or 0.0

    async with PushService() as service:
        q = await start("q", database_url=database_url, push_queue=1, **PUSH_SITE)
        pusher = app_of(q).state.pusher
        dropped = count("dropped")
        for _ in range(10):  # at once: the senders take none meanwhile
            pusher.held("NOSUCHRM", 0)
        assert count("dropped") == dropped + 9 and pusher.dropped == 9
        await settle([q])

        table = await seat_players([q], 2, options={"rounds": 1})
        anne, ben = table.clients
        assert (await subscribe(q, ben.token, service.subscription("ben"))).status_code == 200
        await ben.close()
        await until_connected(q, table.id, {0})
        sent = count("sent")
        assert (await anne.call("start"))["type"] == "ok"  # Ben's phone: "a game starts"
        await service.wait("ben", 1)
        await settle([q])
        assert count("sent") == sent + 1
