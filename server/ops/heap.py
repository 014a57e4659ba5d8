"""The node's garbage collector, for a server's heap: long-lived objects frozen.

CPython's cyclic collector scans, in a full (generation 2) collection, every object that
survived the younger ones: on a node with 4,000 open sockets that is some 380,000 objects
(each socket's transport, protocols, coroutines, tasks and frames), and each full
collection stopped the node for 100-300 ms -- every few seconds under load, the longest
waits a move had at 1,000 rooms (docs/SPEED.md). What such a collection finds is little
(a few hundred to a few thousand objects: asyncio breaks its own cycles when a socket
closes), so the node freezes what lives (``gc.freeze``: moved where no collection looks)
at start and every ``FREEZE_SECONDS`` (every second: a wave of new sockets would otherwise
be scanned by a full collection before it is frozen); the young generations are collected
as usual. An object frozen that later becomes part of a cycle of garbage would stay: every
``THAW_SECONDS`` the frozen objects are thawed and collected once (one pause an hour).

Memory freed by Python is not always given back to the system: the C library keeps freed
blocks at the top of its heaps for later. After a wave of sockets goes (hundreds of slow
readers cut off, say) the node would stay at its peak for good, so every ``TRIM_SECONDS``
the C library is asked to give back what it keeps free (``malloc_trim``; on glibc only).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import gc
import logging
import time
from collections.abc import Callable

log = logging.getLogger("tortuga.heap")

FREEZE_SECONDS = 1.0
THAW_SECONDS = 3600.0
TRIM_SECONDS = 60.0


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none (musl, macOS)."""
    name = ctypes.util.find_library("c")
    try:
        trim: Callable[[int], int] = ctypes.CDLL(name).malloc_trim
        return trim
    except (OSError, AttributeError, TypeError):
        return None


_TRIM = _malloc_trim()


def trim() -> bool:
    """Give the memory the C library keeps free back to the system; False if it cannot."""
    if _TRIM is None:
        return False
    _TRIM(0)
    return True


def freeze() -> None:
    """What lives now is out of every collection's sight (until ``thaw``)."""
    gc.freeze()


def thaw() -> int:
    """Everything back in sight, one full collection, then frozen again: how many
    objects it found unreachable."""
    gc.unfreeze()
    started = time.perf_counter()
    found = gc.collect()
    gc.freeze()
    log.info(
        "full collection",
        extra={"kind": f"{found} unreachable, {1000 * (time.perf_counter() - started):.0f} ms"},
    )
    return found


async def keep(
    freeze_every: float = FREEZE_SECONDS,
    thaw_every: float = THAW_SECONDS,
    trim_every: float = TRIM_SECONDS,
) -> None:
    """Freeze now and every ``freeze_every`` seconds; thaw and collect every
    ``thaw_every``; give free memory back every ``trim_every``; until cancelled."""
    freeze()
    last_thaw = last_trim = time.monotonic()
    with contextlib.suppress(asyncio.CancelledError):
        while True:
            await asyncio.sleep(freeze_every)
            now = time.monotonic()
            if now - last_thaw >= thaw_every:
                thaw()
                last_thaw = now
            else:
                freeze()
            if now - last_trim >= trim_every:
                trim()
                last_trim = now
