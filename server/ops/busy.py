"""How busy this node's event loop is: the lateness of a timer, for work that can wait.

A node does two kinds of work on one event loop: what a player waits for (a move, its
fan-out) and what nobody waits for (the archiver's writes to Postgres). At 1,000 rooms the
tables' rounds come in waves, and a wave of round ends is a wave of archive records: written
at once, they took the loop from the players for seconds (move latency p99 in the hundreds of
milliseconds, docs/SPEED.md). The archiver asks ``calm`` before each record: while the loop
runs its timers late, it waits (at most ``MOST_SECONDS`` a record, so the archive is never
starved), and the records written later are written all the same.
"""

from __future__ import annotations

import asyncio
import contextlib

EVERY_SECONDS = 0.02  # how often the loop's lateness is measured
CALM_SECONDS = 0.005  # a loop at most this late is calm
MOST_SECONDS = 2.0  # the longest ``calm`` waits
DECAY = 0.7  # a wave's lateness is forgotten over a few measures, not at once


class Lag:
    """The smoothed lateness (seconds) of a timer that fires every ``EVERY_SECONDS``."""

    def __init__(self, every: float = EVERY_SECONDS) -> None:
        self.every = every
        self.seconds = 0.0

    async def keep(self) -> None:
        """Measure until cancelled."""
        loop = asyncio.get_running_loop()
        with contextlib.suppress(asyncio.CancelledError):
            while True:
                before = loop.time()
                await asyncio.sleep(self.every)
                late = max(0.0, loop.time() - before - self.every)
                self.seconds = max(late, self.seconds * DECAY)

    async def calm(self, below: float = CALM_SECONDS, most: float = MOST_SECONDS) -> None:
        """Return once the loop is at most ``below`` late, or after ``most`` seconds."""
        if self.seconds <= below:
            return
        loop = asyncio.get_running_loop()
        end = loop.time() + most
        while self.seconds > below and loop.time() < end:
            await asyncio.sleep(self.every)
