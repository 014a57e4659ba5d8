"""Whether a Redis Cluster's servers let the rooms of its live primaries play through a
failover: ``cluster-require-full-coverage no`` (README, "Redis Cluster and Postgres at
scale"). With Redis's default, ``yes``, every primary answers ``CLUSTERDOWN`` from the moment
a dead primary is marked failed until its replica is promoted: every room stalls, not only
the dead primary's. A node looks when it starts and says so in its log."""

from __future__ import annotations

from server.redis.wire import Wire

SETTING = "cluster-require-full-coverage"


async def stalling_primaries(wire: Wire, timeout: float = 1.0) -> list[str]:
    """The primaries (``host:port``) that keep ``cluster-require-full-coverage yes``. A
    primary that does not answer, or refuses ``CONFIG`` (some hosted Redis do), is not
    listed: nothing is known of it."""
    replies = await wire.each_primary("CONFIG", "GET", SETTING, timeout=timeout)
    stalling = []
    for address, reply in replies.items():
        pairs = reply if isinstance(reply, list) else []
        values = {_text(k): _text(v) for k, v in zip(pairs[::2], pairs[1::2], strict=False)}
        if values.get(SETTING) == "yes":
            stalling.append(address)
    return sorted(stalling)


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
