"""Several node processes on one port: ``tortuga serve --workers N``.

A node is one process, one event loop: one core. To use the others, the parent binds the
port once and starts N worker processes that all accept on that socket (uvicorn's
multi-process supervisor; the kernel hands each new connection to one of them). Each
worker runs ``app()`` below: a full node with its own lifespan -- its own node id,
heartbeat, clock, hub and archive consumer name -- exactly as if it had been started
alone, since any node may serve any room (rooms live in Redis). The parent serves no
request: it started the embedded Redis/Postgres (once, shared by every worker), restarts a
worker that dies, and on SIGTERM/Ctrl-C stops the workers (each shuts its lifespan down),
then returns; the caller then stops the embedded servers. SIGHUP replaces the workers one
by one (a new one is serving before the old one is stopped).

The workers end with the parent however it ends (server/ops/lifeline.py): each asks the
kernel, as it starts, for SIGTERM when the parent dies (``prctl(PR_SET_PDEATHSIG)``), so a
SIGKILLed parent leaves no worker answering on the port -- each drains and shuts its node
down as if the parent had sent the signal. The kernel sends it when the parent's *thread*
that spawned the worker ends: they are all spawned from the main thread (uvicorn's
supervisor loop, signal handling included). The parent's temporary folders are registered
with its watchdog, which removes them if it dies, once the workers are gone.

The workers read their settings from the environment (``Settings.from_env``), as any
node does; the parent writes the resolved ones there first (the embedded servers' URLs,
host and port) and migrates the schema itself, so that workers never race to do it.

``/metrics`` (server/http/scrape.py) answers for every worker of the machine, whichever one a
scrape reaches: the parent makes a fresh folder for prometheus-client's multiprocess mode
(``PROMETHEUS_MULTIPROC_DIR``, unless the operator set one) before the first worker
starts, marks each worker that exits as dead there (its live gauges go; its counters stay
counted), and removes the folder it made when it stops.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import tempfile

import uvicorn
from prometheus_client import multiprocess
from starlette.applications import Starlette
from uvicorn.supervisors import Multiprocess

from server.app import create_app, uvicorn_options
from server.ops import lifeline
from server.realtime import homes
from server.settings import Settings


def app() -> Starlette:
    """A worker's node (the factory uvicorn calls in each worker process).

    TORTUGA_NODE_ID, when set, names the site's node; each worker adds its process id to
    it, so that heartbeats and archive consumers stay one per process."""
    lifeline.follow_parent()  # SIGTERM when the parent dies, even by SIGKILL
    settings = Settings.from_env()
    base = os.environ.get("TORTUGA_NODE_ID")
    if base:
        settings = settings.with_(node_id=f"{base}.{os.getpid()}")
    return create_app(settings)


class _Supervisor(Multiprocess):
    """uvicorn's supervisor, remembering which signal stopped it (the exit status), and
    telling the metrics folder which workers are gone (restarted after a death, replaced
    on SIGHUP, stopped)."""

    stopped_by = 0

    def _pids(self) -> set[int]:
        return {p.pid for p in self.processes if p.pid is not None}

    def _forget(self, before: set[int]) -> None:
        folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
        if folder:
            for pid in before - self._pids():
                multiprocess.mark_process_dead(pid, folder)  # type: ignore[no-untyped-call]

    def keep_subprocess_alive(self) -> None:
        before = self._pids()
        super().keep_subprocess_alive()
        self._forget(before)

    def restart_all(self) -> None:
        before = self._pids()
        super().restart_all()
        self._forget(before)

    def join_all(self) -> None:
        before = self._pids()
        super().join_all()
        self.processes = []
        self._forget(before)

    def handle_int(self) -> None:
        self.stopped_by = signal.SIGINT
        super().handle_int()

    def handle_term(self) -> None:
        self.stopped_by = signal.SIGTERM
        super().handle_term()


def run(settings: Settings, workers: int) -> int:
    """Serve ``settings`` (resolved: Redis, and Postgres if any, known) with ``workers``
    processes until a signal stops them; the signal's number (0 if none)."""
    if settings.database_url and settings.migrate_on_start:
        from server.archive.commands import migrate

        asyncio.run(migrate(settings.database_url))
    os.environ.update(
        TORTUGA_HOST=settings.host,
        TORTUGA_PORT=str(settings.port),
        TORTUGA_REDIS_URL=settings.redis_url or "",
        TORTUGA_DATABASE_URL=settings.database_url or "",
        TORTUGA_MIGRATE="0",  # done above; a worker only checks the schema is at head
    )
    options = uvicorn_options(settings)
    homes_dir = None
    if workers > 1:
        # A room's sockets on one worker, its home (server/realtime/homes.py).
        homes_dir = tempfile.mkdtemp(prefix="tortuga-homes-")
        lifeline.after_me("remove", homes_dir)
        os.environ.update({homes.FOLDER_ENV: homes_dir, homes.WORKERS_ENV: str(workers)})
        options["http"] = homes.RoutingProtocol
    config = uvicorn.Config(
        "server.workers:app",
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=workers,
        log_level="warning",
        **options,
    )
    made = None
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        made = tempfile.mkdtemp(prefix="tortuga-metrics-")
        lifeline.after_me("remove", made)
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = made
    # The workers follow this process (from this, the main, thread) and its watchdog waits
    # for them: their drain, then their shutdown; SIGKILLed if still there after that.
    lifeline.grace(settings.drain_seconds + 20)
    os.environ.update(lifeline.child_env())
    try:
        supervisor = _Supervisor(config, sockets=[config.bind_socket()])
        supervisor.run()
    finally:
        for name in (lifeline.PARENT_ENV, lifeline.USERS_ENV):
            os.environ.pop(name, None)
        if made is not None:
            shutil.rmtree(made, ignore_errors=True)
            lifeline.done("remove", made)
            del os.environ["PROMETHEUS_MULTIPROC_DIR"]
        if homes_dir is not None:
            shutil.rmtree(homes_dir, ignore_errors=True)
            lifeline.done("remove", homes_dir)
            for name in (homes.FOLDER_ENV, homes.WORKERS_ENV):
                os.environ.pop(name, None)
    return int(supervisor.stopped_by)
