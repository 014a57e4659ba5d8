"""``create_app(settings)``: one node of Tortuga -- routes, lifespan and wiring.

The lifespan connects to Redis, starts this node's hub (pub/sub fan-out), bot driver,
clock (deadlines, grace times: server/table/deadlines.py) and heartbeat
(server/realtime/heartbeat.py), and, when ``settings.database_url`` is set, the history: it
migrates the schema (or refuses to start on an old one when ``migrate_on_start`` is off),
opens the database, starts the archiver and serves ``/api/history``. Everything is closed
on shutdown. ``settings`` must be resolved: ``redis_url`` set (the CLI starts the embedded
servers when none is configured), ``secret`` non-empty.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import AsyncIterator, Coroutine
from typing import Any

from sqlalchemy.exc import SQLAlchemyError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket

from server.admin.moderate import routes as moderation_routes
from server.admin.routes import routes as admin_routes
from server.archive.archiver import Archiver
from server.archive.archiver import start as start_archiver
from server.archive.commands import check_schema, migrate
from server.archive.db import Database, unreachable
from server.archive.push import Pusher
from server.archive.push import settings_of as push_settings
from server.archive.routes import routes as history_routes
from server.archive.write import RatingRules
from server.http import bots, lobby, passkeys, push_routes, scrape, signin, web
from server.http.catalogue import Catalogues
from server.http.forwarded import Forwarded
from server.identity.signing import ServerKey
from server.identity.tokens import Identity, Tokens
from server.identity.webpush import VapidKey
from server.ladder.arena import Arena
from server.ops import heap, logs
from server.ops.busy import Lag
from server.ops.metrics import NodeMetrics
from server.ops.version import version
from server.realtime import arrivals, homes
from server.realtime.arrivals import Bounds
from server.realtime.drain import Drain
from server.realtime.heartbeat import Heartbeat
from server.realtime.http_protocol import NodeHTTPProtocol
from server.realtime.hub import Hub
from server.realtime.session import Floodgate, Services, serve
from server.realtime.socket_protocol import LeanWebSocketProtocol
from server.redis import coverage
from server.redis import pool as redis_pool
from server.redis import wire as redis_wire
from server.redis.pool import Client
from server.redis.store import Keys, Store
from server.settings import Settings
from server.table.bots import BotDriver
from server.table.deadlines import Clock
from server.table.quotas import Limits, Quotas
from server.table.reveal import Sealing
from server.table.rooms import RoomService

log = logging.getLogger("tortuga.app")

UNAVAILABLE = "unavailable"  # the error code of a route that needs Postgres during an outage
RETRY_AFTER_SECONDS = 5
READY_POSTGRES_SECONDS = 2.0  # how long /readyz waits for Postgres to answer its ping
READY_REDIS_SECONDS = 1.0  # how long /readyz waits for each Redis Cluster primary's PING


def server_key(settings: Settings) -> ServerKey:
    """The server's signing key (server/identity/signing.py): the settings' own, else one
    derived from the token secret (every node that shares either shares the key)."""
    if settings.signing_key:
        return ServerKey(settings.signing_key)
    return ServerKey.derived(settings.secret)


def vapid_key(settings: Settings) -> VapidKey:
    """The site's VAPID key for Web Push: the settings' own, else one derived from the token
    secret (every node that shares either sends with the same key)."""
    if settings.vapid_private_key:
        return VapidKey(settings.vapid_private_key)
    return VapidKey.derived(settings.secret)


def _phrases() -> Any:
    """The pushes' texts: the client's catalogues (one source of texts), when this checkout
    has them; else each text's key."""
    folder = web.default_root() / "js" / "i18n"
    if not folder.is_dir():
        return lambda lang, key, params: key
    texts = Catalogues(folder)
    return lambda lang, key, params: texts.text(lang, key, **params)


