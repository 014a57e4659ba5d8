"""The node's collector (server/ops/heap.py): what lives is frozen out of every collection's
sight, and a thaw finds the garbage cycles frozen objects made since."""

from __future__ import annotations

import asyncio
import gc
import weakref

from server.ops import heap


class _Cycle:
    def __init__(self) -> None:
        self.me = self


async def test_what_lives_is_frozen_and_a_thaw_collects_cycles_made_of_it() -> None:
    gc.unfreeze()
    try:
        keeping = asyncio.create_task(heap.keep(freeze_every=0.02, thaw_every=3600))
        await asyncio.sleep(0.05)
        assert gc.get_freeze_count() > 0  # the long-lived heap is out of sight
        cycle = _Cycle()
        alive = weakref.ref(cycle)
        await asyncio.sleep(0.05)  # frozen with the rest
        del cycle
        gc.collect()
        assert alive() is not None  # garbage, but frozen: no collection sees it ...
        assert heap.thaw() >= 1
        assert alive() is None  # ... until a thaw: found and freed
        assert gc.get_freeze_count() > 0  # and what lives is frozen again
        keeping.cancel()
        await keeping
    finally:
        gc.unfreeze()


def _rss_kb() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_memory_freed_goes_back_to_the_system() -> None:
    """Memory freed between blocks still in use (as when a wave of sockets goes while
    others stay) is kept by the C library, resident, until ``trim`` gives it back."""
    assert heap.trim()  # glibc, as on every machine the node runs on
    blocks = [bytearray(64 * 1024) for _ in range(3000)]  # about 190 MB, below mmap's size
    held = _rss_kb()
    kept = blocks[::10]  # one block in ten stays: the heap cannot shrink from its top
    del blocks
    freed = _rss_kb()
    assert freed > held - 50_000  # freed, but still resident
    heap.trim()
    trimmed = _rss_kb()
    assert trimmed < held - 120_000, (held, freed, trimmed)
    assert len(kept) == 300
