"""How busy a node's loop is (server/ops/busy.py): work that can wait (the archiver) waits
while the loop runs its timers late, and never longer than it may."""

from __future__ import annotations

import asyncio
import time

from server.ops.busy import Lag


async def test_calm_waits_while_the_loop_is_late_and_not_longer_than_most() -> None:
    lag = Lag(every=0.01)
    keeping = asyncio.create_task(lag.keep())
    try:
        await asyncio.sleep(0.05)
        started = time.monotonic()
        await lag.calm()
        assert time.monotonic() - started < 0.05  # an idle loop is calm at once
        time.sleep(0.2)  # the loop blocked: its timer fires 0.2 s late
        await asyncio.sleep(0.02)
        assert lag.seconds > 0.1
        started = time.monotonic()
        await lag.calm(below=0.005, most=5.0)
        waited = time.monotonic() - started
        assert 0.01 < waited < 1.0  # until the lateness was forgotten, well before "most"
        time.sleep(0.2)
        await asyncio.sleep(0.02)
        started = time.monotonic()
        await lag.calm(below=-1.0, most=0.1)  # never calm enough: "most" ends the wait
        assert 0.09 < time.monotonic() - started < 0.5
    finally:
        keeping.cancel()
        await keeping