def create_app(settings: Settings) -> Starlette:
    if not settings.redis_url:
        raise ValueError("create_app needs settings.redis_url (resolve the embedded Redis first)")
    tokens = Tokens(settings.secret, settings.token_ttl_seconds)
    base_url = settings.base_url()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        logs.configure()
        redis = redis_pool.connect(
            settings.redis_url or "",
            size=settings.redis_pool_size,
            wait_seconds=settings.redis_pool_wait_seconds,
            retries=settings.redis_retries,
        )
        wire = redis_wire.connect(settings.redis_url or "", retries=settings.redis_retries)
        if redis_pool.is_cluster(settings.redis_url or ""):
            stalling = await coverage.stalling_primaries(wire)
            if stalling:
                log.warning(
                    "Redis Cluster primaries %s keep cluster-require-full-coverage yes: a "
                    "failover will stall every room until the replica is promoted; set it to "
                    "no on every server (README, Redis Cluster)",
                    ", ".join(stalling),
                )
        lag = Lag()  # how late the loop runs: the archiver waits while it is (server/ops/busy.py)
        metrics = NodeMetrics(settings.node_id)
        metrics.started(version())
        store = Store(redis, wire, Keys(settings.redis_prefix), metrics)
        quotas = Quotas(
            store,
            Limits(
                max_open_rooms=settings.max_open_rooms_per_user,
                max_bot_games=settings.max_bot_games_per_user,
                guests_per_hour=settings.guests_per_address_per_hour,
                max_public_per_address=settings.max_public_rooms_per_address,
            ),
        )
        rooms = RoomService(
            store,
            base_url=base_url,
            room_ttl=settings.room_ttl_seconds,
            chat_keep=settings.chat_history,
            archive_every=settings.archive_every_versions,
            archive_rescue=settings.archive_rescue_seconds,
            lease=settings.clock_lease_seconds,
            lobby_idle=settings.lobby_idle_seconds,
            host_away=settings.lobby_host_away_seconds,
            quotas=quotas,
            # Records after a step wait for a calm loop, briefly: a final record's writer
            # must take its rescue member within archive_rescue_seconds (game_end.py).
            pace=lambda: lag.calm(most=0.25),
            server_key=server_key(settings),
        )
        sealing = Sealing(rooms)
        # This process's name in presence: the node id and a suffix of its own, so a node
        # restarted under the same id is not mistaken for its dead predecessor.
        instance = f"{settings.node_id}.{secrets.token_hex(3)}"
        hub = Hub(
            redis,
            rooms,
            instance,
            settings.resume_max_versions,
            settings.max_sockets_per_user,
            max_queued_bytes=settings.max_queued_bytes,
        )
        bots = BotDriver(
            rooms,
            sealing,
            settings.secret,
            settings.bot_delay,
            settings.bot_rescue_seconds,
            settings.bot_concurrency,
        )
        clock = Clock(rooms, sealing, bots, settings)
        heartbeat = Heartbeat(rooms, clock, hub, settings)
        rooms.hooks.on_turn.append(bots.schedule)
        rooms.hooks.before_step.append(bots.before_step)
        rooms.hooks.on_started.append(clock.started)
        rooms.hooks.on_visit.append(clock.visit)
        rooms.hooks.on_seat_dropped.append(clock.seat_dropped)
        rooms.hooks.on_writing.append(hub.writing)
        rooms.hooks.on_written.append(hub.written)
        identity = Identity(
            tokens,
            store.token_generation,
            settings.token_refresh_seconds,
            standing=store.user_standing,  # the generation and a site ban in one look
        )
        gate = Floodgate(
            settings.rate_per_second,
            settings.rate_burst,
            settings.flood_cooldown_seconds,
            site=store,
        )
        app.state.services = Services(settings, tokens, rooms, sealing, hub, identity, gate)
        app.state.identity = identity  # the history routes' reader
        app.state.leaderboard_min_games = settings.leaderboard_min_games
        app.state.rating_rules = RatingRules(
            settings.rated_min_games, settings.rated_min_age_seconds
        )
        app.state.clock = clock
        app.state.heartbeat = heartbeat
        app.state.bots = bots
        app.state.redis = redis
        app.state.wire = wire  # readiness asks it of the cluster's primaries
        app.state.drain = drain = Drain(hub, store, settings)
        app.state.db = app.state.read_db = None
        archiver = None
        if settings.database_url:
            app.state.db, archiver = await _open_history(settings, redis, lag)
            # The history routes' reads: a replica when one is set (server/archive/routes.py).
            app.state.read_db = app.state.db
            if settings.database_read_url:
                app.state.read_db = await Database.connect(settings.database_read_url)
        app.state.vapid = vapid_key(settings)
        pusher = None
        if app.state.db is not None:  # subscriptions live in Postgres (server/archive/push.py)
            pusher = Pusher(
                rooms,
                app.state.db,
                app.state.vapid,
                push_settings(settings, base_url),
                _phrases(),
                node=settings.node_id,
            )
            rooms.hooks.on_written.append(pusher.written)
            rooms.hooks.reachable.append(pusher.reachable)  # slow games wait for them
            rooms.hooks.on_seat_held.append(pusher.held)
            rooms.hooks.on_invited.append(pusher.invited)
            rooms.hooks.on_quiet_over.append(pusher.quiet_over)
            await pusher.start()
        app.state.pusher = pusher
        await hub.start()
        await heartbeat.start()  # this node is announced before it serves a socket
        await clock.start()
        flushing = asyncio.create_task(metrics.keep_flushing())
        arrivals.quiet_accept_errors(asyncio.get_running_loop())
        freezing = asyncio.create_task(heap.keep())
        lagging = asyncio.create_task(lag.keep())
        # The bot ladder's arena (server/ladder/arena.py): one node at a time makes matches.
        app.state.arena = arena = Arena(rooms, settings, instance)
        arenas = [asyncio.create_task(arena.run())] if settings.ladder_tables > 0 else []
        drain.watch()
        # Under ``serve --workers N`` this worker's rooms come to it; before the drain hooks
        # SIGTERM (uvicorn's handler there is how it finds uvicorn's server).
        await homes.start()
        drain.hook_sigterm()
        log.info("node up", extra={"conn": instance})
        try:
            yield
        finally:
            await homes.stop()
            for task in (flushing, freezing, lagging, *arenas):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await drain.close()
            # Bot runs under way finish; later ones go to any node's clock
            # (server/realtime/drain.py).
            await bots.settle(settings.bot_delay * 1.25 + 5.0)
            await rooms.ending.settle(5.0)  # the records its last steps called for
            if archiver is not None:
                await archiver.stop()
            if pusher is not None:
                await pusher.stop()
            if app.state.read_db is not None and app.state.read_db is not app.state.db:
                await app.state.read_db.close()
            if app.state.db is not None:
                await app.state.db.close()
            await clock.stop()
            await heartbeat.close()  # its sockets leave: their grace times go on the clock
            await clock.close()
            await bots.close()
            await hub.close()
            await wire.close()
            await redis.aclose()
            log.info("node down", extra={"conn": instance})

    async def healthz(request: Request) -> Response:
        return JSONResponse({"ok": True, "node": settings.node_id})

    async def readyz(request: Request) -> Response:
        if request.app.state.drain.active:
            return JSONResponse({"ok": False, "draining": True}, status_code=503)
        body: dict[str, object] = {"ok": True, "redis": "up"}
        wire = request.app.state.wire
        if wire.cluster:
            # Each primary of the slot map: one down (a failover under way, or a slot range
            # lost) is "degraded" -- still ready, as the rooms on the others play on and
            # the dead one's resume once a replica takes over; none answering is not ready.
            primaries = await wire.primaries(READY_REDIS_SECONDS)
            down = sorted(name for name, ok in primaries.items() if not ok)
            if not primaries or len(down) == len(primaries):
                return JSONResponse({"ok": False, "redis": "down", "down": down}, status_code=503)
            if down:
                body.update(redis="degraded", down=down)
        else:
            try:
                await request.app.state.redis.ping()
            except Exception as exc:
                return JSONResponse({"ok": False, "redis": type(exc).__name__}, status_code=503)
        if request.app.state.db is not None:
            try:
                # Bounded: a Postgres that does not answer (frozen, a lost network) must not
                # hold the health check past its own timeout.
                await asyncio.wait_for(request.app.state.db.ping(), READY_POSTGRES_SECONDS)
                body["postgres"] = "up"
            except Exception as exc:
                # History is delayed, not lost (the archive stream waits): still ready.
                body["postgres"] = type(exc).__name__
        return JSONResponse(body)

    async def websocket(socket: WebSocket) -> None:
        if socket.app.state.drain.active:
            await socket.app.state.drain.turn_away(socket)
            return
        await serve(socket, socket.app.state.services)

    client = web.default_root()
    routes = [
        Route("/healthz", healthz),
        Route("/readyz", readyz),
        *scrape.routes,  # /metrics: operators only (a metrics token or an admin session)
        *lobby.routes,
        *bots.routes,  # players' bot accounts, the ladder's door
        *push_routes.routes,
        *signin.routes,
        *passkeys.routes,
        WebSocketRoute("/ws", websocket),
        *([Mount("/api/history", routes=history_routes)] if settings.database_url else []),
        # The operators' console (server/admin/): accounts and the audit live in Postgres.
        *(
            [Mount("/admin/api", routes=[*admin_routes, *moderation_routes])]
            if settings.database_url
            else []
        ),
        # The browser client (server/http/web.py), when this checkout has it.
        *(web.routes(client) if client.is_dir() else []),
    ]
    # A route that needs Postgres (history, admin) while it cannot be reached: 503.
    outage = {OSError: _database_outage, SQLAlchemyError: _database_outage}
    node = _Node(routes=routes, lifespan=lifespan, exception_handlers=outage)
    node.forwarded = Forwarded(settings.forwarded_allow_ips)
    node.bounds = Bounds(
        settings.head_seconds, settings.max_pending_per_address, arrivals.max_connections()
    )
    return node


