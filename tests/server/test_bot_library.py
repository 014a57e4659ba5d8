"""The players' bot library (bots/tortuga_bot) on a real node: each example bot plays a whole
game of its game against the server's bots, sees nothing it may not know, gets the default
move when it stalls past a deadline, and picks its game up again after a dropped socket.
It signs every move with its device key, keeps the heads it was sent, and the archived
game verifies against them."""

from __future__ import annotations

import asyncio
import json
import stat
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from test_games import STRICT_OPEN_MOVES, assert_no_leaks, moves_by_version, states_by_version
from tortuga_bot import DeviceKey, Host, Player, Site, Turn, play_games
from tortuga_bot.games import signed_in
from tortuga_bot.loader import load
from tortuga_client import Node, create_room, final_records, guest

from server.archive.archiver import Archiver
from server.archive.commands import migrate, read_heads
from server.archive.db import Database
from server.archive.history import verify_game
from server.redis.keys import Keys

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
    # Every version's frame was checked (the bot's first view may be the game's first event
    # or the snapshot it sat with: one per version at least).
    assert assert_no_leaks(SimpleNamespace(frames=frames), 0, game_id, states, moved) >= final


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


async def test_the_command_plays_games_against_the_servers_bots(node: Node, tmp_path: Path) -> None:
    """``tortuga bot run FILE --games N``: a process of its own plays a whole game; with
    ``--heads-dir DIR`` it writes the heads it was sent where ``tortuga verify --heads``
    reads them."""
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
        "--heads-dir",
        str(tmp_path / "heads"),
        cwd=root,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, err.decode()
    assert "skull-king" in out.decode() and "seed checked" in out.decode(), out.decode()
    (written,) = (tmp_path / "heads").iterdir()
    saved = json.loads(written.read_text())
    assert written.name == f"{saved['game_id']}.json" and saved["game_id"].startswith(saved["room"])
    heads = read_heads(written.read_text())
    assert min(heads) == 1 and len(heads) == max(heads), "a head for every version, from the deal"


# -- signed moves and the heads (docs/PROTOCOL.md, "The move chain and signed moves") ------


@pytest.fixture(scope="module")
async def history(database_url: str) -> AsyncIterator[Database]:
    """The session's history database, migrated (as tests/server/archive's fixtures do)."""
    await migrate(database_url)
    database = await Database.connect(database_url)
    yield database
    await database.close()


async def _final_record(redis_client: Any, redis_prefix: str, room: str) -> dict[str, Any]:
    for _ in range(200):  # the final record is written just after the last step
        for _, fields in await final_records(redis_client, redis_prefix):
            record: dict[str, Any] = json.loads(fields[b"record"])
            if record["room"] == room:
                return record
        await asyncio.sleep(0.05)
    raise AssertionError(f"no final record of {room}")


