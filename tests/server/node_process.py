"""One Tortuga node in a process of its own, for tests that kill it (SIGKILL).

Settings come from the environment like a real node's (``Settings.from_env``):
TORTUGA_REDIS_URL, TORTUGA_REDIS_PREFIX, TORTUGA_SECRET, TORTUGA_PORT, TORTUGA_NODE_ID and
the clock knobs. No database (no TORTUGA_DATABASE_URL): the history is not this test's.
Unlike ``tortuga serve`` it never starts an embedded Redis or Postgres.

TORTUGA_TEST_DIE_BEFORE_ARCHIVE=1: the process SIGKILLs itself right after it wrote the
last version of a game, before its final record is on the archive stream.

SIGTERM drains the node (server/realtime/drain.py), then it exits 0: uvicorn raises the signal again
once it has shut down, with the handler it found -- here one that does nothing.

    python tests/server/node_process.py
"""

from __future__ import annotations

import os
import signal

import uvicorn

from server.app import create_app, uvicorn_options
from server.settings import Settings
from server.table.game_end import GameEnd


async def _die(self: GameEnd, rescue: tuple[str, int]) -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def main() -> None:
    if os.environ.get("TORTUGA_TEST_DIE_BEFORE_ARCHIVE") == "1":
        GameEnd.archive_end = _die  # type: ignore[method-assign]
    signal.signal(signal.SIGTERM, lambda sig, frame: None)
    settings = Settings.from_env()
    if not settings.redis_url:
        raise SystemExit("TORTUGA_REDIS_URL is required")
    uvicorn.run(
        create_app(settings),
        host="127.0.0.1",
        port=settings.port,
        log_level="warning",
        lifespan="on",
        **uvicorn_options(settings),
    )


if __name__ == "__main__":
    main()
