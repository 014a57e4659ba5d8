"""``tortuga loadtest``: a tiny run -- the raw limit for half a second, 6 idle sockets with a
one-room probe, then 2 rooms of 3 websocket clients, 1 round, against a node it starts
itself and, alternately, against a node of another revision (``--against``) -- plays every
game to the end, reports what it measured and writes the HTML report."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path

import pytest

from server.cli import main
from server.tools import loadtest
from server.tools.loadtest.nodes import interpreter
from server.tools.loadtest.players import _client_error, _watch_lag


def test_a_tiny_load_test(
    redis_url: str, redis_prefix: str, fresh_database: str, tmp_path: Path
) -> None:
    plan = loadtest.Plan(urls=(), rooms=2, players=3, rounds=1)
    options = loadtest.Options(
        raw_seconds=0.5,
        raw_sockets=2,
        idle=6,
        probe_rooms=1,
        workers=1,
        processes=2,
        report=tmp_path / "report.html",
        against="HEAD",  # a git worktree of HEAD made for the run: today's protocol
        idle_deflate=3,
        bare=False,  # played in its own test below
    )
    result = loadtest.campaign(
        plan,
        options,
        node_env={
            "TORTUGA_REDIS_URL": redis_url,
            "TORTUGA_REDIS_PREFIX": redis_prefix,
            "TORTUGA_DATABASE_URL": fresh_database,
        },
    )
    assert result.started_node and result.finished
    [step] = result.steps
    report, rss, tally = step.report, step.rss, step.report.tally
    assert report.processes == 2
    assert (tally.rooms, tally.finished) == (2, 2), report.lines()
    assert not tally.errors, tally.errors
    # Round 1 with 3 players: one sealed bid of 3 seats, then one card each, in each room.
    assert tally.moves == 2 * (3 + 3)
    assert len(tally.move_ms) == 2 * 3  # every act got its event back
    assert len(tally.fanout_ms) == 2 * 3  # one reveal per room reached all three sockets
    assert all(ms >= 0 for ms in tally.move_ms + tally.fanout_ms)
    # Each measured while the games ran: the tail can be told by the run's time.
    assert (len(tally.move_at), len(tally.fanout_at)) == (6, 6)
    assert all(tally.first_start <= t <= tally.last_over for t in tally.move_at + tally.fanout_at)
    assert rss is not None and rss > 0  # the node's memory, read from /proc
    assert step.cpu is not None and step.cpu > 0  # and its CPU time
    assert step.redis_cpu is not None and step.redis_cpu >= 0  # Redis's, from INFO
    # The archive caught up after the games (the node's own /metrics), and it is said.
    assert step.backlog is not None and step.backlog >= 0 and step.drained_in >= 0
    assert any(line.startswith("archive: ") for line in step.lines())
    # The node's own latencies over the step, from its /metrics: every act, commit and
    # reveal answered (2 rooms: 3 commits, 3 reveals and 3 acts each).
    assert step.server["step"][2] == 2 * 9 and step.server["step"][0] <= step.server["step"][1]
    assert step.server["fan-out"][2] > 0
    lines = report.lines()
    assert lines[1] == f"games finished: 2/2 in {report.seconds:.1f} s"
    assert "moves/s" in lines[2]
    # Every frame the seats sent while playing (3 commits, 3 reveals, 3 acts a room), and
    # more came back (each step reaches every socket).
    assert tally.frames_in == 2 * 9 and tally.frames_out > tally.frames_in
    assert lines[3].startswith(f"frames: 18 in, {tally.frames_out} out (")
    assert "p50" in lines[4] and "p95" in lines[4] and "p99" in lines[4]
    assert "reveal fan-out" in lines[5] and "p99" in lines[5]
    assert lines[6].startswith(f"p99 by tenth of the games' {report.seconds:.0f} s (")
    assert lines[6].count(" ") > 20 and "; fan-out " in lines[6]
    if tally.client_lag_ms:  # a run longer than one look at the clients' loops
        assert any(line.startswith("the load generator's own loop lag") for line in lines)
    assert lines[-1] == "errors: none"
    # The raw limit was measured in the same run, and the ratio printed.
    assert result.raw is not None and result.raw.echoes > 0 and result.raw.errors == 0
    text = result.lines()
    assert any(line.startswith("raw limit (websocket echo + one Redis") for line in text)
    assert any(line.startswith("ratio: ") and "of the raw limit" in line for line in text)
    assert any(line.startswith("per frame: the node carried ") for line in text)
    # The idle sockets were all open at once, and the probe played its room meanwhile.
    idle = result.idle
    assert idle is not None and (idle.sockets, idle.failed, idle.closed_by_node) == (6, 0, 0)
    assert idle.bytes_per_socket is not None
    assert idle.probe is not None
    assert (idle.probe.tally.rooms, idle.probe.tally.finished) == (1, 1)
    # Idle sockets on the raw-limit server, per-message deflate on and off (each echoed a
    # frame: compression negotiated and used).
    assert sorted(result.deflate) == [False, True]
    for held in result.deflate.values():
        assert (held.sockets, held.failed) == (3, 0) and held.bytes_per_socket is not None
    assert any(line.startswith("raw-limit server, per-message deflate on: 3 idle") for line in text)
    # The HTML report: the latency-over-load curve as inline SVG, and the figures.
    page = (tmp_path / "report.html").read_text()
    assert page.startswith("<!doctype html>")
    assert "Latency over load" in page and "<polyline" in page
    # and each step's p99 over its games' time (this run's step and the other revision's)
    assert page.count("<svg") == 2 + 2
    over_time = "Over the games&#x27; time: 2 rooms"
    assert f"{over_time} [working tree]" in page and f"{over_time} [{result.against}]" in page
    assert "raw limit" in page and "2 (6)" in page
    # Before/after: the other revision's node, in a key space and a database of its own,
    # played the same step; the comparison at saturation is printed.
    assert result.against
    [theirs] = result.against_steps
    assert (theirs.report.tally.rooms, theirs.report.tally.finished) == (2, 2)
    assert not theirs.report.tally.errors and not theirs.report.plan.legacy
    assert theirs.cpu is not None and theirs.cpu > 0
    assert theirs.report.plan.urls != report.plan.urls
    assert any(line.startswith(f"[{result.against}] games finished: 2/2") for line in text)
    assert any(line.startswith("[working tree] games finished: 2/2") for line in text)
    assert any(line.startswith("saturation: ") and line.endswith("x") for line in text)
    assert any(line.startswith("node CPU per move over every step: ") for line in text)
    assert any(line.startswith(f"ratio [{result.against}]: ") for line in text)
    assert f"moves/s [{result.against}]" in page
    # The worktree made for the run is gone again.
    listed = subprocess.run(["git", "worktree", "list"], capture_output=True, text=True).stdout
    assert "tortuga-against-" not in listed


def test_each_step_is_played_against_the_bare_server_too(
    redis_url: str, redis_prefix: str, fresh_database: str
) -> None:
    """The bare fan-out server plays the step's rooms beside the node, with the step's frames
    per move; the node's CPU per move (from the first start until the archive wrote the
    step's records) is set against the bare server's, and the archive's time after the games
    counts in the step's moves per second. Figures are checked for being there and sane, not
    for speed."""
    plan = loadtest.Plan(urls=(), rooms=2, players=3, rounds=1)
    options = loadtest.Options(raw_seconds=0.5, raw_sockets=2, workers=1, processes=2)
    env = {
        "TORTUGA_REDIS_URL": redis_url,
        "TORTUGA_REDIS_PREFIX": redis_prefix,
        "TORTUGA_DATABASE_URL": fresh_database,
    }
    result = loadtest.campaign(plan, options, node_env=env)
    assert result.finished
    [step] = result.steps
    tally, bare = step.report.tally, step.bare
    assert not tally.errors, tally.errors
    assert tally.bytes_in > tally.frames_in and tally.bytes_out > tally.frames_out
    # As many rooms and seats, as many moves a room as the game's (6), no error.
    assert bare is not None and (bare.rooms, bare.seats) == (2, 3)
    assert bare.moves == tally.moves and bare.errors == 0
    assert bare.frames_in == bare.moves  # one frame in a move
    # The game's frames out per move, in count (to within a room's rounding) and size.
    assert bare.profile.frames_out == tally.frames_out / tally.moves
    assert abs(bare.frames_out - tally.frames_out) <= 2 * 3
    assert bare.profile.bytes_out == tally.bytes_out // tally.frames_out
    assert len(bare.move_ms) == bare.moves and all(ms >= 0 for ms in bare.move_ms)
    assert bare.cpu is not None and bare.cpu >= 0 and bare.seconds > 0
    # The node's CPU from the first start until the step's records were archived: some,
    # and no more than its CPU over the whole step (set-up included).
    assert step.play_cpu is not None and step.cpu is not None
    assert 0 < step.play_cpu <= step.cpu + 1e-9
    assert step.backlog is not None and step.drained_in >= 0
    assert step.seconds_archived >= step.report.seconds
    assert step.moves_per_second <= step.report.moves_per_second
    text = result.lines()
    assert any(line.startswith("bare fan-out server (") for line in text)
    [versus] = [line for line in text if line.startswith("against the bare server: ")]
    assert "frames per move: node " in versus and "; bare 1.00 in, " in versus
    if bare.cpu:  # a step this small may spend under one clock tick
        assert step.against_bare() is not None and "target >= 0.4" in versus
        assert any(line.startswith("the limit at saturation (") for line in text)
    assert any(line.startswith("raw limit (") for line in text)


def test_the_bare_servers_frames_add_up_to_the_games() -> None:
    """A move makes ``out`` frames over the room's sockets on average (the fractions carried
    from move to move), each socket at least one, the mover's among those with the most."""
    from server.tools.bare import frame_out, frames_for

    seats, out = 4, 5.4
    per_move = [sum(frames_for(v, s, seats, out) for s in range(seats)) for v in range(1, 101)]
    assert sum(per_move) == 540 and min(per_move) >= seats
    for v in range(1, 101):
        mover = (v - 1) % seats
        counts = [frames_for(v, s, seats, out) for s in range(seats)]
        assert min(counts) >= 1 and counts[mover] == max(counts)
    assert len(frame_out(12, 0, 300)) == 300
    assert frame_out(12, 1, 300).startswith(b'{"v":12,"n":1,"p":"')


