"""The history endpoints, to mount under ``/api/history``:

    GET /users/{user_id}/games?limit=&offset=   a user's games, most recent first
    GET /games/{game_id}?wait=                  one game: row, seats, the whole move log
                                                (``wait``: up to that many seconds for a
                                                game not in the archive yet)
    GET /games/{game_id}/replay?view=a,b&wait=  every version as seen after the game, verified
                                                (``view``: only these fields of each view;
                                                ``wait``: for a game whose end is on its way)
    GET /games/{game_id}/verify                 recompute from the seed: "verified" or what differs
    GET /leaderboard/{engine}?limit=&offset=    rated users of one game, best first
    GET /ladder/{engine}                        the bot ladder of one game and its latest games

They read the history database from ``request.app.state.read_db`` (a read replica when the
node has one), else ``request.app.state.db`` (each a ``server.archive.db.Database``), and
know who asks from an optional ``Authorization: Bearer <token>``, checked by
``request.app.state.identity`` (a ``server.identity.tokens.Identity``):

    from starlette.routing import Mount
    from server.archive.routes import routes as history_routes

    Mount("/api/history", routes=history_routes)          # in create_app's routes
    app.state.db = await Database.connect(database_url)    # in the lifespan
    app.state.identity = identity

What a reader sees (``history.py``): a private game only if they sat in it (else it does not
exist for them); someone else's games only when public and over; before a game is over,
another seat's moves only where they are public (a sealed phase's, revealed).

Errors are JSON in the lobby's shape: ``{"error": {"code", "message"}}`` with ``code``
``not-found`` (404), ``not-over`` (409), ``bad-request`` (400) or ``bad-token`` (401); while
Postgres cannot be reached, ``unavailable`` (503: the node's handler, server/app.py).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from engines import registry
from server.archive import history
from server.archive.db import Database
from server.archive.ladder import ladder_board
from server.archive.write import RatingRules
from server.identity.tokens import BadToken, Identity


def _json(data: Any, status: int = 200) -> Response:
    return Response(msgspec.json.encode(data), status, media_type="application/json")


def _error(status: int, code: str, message: str) -> Response:
    return _json({"error": {"code": code, "message": message}}, status)


def _db(request: Request) -> Database:
    """Where history is read: ``app.state.read_db`` (a read replica, when the node has one:
    ``TORTUGA_DATABASE_READ_URL``), else ``app.state.db`` (the primary). Every route here
    only reads; a replica's lag only delays a just-finished game's page."""
    db = getattr(request.app.state, "read_db", None) or getattr(request.app.state, "db", None)
    if not isinstance(db, Database):
        raise RuntimeError("app.state.db is not set: the history routes need a Database")
    return db


MAX_OFFSET = 1_000_000  # deeper pages than this are refused (Postgres takes 64-bit offsets)


def _int(request: Request, name: str, default: int, low: int, high: int) -> int:
    """A whole-number query parameter in ``low..high`` (ValueError names the bad one)."""
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 9 or not low <= int(raw) <= high:
        raise ValueError(f"{name} is a whole number from {low} to {high}")
    return int(raw)


async def _reader(request: Request) -> str | None:
    """Who asks: the user of the bearer token, or None (nobody signed in). A token that is
    given but not good is an error (BadToken), not a silent downgrade to nobody."""
    header = request.headers.get("authorization")
    if header is None:
        return None
    identity = getattr(request.app.state, "identity", None)
    if not isinstance(identity, Identity):
        raise BadToken("this site checks no tokens here")
    address = request.client.host if request.client is not None else None
    return (await identity.from_header(header, address)).user.id


Query = Callable[[AsyncSession, str | None], Awaitable[Any]]


async def _answer(request: Request, query: Query) -> Response:
    """Run one history query for the asking user in a session; its "no such game" / "not
    over" become errors, and so does a bad token."""
    try:
        reader = await _reader(request)
    except BadToken as exc:  # Banned too: 403 ``banned``
        return _error(exc.status, exc.code, str(exc))
    async with _db(request).session() as session:
        try:
            return _json(await query(session, reader))
        except history.NotFound as exc:
            return _error(404, "not-found", str(exc))
        except history.NotOver as exc:
            return _error(409, "not-over", str(exc))


def _rules(request: Request) -> tuple[RatingRules, int]:
    """The site's rating rules (``app.state.rating_rules``) and after how many rated games
    a leaderboard lists a player (``app.state.leaderboard_min_games``)."""
    rules = getattr(request.app.state, "rating_rules", None)
    listed_after = int(getattr(request.app.state, "leaderboard_min_games", 1))
    return (rules if isinstance(rules, RatingRules) else RatingRules()), listed_after


