"""The folder tree's layers hold: import-linter's contracts (pyproject.toml,
``[tool.importlinter]``) run as part of the test command.

The contracts: ``server/`` imports run one way, from the entry points down to the
protocol, identity and ops; ``engines/`` imports nothing of ``server/``; the registry sits
over the games and the games over the shared base and contract; within a game, its rules
sit over its views and bots, those over its table (the questions about one state), and
that over its state and cards; no game imports another; no package's modules import each
other in a circle. Imports under ``if TYPE_CHECKING:`` count.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT = "from importlinter.cli import lint_imports; raise SystemExit(lint_imports(no_cache=True))"


def test_import_contracts_hold() -> None:
    result = subprocess.run(
        [sys.executable, "-c", LINT], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert "KEPT" in result.stdout, result.stdout + result.stderr  # the contracts were read
    assert result.returncode == 0, result.stdout + result.stderr