def test_percentiles_are_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert loadtest.percentile(values, 50) == 50
    assert loadtest.percentile(values, 99) == 99
    assert loadtest.percentile([7.0], 99) == 7


def test_rooms_play_game_after_game(redis_url: str, redis_prefix: str, fresh_database: str) -> None:
    """``--games 2``: each table plays its second game in a new room once the first is over
    (its players sit down again), and the report adds what was measured while every room
    was playing."""
    # Each client thinks 50 ms a move: a room's two games last well over the 0.3 s over
    # which the rooms start (at no pace the first room could be done before the second began).
    plan = loadtest.Plan(urls=(), rooms=2, players=3, rounds=1, games=2, ramp=0.3, pace=0.05)
    env = {
        "TORTUGA_REDIS_URL": redis_url,
        "TORTUGA_REDIS_PREFIX": redis_prefix,
        "TORTUGA_DATABASE_URL": fresh_database,
    }
    report = loadtest.run(plan, processes=1, node_env=env)
    tally = report.tally
    assert not tally.errors, tally.errors
    assert (tally.rooms, tally.finished, tally.games_over) == (2, 2, 4)
    # Round 1 with 3 players, twice a room: a sealed bid of 3 seats, then a card each.
    assert tally.moves == 2 * 2 * (3 + 3)
    assert len(tally.move_ms) == 2 * 2 * 3 and len(tally.fanout_ms) == 2 * 2 * 3
    # Every room was playing from the second room's start to the first room's end.
    assert tally.first_start < tally.all_playing < tally.one_done < tally.last_over
    inside = report.steady(tally.move_ms, tally.move_at)
    assert 0 < len(inside) <= len(tally.move_ms)
    lines = report.lines()
    assert lines[1].startswith("games finished: 4/4 (2/2 rooms played all 2) in ")
    [steady] = [line for line in lines if line.startswith("while every room played (")]
    assert "move p50 " in steady and f"(n={len(inside)})" in steady


