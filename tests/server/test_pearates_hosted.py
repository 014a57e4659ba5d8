"""For Pearates, "deadlines, defaults, absent players' bots, take-back where it reveals nothing,
abandon, archive, replay, `tortuga verify` and ratings work for this game with no
game-specific code in `server/`". Take-back is tests/server/test_takeback.py (pearates),
archive, replay, verify and ratings tests/server/archive/test_archive_end_to_end.py
(pearates); here: the deadlines' defaults, the absent player's stand-in and the host's
abandon, each through the general mechanism on a Pearates room.

Games are short: a shorter game (``removed``) leaves a pile of a few cards.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from test_abandon import records
from test_clock import FAST, log_of
from test_protocol import started
from test_takeover import GRACE, without_bert
from tortuga_client import advance, latest, seat_players

from engines.registry import GAMES

GAME = GAMES["pearates"]


async def states(redis: Any, prefix: str, room_id: str) -> dict[int, Any]:
    entries = await redis.xrange(f"{prefix}room:{{{room_id}}}:log")
    return {int(f[b"v"]): GAME.decode(bytes(f[b"state"])) for _, f in entries}


async def test_pearates_deadlines_play_the_engines_defaults(
    start: Any, redis_client: Any, redis_prefix: str
) -> None:
    """Nobody moves: the start player's arranging, every turn and the take are open moves
    whose deadline plays the engine's default; the hand-or-score choice of two seats is a
    sealed private prompt whose commit deadline defaults both at once. The game ends, each
    logged move being the default the engine itself makes at that state (as `tortuga
    verify` checks)."""
    nodes = [await start("a", **FAST)]
    deadlines = {"move": 0.3, "commit": 0.4, "reveal": 0.4}
    table = await started(nodes, 2, game="pearates", options={"removed": 120}, deadlines=deadlines)
    a = table.clients[0]
    end = await a.wait(
        lambda f: f["type"] == "event" and f["event"]["status"] == "finished", timeout=30
    )
    assert end["view"]["outcome"] is not None
    log = await log_of(redis_client, redis_prefix, table.id)
    assert [e["v"] for e in log] == list(range(1, end["version"] + 1))
    moved = log[1:]
    assert moved and all(e["defaults"] == sorted(e["seats"]) and e["seats"] for e in moved)
    assert any(e["kind"] == "reveal" and sorted(e["seats"]) == [0, 1] for e in moved), moved
    by_version = await states(redis_client, redis_prefix, table.id)
    entries = await redis_client.xrange(f"{redis_prefix}room:{{{table.id}}}:log")
    for _, fields in entries[1:]:
        v = int(fields[b"v"])
        moves = json.loads(fields[b"moves"])
        assert moves, v
        for seat, move in moves.items():
            assert move == GAME.default(by_version[v - 1], int(seat)).to_json(), (v, seat)
    # The private choice stayed private: the sealed hand-or-score's moves reached nobody
    # else (a timed-out seat's default is its own, as a made move would be).
    for seat, client in enumerate(table.clients):
        for frame in client.frames:
            if frame["type"] == "revealed":
                assert set(frame["moves"]) <= {str(seat)}, frame


async def test_pearates_an_absent_player_is_played_by_a_stand_in(
    start: Any, redis_client: Any, redis_prefix: str
) -> None:
    """Bert leaves after the deal: after the grace time a bot plays his seat -- his turns,
    his takes and his sealed hand-or-score choices -- flagged as a stand-in's everywhere,
    to the end of the game, which is archived once."""
    nodes = [await start("a", **GRACE), await start("b", **GRACE)]
    # A short game (most cards removed). About one deal in fifty gives the stand-in no
    # sealed choice (or one move only): another game is played then, at most five.
    for _ in range(5):
        table = await seat_players(nodes, 2, game="pearates", options={"removed": 80})
        log, _ = await without_bert(table, redis_client, redis_prefix, "pearates")
        seat_1 = [e for e in log if 1 in e["seats"]]
        if len(seat_1) >= 2 and any(e["kind"] == "reveal" for e in seat_1):
            break
    else:
        raise AssertionError("five deals without a sealed choice for the stand-in")
    assert [e["v"] for e in log] == list(range(1, len(log) + 1))
    assert log[-1]["status"] == "finished"
    assert all(e["proxies"] == [1] for e in seat_1)
    assert all(e["proxies"] == [] for e in log if 1 not in e["seats"])
    for _ in range(100):
        final = [r for r in await records(redis_client, redis_prefix) if r["status"] != "playing"]
        mine = [r for r in final if r["room"] == table.id]
        if mine:
            break
        await asyncio.sleep(0.05)
    assert [r["status"] for r in mine] == ["finished"]
    assert [e["proxies"] for e in mine[0]["events"]] == [e["proxies"] for e in log]


async def test_pearates_the_host_abandons_mid_round(
    start: Any, redis_client: Any, redis_prefix: str
) -> None:
    """The host ends a Pearates game in the middle of a round (a face-down bid on the
    table): every socket gets the last event with the seed, nothing else moves, no hidden
    card is shown by it, and the record goes on the archive stream as abandoned, the host's
    loss."""
    nodes = [await start("a", **FAST)]
    table = await started(nodes, 3, game="pearates", options={"removed": 40})
    clients = table.clients
    for _ in range(40):  # until somebody has a face-down bid (the first turn's seat bids)
        top = latest(clients[0])
        view = top["view"]
        if any(b["size"] for b in view["bids"]) and view["phase"] == "turn":
            break
        prompt = view["prompt"]
        assert prompt["seats"], "the game ended before anybody bid"
        if prompt["kind"] == "turn" and not prompt["sealed"]:
            (seat,) = prompt["seats"]
            legal = latest(clients[seat])["view"]["legal"]
            bid = next(m for m in legal if m["move"] == "bid")
            await clients[seat].send("act", move=bid, version=top["version"])
            for c in clients:
                await c.has_version(top["version"] + 1)
        else:
            await advance(clients, "pearates")
    else:
        raise AssertionError("no bid in 40 steps")
    version = latest(clients[0])["version"]
    assert (await clients[0].call("abandon"))["type"] == "ok"
    for c in clients:
        end = await c.has_version(version + 1)
        assert end["event"]["kind"] == "abandon" and end["event"]["status"] == "abandoned"
        assert end["event"]["seed"]
        # the view stays as it was: the face-down bid is still face down to the others
        assert end["view"] == (await c.has_version(version))["view"]
    final = [r for r in await records(redis_client, redis_prefix) if r["status"] != "playing"]
    assert [r["status"] for r in final] == ["abandoned"]
    assert final[0]["abandoned_by"] == 0
    assert final[0]["outcome"]["ranks"][0] == 3
