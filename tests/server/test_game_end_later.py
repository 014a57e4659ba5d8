"""The work after a step that nobody waits for (``GameEnd.later``): a checkpoint's or a
final record's trip to the archive stream runs after the step, in order, each once the
loop is calm; a queue falling behind no longer waits; a failed job does not stop the
ones after it; a stopping node lets the queue finish."""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace
from typing import Any

import pytest

from server.table.game_end import CROWD, GameEnd


def ending(pace: Any = None) -> GameEnd:
    return GameEnd(SimpleNamespace(store=None), archive_rescue=5.0, lease=15.0, pace=pace)  # type: ignore[arg-type]


def noting(seen: list[Any], item: Any) -> Any:
    """A job that notes ``item`` in ``seen`` when it runs."""

    async def run() -> None:
        seen.append(item)

    return run


async def until(done: Any) -> None:
    for _ in range(1000):
        if done():
            return
        await asyncio.sleep(0.001)
    raise AssertionError("the queue did not get there")


async def test_jobs_run_after_the_step_in_order_each_after_the_pace() -> None:
    seen: list[str] = []

    async def pace() -> None:
        seen.append("pace")

    end = ending(pace)
    end.later(noting(seen, "checkpoint 4"))
    end.later(noting(seen, "final record"))
    assert seen == []  # nothing runs inside the step that called for it
    await until(lambda: len(seen) == 4)
    assert seen == ["pace", "checkpoint 4", "pace", "final record"]


async def test_a_queue_longer_than_the_crowd_runs_without_waiting() -> None:
    calm = asyncio.Event()
    paced = 0

    async def pace() -> None:  # a loop that stays busy until told otherwise
        nonlocal paced
        paced += 1
        await calm.wait()

    end = ending(pace)
    done: list[int] = []

    def job(i: int) -> Any:
        async def run() -> None:
            done.append(i)

        return run

    for i in range(CROWD + 10):
        end.later(job(i))
    for _ in range(5):
        await asyncio.sleep(0)
    # With CROWD or more behind it a job runs at once: the first ten do, the eleventh (with
    # CROWD - 1 behind it) waits for the busy loop to calm down.
    assert done == list(range(10)) and paced == 1
    calm.set()
    await until(lambda: len(done) == CROWD + 10)
    assert done == list(range(CROWD + 10))
    assert paced == CROWD  # each job started with fewer than CROWD behind it


async def test_a_failed_job_is_logged_and_the_next_one_runs(
    caplog: pytest.LogCaptureFixture,
) -> None:
    end = ending()
    done: list[str] = []

    async def fails() -> None:
        raise RuntimeError("redis went away")

    async def works() -> None:
        done.append("next")

    with caplog.at_level(logging.ERROR, "tortuga.rooms"):
        end.later(fails)
        end.later(works)
        await end.settle(1.0)
    assert done == ["next"]
    assert "archive work after a step failed" in caplog.text


async def test_settle_stops_waiting_for_calm_and_gives_up_after_its_timeout() -> None:
    never = asyncio.Event()
    paced = 0

    async def pace() -> None:  # a busy loop: each wait lasts its most
        nonlocal paced
        paced += 1
        await asyncio.sleep(0.05)

    end = ending(pace)
    done: list[str] = []

    async def record() -> None:
        done.append("record")

    async def stuck() -> None:
        await never.wait()

    end.later(record)
    await asyncio.sleep(0)  # the worker waits for calm
    end.later(stuck)
    end.later(record)
    await end.settle(0.3)  # no more waits for calm; the stuck job holds the queue: timed out
    assert done == ["record"] and paced == 1


async def test_final_records_run_before_the_checkpoints_waiting() -> None:
    """A game's final record goes before every checkpoint waiting, final records in the
    order they came: it must be on the stream before its rescue comes due, and the
    archiver takes records in any order (a checkpoint behind it changes nothing)."""
    seen: list[str] = []
    end = ending()
    end.later(noting(seen, "checkpoint a"))
    end.later(noting(seen, "checkpoint b"))
    end.later(noting(seen, "final c"), first=True)
    end.later(noting(seen, "checkpoint d"))
    end.later(noting(seen, "final e"), first=True)
    await end.settle(1.0)
    assert seen == ["final c", "final e", "checkpoint a", "checkpoint b", "checkpoint d"]
