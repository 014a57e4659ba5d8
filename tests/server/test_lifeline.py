"""server/ops/lifeline.py: what a process started follows it when it is SIGKILLed.

* A child that called ``follow_parent`` gets SIGTERM when its parent dies; one whose
  parent died before it asked stops at once.
* The watchdog, after a SIGKILL of its process, waits for that process' children to go
  (their shared lock), then undoes what was registered, and exits; it exits at once,
  undoing nothing, once everything was taken back.

Each parent here is a small Python process of its own (``-c``), so that it can be killed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from test_serve_shutdown import ROOT
from test_serve_workers import alive

from server.ops import lifeline

# A parent: registers FOLDER with its watchdog, starts a child that follows it (the child's
# program is the third argument), says the pids, and waits to be killed.
PARENT = """
import os, subprocess, sys, time
from server.ops import lifeline
folder, marker, program, how, grace = sys.argv[1:]
lifeline.after_me("remove", folder)
lifeline.grace(float(grace))
env = {**os.environ, **lifeline.child_env()}
child = subprocess.Popen([sys.executable, "-c", program, marker, how], env=env)
print("pids", child.pid, lifeline._watchdog.process.pid, flush=True)
time.sleep(600)
"""

# The child: follows its parent; SIGTERM makes it linger a second (a drain), then leave --
# or, stuck, never.
CHILD = """
import signal, sys, time
from pathlib import Path
def stop(signum, frame):
    time.sleep(1)
    Path(sys.argv[1]).write_text("gone")
    if sys.argv[2] == "stuck":
        time.sleep(600)
    sys.exit(0)
signal.signal(signal.SIGTERM, stop)
from server.ops import lifeline
lifeline.follow_parent()
print("following", flush=True)
while True:
    time.sleep(1)
"""


def until(condition: Callable[[], object], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"not within {seconds} s: {what}")
        time.sleep(0.05)


@pytest.fixture
def pids() -> Iterator[set[int]]:
    """Processes killed at the end, should the test fail before they end."""
    found: set[int] = set()
    yield found
    for pid in alive(found):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("how", ["drains", "stuck"])
def test_the_watchdog_undoes_after_a_sigkill_once_the_children_are_gone(
    how: str, tmp_path: Path, pids: set[int]
) -> None:
    """The child shuts down in a second (as a worker drains): the folder is removed once it
    has exited. Or it never does: the watchdog SIGKILLs it once the grace is over (2 s)."""
    folder = tmp_path / "made"
    folder.mkdir()
    marker = tmp_path / "child-exited"
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, str(folder), str(marker), CHILD, how, "2"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    pids.add(parent.pid)
    assert parent.stdout is not None
    try:
        # The child writes to the same pipe as the parent, in either order.
        lines = sorted(parent.stdout.readline() for _ in range(2))
        assert lines[0] == "following\n" and lines[1].startswith("pids "), lines
        child, watchdog = (int(p) for p in lines[1].split()[1:])
        pids |= {child, watchdog}
        # The watchdog's last argument: the lock file the children hold.
        users = Path(Path(f"/proc/{watchdog}/cmdline").read_bytes().split(b"\0")[-2].decode())
        assert users.exists()

        parent.kill()
        parent.wait()
        until(lambda: not folder.exists(), 20, "the registered folder removed")
        # Not before the child had finished its SIGTERM (it held the lock until it exited).
        assert marker.read_text() == "gone"
        assert not alive({child})
        until(lambda: not alive({watchdog}), 10, "the watchdog gone")
        assert not users.exists()
    finally:
        parent.kill()
        parent.wait()


def test_a_child_whose_parent_is_already_gone_stops_at_once() -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    child = subprocess.run(
        [sys.executable, "-c", "from server.ops import lifeline; lifeline.follow_parent()"],
        cwd=ROOT,
        env={**os.environ, lifeline.PARENT_ENV: str(dead.pid)},  # not its parent (this)
        timeout=60,
    )
    assert child.returncode == -signal.SIGTERM


# Registers FOLDER, takes it back: the watchdog exits, is waited for, undid nothing.
TAKEN_BACK = """
import os, sys
from pathlib import Path
from server.ops import lifeline
folder = sys.argv[1]
lifeline.after_me("remove", folder)
watchdog = lifeline._watchdog
assert watchdog is not None and watchdog.process.poll() is None
env = lifeline.child_env()
assert env == {lifeline.PARENT_ENV: str(os.getpid()), lifeline.USERS_ENV: watchdog.users}, env
lifeline.done("remove", folder)
assert lifeline._watchdog is None
assert watchdog.process.returncode == 0, watchdog.process.returncode
assert Path(folder).exists() and not Path(watchdog.users).exists()
print("ok")
"""


def test_the_watchdog_leaves_once_everything_is_taken_back(tmp_path: Path) -> None:
    folder = tmp_path / "kept"
    folder.mkdir()
    result = subprocess.run(
        [sys.executable, "-c", TAKEN_BACK, str(folder)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stdout == "ok\n", result.stdout + result.stderr
    assert folder.exists()
