"""Every node serves "/metrics in the Prometheus text format: rooms by status, sockets,
moves per second, step latency histogram, compare-and-set retries, fan-out latency, clock
lag, archive backlog and lag, errors by code, per node. Protected [...], documented."

A node with a metrics token. Unauthorised scrapes (no token, a player's token, a wrong
one) are refused and show nothing; the token and an admin session are answered. A game is
played to its end by two players and a bot, another table lets its commit deadline run
out, and one bad frame is sent: the scrape after shows the counters moved (counters are
process-wide and node ids repeat across tests: the test compares with a scrape before)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from admin_helpers import admin_token, bearer
from prometheus_client.parser import text_string_to_metric_families
from test_protocol import started
from tortuga_client import autoplay, guest, seat_players

TOKEN = "scrape-me-0123456789"

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


async def scrape(url: str, token: str | None) -> httpx.Response:
    async with httpx.AsyncClient(base_url=url) as http:
        return await http.get("/metrics", headers=bearer(token) if token else {})


def parsed(text: str) -> Samples:
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def total(samples: Samples, name: str, **labels: str) -> float:
    """The sum of ``name`` over the series whose labels include ``labels``."""
    want = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and want <= ls)


async def test_scrape_after_a_game_and_refusals(
    start: Any, admin_url: str, admin_name: str
) -> None:
    node = await start("metrics-a", database_url=admin_url, metrics_token=TOKEN)

    # Refused: no token, a player's token, a wrong token -- 401 and no metric in the body.
    player_token, _ = await guest(node, "Nosy")
    for token in (None, player_token, "scrape-me-wrong", "adm_forged"):
        r = await scrape(node.url, token)
        assert r.status_code == 401, (token, r.text)
        assert r.json()["error"]["code"] == "not-admin" and "tortuga_" not in r.text

    session = await admin_token(node, admin_name)
    r = await scrape(node.url, session)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    before = parsed((await scrape(node.url, TOKEN)).text)
    mine = {"node": "metrics-a"}

    # A game to its end: two players on this node and a bot.
    table = await seat_players([node], 3, options={"rounds": 1}, bots={2: "heuristic"})
    assert (await table.clients[0].call("start"))["type"] == "ok"
    views = await asyncio.gather(*(autoplay(c, "skull-king") for c in table.clients))
    assert all(v["outcome"] is not None for v in views)
    # A table where nobody bids: the commit deadline fires (the clock's lag is measured).
    idle = await started([node], 2, options={"rounds": 1}, deadlines={"commit": 0.2})
    await idle.clients[0].has_version(2)
    # A step write that loses its compare-and-set (a stale version) is a conflict.
    store = node.server.config.app.state.services.rooms.store  # type: ignore[attr-defined]
    lost = await store.write_step(
        table.id,
        expected_version=0,
        expected_rev=None,
        fields={},
        log_fields={},
        new_version=1,
        payload=b"",
    )
    assert lost == 0
    # One refused frame: an error code is counted.
    await table.clients[0].send("act", move={"card": "nonsense"}, version=0)
    await table.clients[0].wait(lambda f: f["type"] == "error")

    r = await scrape(node.url, TOKEN)
    assert r.status_code == 200
    after = parsed(r.text)

    def moved(name: str, **labels: str) -> float:
        return total(after, name, **mine, **labels) - total(before, name, **mine, **labels)

    assert moved("tortuga_moves_total", game="skull-king") >= 3  # one bid and a card each
    assert moved("tortuga_steps_total", kind="start") == 2
    assert moved("tortuga_steps_total", kind="reveal") >= 2
    assert moved("tortuga_step_seconds_count") >= 2  # the humans' commits, reveals, cards
    assert moved("tortuga_step_seconds_bucket", le="+Inf") == moved("tortuga_step_seconds_count")
    assert moved("tortuga_fanout_seconds_count") >= 3 * 2
    assert moved("tortuga_clock_lag_seconds_count", kind="commit") == 1
    assert moved("tortuga_errors_total") >= 1
    assert total(after, "tortuga_sockets", **mine) == 4  # 2 + 2 human clients connected
    assert total(after, "tortuga_node_start_time_seconds", **mine) > 0
    # The site's state, from Redis: rooms by status, live nodes, the archive stream.
    assert total(after, "tortuga_rooms", status="finished") >= 1
    assert total(after, "tortuga_rooms", status="playing") >= 1
    assert total(after, "tortuga_nodes_alive") >= 1
    assert ("tortuga_archive_backlog", frozenset()) in after
    assert ("tortuga_archive_lag_seconds", frozenset()) in after
    assert moved("tortuga_step_conflicts_total") == 1


def test_counted_observations_reach_the_series_as_if_observed_one_by_one() -> None:
    """A step's and a socket's latencies are counted in plain numbers and added to their
    series at once (``NodeMetrics.flush``): the histogram reads exactly as if each had been
    observed by prometheus-client itself -- bucket by bucket, count and sum (this fails if
    a newer prometheus-client names its histogram's parts otherwise)."""
    from prometheus_client import CollectorRegistry, Histogram

    from server.ops.metrics import LATENCY_BUCKETS, _Observed

    registry = CollectorRegistry()
    one_by_one = Histogram("a_seconds", "a", buckets=LATENCY_BUCKETS, registry=registry)
    batched = Histogram("b_seconds", "b", buckets=LATENCY_BUCKETS, registry=registry)
    counted = _Observed(batched)
    values = [0.0, 0.001, 0.0011, 0.003, 0.05, 0.05, 0.7, 5.0, 12.0, 0.0049]
    for value in values:
        one_by_one.observe(value)
        counted.observe(value)
    counted.flush()
    counted.flush()  # nothing new: adds nothing

    def samples(name: str) -> dict[tuple[str, str], float]:
        out = {}
        for family in registry.collect():
            for s in family.samples:
                if s.name.startswith(name) and not s.name.endswith("_created"):
                    out[(s.name.removeprefix(name), s.labels.get("le", ""))] = s.value
        return out

    assert samples("a_seconds") == samples("b_seconds")
    assert samples("b_seconds")[("_count", "")] == len(values)
