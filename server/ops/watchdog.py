"""The watchdog process (server/ops/lifeline.py): ``python -m server.ops.watchdog PARENT FD USERS``.

It reads what its parent registers -- one JSON line per change on the pipe ``FD``,
``["+", kind, arg]`` or ``["-", kind, arg]`` -- and waits for the parent to die: a pidfd
that becomes readable then (else the pipe's end: only the parent writes to it). When the
last registration is taken back it exits (the parent waits for it). When the parent dies
with registrations left, it

1. waits until no process holds the lock on ``USERS`` (the parent's workers hold a shared
   one for their lives; they got SIGTERM from the kernel as the parent died and shut down
   gracefully, still using Redis and Postgres), at most the grace the parent set
   (``["=", "grace", SECONDS]``; ``GRACE`` if none): the ones still there then (stuck in
   their shutdown) are SIGKILLed -- they are found in /proc/locks;
2. undoes each registration, the last first: ``postgres FOLDER``, ``redis SOCKET`` (the
   parent no longer uses them: each is stopped -- ``pg_ctl stop -m fast``; SIGTERM, which
   flushes Redis' append-only file -- unless another live process still does),
   ``remove FOLDER`` (deleted);
3. removes ``USERS`` and exits; whoever adopted it (init) reaps it.

It ignores SIGINT and SIGHUP (the parent's terminal is not its own: it runs in a session of
its own), and holds nothing the parent's successor needs: no port, no lock, no data file.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import select
import shutil
import signal
import sys
import time
from collections.abc import Sequence

GRACE = 30.0  # seconds for the users to go: a worker's drain (10 s by default), its shutdown


def _pidfd(parent: int) -> int | None:
    """A descriptor readable once ``parent`` has exited; None if the kernel has none or the
    parent is gone already (we were adopted: our parent is no longer ``parent``)."""
    try:
        fd = os.pidfd_open(parent)
    except (AttributeError, OSError):
        return None
    if os.getppid() != parent:  # it died before pidfd_open: the pid may be another's now
        os.close(fd)
        return None
    return fd


def _apply(line: bytes, items: list[list[str]], settings: dict[str, str]) -> bool:
    """One registration change (or setting); True when it took back the last one."""
    sign, *item = json.loads(line)
    if sign == "=":
        settings[item[0]] = item[1]
        return False
    if sign == "+":
        items.append(item)
        return False
    with contextlib.suppress(ValueError):
        items.remove(item)
    return not items


def watch(parent: int, fd: int, items: list[list[str]], settings: dict[str, str]) -> bool:
    """Until the parent dies (True) or takes every registration back (False)."""
    pidfd = _pidfd(parent)
    buffer = b""
    died = pidfd is None and os.getppid() != parent
    while not died:
        readable, _, _ = select.select([fd] if pidfd is None else [fd, pidfd], [], [])
        if fd in readable:
            data = os.read(fd, 65536)
            if not data:
                died = True  # every writer is gone: the parent too
                break
            buffer += data
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                if _apply(line, items, settings):
                    return False
        if pidfd is not None and pidfd in readable:
            died = True
    # What the parent wrote just before it died is still in the pipe.
    os.set_blocking(fd, False)
    with contextlib.suppress(BlockingIOError):
        while data := os.read(fd, 65536):
            buffer += data
    for line in buffer.split(b"\n"):
        if line:
            _apply(line, items, settings)
    return True


def holders(path: str) -> set[int]:
    """The processes holding a ``flock`` on ``path`` (/proc/locks), this one excepted."""
    try:
        st = os.stat(path)
        table = open("/proc/locks").read()  # noqa: SIM115 - read whole at once
    except OSError:
        return set()
    device = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    found = set()
    for line in table.splitlines():
        fields = line.split()
        if "->" not in fields and len(fields) > 5 and fields[1] == "FLOCK" and fields[5] == device:
            found.add(int(fields[4]))
    return found - {os.getpid()}


def wait_for_users(users: str, grace: float) -> set[int]:
    """Until no process holds a lock on ``users``; after ``grace`` seconds those that do are
    SIGKILLed. Their pids."""
    try:
        fd = os.open(users, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return set()
    killed: set[int] = set()
    try:
        deadline = time.monotonic() + grace
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return killed
            except OSError as exc:
                if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                    raise
            if time.monotonic() > deadline:
                for pid in holders(users) - killed:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                    killed.add(pid)
            time.sleep(0.05)
    finally:
        os.close(fd)


def undo(kind: str, arg: str, parent: int) -> None:
    from pathlib import Path

    from server.ops import embedded

    if kind == "remove":
        shutil.rmtree(arg, ignore_errors=True)
    elif kind == "redis":
        embedded.release_redis(Path(arg), parent)
    elif kind == "postgres":
        embedded.release_postgres(Path(arg), parent)
    else:
        raise ValueError(f"nothing known as {kind!r}")


def main(argv: Sequence[str]) -> int:
    parent, fd, users = int(argv[0]), int(argv[1]), argv[2]
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    items: list[list[str]] = []
    settings: dict[str, str] = {}

    def say(text: str) -> None:
        print(f"tortuga watchdog: process {parent} died; {text}", file=sys.stderr, flush=True)

    try:
        if watch(parent, fd, items, settings) and items:
            say(f"releasing what it left: {', '.join(kind for kind, _ in items)}")
            grace = float(settings.get("grace", GRACE))
            killed = wait_for_users(users, grace)
            if killed:
                say(f"killed {sorted(killed)}, still there after {grace:.0f} s")
            for kind, arg in reversed(items):
                try:
                    undo(kind, arg, parent)
                except Exception as exc:  # the others still get their turn
                    say(f"could not release {kind} {arg}: {exc!r}")
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(users)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
