"""The players' bot library (bots/tortuga_bot) on a real node: each example bot plays a whole
game of its game against the server's bots, sees nothing it may not know, gets the default
move when it stalls past a deadline, and picks its game up again after a dropped socket."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from test_games import STRICT_OPEN_MOVES, assert_no_leaks, moves_by_version, states_by_version
from tortuga_bot import Host, Player, Site, Turn, play_games
from tortuga_bot.loader import load
from tortuga_client import Node, create_room

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# Short games: the rules' smallest lengths where they have one.
SHORT: dict[str, dict[str, Any]] = {
    "skull-king": {"rounds": 2},
    "bid-tricks": {"rounds": 2},
    "loon-tricks": {"rounds": 3},
    "pirate-king": {},
    "pearates": {"removed": 60},
}


@pytest.mark.parametrize(
    ("file", "game_id"),
    [
        ("skull_king.py", "skull-king"),
        ("bid_tricks.py", "bid-tricks"),
        ("loon_tricks.py", "loon-tricks"),
        ("pirate_king.py", "pirate-king"),
        ("pearates.py", "pearates"),
    ],
)
async def test_each_example_plays_a_whole_game_against_the_servers_bots(
    node: Node, redis_client: Any, redis_prefix: str, file: str, game_id: str
) -> None:
    """ "Each example bot plays full games of its game against the server's bots through the
    library on a real node", and "a bot sees no hidden information": the leak checks of
    test_games.py run on every frame its seat was sent."""
    bot, game = load(str(EXAMPLES / file))
    assert game == game_id
    frames: list[dict[str, Any]] = []
    (result,) = await asyncio.wait_for(
        play_games(
            node.url, bot, game_id, 1, players=3, options=SHORT[game_id], name="Ex", record=frames
        ),
        60,
    )
    assert result.status == "finished" and result.seat == 0
    assert result.ranks is not None and len(result.ranks) == 3
    assert result.seed_check is None  # the seed was made from the bot's own bytes
    assert result.defaults == 0
    states = await states_by_version(redis_client, redis_prefix, result.room, game_id)
    strict = game_id in STRICT_OPEN_MOVES
    moved = await moves_by_version(redis_client, redis_prefix, result.room, 0, strict)
    final = max(states)
    assert assert_no_leaks(SimpleNamespace(frames=frames), 0, game_id, states, moved) > final


async def test_a_bot_that_stalls_gets_the_default_move(node: Node) -> None:
    """ "A bot that misses its deadline gets the default move": its late answers are
    refused harmlessly and it plays on to the end."""
    stalls = {"left": 2}

    def slow(turn: Turn) -> Any:
        if stalls["left"] > 0:
            stalls["left"] -= 1
            time.sleep(1.2)  # past the room's deadlines
        return turn.legal[0]

    site = Site(node.url)
    await site.guest("Slow")
    room = await create_room(
        node,
        site.token or "",
        game="skull-king",
        seats=2,
        options={"rounds": 2},
        deadlines={"move": 0.5, "commit": 0.5, "reveal": 0.5},
    )
    player = Player(site, slow)
    result = await asyncio.wait_for(
        player.play(room["id"], seat=0, host=Host(bots={1: "heuristic"})), 30
    )
    assert result.status == "finished"
    assert result.defaults >= 1, "the server played the stalled seat's default"


async def test_a_dropped_socket_resumes_where_it_was(node: Node) -> None:
    """The library's socket is cut mid-game: it comes back, resumes from its last version
    and finishes the game (every version seen once)."""
    frames: list[dict[str, Any]] = []
    site = Site(node.url)
    await site.guest("Dropper")
    room = await create_room(
        node, site.token or "", game="skull-king", seats=2, options={"rounds": 3}
    )
    cut = asyncio.Event()

    def bot(turn: Turn) -> Any:
        if turn.version >= 4 and not cut.is_set():
            cut.set()
        return turn.legal[-1]

    player = Player(site, bot, record=frames)
    task = asyncio.create_task(player.play(room["id"], seat=0, host=Host(bots={1: "heuristic"})))
    await asyncio.wait_for(cut.wait(), 20)
    await player.ws.close()  # the socket drops (the library does not know why)
    result = await asyncio.wait_for(task, 30)
    assert result.status == "finished"
    assert [f["type"] for f in frames].count("resumed") == 1
    versions = [f["version"] for f in frames if f["type"] == "event"]
    assert versions == list(range(1, versions[-1] + 1)), "every version once, in order"


async def test_the_command_plays_games_against_the_servers_bots(node: Node) -> None:
    """``tortuga bot run FILE --games N``: a process of its own plays a whole game."""
    root = Path(__file__).resolve().parents[2]
    command = [sys.executable, "-m", "tortuga_bot.cli", "run", str(EXAMPLES / "skull_king.py")]
    process = await asyncio.create_subprocess_exec(
        *command,
        "--url",
        node.url,
        "--games",
        "1",
        "--players",
        "2",
        "--options",
        '{"rounds": 2}',
        cwd=root,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, err.decode()
    assert "skull-king" in out.decode() and "seed checked" in out.decode(), out.decode()
