"""How a node talks to Redis: one bounded pool whose commands survive a Redis restart.

- A ``BlockingConnectionPool`` of ``settings.redis_pool_size`` connections: when every
  connection is busy a command *waits* (up to ``redis_pool_wait_seconds``) instead of failing
  at once, as redis-py's default pool does when it runs dry.
- Every command is retried on a connection error or timeout, with exponential backoff
  (``redis_retries`` times, 50 ms doubling up to 1 s): after a Redis restart the first
  command on each stale pooled connection fails, reconnects and runs again, instead of
  reaching a player as ``server-error``. The scripts are re-loaded by redis-py when the
  restarted server no longer knows them (NOSCRIPT).

A retried command may already have run when only its reply was lost. The writes a player
can repeat that way are safe: a step is a compare-and-set on the version (a repeat loses),
and a commit or a reveal carries a nonce of its call (server/store.py), so its own repeat
is recognised and answered as it was the first time.
"""

from __future__ import annotations

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError, TimeoutError


def connect(url: str, *, size: int, wait_seconds: float, retries: int) -> aioredis.Redis:
    """A client on a pool of at most ``size`` connections (see above)."""
    pool = aioredis.BlockingConnectionPool.from_url(
        url,
        max_connections=size,
        timeout=wait_seconds,
        retry=Retry(ExponentialBackoff(cap=1.0, base=0.05), retries),
        retry_on_error=[ConnectionError, TimeoutError],
    )
    return aioredis.Redis(connection_pool=pool)
