"""One plan played: its rooms spread over client processes, against the given nodes or a
node started for it."""

from __future__ import annotations

import contextlib
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from multiprocessing import get_context

from engines.registry import GAMES
from server.tools.loadtest.nodes import own_node
from server.tools.loadtest.players import _worker
from server.tools.loadtest.tally import Plan, Report, Tally


def run(
    plan: Plan,
    processes: int | None = None,
    node_env: dict[str, str] | None = None,
    pool: ProcessPoolExecutor | None = None,
) -> Report:
    """Play ``plan``; without ``plan.urls`` against a node started for it (``node_env``:
    environment for that node). ``pool``: client processes to use (else started here)."""
    check(plan)
    count = max(1, min(plan.rooms, processes or os.cpu_count() or 1))
    if not plan.urls:
        with own_node(node_env) as node:
            report = run(replace(plan, urls=(node.url,)), count, pool=pool)
        return Report(report.plan, report.processes, report.tally, started_node=True)
    chunks = [list(range(plan.rooms))[k::count] for k in range(count)]
    tally = Tally()
    with contextlib.ExitStack() as stack:
        if pool is None:
            pool = stack.enter_context(_pool(count))
        manager = stack.enter_context(get_context("spawn").Manager())
        barrier = manager.Barrier(count)  # every process's rooms set up before any starts
        for part in pool.map(_worker, [plan] * count, chunks, [barrier] * count):
            tally.add(part)
    return Report(plan, count, tally, started_node=False)


def _pool(count: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(count, mp_context=get_context("spawn"))


def check(plan: Plan) -> None:
    if plan.game not in GAMES:
        raise ValueError(f"no game {plan.game!r}; known: {', '.join(sorted(GAMES))}")
    if plan.players not in GAMES[plan.game].seats:
        raise ValueError(f"{plan.game} is not for {plan.players} players")
    if plan.games < 1:
        raise ValueError(f"--games is at least 1, not {plan.games}")
