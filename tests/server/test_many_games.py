"""100 full games of Skull King, bid-tricks, loon-tricks, Pirate King! and pearates, 4 to 8
bot seats each, on two nodes at once.

To keep the run near a minute on a 2-core machine, most games are short: the room option
``rounds`` is 2 or 3 (a game of rounds 1..n is a whole game: dealt, bid, played, scored and
archived); every 25th game is the full 10 rounds (pearates: a shorter game, see ``plan``).
At most ``CONCURRENCY`` games run at the same time. Every third game also seats human test
clients (on either node) that drop at random and come back on a random node -- sometimes
within the grace time (0.3 s here), sometimes after it, when a bot has been playing for
them -- and some never come back: the grace-time bot finishes their game.

Checked for every game: it ended with a valid outcome (``game.outcome`` of the final state
in Redis: one score and rank per seat, ranks as the scores say), its log holds versions
1..N with no gap and ends finished, and its archive record was written exactly once.
"""

from __future__ import annotations

import asyncio
import collections
import json
import random
from typing import Any

from human import Human, chance
from test_clock import FAST, applied
from tortuga_client import Client, Node, create_room, final_records, guest

from engines.registry import GAMES

GAME_COUNT = 100
CONCURRENCY = 12
LEVELS = ("heuristic", "random")


def plan(i: int) -> tuple[str, int, int, dict[str, Any]]:
    """Game ``i``: (game id, bot seats, human seats, options). One game in 25 is loon-tricks
    (3 rounds, its shortest game: about 170 steps with 5 players, as many as four short
    Skull King games), one in 25 Pirate King! (no rounds option: its 7 rounds, about 100
    steps with heuristic bots), one in 25 pearates (a shorter game: all cards but two of the
    pile removed; both expansions every other time); some of them with human test clients."""
    rng = random.Random(i)
    game_id = (
        "loon-tricks"
        if i % 25 == 12
        else "pirate-king"
        if i % 25 == 6
        else "pearates"
        if i % 25 == 18
        else "skull-king"
        if i % 2 == 0
        else "bid-tricks"
    )
    most = GAMES[game_id].seats.stop - 1  # 6, 8, 5 or 7
    bots = rng.randint(4, most)
    humans = min(rng.choice((1, 2)), most - bots) if i % 3 == 0 else 0
    if game_id == "pearates":
        both = i % 50 == 18
        return (
            game_id,
            bots,
            humans,
            {"removed": 120, "more_actions": both, "special_scoring": both},
        )
    schema = GAMES[game_id].options_schema()
    if "rounds" not in schema:
        return game_id, bots, humans, {}
    span = schema["rounds"]
    rounds = span["max"] if i % 25 == 0 else max(span["min"], rng.choice((2, 3)))
    return game_id, bots, humans, {"rounds": rounds}


async def human_life(human: Human, nodes: list[Node], rng: random.Random) -> str:
    """Play; drop now and then; come back on any node after a short or a long time (past
    the grace), or (sometimes) never."""
    while True:
        if await human.play(drop=chance(0.02, rng)) == "over":
            return "over"
        if rng.random() < 0.2:
            return "gone"
        await asyncio.sleep(rng.choice((0.05, 0.1, 0.6)))
        await human.connect(rng.choice(nodes))


