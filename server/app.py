"""``create_app(settings)``: one node of Tortuga -- routes, lifespan and wiring.

The lifespan connects to Redis, starts this node's hub (pub/sub fan-out) and bot driver,
and closes them on shutdown. ``settings`` must be resolved: ``redis_url`` set (the CLI
starts the embedded Redis when none is configured), ``secret`` non-empty.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator

import redis.asyncio as aioredis
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket

from server import lobby, logs, web
from server.auth import Tokens
from server.bots import BotDriver
from server.hub import Hub
from server.reveal import Sealing
from server.rooms import RoomService
from server.session import Services, serve
from server.settings import Settings
from server.store import Keys, Store

log = logging.getLogger("tortuga.app")


def create_app(settings: Settings) -> Starlette:
    if not settings.redis_url:
        raise ValueError("create_app needs settings.redis_url (resolve the embedded Redis first)")
    tokens = Tokens(settings.secret)
    base_url = (settings.public_url or f"http://{settings.host}:{settings.port}").rstrip("/")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        logs.configure()
        redis = aioredis.Redis.from_url(settings.redis_url or "")
        store = Store(redis, Keys(settings.redis_prefix))
        rooms = RoomService(store, base_url=base_url, room_ttl=settings.room_ttl_seconds)
        sealing = Sealing(rooms)
        hub = Hub(redis, rooms, settings.node_id, settings.resume_max_versions)
        bots = BotDriver(rooms, sealing, settings.secret, settings.bot_delay)
        rooms.on_turn.append(bots.schedule)
        app.state.services = Services(settings, tokens, rooms, sealing, hub)
        app.state.redis = redis
        await hub.start()
        log.info("node up", extra={"conn": settings.node_id})
        try:
            yield
        finally:
            await bots.close()
            await hub.close()
            await redis.aclose()
            log.info("node down", extra={"conn": settings.node_id})

    async def healthz(request: Request) -> Response:
        return JSONResponse({"ok": True, "node": settings.node_id})

    async def readyz(request: Request) -> Response:
        try:
            await request.app.state.redis.ping()
        except Exception as exc:
            return JSONResponse({"ok": False, "redis": type(exc).__name__}, status_code=503)
        return JSONResponse({"ok": True, "redis": "up"})

    async def websocket(socket: WebSocket) -> None:
        await serve(socket, socket.app.state.services)

    client = web.default_root()
    routes = [
        Route("/healthz", healthz),
        Route("/readyz", readyz),
        *lobby.routes,
        WebSocketRoute("/ws", websocket),
        # The browser client (server/web.py), when this checkout has it.
        *(web.routes(client) if client.is_dir() else []),
    ]
    return Starlette(routes=routes, lifespan=lifespan)
