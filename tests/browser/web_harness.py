"""A whole Tortuga site for browser tests: the room server, the client's pages and, when a
database is given, the history API with an archiver -- in-process, on its own event loop.

``create_app`` is used as it is; whatever it does not mount yet (the client's routes, the
history API) is added around it here, so the same tests keep passing once it does.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.routing import BaseRoute, Mount

from server.app import create_app
from server.settings import Settings
from server.web import routes as web_routes


def _paths(routes: list[BaseRoute]) -> set[str]:
    return {str(getattr(r, "path", "")) for r in routes}


def build_app(settings: Settings, web_root: Path, database_url: str | None) -> Starlette:
    inner = create_app(settings)
    routes = list(inner.routes)
    paths = _paths(routes)
    if "/static" not in paths:
        routes += web_routes(web_root)
    mount_history = database_url is not None and "/api/history" not in paths
    if mount_history:
        from server.archive.routes import routes as history_routes

        routes.append(Mount("/api/history", routes=history_routes))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with inner.router.lifespan_context(app):
            if not mount_history or database_url is None:
                yield
                return
            import redis.asyncio as aioredis

            from server.archive import archiver as archiving
            from server.archive.commands import migrate
            from server.archive.db import Database

            await migrate(database_url)
            db = await Database.connect(database_url)
            app.state.db = db
            redis = aioredis.Redis.from_url(settings.redis_url or "")
            worker = archiving.start(redis, db, settings.redis_prefix, block_ms=200)
            try:
                yield
            finally:
                await worker.stop()
                await redis.aclose()
                await db.close()

    return Starlette(routes=routes, lifespan=lifespan)


def site_settings(redis_url: str, port: int, **changes: Any) -> Settings:
    return Settings(
        host="127.0.0.1",
        port=port,
        public_url=f"http://127.0.0.1:{port}",
        redis_url=redis_url,
        redis_prefix=f"test-web-{secrets.token_hex(4)}:",
        secret=secrets.token_bytes(32),
        bot_delay=0.0,
        grace_seconds=600.0,
        **changes,
    )
