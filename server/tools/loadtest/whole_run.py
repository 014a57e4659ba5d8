"""The whole run (``campaign``): the nodes started, the raw limit, the idle sockets, then
each load step, against another revision's node too with ``--against``."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

from server.archive.scratch import scratch_database
from server.tools.loadtest.bare import BareServer, Profile
from server.tools.loadtest.idle import hold_idle
from server.tools.loadtest.nodes import (
    DRAIN_LOOK,
    DRAIN_WAIT,
    Node,
    Sampler,
    archived_finals,
    cpu_seconds,
    histogram_quantile,
    legacy_protocol,
    memory,
    own_node,
    redis_cpu_seconds,
    scrape,
    wait_archived,
)
from server.tools.loadtest.play import _pool, check, run
from server.tools.loadtest.raw import RawServer, _ready
from server.tools.loadtest.report_html import html_report
from server.tools.loadtest.results import Campaign, Options, Step
from server.tools.loadtest.tally import Plan


@contextlib.contextmanager
def checkout_of(against: str) -> Iterator[tuple[Path, str]]:
    """A source tree of ``against`` and its label (short revision): the folder itself if it
    is one, else a detached ``git worktree`` of the revision for the run (then removed)."""
    root = Path(__file__).resolve().parents[3]

    def short(folder: Path) -> str:
        done = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
        )
        return done.stdout.strip() or folder.name

    folder = Path(against)
    if folder.is_dir():
        yield folder.resolve(), short(folder)
        return
    tree = Path(tempfile.mkdtemp(prefix="tortuga-against-")) / "tree"
    subprocess.run(
        ["git", "-C", str(root), "worktree", "add", "--detach", str(tree), against],
        check=True,
        capture_output=True,
    )
    try:
        yield tree, short(tree)
    finally:
        subprocess.run(
            ["git", "-C", str(root), "worktree", "remove", "--force", str(tree)],
            capture_output=True,
        )
        shutil.rmtree(tree.parent, ignore_errors=True)


POOL_FOR_OLDER = 2000  # an older revision's Redis pool (it raised at 100), set by URL


def _against_env(env: dict[str, str], database: str) -> dict[str, str]:
    """The other revision's node: its own key space and database; its Redis pool raised by
    URL (older revisions' pools raised instead of waiting when they ran out)."""
    from server.redis.pool import is_cluster

    url = env["TORTUGA_REDIS_URL"]
    if not is_cluster(url) and "max_connections=" not in url:
        url += ("&" if "?" in url else "?") + f"max_connections={POOL_FOR_OLDER}"
    prefix = env.get("TORTUGA_REDIS_PREFIX", os.environ.get("TORTUGA_REDIS_PREFIX", ""))
    return {
        **env,
        "TORTUGA_REDIS_URL": url,
        "TORTUGA_REDIS_PREFIX": f"{prefix}against:",
        "TORTUGA_DATABASE_URL": database,
    }


def campaign(plan: Plan, options: Options, node_env: dict[str, str] | None = None) -> Campaign:
    """The raw limit, then the idle sockets with their probe, then each load step, against
    one node (started here unless ``plan.urls``); with ``options.against``, that revision's
    node is started too and each step is played against both, one after the other (which
    goes first alternates). The HTML report if asked for."""
    check(plan)
    result = Campaign(plan, options, started_node=not plan.urls)
    env = dict(node_env or {})
    steps = options.steps or (plan.rooms,)
    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        if "TORTUGA_REDIS_URL" not in env and not os.environ.get("TORTUGA_REDIS_URL"):
            from server.ops import embedded  # one Redis for the nodes and the raw limit

            env["TORTUGA_REDIS_URL"] = embedded.start_redis(folder)
            stack.callback(embedded.stop)
        redis_url = env.get("TORTUGA_REDIS_URL") or os.environ["TORTUGA_REDIS_URL"]
        env["TORTUGA_REDIS_URL"] = redis_url
        against_env: dict[str, str] | None = None
        checkout: Path | None = None
        if options.against:
            checkout, result.against = stack.enter_context(checkout_of(options.against))
            database = env.get("TORTUGA_DATABASE_URL") or os.environ.get("TORTUGA_DATABASE_URL")
            if not database:
                from server.ops import embedded  # one Postgres, a database for each node

                database = embedded.start_postgres(folder)
                env["TORTUGA_DATABASE_URL"] = database
                stack.callback(embedded.stop)
            against_env = _against_env(
                env, stack.enter_context(scratch_database(database, "tortuga_against"))
            )
        processes = options.processes or os.cpu_count() or 1
        pool = stack.enter_context(_pool(processes))
        for future in [pool.submit(_ready) for _ in range(processes)]:
            future.result()  # the client processes are up (and warm) before any timing
        raw = RawServer(env, options.workers) if options.raw_seconds > 0 else None
        if raw is not None:
            stack.callback(raw.stop)
        bare = BareServer(env, options.workers) if options.bare else None
        if bare is not None:
            stack.callback(bare.stop)
        if plan.urls:
            nodes = [Node(url, None) for url in plan.urls]
            with contextlib.suppress(Exception):  # a node that does not answer fails later
                plan = replace(plan, legacy=legacy_protocol(plan.urls[0]))
        else:
            nodes = [
                stack.enter_context(own_node(env, workers=options.workers))
                for _ in range(max(1, options.nodes))
            ]
            # Several nodes: a room's sockets on one of them, as nginx routes them.
            plan = replace(plan, urls=tuple(n.url for n in nodes), by_room=len(nodes) > 1)
        other: tuple[Plan, Node] | None = None
        if against_env is not None:
            node = stack.enter_context(
                own_node(against_env, checkout=checkout, workers=options.against_workers)
            )
            legacy = legacy_protocol(node.url)
            other = (replace(plan, urls=(node.url,), legacy=legacy), node)
        if raw is not None:  # measured while the nodes idle, and stopped before the games
            sockets = options.raw_sockets or min(400, max(steps) * plan.players)
            result.raw = raw.measure(sockets, options.raw_seconds, pool, processes)
            raw.stop()
        if options.idle > 0:
            probe = replace(plan, rooms=options.probe_rooms)
            result.idle = hold_idle(nodes[0], options.idle, probe, processes, pool)
        for on in (True, False) if options.idle_deflate > 0 else ():
            server = RawServer(env, 1, deflate=on)
            try:
                node = server.ready()
                time.sleep(1.0)  # its imports and first allocations settle
                held = hold_idle(node, options.idle_deflate, None, processes, None, raw=True)
                result.deflate[on] = held
            finally:
                server.stop()
        # Redis's own CPU is read only when the node runs here (on the Redis given to it).
        redis_of_node = redis_url if result.started_node else None
        for k, rooms in enumerate(steps):
            turns = [(plan, nodes, result.steps)]
            if other is not None:
                turns.append((other[0], [other[1]], result.against_steps))
                if k % 2 == 0:
                    turns.reverse()  # the older node first at odd steps, last at even ones
            for node_plan, played, into in turns:
                step = _step(
                    replace(node_plan, rooms=rooms), played, redis_of_node, processes, pool
                )
                if bare is not None and into is result.steps:
                    step = _bare_step(step, bare, redis_of_node, processes, pool)
                into.append(step)
    if options.report is not None:
        options.report.write_text(html_report(result))
    return result


def _step(
    plan: Plan,
    nodes: list[Node],
    redis_url: str | None,
    processes: int,
    pool: ProcessPoolExecutor,
) -> Step:
    """One load step against ``nodes`` (one, or several started here), with the CPU they
    and Redis spent meanwhile: in all (set-up included), and from the first game's start
    until the archive had written every record the games left (a sampler reads the CPU
    while the step runs, and once more at the end)."""
    pids = [n.pid for n in nodes if n.pid]
    own = len(pids) == len(nodes)
    cpu = sum(cpu_seconds(pid) for pid in pids) if own else None
    redis_cpu = redis_cpu_seconds(redis_url) if redis_url else None
    scraped = [scrape(n.url) for n in nodes] if own else None
    finals = _finals(nodes) if own else None
    sampler = Sampler(pids, redis_url) if own else None
    try:
        report = run(plan, processes, pool=pool)
        server: dict[str, tuple[float, float, int]] = {}
        after = [scrape(n.url) for n in nodes] if scraped is not None else None
        if scraped is not None and after is not None and all(x is not None for x in after):
            for label, name in (
                ("step", "tortuga_step_seconds"),
                ("fan-out", "tortuga_fanout_seconds"),
            ):
                was, now = _summed(scraped, name), _summed(after, name)
                if now:
                    p50 = histogram_quantile(was, now, 0.5)
                    p99 = histogram_quantile(was, now, 0.99)
                    if p50 is not None and p99 is not None:
                        server[label] = (p50[0], p99[0], p99[1])
        if own:
            report = replace(report, started_node=True)
        backlog, drained_in = (
            _wait_archived(nodes, finals, report.tally.games_over)
            if scraped is not None
            else (None, 0.0)
        )
    finally:
        if sampler is not None:
            sampler.stop()
    spent = sum(cpu_seconds(pid) for pid in pids) - cpu if cpu is not None else None
    redis_after = redis_cpu_seconds(redis_url) if redis_url else None
    redis_spent = (
        redis_after - redis_cpu if redis_after is not None and redis_cpu is not None else None
    )
    rss = sum(memory(pid) for pid in pids) if own else None
    play_cpu = play_redis = None
    commands: int | None = None
    split: dict[str, float] = {}
    if sampler is not None and spent is not None and cpu is not None:
        at_start, redis_at_start, commands_at_start = sampler.at(report.tally.first_start)
        _, last_cpu, last_redis, last_commands = sampler.samples[-1]
        split = sampler.redis_split(report.tally.first_start)
        play_cpu = last_cpu - at_start
        if last_redis is not None and redis_at_start is not None:
            play_redis = last_redis - redis_at_start
        if last_commands is not None and commands_at_start is not None:
            commands = last_commands - commands_at_start
    return Step(
        report,
        rss,
        spent,
        redis_spent,
        os.getloadavg()[0],
        server,
        backlog,
        drained_in,
        play_cpu,
        play_redis,
        redis_commands=commands,
        redis_split=split,
        nodes=len(nodes),
    )


def _summed(pages: list[dict[str, dict[float, float]] | None], name: str) -> dict[float, float]:
    """A latency histogram summed over nodes' /metrics."""
    out: dict[float, float] = {}
    for page in pages:
        for le, count in ((page or {}).get(name) or {}).items():
            out[le] = out.get(le, 0.0) + count
    return out


def _finals(nodes: list[Node]) -> int | None:
    counts = [archived_finals(n.url) for n in nodes]
    return None if any(c is None for c in counts) else sum(c or 0 for c in counts)


def _wait_archived(nodes: list[Node], finals: int | None, games: int) -> tuple[int | None, float]:
    """The archive backlog when the games were over (site-wide) and the seconds until the
    nodes' archivers had stored a final record of each of the step's games (one node: its
    own ``wait_archived``)."""
    if len(nodes) == 1:
        return wait_archived(nodes[0].url, finals, games)
    first, waited = wait_archived(nodes[0].url)  # the backlog is the site's
    started = time.monotonic() - waited
    while finals is not None and time.monotonic() - started < DRAIN_WAIT:
        now = _finals(nodes)
        if now is None or now - finals >= games:
            break
        time.sleep(DRAIN_LOOK)
    return first, time.monotonic() - started


def _bare_step(
    step: Step, bare: BareServer, redis_url: str | None, processes: int, pool: ProcessPoolExecutor
) -> Step:
    """The same step played against the bare fan-out server: as many rooms and seats, as
    many moves a room, the same pace and ramp, the step's frames per move."""
    report = step.report
    if not report.tally.moves:
        return step
    moves = max(1, round(report.tally.moves / max(1, report.tally.rooms)))
    profile = Profile.of(report.tally, report.plan.players)
    measured = bare.measure(report.plan, profile, moves, pool, processes, redis_url)
    return replace(step, bare=measured)
