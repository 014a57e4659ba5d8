"""A process tree that cannot leak: what a process started follows it when it dies, even
by SIGKILL (which runs no ``finally``, no atexit handler).

Two means, one for each kind of child:

* **A parent-death signal** (Linux's ``prctl(PR_SET_PDEATHSIG)``) for the processes we
  spawn ourselves and that run our code: ``serve --workers N``'s workers. The parent puts
  ``child_env()`` in their environment; each calls ``follow_parent()`` as it starts, and
  gets SIGTERM -- a graceful stop, as if the parent had sent it -- the moment the parent
  dies. The signal is set in the child, so the parent may already be gone by then: the
  child then checks its parent is still the one named in its environment, and stops
  itself if not. The kernel sends it when the *thread* that spawned the child ends, not
  the process: the parent spawns them from its main thread (uvicorn's supervisor loop).

* **A watchdog** (server/ops/watchdog.py) for what outlives a signal: the embedded Redis
  (a binary that runs no code of ours) and Postgres (started by ``pg_ctl``, which
  detaches it; it forks its own backends), and temporary folders. A process registers
  each with ``after_me`` before it makes it, and takes it back with ``done`` once it has
  undone it itself. The first registration starts the watchdog: a small process in a
  session of its own (a terminal's Ctrl-C is for the parent), not a child that any
  parent-death signal reaches, which waits for the parent to die (a pidfd; else the end of
  a pipe only the parent writes to). If the parent dies with something still registered,
  the watchdog waits for the processes that use it to go -- the workers, each holding a
  shared ``flock`` on a file the watchdog named; those still there after a grace (``grace``)
  are SIGKILLed -- then undoes it, the last registered first (a service is released in
  the dead parent's name: stopped unless another live process uses it), and exits. When
  the last registration is taken back, it exits at once and its parent reaps it.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

PARENT_ENV = "TORTUGA_PARENT_PID"  # the process whose death a child follows
USERS_ENV = "TORTUGA_WATCHDOG_USERS"  # the file whose lock tells the watchdog a child still runs

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_ROOT = Path(__file__).resolve().parents[2]  # the folder holding the server package


def die_with_parent(parent: int, signum: int = signal.SIGTERM) -> bool:
    """Have the kernel send ``signum`` to this process when its parent dies; ``parent``:
    the pid it must have now. If the parent is already gone (it died before this call,
    which no signal will then report), the signal is sent at once. False where the
    kernel has no such thing (not Linux): nothing was done."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, ctypes.c_ulong(signum), 0, 0, 0) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))
    if os.getppid() != parent:
        os.kill(os.getpid(), signum)
    return True


_following = False
_users_lock: int | None = None  # the descriptor holding the shared lock, for the process' life


def follow_parent() -> None:
    """In a child started with ``child_env()``: end (SIGTERM) with the parent, and be
    waited for by its watchdog. Once per process; nothing without that environment."""
    global _following, _users_lock
    if _following:
        return
    _following = True
    users = os.environ.get(USERS_ENV)
    if users:
        with contextlib.suppress(OSError):  # gone: the watchdog is too, nobody waits
            fd = os.open(users, os.O_RDONLY | os.O_CLOEXEC)
            fcntl.flock(fd, fcntl.LOCK_SH)
            _users_lock = fd
    parent = os.environ.get(PARENT_ENV)
    if parent:
        die_with_parent(int(parent))


class _Watchdog:
    """This process' watchdog: the process, the pipe to it, what is registered."""

    def __init__(self) -> None:
        self.owner = os.getpid()
        handle, self.users = tempfile.mkstemp(prefix="tortuga-watchdog-", suffix=".lock")
        os.close(handle)
        read, self.pipe = os.pipe()  # neither end is inherited by what we spawn later
        try:
            argv = [str(self.owner), str(read), self.users]
            self.process = subprocess.Popen(
                [sys.executable, "-m", "server.ops.watchdog", *argv],
                cwd=_ROOT,  # it imports the same server package as this process
                pass_fds=(read,),
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        except BaseException:
            os.close(self.pipe)
            os.unlink(self.users)
            raise
        finally:
            os.close(read)
        self.items: list[tuple[str, ...]] = []
        self.grace: tuple[str, ...] | None = None

    def tell(self, sign: str, item: tuple[str, ...]) -> None:
        # One short line: one write, whole (below PIPE_BUF), never mixed with another.
        os.write(self.pipe, (json.dumps([sign, *item]) + "\n").encode())

    def close(self) -> None:
        os.close(self.pipe)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:  # pragma: no cover - it exits at once
            self.process.kill()
            self.process.wait()


_watchdog: _Watchdog | None = None


def _mine() -> _Watchdog | None:
    """This process' watchdog, if it has one (a forked child's copy of its parent's is not)."""
    if _watchdog is not None and _watchdog.owner == os.getpid():
        return _watchdog
    return None


def after_me(*item: str) -> None:
    """Register something the watchdog undoes if this process dies before ``done(*item)``:
    ``("redis", SOCKET)``, ``("postgres", FOLDER)``, ``("remove", FOLDER)``."""
    global _watchdog
    watchdog = _mine()
    items: list[tuple[str, ...]] = []
    set_grace = None
    if watchdog is not None and watchdog.process.poll() is not None:
        # Someone killed it: a new one, told everything again.
        os.close(watchdog.pipe)
        watchdog.process.wait()
        items, set_grace, watchdog = watchdog.items, watchdog.grace, None
    if watchdog is None:
        watchdog = _watchdog = _Watchdog()
        for old in items:
            watchdog.tell("+", old)
        watchdog.items = items
        if set_grace is not None:
            watchdog.tell("=", set_grace)
            watchdog.grace = set_grace
    watchdog.tell("+", item)
    watchdog.items.append(item)


def done(*item: str) -> None:
    """``item`` is undone (by this process): the watchdog forgets it; with nothing left it
    exits, and is waited for."""
    global _watchdog
    watchdog = _mine()
    if watchdog is None or item not in watchdog.items:
        return
    watchdog.items.remove(item)
    with contextlib.suppress(OSError):  # it is gone (killed): nothing to forget
        watchdog.tell("-", item)
    if not watchdog.items:
        _watchdog = None
        watchdog.close()


def grace(seconds: float) -> None:
    """How long the watchdog, when this process has died, lets the children that follow it
    (``child_env``) shut down before it SIGKILLs those still there (by default
    ``watchdog.GRACE``). Needs a watchdog (something registered)."""
    watchdog = _mine()
    if watchdog is not None:
        watchdog.grace = ("grace", str(seconds))
        with contextlib.suppress(OSError):
            watchdog.tell("=", watchdog.grace)


def child_env() -> dict[str, str]:
    """The environment for a child that must end with this process (``follow_parent``) and
    that the watchdog, if any, waits for before it undoes anything."""
    env = {PARENT_ENV: str(os.getpid())}
    watchdog = _mine()
    if watchdog is not None:
        env[USERS_ENV] = watchdog.users
    return env