async def one_game(i: int, nodes: list[Node]) -> dict[str, Any]:
    game_id, bots, humans, options = plan(i)
    rng = random.Random(1000 + i)
    home = nodes[i % 2]
    token, user = await guest(home, f"host{i}")
    room = await create_room(home, token, game=game_id, seats=bots + humans, options=options)
    host = await Client.connect(home, token=token, user=user)
    await host.send("join", room=room["id"], **{"as": "spectator"})
    await host.of("snapshot")
    players = []
    for seat in range(humans):
        token_h, user_h = await guest(nodes[0], f"g{i}s{seat}")
        human = Human(token_h, user_h, room["id"], game_id, seat)
        client = await human.connect(nodes[(i + seat + 1) % 2], join=True)
        await client.of("snapshot")
        assert (await client.call("sit", seat=seat))["type"] == "ok"
        assert (await client.call("ready"))["type"] == "ok"
        players.append(human)
    for seat in range(humans, humans + bots):
        level = rng.choice(LEVELS)
        assert (await host.call("add_bot", seat=seat, level=level))["type"] == "ok"
    assert (await host.call("start"))["type"] == "ok"
    lives = [asyncio.create_task(human_life(h, nodes, rng)) for h in players]
    end = await host.wait(
        lambda f: f["type"] == "event" and f["event"]["status"] == "finished", timeout=80
    )
    ends = await asyncio.gather(*lives)
    for h in players:
        await h.drop()
    await host.close()
    return {"room": room["id"], "game": game_id, "players": bots + humans, "ends": ends, **end}


async def test_a_hundred_games_on_two_nodes(
    start: Any, redis_client: Any, redis_prefix: str
) -> None:
    knobs = {"grace_seconds": 0.3, **FAST}
    nodes = [await start("a", **knobs), await start("b", **knobs)]
    limit = asyncio.Semaphore(CONCURRENCY)

    async def bounded(i: int) -> dict[str, Any]:
        async with limit:
            return await one_game(i, nodes)

    games = await asyncio.wait_for(asyncio.gather(*(bounded(i) for i in range(GAME_COUNT))), 150)
    assert len(games) == GAME_COUNT
    ends = collections.Counter(e for g in games for e in g["ends"])
    assert ends["over"] > 0 and ends["gone"] > 0, ends  # both kinds of human happened
    # Some seats were taken over after their grace time (and some players came back).
    took = applied(nodes)
    assert sum(n for m, n in took.items() if m.startswith("grace|")) > 0
    assert all(n == 1 for m, n in took.items() if m.startswith("grace|"))
    for g in games:
        await check_game(redis_client, redis_prefix, g)
    # Every game's archive record, exactly once.
    records = await final_records(redis_client, redis_prefix)
    written = collections.Counter(json.loads(r[1][b"record"])["room"] for r in records)
    assert written == {g["room"]: 1 for g in games}


async def check_game(redis: Any, prefix: str, g: dict[str, Any]) -> None:
    room_key = f"{prefix}room:{{{g['room']}}}"
    for _ in range(200):  # the record goes out just after the last step
        raw = await redis.hgetall(room_key)
        if raw.get(b"archived") == b"1":
            break
        await asyncio.sleep(0.05)
    assert raw[b"status"] == b"finished" and raw.get(b"archived") == b"1"
    game = GAMES[g["game"]]
    outcome = game.outcome(game.decode(raw[b"state"]))
    assert outcome is not None
    assert len(outcome.scores) == g["players"]
    # Ranks follow the scores; equal scores may still be split by a game's own tie-break
    # (the cards in hand, the Captain token), and places are shared as in 1, 1, 3. A game
    # may give the win outright by a rule of its own ("five map fragments: you won!" in
    # Pirate King!, whatever the crowns): below the winners, ranks follow the scores.
    pairs = list(zip(outcome.scores, outcome.ranks, strict=True))
    below = [(s, r) for s, r in pairs if r > 1]
    assert all(ra < rb for sa, ra in below for sb, rb in below if sa > sb), outcome
    assert all(r == 1 + sum(o < r for o in outcome.ranks) for r in outcome.ranks), outcome
    assert g["view"]["outcome"] == outcome.to_json()
    entries = await redis.xrange(f"{room_key}:log")
    versions = [int(fields[b"v"]) for _, fields in entries]
    assert versions == list(range(1, len(versions) + 1)) == list(range(1, g["version"] + 1))
    assert int(raw[b"version"]) == versions[-1]
    assert entries[-1][1][b"status"] == b"finished"
