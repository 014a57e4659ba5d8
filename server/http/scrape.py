"""``GET /metrics``: the Prometheus text format, for operators only.

A scrape must bear ``Authorization: Bearer <token>``: the site's metrics token
(``TORTUGA_METRICS_TOKEN``, for Prometheus) or a live admin session (``adm_...``, for a
person with curl); anything else is 401 ``not-admin`` and shows nothing.

What a scrape returns:
- every node of this machine's series (server/ops/metrics.py, label ``node``): read from the
  multiprocess folder when ``PROMETHEUS_MULTIPROC_DIR`` is set (``serve --workers N``),
  else from this process's registry;
- the site's state, read from Redis at the scrape (no ``node`` label: the same on every
  node): rooms by status, live nodes, the archive backlog (records not yet in Postgres),
  the age of its oldest record, and the dead letters.
"""

from __future__ import annotations

import hmac
import os
import time
from collections.abc import Iterator

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from server.admin import sessions
from server.realtime.session import Services
from server.redis.store import Store

MAX_ROOMS = 10_000  # rooms one scrape counts at most (a SCAN of room hashes)
STATUSES = ("lobby", "playing", "finished", "abandoned")


class _Scrape(Collector):
    """This machine's nodes' series, then the site's families read before the scrape (the
    collector interface is synchronous: the Redis reads come first)."""

    def __init__(self, nodes: Collector, site: list[Metric]) -> None:
        self.nodes = nodes
        self.site = site

    def collect(self) -> Iterator[Metric]:
        yield from self.nodes.collect()
        yield from self.site


async def site_families(store: Store) -> list[Metric]:
    """What the whole site looks like now, from Redis."""
    statuses = await store.room_statuses(MAX_ROOMS)
    rooms = GaugeMetricFamily(
        "tortuga_rooms", "Rooms in Redis by status, over the whole site", labels=["status"]
    )
    for status in sorted({*STATUSES, *statuses}):
        rooms.add_metric([status], statuses.get(status, 0))
    now_ms = int(time.time() * 1000)
    alive = sum(1 for _, expires, _, _ in await store.live_nodes() if expires and expires > now_ms)
    nodes = GaugeMetricFamily(
        "tortuga_nodes_alive", "Node processes whose heartbeat has not expired", value=alive
    )
    length, oldest, dead = await store.archive_backlog()
    backlog = GaugeMetricFamily(
        "tortuga_archive_backlog",
        "Game records on the archive stream not yet written to Postgres",
        value=length,
    )
    lag = GaugeMetricFamily(
        "tortuga_archive_lag_seconds",
        "Age of the oldest record not yet written to Postgres (0: none waiting)",
        value=0.0 if oldest is None else max(0.0, (now_ms - oldest) / 1000),
    )
    letters = GaugeMetricFamily(
        "tortuga_archive_dead_letters",
        "Records that could not be archived (the dead-letter stream)",
        value=dead,
    )
    return [rooms, nodes, backlog, lag, letters]


async def _allowed(request: Request, services: Services) -> bool:
    try:
        token = sessions.bearer(request.headers.get("authorization"))
    except sessions.NotAdmin:
        return False
    expected = services.settings.metrics_token
    if expected and hmac.compare_digest(token.encode(), expected.encode()):
        return True
    db = request.app.state.db
    if db is None:
        return False
    try:
        await sessions.lookup(db, token)
    except sessions.NotAdmin:
        return False
    return True


async def metrics(request: Request) -> Response:
    services: Services = request.app.state.services
    if not await _allowed(request, services):
        message = "a metrics token or an admin session is needed (Authorization: Bearer)"
        return JSONResponse({"error": {"code": "not-admin", "message": message}}, status_code=401)
    services.rooms.store.metrics.flush()  # this node's latest counts (others': FLUSH_SECONDS)
    nodes: Collector = REGISTRY  # this process's nodes
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        nodes = CollectorRegistry()  # every worker of this machine, from their files
        multiprocess.MultiProcessCollector(nodes)  # type: ignore[no-untyped-call]
    scrape = _Scrape(nodes, await site_families(services.rooms.store))
    return Response(generate_latest(scrape), media_type=CONTENT_TYPE_LATEST)


routes = [Route("/metrics", metrics)]
