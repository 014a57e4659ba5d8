"""Bots at the table: mixed with humans across two nodes, and a table of bots alone."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from typing import Any

import pytest
from test_protocol import started
from tortuga_client import (
    Client,
    Node,
    autoplay,
    create_room,
    final_records,
    guest,
    latest,
    seat_players,
)

from engines.registry import GAMES
from server.ops.logs import JsonLines
from server.table.bot_names import PIRATES, bot_name, collides


async def test_humans_and_bots_on_two_nodes(two: list[Node]) -> None:
    table = await seat_players(two, 4, bots={1: "heuristic", 3: "random"})
    host = table.clients[0]
    marks = [len(c.frames) for c in table.clients]
    assert (await host.call("start"))["type"] == "ok"
    views = await asyncio.wait_for(
        asyncio.gather(
            *(autoplay(c, "skull-king", m) for c, m in zip(table.clients, marks, strict=True))
        ),
        30,
    )
    assert views[0]["outcome"] == views[1]["outcome"] is not None
    revealed = [f for f in host.frames if f["type"] == "revealed"]
    assert len(revealed) == 2 and all(set(f["moves"]) == {"0", "1", "2", "3"} for f in revealed)


async def test_a_table_of_bots(node: Node, redis_client: Any, redis_prefix: str) -> None:
    """Five bots play a whole game; the logs (JSON lines), down to the debug lines of every
    step and commit, name no card, move or seed."""
    lines = io.StringIO()
    handler = logging.StreamHandler(lines)
    handler.setFormatter(JsonLines())
    logger = logging.getLogger("tortuga")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        record = await _bots_play(node, redis_client, redis_prefix)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    text = lines.getvalue()
    assert '"msg": "step"' in text and '"msg": "commit"' in text
    assert record["seed"] not in text
    deck = GAMES["bid-tricks"].deck(None, 5)  # type: ignore[arg-type]
    assert not [card for card in deck if card in text]
    assert '"bid"' not in text and '"play"' not in text
    for line in text.splitlines():
        json.loads(line)


async def _bots_play(node: Node, redis_client: Any, redis_prefix: str) -> dict[str, Any]:
    token, user = await guest(node, "Host")
    room = await create_room(node, token, game="bid-tricks", seats=5, options={"rounds": 3})
    host = await Client.connect(node, token=token, user=user)
    await host.send("join", room=room["id"], **{"as": "spectator"})
    await host.of("snapshot")
    for seat in range(5):
        level = "heuristic" if seat % 2 else "random"
        assert (await host.call("add_bot", seat=seat, level=level))["type"] == "ok"
    assert (await host.call("start"))["type"] == "ok"
    end = await host.wait(
        lambda f: f["type"] == "event" and f["view"]["outcome"] is not None, timeout=30
    )
    assert host.versions() == list(range(1, end["version"] + 1))
    for _ in range(100):
        records = await final_records(redis_client, redis_prefix)
        if records:
            break
        await asyncio.sleep(0.05)
    record = json.loads(records[0][1][b"record"])
    assert [s["bot"] for s in record["seats"]] == ["random", "heuristic"] * 2 + ["random"]
    assert all(s["user"] is None for s in record["seats"])
    return record  # type: ignore[no-any-return]


async def test_default_move_hook(node: Node) -> None:
    """The clock's hook: the engine's default for the seat to move, flagged, exactly once."""
    from tortuga_client import advance

    table = await started([node], 2)
    await advance(table.clients)
    top = latest(table.clients[0])
    turn = top["view"]["turn"]
    rooms = node.server.config.app.state.services.rooms  # type: ignore[attr-defined]
    assert await rooms.steps.play_default(table.id, turn, top["version"]) is True
    assert await rooms.steps.play_default(table.id, turn, top["version"]) is False
    event = await table.clients[0].has_version(top["version"] + 1)
    assert event["event"]["defaults"] == [turn]


async def test_sealed_default_hook(node: Node, redis_client: Any, redis_prefix: str) -> None:
    """The clock's hook in a sealed phase: a missed commit, then a missed reveal."""
    from tortuga_client import dump, salted

    table = await started([node], 3)
    a, _, c = table.clients
    sealing = node.server.config.app.state.services.sealing  # type: ignore[attr-defined]
    phase = "bid@1"
    salt_a, dig_a = salted(phase, 0, {"bid": 1})
    assert (await a.call("commit", phase=phase, digest=dig_a))["type"] == "ok"
    assert await sealing.default(table.id, 1, phase) is True  # seat 1 missed its commit
    assert await sealing.default(table.id, 1, phase) is False
    await a.seen(lambda f: f["type"] == "committed" and f["seat"] == 1)
    blob = repr(await dump(redis_client, redis_prefix)).encode()
    assert b'"bid"' not in blob  # the default is not computed before the phase opens
    _, dig_c = salted(phase, 2, {"bid": 0})
    assert (await c.call("commit", phase=phase, digest=dig_c))["type"] == "ok"
    await a.seen(lambda f: f["type"] == "open")
    assert (await a.call("reveal", phase=phase, move={"bid": 1}, salt=salt_a))["type"] == "ok"
    assert await sealing.default(table.id, 2, phase) is True  # seat 2 missed its reveal
    revealed = await a.seen(lambda f: f["type"] == "revealed")
    assert revealed["defaults"] == [1, 2] and set(revealed["moves"]) == {"0", "1", "2"}
    assert set(revealed["salts"]) == {"0"}
    await a.has_version(2)


