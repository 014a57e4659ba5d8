"""``tortuga bench --against REV``: REV's engines run beside the working tree's in one process."""

from __future__ import annotations

import subprocess

import pytest

from server.cli import main
from server.tools import bench


def test_against_head_plays_the_same_games(capsys: pytest.CaptureFixture[str]) -> None:
    """Against HEAD (the same rules), both engines report the same moves per game and the
    same encoded states; the working tree's engines are the ones registered afterwards."""
    head = subprocess.run(
        ["git", "-C", str(bench.ROOT), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert main(["bench", "skull-king", "--count", "3", "--rounds", "2", "--against", "HEAD"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith(f"skull-king [{head}]: 4 players, 2 rounds, 3 random full games")
    assert lines[1].startswith("skull-king [working tree]: 4 players, 2 rounds, 3 random")
    assert "Python 3." in lines[0] and "one core" in lines[0]
    assert lines[2].endswith("identical encoded states over the first 3 games: yes")
    import engines.registry
    from engines.skull_king import rules

    assert rules.__file__.startswith(str(bench.ROOT))
    assert engines.registry.GAMES["skull-king"].__class__ is rules.SkullKing


def test_a_changed_rule_shows(capsys: pytest.CaptureFixture[str]) -> None:
    """The comparison is not vacuous: an engine that plays differently is reported."""
    with bench.engines_at("HEAD") as theirs:
        # REV's own modules, its generator included (each side draws moves with its own).
        assert theirs.rng is not bench.Rng
        assert theirs.games["skull-king"] is not bench.GAMES["skull-king"]
        mine = bench.compare("skull-king", theirs, games=2, rounds=2)
        assert mine.same_states
        other = bench.compare(
            "skull-king", theirs, games=2, rounds=2, game=bench.GAMES["bid-tricks"]
        )
    assert not other.same_states
    assert "identical encoded states over the first 2 games: NO" in other.lines()[2]


def test_an_unknown_revision_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--count", "1", "--against", "no-such-revision-xyz"]) == 2
    assert "no-such-revision-xyz" in capsys.readouterr().err


def test_bench_prints_each_figure_for_pearates(capsys: pytest.CaptureFixture[str]) -> None:
    """For Pearates, "`./tortuga bench <game_id>` prints games/s, state size and codec cost"."""
    assert main(["bench", "pearates", "--count", "3", "--players", "3"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith("pearates: 3 players, default options, 3 random full games")
    for figure in ("moves/game", "B mean", "us/move", "games/s"):
        assert figure in line, figure