async def _database_outage(request: Request, exc: Exception) -> Response:
    """A clean 503 ``unavailable`` for a request that met a Postgres outage (refused, cut,
    timed out, starting up: ``server.archive.db.unreachable``); anything else is raised
    again, a 500 logged with its traceback."""
    if not unreachable(exc):
        raise exc
    log.warning("database unavailable", extra={"kind": type(exc).__name__})
    return JSONResponse(
        {"error": {"code": UNAVAILABLE, "message": "the database is unavailable: try again"}},
        status_code=503,
        headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
    )


class _Node(Starlette):
    """The node's ASGI app: ``/ws`` goes straight to its handler, every other request
    through Starlette's middleware and router.

    A socket's handler stays suspended for the whole life of the socket, and so does every
    ASGI layer above it: Starlette's error and exception middleware, its router and its
    route each keep a coroutine frame and a few closures alive (about 4.5 KB per idle
    socket, measured with tracemalloc, where the budget is 10 KB an idle socket for
    everything). None of them does anything for a websocket that raises (they re-raise to
    uvicorn, which closes it), so the socket skips them. ``/ws`` stays a route too (the
    same handler), should a scope ever reach the router. A trusted proxy's X-Forwarded-For
    is applied here too (server/http/forwarded.py), not by uvicorn's middleware (its frame,
    too, would stay per socket)."""

    forwarded: Forwarded | None = None
    bounds: Bounds | None = None  # on connections, read by its HTTP protocol

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Coroutine[Any, Any, None]:
        """The coroutine that serves this request, made by a plain function: no frame of
        this function stays alive for the life of a socket (uvicorn is told the app is
        ASGI 3: ``uvicorn_options``; it cannot tell from a plain function)."""
        if self.forwarded is not None and scope["type"] != "lifespan":
            self.forwarded.apply(scope)
        if scope["type"] == "websocket" and scope["path"] == scope.get("root_path", "") + "/ws":
            scope["app"] = self
            socket = WebSocket(scope, receive, send)
            if self.state.drain.active:  # what the route's handler does
                return self.state.drain.turn_away(socket)  # type: ignore[no-any-return]
            return serve(socket, self.state.services, receive)
        return super().__call__(scope, receive, send)


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """How uvicorn must serve a node (the CLI and the tests alike).

    - ``ws_max_size``: uvicorn drops frames past it before the app sees them; the app's own
      limit (``settings.max_frame_bytes``) answers smaller oversize frames with an error.
    - no per-message compression: a frame with a player's hand must never share a
      compression window with text an attacker chose (chat), or the compressed sizes would
      tell the hand (CRIME/BREACH-style); frames are small JSON anyway.
    - ``http``: uvicorn's httptools protocol with a deadline for each request's head and
      newcomers refused cleanly past the node's bounds (server/realtime/http_protocol.py).
    - ``ws``: uvicorn's sans-I/O websockets protocol (no task of its own per socket), in
      the lighter form of server/realtime/socket_protocol.py (memory per idle socket).
    - ``interface``: ASGI 3, said rather than guessed (the node's ``__call__`` is a plain
      function returning a coroutine, which uvicorn would take for ASGI 2).
    - ``ws_ping_interval`` / ``ws_ping_timeout``: a keepalive ping every ``ping_seconds``;
      a socket that answers none in as long is cut off (a peer that stopped reading would
      otherwise keep what waits for it in memory for good).
    - ``proxy_headers``: off; the node applies a trusted proxy's X-Forwarded-For itself
      (server/http/forwarded.py: uvicorn's middleware would keep a frame alive per socket)."""
    return {
        "http": NodeHTTPProtocol,
        "ws": LeanWebSocketProtocol,
        "interface": "asgi3",
        "ws_max_size": max(4 * settings.max_frame_bytes, 64 * 1024),
        "ws_per_message_deflate": False,
        "ws_ping_interval": settings.ping_seconds,
        "ws_ping_timeout": settings.ping_seconds,
        "proxy_headers": False,
    }


async def _open_history(settings: Settings, redis: Client, lag: Lag) -> tuple[Database, Archiver]:
    """Schema at head (migrated, or refused), the database, and this node's archiver."""
    url = settings.database_url or ""
    if settings.migrate_on_start:
        await migrate(url)
    elif (problem := await check_schema(url)) is not None:
        raise RuntimeError(problem)
    db = await Database.connect(url)
    rules = RatingRules(settings.rated_min_games, settings.rated_min_age_seconds)
    archiver = start_archiver(
        redis, db, settings.redis_prefix, consumer=settings.node_id, rules=rules, pace=lag.calm
    )
    return db, archiver