def test_the_steady_state_is_the_time_every_room_played() -> None:
    """Only the samples measured between the last room's first start and the first room's
    last game over are the steady state's."""
    tally = loadtest.Tally(rooms=2, all_playing=10.0, one_done=20.0, first_start=0.0)
    tally.last_over = 30.0
    report = loadtest.Report(
        loadtest.Plan(urls=("http://x",), games=2), 1, tally, started_node=False
    )
    assert report.steady_seconds == 10.0
    assert report.steady([1.0, 2.0, 3.0, 4.0], [5.0, 10.0, 20.0, 25.0]) == [2.0, 3.0]
    never = loadtest.Tally(rooms=2, all_playing=20.0, one_done=10.0)
    assert loadtest.Report(report.plan, 1, never, started_node=False).steady_seconds == 0


def test_latencies_are_told_by_tenth_of_the_run() -> None:
    """A step's tail over its time: the p99 of the samples measured in each tenth of its
    games' time, none where none was measured; one at the very end is in the last tenth,
    and one outside the games' time in none."""
    values = [1.0, 2.0, 30.0, 4.0, 500.0]
    at = [100.0, 100.5, 101.5, 109.0, 120.0]
    tenths = loadtest.over_time(values, at, 100.0, 110.0, 99)
    assert tenths == [2.0, 30.0, None, None, None, None, None, None, None, 4.0]
    assert loadtest.over_time([7.0], [110.0], 100.0, 110.0, 99)[-1] == 7.0
    assert loadtest.over_time([7.0], [105.0], 105.0, 105.0, 99) == [None] * 10  # no time


