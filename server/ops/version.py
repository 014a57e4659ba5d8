"""What this build of the server calls itself, as node heartbeats and ``/metrics`` say it:
the package version, and the git commit when the server runs from a checkout (an operator
sees at a glance which nodes still run an older build during a rolling restart)."""

from __future__ import annotations

import functools
import importlib.metadata
import subprocess
from pathlib import Path


@functools.cache
def version() -> str:
    """``0.1.0`` or ``0.1.0+87eb2c7`` (read once per process)."""
    try:
        base = importlib.metadata.version("tortuga")
    except importlib.metadata.PackageNotFoundError:
        base = "0"
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=2,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return base
    return f"{base}+{commit}" if commit else base
