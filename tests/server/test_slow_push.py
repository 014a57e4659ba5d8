"""A slow game and a closed phone, and "Play again" invitations, end to end: real nodes, a push
service of the test's own that decrypts every push (push_service.py).

- A room without deadlines (a slow game) does not give the seat of a player whose device
  wants "your move" to a stand-in when the grace time is over: the seat is *held*
  (``presence.held``), the player gets one "your move" push naming the room, the table
  waits, and when they come back they play on. A player without a subscription is taken
  over as before, in the same room; a room with deadlines takes over everyone as before.
- "Play again" (``POST /api/rooms`` with ``again``) invites the previous game's other
  players: each device that wants invitations gets one ``invite`` push naming the new room,
  in its language, once cluster-wide; the asker gets none, nor does a device that chose not
  to hear of invitations. Only a player of a game that is over may invite its players.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
from push_service import PushService
from test_clock import FAST
from test_push import (
    PAYLOAD_KEYS,
    app_of,
    auth,
    play_until_anne_alone,
    rejoin,
    settle,
    subscribe,
    until_connected,
)
from tortuga_client import Node, choose, create_room, guest, latest, salted, seat_players

from engines.rng import Rng

SLOW_SITE = {"push_private_endpoints": True, "push_hosts": (), "grace_seconds": 0.5, **FAST}


def cross_wire(a: Node, b: Node) -> None:
    """Each node's pusher also hears of what the other's room service tells its own: every
    step, held seat and invitation is looked at twice, as several nodes might."""
    for one, other in ((a, b), (b, a)):
        hooks = app_of(one).state.services.rooms.hooks
        pusher = app_of(other).state.pusher
        hooks.on_written.append(pusher.written)
        hooks.on_seat_held.append(pusher.held)
        hooks.on_invited.append(pusher.invited)


async def room_of(node: Node, room: str) -> Any:
    return await app_of(node).state.services.rooms.get(room, presence=True)


async def test_a_slow_game_waits_for_a_player_its_push_reaches(
    start: Any, database_url: str
) -> None:
    async with PushService() as service:
        a = await start("a", database_url=database_url, **SLOW_SITE)
        b = await start("b", database_url=database_url, **SLOW_SITE)
        cross_wire(a, b)
        table = await seat_players([a, b], 3, options={"rounds": 1})  # no deadlines
        anne, ben, cleo = table.clients  # seats 0 (node a), 1 (node b), 2 (node a)
        room = table.id
        r = await subscribe(b, ben.token, service.subscription("ben"))
        assert r.status_code == 200 and "turn" in r.json()["kinds"], r.text
        assert (await anne.call("start"))["type"] == "ok"
        await ben.has_version(1)
        await cleo.has_version(1)
        await settle([a, b])
        assert service.of("ben") == [], "his tab was open at the deal"
        # Ben and Cleo close their tabs during the bids; only Ben's phone wants "your move".
        await ben.close()
        await cleo.close()
        # The grace time passes: Cleo's seat is taken over, Ben's is held for him.
        marks = await anne.wait(
            lambda f: f["type"] == "presence" and f["away"] == [2] and f["held"] == [1],
            timeout=15,
        )
        assert marks["connected"] == [0]
        (push,) = await service.wait("ben", 1)
        assert set(push.payload) == PAYLOAD_KEYS, push.payload
        assert push.payload["kind"] == "turn" and push.payload["title"] == "Your move"
        assert push.payload["room"] == room and push.payload["url"] == f"/r/{room}"
        assert push.payload["body"] == f"Skull King · table {room[:4]}-{room[4:]}"
        # Cleo's stand-in bids for her; Anne bids; the table waits for Ben.
        stand_in = await anne.wait(
            lambda f: f["type"] == "committed" and f["seat"] == 2, timeout=15
        )
        phase = stand_in["phase"]
        salt, dig = salted(phase, 0, {"bid": 0})
        await anne.send("commit", phase=phase, digest=dig)
        await anne.wait(lambda f: f["type"] == "committed" and f["seat"] == 0)
        found = await room_of(a, room)
        assert 1 in found.held and 1 not in found.away, "no stand-in plays Ben's seat"
        assert found.version == 1
        summary = found.summary()
        assert summary["seats"][1]["held"] is True and summary["seats"][1]["away"] is False
        clock = app_of(a).state.clock.fired, app_of(b).state.clock.fired
        assert any(m.startswith(f"grace|{room}|1|") for fired in clock for m, _ in fired)
        # Ben opens the room from the push: his seat is his, not held any more; he bids.
        ben2 = await rejoin(b, ben, room)
        back = await anne.wait(lambda f: f["type"] == "presence" and 1 in f["connected"])
        assert back["held"] == [] and back["away"] == [2]
        ben_salt, ben_dig = salted(phase, 1, {"bid": 1})
        await ben2.send("commit", phase=phase, digest=ben_dig)
        await anne.of("open", phase=phase)
        await anne.send("reveal", phase=phase, move={"bid": 0}, salt=salt)
        await ben2.send("reveal", phase=phase, move={"bid": 1}, salt=ben_salt)
        revealed = await anne.of("revealed", phase=phase)
        assert revealed["proxies"] == [2], "Cleo's bid was a stand-in's, Ben's his own"
        await ben2.has_version(2)
        await settle([a, b])
        assert not service.problems, service.problems
        assert [p.payload["kind"] for p in service.of("ben")] == ["turn"], "exactly one push"


async def test_a_room_with_deadlines_takes_over_as_before(start: Any, database_url: str) -> None:
    """A room with deadlines keeps its clocks: a subscribed player gone past the grace time
    is taken over (the stand-in plays at once), and no "your move" is pushed for that."""
    async with PushService() as service:
        a = await start("a", database_url=database_url, **SLOW_SITE)
        hours = {"move": 3600, "commit": 3600, "reveal": 3600}
        table = await seat_players([a], 2, options={"rounds": 1}, deadlines=hours)
        anne, ben = table.clients
        assert (await subscribe(a, ben.token, service.subscription("ben"))).status_code == 200
        assert (await anne.call("start"))["type"] == "ok"
        await ben.has_version(1)
        await ben.close()
        marks = await anne.wait(lambda f: f["type"] == "presence" and f["away"] == [1], timeout=15)
        assert marks["held"] == []
        await anne.wait(lambda f: f["type"] == "committed" and f["seat"] == 1, timeout=15)
        await settle([a])
        assert service.of("ben") == [], "his stand-in bid at once: nothing to push"


async def test_play_again_invites_the_previous_players_devices(
    start: Any, database_url: str
) -> None:
    async with PushService() as service:
        a = await start("a", database_url=database_url, **SLOW_SITE)
        b = await start("b", database_url=database_url, **SLOW_SITE)
        cross_wire(a, b)
        table = await seat_players([a, b], 3, options={"rounds": 1})
        anne, ben, cleo = table.clients
        old = table.id
        subs = {
            "anne": await subscribe(a, anne.token, service.subscription("anne")),
            "ben": await subscribe(b, ben.token, service.subscription("ben"), lang="vi"),
            "cleo": await subscribe(
                a, cleo.token, service.subscription("cleo"), kinds=["turn", "end"]
            ),
        }
        assert all(r.status_code == 200 for r in subs.values()), subs
        assert (await anne.call("start"))["type"] == "ok"
        await ben.has_version(1)
        async with httpx.AsyncClient(base_url=a.url) as http:
            # Not over yet: nobody is invited to a next game.
            r = await http.post(
                "/api/rooms", json={"game": "skull-king", "again": old}, headers=auth(anne.token)
            )
            assert r.status_code == 400 and r.json()["error"]["code"] == "game-not-over", r.text
            assert (await anne.call("abandon"))["type"] == "ok"
            deadline = time.monotonic() + 10
            while (await room_of(a, old)).status != "abandoned":
                assert time.monotonic() < deadline, "the game was not abandoned"
                await asyncio.sleep(0.02)
            # A stranger cannot invite the table's players.
            stranger, _ = await guest(a, "Stranger")
            r = await http.post(
                "/api/rooms", json={"game": "skull-king", "again": old}, headers=auth(stranger)
            )
            assert r.status_code == 400 and r.json()["error"]["code"] == "not-a-player", r.text
        await settle([a, b])
        before = {name: len(service.of(name)) for name in ("anne", "ben", "cleo")}
        # Anne plays again: Ben and Cleo are invited to the new room.
        new = await create_room(a, anne.token, game="skull-king", seats=3, again=old)
        assert new["again_of"] == old
        (invite,) = (await service.wait("ben", before["ben"] + 1))[before["ben"] :]
        assert set(invite.payload) == PAYLOAD_KEYS, invite.payload
        assert invite.payload["kind"] == "invite"
        assert invite.payload["title"] == "Bạn được mời vào một bàn", "in his device's language"
        assert invite.payload["room"] == new["id"] and invite.payload["game"] == "skull-king"
        assert invite.payload["url"] == f"/r/{new['id']}"
        assert invite.payload["body"] == f"Skull King · bàn {new['id'][:4]}-{new['id'][4:]}"
        await settle([a, b])
        await asyncio.sleep(0.2)  # a second pusher's look at the invitation sends nothing
        await settle([a, b])
        assert len(service.of("ben")) == before["ben"] + 1, "once, cluster-wide"
        assert len(service.of("anne")) == before["anne"], "the one who asked is not invited"
        assert len(service.of("cleo")) == before["cleo"], "her device chose no invitations"
        assert not service.problems, service.problems


async def test_an_operator_gives_a_held_seat_to_a_bot(start: Any, database_url: str) -> None:
    """The table waits for a held seat's player; an operator's "give the seat to a bot"
    (``Seats.to_bot``) still ends the wait: the mark goes and the bot bids at once."""
    async with PushService() as service:
        a = await start("a", database_url=database_url, **SLOW_SITE)
        table = await seat_players([a], 2, options={"rounds": 1})
        anne, ben = table.clients
        assert (await subscribe(a, ben.token, service.subscription("ben"))).status_code == 200
        assert (await anne.call("start"))["type"] == "ok"
        await ben.has_version(1)
        await ben.close()
        await anne.wait(lambda f: f["type"] == "presence" and f["held"] == [1], timeout=15)
        await service.wait("ben", 1)
        await app_of(a).state.services.rooms.seats.to_bot(table.id, 1, "heuristic")
        committed = await anne.wait(
            lambda f: f["type"] == "committed" and f["seat"] == 1, timeout=15
        )
        assert committed["digest"] != "default"
        found = await room_of(a, table.id)
        assert found.held == set() and found.seats[1].bot == "heuristic"


async def test_a_turn_pushed_before_the_grace_is_not_pushed_again(
    start: Any, database_url: str
) -> None:
    """Ben closes his tab while Anne leads a trick; her card begins his turn (pushed then,
    he has no socket), and the grace time then holds his seat: that turn is not pushed a
    second time, whichever of the two is looked at first (the turn's once-key)."""
    async with PushService() as service:
        a = await start("a", database_url=database_url, **{**SLOW_SITE, "grace_seconds": 1.0})
        table = await seat_players([a], 2, options={"rounds": 3})
        anne, ben = table.clients
        assert (await subscribe(a, ben.token, service.subscription("ben"))).status_code == 200
        assert (await anne.call("start"))["type"] == "ok"
        rng = Rng(b"slow", "push")
        # both play, tabs open, until Anne leads a trick
        version, view = await play_until_anne_alone(anne, ben, rng, lambda v: not v["trick"])
        await settle([a])
        assert service.of("ben") == [], "his tab was open"
        await ben.close()
        await until_connected(a, table.id, {0})
        await anne.send("act", move=choose("skull-king", view, rng), version=version)
        await anne.has_version(version + 1)
        assert latest(anne)["view"]["prompt"]["seats"] == [1], "Ben follows: his turn"
        (push,) = await service.wait("ben", 1)
        assert push.payload["kind"] == "turn"
        await anne.wait(lambda f: f["type"] == "presence" and f["held"] == [1], timeout=15)
        await settle([a])
        assert [p.payload["kind"] for p in service.of("ben")] == ["turn"], "one push a turn"
        assert not service.problems, service.problems


async def test_the_host_lets_the_stand_in_play_a_held_seat(start: Any, database_url: str) -> None:
    """A held seat waits for its player while the others stay: without a way out the table
    would wait with no end but the host's abandon. The host's ``stand_in`` takes the seat
    over as the grace time does in a room with deadlines: the stand-in bids for Ben at once
    (flagged a stand-in's), and the seat is his again the moment he comes back. Only the
    host may, only for a held seat of a game under way; a refusal changes nothing."""
    async with PushService() as service:
        a = await start("a", database_url=database_url, **SLOW_SITE)
        table = await seat_players([a], 3, options={"rounds": 1})  # no deadlines
        anne, ben, cleo = table.clients  # Anne hosts
        assert (await subscribe(a, ben.token, service.subscription("ben"))).status_code == 200
        refused = await anne.call("stand_in", seat=1)
        assert refused["code"] == "game-not-started", refused
        assert (await anne.call("start"))["type"] == "ok"
        await ben.has_version(1)
        await ben.close()
        await anne.wait(lambda f: f["type"] == "presence" and f["held"] == [1], timeout=15)
        await service.wait("ben", 1)
        for who, seat, code in (
            (cleo, 1, "not-host"),  # only the host
            (anne, 2, "seat-not-held"),  # Cleo is here: nothing to stand in for
            (anne, 7, "no-such-seat"),
        ):
            refused = await who.call("stand_in", seat=seat)
            assert refused["type"] == "error" and refused["code"] == code, refused
        found = await room_of(a, table.id)
        assert found.held == {1} and found.away == set(), "the refusals changed nothing"

        assert (await anne.call("stand_in", seat=1))["type"] == "ok"
        marks = await anne.wait(lambda f: f["type"] == "presence" and f["away"] == [1])
        assert marks["held"] == []
        committed = await anne.wait(lambda f: f["type"] == "committed" and f["seat"] == 1, 15)
        phase = committed["phase"]
        refused = await anne.call("stand_in", seat=1)
        assert refused["code"] == "seat-not-held", "taken over already"
        opened = {}
        for seat, who in ((0, anne), (2, cleo)):
            opened[seat] = (who, *salted(phase, seat, {"bid": 0}))
            await who.send("commit", phase=phase, digest=opened[seat][2])
        await anne.of("open", phase=phase)
        for who, salt, _ in opened.values():
            await who.send("reveal", phase=phase, move={"bid": 0}, salt=salt)
        revealed = await anne.of("revealed", phase=phase, timeout=15)
        assert revealed["proxies"] == [1], "Ben's bid was his stand-in's"

        ben2 = await rejoin(a, ben, table.id)  # back: the seat is his
        back = await anne.wait(lambda f: f["type"] == "presence" and 1 in f["connected"])
        assert back["away"] == [] and back["held"] == []
        snapshot = next(f for f in ben2.frames if f["type"] == "snapshot")
        assert snapshot["seat"] == 1 and snapshot["view"]["seat"] == 1, "his seat, his hand"