def _page(request: Request) -> tuple[int, int]:
    """``limit`` and ``offset`` from the query string (ValueError names the bad one)."""
    return (
        _int(request, "limit", 50, 1, history.MAX_LIMIT),
        _int(request, "offset", 0, 0, MAX_OFFSET),
    )


async def user_games(request: Request) -> Response:
    try:
        limit, offset = _page(request)
    except ValueError as exc:
        return _error(400, "bad-request", str(exc))
    user_id = request.path_params["user_id"]
    rules, listed_after = _rules(request)
    return await _answer(
        request,
        lambda s, r: history.user_games(
            s, user_id, r, limit=limit, offset=offset, rules=rules, listed_after=listed_after
        ),
    )


WAIT_LOOK = 0.25  # how often a request that waits for a game looks for it again


async def game(request: Request) -> Response:
    """One game. With ``wait`` (seconds, at most 10) a game not in the archive yet -- one that
    just ended, on its way there -- is looked for again until it is, or the time is up: the
    end of a game's page asks once, without a string of "not found" answers."""
    game_id = request.path_params["game_id"]
    try:
        wait = _int(request, "wait", 0, 0, 10)
    except ValueError as exc:
        return _error(400, "bad-request", str(exc))
    rules, listed_after = _rules(request)
    until = time.monotonic() + wait
    while True:
        answer = await _answer(
            request,
            lambda s, r: history.game_record(s, game_id, r, rules=rules, listed_after=listed_after),
        )
        if answer.status_code != 404 or time.monotonic() >= until:
            return answer
        await asyncio.sleep(WAIT_LOOK)


_FIELD = re.compile(r"[a-z][a-z0-9_]{0,40}")


async def replay(request: Request) -> Response:
    """A finished game's replay. With ``wait`` (seconds, at most 10) a game on its way to the
    archive -- not there yet (404) or there only as under way (409, its checkpoints) -- is
    looked for again until its end is stored, or the time is up."""
    game_id = request.path_params["game_id"]
    fields: tuple[str, ...] | None = None
    if (raw := request.query_params.get("view")) is not None:
        fields = tuple(raw.split(","))
        if not 0 < len(fields) <= 16 or not all(_FIELD.fullmatch(f) for f in fields):
            return _error(400, "bad-request", "view is up to 16 field names, comma-separated")
    try:
        wait = _int(request, "wait", 0, 0, 10)
    except ValueError as exc:
        return _error(400, "bad-request", str(exc))
    until = time.monotonic() + wait
    while True:
        answer = await _answer(
            request, lambda s, r: history.replay_game(s, game_id, r, fields=fields)
        )
        if answer.status_code not in (404, 409) or time.monotonic() >= until:
            return answer
        await asyncio.sleep(WAIT_LOOK)


async def verify(request: Request) -> Response:
    game_id = request.path_params["game_id"]

    return await _answer(request, lambda s, r: history.verify_game_for(s, game_id, r))


async def leaderboard(request: Request) -> Response:
    engine = request.path_params["engine"]
    if engine not in registry.GAMES:
        return _error(404, "not-found", f"no game {engine!r}; known: {', '.join(registry.GAMES)}")
    try:
        limit, offset = _page(request)
    except ValueError as exc:
        return _error(400, "bad-request", str(exc))
    rules, min_games = _rules(request)
    return await _answer(
        request,
        lambda s, r: history.leaderboard(
            s, engine, limit=limit, offset=offset, min_games=min_games, rules=rules, reader=r
        ),
    )


async def ladder(request: Request) -> Response:
    """The bot ladder of one game (server/archive/ladder.py): public, like the leaderboard."""
    engine = request.path_params["engine"]
    if engine not in registry.GAMES:
        return _error(404, "not-found", f"no game {engine!r}; known: {', '.join(registry.GAMES)}")
    return await _answer(request, lambda s, _r: ladder_board(s, engine))


routes = [
    Route("/ladder/{engine}", ladder, methods=["GET"]),
    Route("/users/{user_id}/games", user_games, methods=["GET"]),
    Route("/games/{game_id}", game, methods=["GET"]),
    Route("/games/{game_id}/replay", replay, methods=["GET"]),
    Route("/games/{game_id}/verify", verify, methods=["GET"]),
    Route("/leaderboard/{engine}", leaderboard, methods=["GET"]),
]
