"""The watchdog process (server/ops/lifeline.py): ``python -m server.ops.watchdog PARENT FD USERS``.

It reads what its parent registers -- one JSON line per change on the pipe ``FD``,
``["+", kind, arg]`` or ``["-", kind, arg]`` -- and waits for the parent to die: a pidfd
that becomes readable then (else the pipe's end: only the parent writes to it). When the
last registration is taken back it exits (the parent waits for it). When the parent dies
with registrations left, it

1. waits until no process holds the lock on ``USERS`` (the parent's workers hold a shared
   one for their lives; they got SIGTERM from the kernel as the parent died and shut down
   gracefully, still using Redis and Postgres), at most ``USERS_GRACE`` seconds;
2. undoes each registration, the last first: ``postgres FOLDER`` (the parent no longer
   uses it; stopped, ``pg_ctl stop -m fast``, unless another process still does),
   ``redis SOCKET`` (its redis-server stopped, SIGTERM: Redis flushes its append-only
   file and exits), ``remove FOLDER`` (deleted);
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

USERS_GRACE = 30.0  # seconds: a worker's drain (10 s by default), then its shutdown


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


def _apply(line: bytes, items: list[list[str]]) -> bool:
    """One registration change; True when it took back the last one."""
    sign, *item = json.loads(line)
    if sign == "+":
        items.append(item)
        return False
    with contextlib.suppress(ValueError):
        items.remove(item)
    return not items


def watch(parent: int, fd: int, items: list[list[str]]) -> bool:
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
                if _apply(line, items):
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
            _apply(line, items)
    return True


def wait_for_users(users: str, grace: float) -> bool:
    """Until no process holds a lock on ``users`` (True), at most ``grace`` seconds."""
    try:
        fd = os.open(users, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return True
    try:
        deadline = time.monotonic() + grace
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except OSError as exc:
                if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                    raise
            if time.monotonic() > deadline:
                return False
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
    try:
        if watch(parent, fd, items) and items:
            say = f"tortuga watchdog: process {parent} died;"
            print(f"{say} stopping what it left: {', '.join(k for k, _ in items)}", file=sys.stderr)
            if not wait_for_users(users, USERS_GRACE):
                print(f"{say} its workers still run after {USERS_GRACE:.0f} s", file=sys.stderr)
            for kind, arg in reversed(items):
                try:
                    undo(kind, arg, parent)
                except Exception as exc:  # the others still get their turn
                    print(f"{say} could not stop {kind} {arg}: {exc!r}", file=sys.stderr)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(users)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