async def test_a_run_that_slept_through_a_step_leaves_the_next_move_to_its_own_run(
    start: Any,
) -> None:
    """TORTUGA_BOT_DELAY paces every bot move. Extra runs (a socket's visit, the clock's
    sweep every few seconds) used to wake after another run had moved the room on and play
    the next bot's move at once: bots played 60-140 ms apart with a 0.6 s delay. A run that
    wakes to a later version does nothing; the step that made it started its own run."""
    from server.table.bots import BotDriver

    # The node's own driver waits a minute: here the test's driver plays, run by run.
    node = await start("a", bot_delay=60.0)
    services = node.server.config.app.state.services  # type: ignore[attr-defined]
    rooms = services.rooms
    token, user = await guest(node, "Host")
    room = await create_room(node, token, game="skull-king", seats=3, options={"rounds": 2})
    host = await Client.connect(node, token=token, user=user)
    await host.send("join", room=room["id"], **{"as": "spectator"})
    await host.of("snapshot")
    for seat in range(3):
        assert (await host.call("add_bot", seat=seat, level="random"))["type"] == "ok"
    assert (await host.call("start"))["type"] == "ok"
    planned = asyncio.Event()

    class Watched(BotDriver):
        def due(self, room_id: str, version: int, stage: str) -> tuple[str, int]:
            if version == 2:
                planned.set()  # a run planned at version 2: it sleeps right after
            return super().due(room_id, version, stage)

    settings = services.settings
    driver = Watched(
        rooms,
        services.sealing,
        b"test-bots",
        delay=1.0,
        rescue=settings.bot_rescue_seconds,
        concurrency=settings.bot_concurrency,
    )
    for _ in range(10):  # commits, openings: until the first card is owed
        now = await rooms.get(room["id"])
        if now.version > 1:
            break
        await driver.run(room["id"], rescue=False)
    version = (await rooms.get(room["id"])).version
    assert version == 2  # the bids are in: a bot owes the first card

    sleeper = asyncio.create_task(driver.run(room["id"]))  # plans at version 2, sleeps
    await planned.wait()
    await driver.run(room["id"], rescue=False)  # another trigger: the card is played now
    assert (await rooms.get(room["id"])).version == 3
    await sleeper  # wakes at version 3: the next card is not its to play
    assert (await rooms.get(room["id"])).version == 3
    # The node's own runs sleep their minute: cancelled, not waited for when it stops.
    await node.server.config.app.state.bots.close()  # type: ignore[attr-defined]