def test_a_plan_the_game_refuses(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["loadtest", "--players", "9", "--url", "http://127.0.0.1:1", "--report", ""]) == 2
    assert "not for 9 players" in capsys.readouterr().err


def test_a_room_plays_at_least_one_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["loadtest", "--games", "0", "--url", "http://127.0.0.1:1", "--report", ""]) == 2
    assert "--games is at least 1" in capsys.readouterr().err


def test_failures_are_counted_by_kind(capsys: pytest.CaptureFixture[str]) -> None:
    """Nothing listens at the URL: the room fails on the client's side, is counted under the
    exception's name, and the command exits 1."""
    argv = ["loadtest", "--rooms", "1", "--players", "2", "--url", "http://127.0.0.1:9"]
    assert main([*argv, "--raw-seconds", "0", "--report", ""]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("games finished: 0/1")
    assert "errors: client-ConnectError 1" in out


async def test_the_clients_own_loop_lag_is_measured() -> None:
    """What the clients' loop spends elsewhere is counted in every latency they measure
    (they share the node's machine): the load test measures it to say so. A loop blocked
    for 0.2 s shows a lag of about that much."""
    tally = loadtest.Tally()
    watching = asyncio.create_task(_watch_lag(tally))
    await asyncio.sleep(0.12)
    assert tally.client_lag_ms == []  # nothing before the games are under way
    tally.first_start = time.time()
    await asyncio.sleep(0.12)
    time.sleep(0.2)  # the loop held up
    await asyncio.sleep(0.12)
    watching.cancel()
    assert max(tally.client_lag_ms) >= 150
    assert min(tally.client_lag_ms) < 50


def test_a_checkout_with_an_environment_of_its_own_is_served_by_it(tmp_path: Path) -> None:
    """``--against`` a folder: its node runs on the folder's own ``.venv`` (another Python,
    other packages) when it has one, else on this environment's Python, as a worktree
    made for the run is."""
    assert interpreter(None) == sys.executable
    assert interpreter(tmp_path) == sys.executable
    own = tmp_path / ".venv" / "bin" / "python"
    own.parent.mkdir(parents=True)
    own.symlink_to(sys.executable)
    assert interpreter(tmp_path) == str(own)


def test_a_refused_http_call_is_counted_by_the_nodes_answer() -> None:
    """A node given by ``--url`` that still has its guest quota refuses the load test's
    guests: the count says so (``http-429 too-many-guests``), not a bare exception name."""
    import httpx

    request = httpx.Request("POST", "http://127.0.0.1:1/api/guest")
    refused = httpx.Response(
        429, json={"error": {"code": "too-many-guests", "message": "at most 20"}}, request=request
    )
    error = httpx.HTTPStatusError("refused", request=request, response=refused)
    assert _client_error(error) == "http-429 too-many-guests"
    bare = httpx.Response(502, text="bad gateway", request=request)
    assert _client_error(httpx.HTTPStatusError("x", request=request, response=bare)) == "http-502"
    assert _client_error(ConnectionResetError()) == "client-ConnectionResetError"


def test_the_capacity_model_adds_up() -> None:
    """docs/SCALE.md's model from its figures file: ten times the players, ten times the
    moves; the nodes grow with them, and one Postgres primary is what stops scaling first."""
    from server.tools.loadtest import model

    figures = model.Figures.load(Path(__file__).parents[2] / "docs" / "scale-figures.json")
    small, big = model.predict(figures, 100_000), model.predict(figures, 1_000_000)
    assert abs(big.moves_per_second - 10 * small.moves_per_second) < 1e-6
    assert big.nodes > small.nodes >= 1 and big.redis_primaries > small.redis_primaries
    assert small.postgres_share < 1 <= big.postgres_share
    assert big.breaks_first().startswith("Postgres primary")
    text = model.lines(figures, [10_000])
    assert text[1].startswith("| players | moves/s |") and text[3].startswith("| 10,000 |")
