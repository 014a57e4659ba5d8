"""``tortuga loadtest``: a tiny run -- 2 rooms of 3 websocket clients, 1 round, against a
node it starts itself -- plays both games to the end and reports what it measured."""

from __future__ import annotations

import pytest

from server import loadtest
from server.cli import main


def test_a_tiny_load_test(redis_url: str, redis_prefix: str, fresh_database: str) -> None:
    plan = loadtest.Plan(urls=(), rooms=2, players=3, rounds=1)
    report = loadtest.run(
        plan,
        processes=2,
        node_env={
            "TORTUGA_REDIS_URL": redis_url,
            "TORTUGA_REDIS_PREFIX": redis_prefix,
            "TORTUGA_DATABASE_URL": fresh_database,
        },
    )
    tally = report.tally
    assert report.started_node and report.processes == 2
    assert (tally.rooms, tally.finished) == (2, 2), report.lines()
    assert not tally.errors, tally.errors
    # Round 1 with 3 players: one sealed bid of 3 seats, then one card each, in each room.
    assert tally.moves == 2 * (3 + 3)
    assert len(tally.move_ms) == 2 * 3  # every act got its event back
    assert len(tally.fanout_ms) == 2 * 3  # one reveal per room reached all three sockets
    assert all(ms >= 0 for ms in tally.move_ms + tally.fanout_ms)
    lines = report.lines()
    assert lines[1] == f"games finished: 2/2 in {report.seconds:.1f} s"
    assert "moves/s" in lines[2]
    assert "p50" in lines[3] and "p95" in lines[3] and "p99" in lines[3]
    assert "reveal fan-out" in lines[4] and "p99" in lines[4]
    assert lines[-1] == "errors: none"


def test_percentiles_are_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert loadtest.percentile(values, 50) == 50
    assert loadtest.percentile(values, 99) == 99
    assert loadtest.percentile([7.0], 99) == 7


def test_a_plan_the_game_refuses(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["loadtest", "--players", "9", "--url", "http://127.0.0.1:1"]) == 2
    assert "not for 9 players" in capsys.readouterr().err


def test_failures_are_counted_by_kind(capsys: pytest.CaptureFixture[str]) -> None:
    """Nothing listens at the URL: the room fails on the client's side, is counted under the
    exception's name, and the command exits 1."""
    assert main(["loadtest", "--rooms", "1", "--players", "2", "--url", "http://127.0.0.1:9"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("games finished: 0/1")
    assert out[-1] == "errors: client-ConnectError 1"