async def test_bots_sit_under_distinct_pirate_names(node: Node) -> None:
    """Bots are not all called 'heuristic bot': "Bots get distinct pirate
    names" -- given when the bot is added, the same for every game; the level stays apart."""
    token, user = await guest(node, "Blackbeard")
    room = await create_room(node, token, game="skull-king", seats=4, options={"rounds": 1})
    host = await Client.connect(node, token=token, user=user)
    await host.send("join", room=room["id"])
    await host.of("snapshot")
    assert (await host.call("sit", seat=3))["type"] == "ok"
    for seat in range(3):
        assert (await host.call("add_bot", seat=seat, level="heuristic"))["type"] == "ok"
    summary = await host.seen(
        lambda f: f["type"] == "room" and all(s["bot"] for s in f["room_state"]["seats"][:3])
    )
    seats = summary["room_state"]["seats"]
    names = [s["name"] for s in seats]
    assert len(set(names)) == 4  # three pirates, and none takes the host's name
    assert names[3] == "Blackbeard"
    assert all("bot" not in n and "heuristic" not in n for n in names[:3])
    assert [s["bot"] for s in seats] == ["heuristic"] * 3 + [None]


@pytest.mark.parametrize("game", sorted(GAMES))
async def test_no_bot_is_named_after_a_card_of_its_game(node: Node, game: str) -> None:
    """A bot called "Blackbeard" at a Pirate King! table, where a Blackbeard card is played,
    reads as the card: every game names its cards (``card_titles``) and the bots of a full
    table of that game, added seat by seat through the service, take none of those names."""
    engine = GAMES[game]
    seats = engine.seats.stop - 1
    token, user = await guest(node, "Host")
    room = await create_room(node, token, game=game, seats=seats)
    host = await Client.connect(node, token=token, user=user)
    await host.send("join", room=room["id"])
    await host.of("snapshot")
    assert (await host.call("sit", seat=seats - 1))["type"] == "ok"
    for seat in range(seats - 1):
        assert (await host.call("add_bot", seat=seat, level="heuristic"))["type"] == "ok"
    summary = await host.seen(
        lambda f: (
            f["type"] == "room" and all(s["bot"] for s in f["room_state"]["seats"][: seats - 1])
        )
    )
    names = [s["name"] for s in summary["room_state"]["seats"][: seats - 1]]
    assert len(set(names)) == len(names)
    assert [n for n in names if collides(n, engine.card_titles)] == []
    await host.close()


def test_a_bot_name_passes_over_the_cards_of_the_game() -> None:
    """Seat 3's first pick is Blackbeard: not at Pirate King!'s table; the fallback names
    ("Pirate 4") pass over Skull King's Pirate card too."""
    assert bot_name(3, set()) == "Blackbeard"
    assert bot_name(3, set(), GAMES["pirate-king"].card_titles) != "Blackbeard"
    assert "Blackbeard" in GAMES["pirate-king"].card_titles
    every = set(PIRATES)
    assert bot_name(3, every) == "Pirate 4"
    assert bot_name(3, every, GAMES["skull-king"].card_titles) == "Sailor 4"
    assert collides("Pirate 4", {"Pirate"}) and collides("blackbeard", {"Blackbeard"})
    assert not collides("Mary Read", {"Scary Mary"}) and not collides("Black Bart", {"Blackbeard"})
    # Whatever the seats taken, a full table of any game gets distinct names, none a card's.
    for engine in GAMES.values():
        for order in (range(engine.seats.stop - 1), reversed(range(engine.seats.stop - 1))):
            taken: set[str] = set()
            for seat in order:
                name = bot_name(seat, taken, engine.card_titles)
                assert name not in taken and not collides(name, engine.card_titles)
                taken.add(name)