def _proofs(record: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    return [e["chain"]["moves"][str(seat)] for e in record["events"] if str(seat) in e["moves"]]


async def test_a_bots_moves_are_signed_and_its_heads_verify_the_archive(
    node: Node, redis_client: Any, redis_prefix: str, history: Database, tmp_path: Path
) -> None:
    """ "Every act, commit, reveal and ready (entropy) the library sends is signed exactly as
    the browser signs": the archived game verifies with every one of the bot's moves (and its
    contribution to the deal) counted as signed by its device, none unsigned; and "the
    library keeps, per game, the heads it was sent": ``verify_game(..., seen=player.heads)``
    finds them all in the archive -- the file ``--heads-dir`` writes says the same."""
    site = await signed_in(node.url, None, "Signer")
    assert site.key is not None and site.key.path is None  # a guest's key: of this run
    room = await create_room(
        node, site.token or "", game="skull-king", seats=2, options={"rounds": 2}
    )
    player = Player(site, lambda turn: turn.legal[0], heads_dir=tmp_path)
    result = await asyncio.wait_for(
        player.play(room["id"], seat=0, host=Host(bots={1: "heuristic"})), 30
    )
    assert result.status == "finished" and result.defaults == 0
    assert player.kid == site.key.kid and result.heads == player.heads

    record = await _final_record(redis_client, redis_prefix, room["id"])
    mine = _proofs(record, 0)
    opens = [p for p in mine if p["l"].startswith("act@")]
    sealed = [p for p in mine if not p["l"].startswith("act@")]
    assert opens and sealed, "open moves (act) and sealed ones (commit, reveal) both"
    assert all(p["by"] == "player" and p["key"] == site.key.kid and p["sig"] for p in mine)
    assert all(p["open"] for p in sealed), "each sealed opening (reveal) signed too"
    deal = record["events"][0]["chain"]["game"]
    (contribution,) = [c for c in deal["contributions"] if c["seat"] == 0]
    assert contribution["by"] == "player" and contribution["key"] == site.key.kid
    assert {p["by"] for p in _proofs(record, 1)} == {"server"}  # the server's bot

    assert player.heads == {e["version"]: e["head"] for e in record["events"]}
    archiver = Archiver(redis_client, history, redis_prefix, consumer="bot-library")
    assert (await archiver.drain()).error is None
    game_id = record["game_id"]
    async with history.session() as session:
        report = await verify_game(session, game_id, seen=player.heads)
    assert report.ok, report.message
    signed = len(mine) + 1  # every move of the bot's seat and its contribution
    assert f"{signed} move(s) signed by their player's device" in report.message, report.message
    assert "0 unsigned" in report.message
    assert f"the {len(player.heads)} head(s) the device saw are the archive's" in report.message
    assert player.heads_path == tmp_path / f"{game_id}.json"
    assert read_heads(player.heads_path.read_text()) == player.heads


async def test_the_key_file_is_reused_and_registered_again_when_the_site_lost_it(
    node: Node,
    redis_client: Any,
    redis_prefix: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ "kept in a file the bot's owner chooses (default: ... ~/.config/tortuga-bot/<site>-
    <user>.key ...; created with mode 0600) so a bot signs with the same key across runs;
    ... re-registered on unknown-key (close code 4011) as the browser does": two runs with
    a bot account's token sign with the one key of its default file; in the second the site
    loses the registration mid-game, and the bot registers again and plays on, signed."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    token, user = await guest(node, "Keeper")  # any user's token stands for a bot account's
    options = {"rounds": 2}
    first_run = play_games(
        node.url, lambda t: t.legal[0], "skull-king", 1, players=2, options=options, token=token
    )
    (first,) = await asyncio.wait_for(first_run, 30)
    (path,) = (tmp_path / "tortuga-bot").iterdir()
    assert path.name == f"{node.url.split('//')[1].replace(':', '_')}-{user['id']}.key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    kid = DeviceKey.load(path).kid
    record = await _final_record(redis_client, redis_prefix, first.room)
    assert {p["key"] for p in _proofs(record, 0)} == {kid}

    site = await signed_in(node.url, token, None)  # the second run: the same file
    assert site.key is not None and site.key.kid == kid and site.key.path == path
    frames: list[dict[str, Any]] = []
    lost = asyncio.Event()

    def bot(turn: Turn) -> Any:
        if turn.version >= 4:
            lost.set()
        return turn.legal[0]

    room = await create_room(node, token, game="skull-king", seats=2, options=options)
    player = Player(site, bot, record=frames)
    task = asyncio.create_task(player.play(room["id"], seat=0, host=Host(bots={1: "heuristic"})))
    await asyncio.wait_for(lost.wait(), 20)
    keys = Keys(redis_prefix).user_keys(user["id"])  # the site loses the registration
    assert await redis_client.hdel(keys, kid) == 1
    await player.ws.close()
    result = await asyncio.wait_for(task, 30)
    assert result.status == "finished"
    assert [f["code"] for f in frames if f["type"] == "error"] == ["unknown-key"]
    assert await redis_client.hexists(keys, kid), "registered again"
    record = await _final_record(redis_client, redis_prefix, room["id"])
    proofs = _proofs(record, 0)
    assert {(p["by"], p["key"]) for p in proofs} == {("player", kid)}
    assert max(v for v in player.heads) == record["events"][-1]["version"]


async def test_a_wrong_signature_is_refused(node: Node) -> None:
    """ "a signature that does not verify (another key, another seat, version or move ...),
    bad-signature": the library's ``sign`` hook puts another device's signature on the
    bot's first commit, and the site refuses it."""
    other = DeviceKey.generate()

    def forged(frame: dict[str, Any]) -> dict[str, Any]:
        if frame["type"] == "commit" and not forged_once:
            forged_once.append(frame["ref"])
            frame["sig"] = other.sign("commit", room["id"], 1, 0, frame["digest"])
        return frame

    forged_once: list[str] = []
    site = await signed_in(node.url, None, "Forger")
    room = await create_room(node, site.token or "", game="skull-king", seats=2)
    frames: list[dict[str, Any]] = []
    player = Player(site, lambda t: t.legal[0], sign=forged, record=frames)
    task = asyncio.create_task(player.play(room["id"], seat=0, host=Host(bots={1: "heuristic"})))
    try:
        for _ in range(200):
            refusals = [f for f in frames if f["type"] == "error"]
            if refusals:
                break
            await asyncio.sleep(0.05)
        assert [(f["code"], f["ref"]) for f in refusals] == [("bad-signature", forged_once[0])]
    finally:
        task.cancel()


async def test_an_unsigned_bot_plays_marked_unsigned(
    node: Node, redis_client: Any, redis_prefix: str
) -> None:
    """ "A bot may opt out of signing (--unsigned), for sites without the chain": it names
    no key in ``auth`` and its moves are ``by: "unsigned"``, never counted as signed; it
    still keeps the heads it was sent."""
    frames: list[dict[str, Any]] = []
    (result,) = await asyncio.wait_for(
        play_games(
            node.url,
            lambda t: t.legal[0],
            "skull-king",
            1,
            players=2,
            options={"rounds": 2},
            name="Plain",
            unsigned=True,
            record=frames,
        ),
        30,
    )
    assert result.status == "finished" and result.heads
    record = await _final_record(redis_client, redis_prefix, result.room)
    assert {p["by"] for p in _proofs(record, 0)} == {"unsigned"}
    deal = record["events"][0]["chain"]["game"]
    assert [c["sig"] for c in deal["contributions"] if c["seat"] == 0] == [None]
    assert not [f for f in frames if f["type"] == "error"]
