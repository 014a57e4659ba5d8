"""The code stays typed and formatted: ruff and mypy run as part of the test command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_ruff_lint() -> None:
    result = _run("ruff", "check", "engines", "server", "tests", "migrations", "bots", "examples")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format() -> None:
    result = _run(
        "ruff", "format", "--check", "engines", "server", "tests", "migrations", "bots", "examples"
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_engines_and_server() -> None:
    result = _run("mypy", "engines", "server")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_bot_library_and_examples() -> None:
    """The players' bot library (bots/) and its examples are typed as strictly."""
    result = _run("mypy", "bots/tortuga_bot", "examples")
    assert result.returncode == 0, result.stdout + result.stderr
