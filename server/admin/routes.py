"""``/admin/api``: the operators' console over HTTP.

``POST /login`` (``{name, password}``) opens an admin session; every other route needs
``Authorization: Bearer adm_...`` of a live one (a player's token, none, an expired or a
revoked one: 401 ``not-admin``). A login is JSON (415 ``not-json``), its attempts are
rate-limited per client address and per (name, address) in Redis, on every node together
(429 ``too-many-logins``), and its password checks are bounded per node (503 ``busy``):
server/admin/logins.py. Every action is written to the audit (server/admin/audit.py).
"""

from __future__ import annotations

import hmac
import json
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from server.admin import audit, clocks, console, logins, sessions
from server.archive.db import Database
from server.identity.text import BadText, clean_text
from server.protocol.bodies import CLOSE_CONNECTION, read_body
from server.protocol.errors import BODY_TOO_LARGE, ProtocolError
from server.realtime.session import Services
from server.table.entry import Published, pack
from server.table.room import INSPECTED_KEPT, Room, RoomError

MAX_BODY = 4096
MAX_ANNOUNCEMENT = 500  # characters
DEFAULT_ANNOUNCE_MINUTES = 60  # how long an announcement stands unless told
MAX_ANNOUNCE_MINUTES = 7 * 24 * 60
CLOSED_BY_ADMIN = "admin"  # an abandoned game's ``reason`` when an admin closed it
AUTOMATION = "automation"  # the admin of TORTUGA_ADMIN_TOKEN (accounts.RESERVED)


class Login(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    password: str


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


async def _read(request: Request) -> bytes | JSONResponse:
    """The request body, at most ``MAX_BODY`` bytes, or the refusal to answer with: 413
    ``body-too-large`` as soon as it is known to be longer, the rest never read."""
    try:
        return await read_body(request, MAX_BODY)
    except ProtocolError as exc:
        if exc.code != BODY_TOO_LARGE:
            return _error(400, "bad-request", str(exc))
        refusal = _error(413, exc.code, str(exc))
        refusal.headers.update(CLOSE_CONNECTION)
        return refusal


def _db(request: Request) -> Database:
    db: Database = request.app.state.db
    return db


def _services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


def _grace_ms(request: Request) -> int:
    return int(_services(request).settings.grace_seconds * 1000)


def _address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _checks(request: Request) -> logins.Checks:
    """This node's password checks (made at its first login)."""
    state = request.app.state
    checks: logins.Checks | None = getattr(state, "admin_login_checks", None)
    if checks is None:
        checks = logins.Checks(_services(request).settings.admin_login_checks)
        state.admin_login_checks = checks
    return checks


async def login(request: Request) -> Response:
    if not logins.is_json(request.headers.get("content-type")):
        return _error(415, "not-json", "a login is JSON: Content-Type: application/json")
    body = await _read(request)
    if isinstance(body, JSONResponse):
        return body
    try:
        form = msgspec.json.decode(body, type=Login)
    except msgspec.DecodeError as exc:
        return _error(400, "bad-request", f"expected {{name, password}}: {exc}")
    name = form.name.strip().lower()[:64]
    services = _services(request)
    if not await logins.allowed(services.rooms.store, services.settings, name, _address(request)):
        return _error(429, "too-many-logins", "too many login attempts: wait and try again")
    db = _db(request)
    try:
        ok = await _checks(request).check(db, name, form.password)
    except logins.Busy:
        refused = _error(503, "busy", "too many logins are being checked: try again shortly")
        refused.headers["Retry-After"] = "1"
        return refused
    if not ok:
        return _error(401, "bad-login", "wrong admin name or password, or a disabled account")
    settings = _services(request).settings
    token = await sessions.open_session(db, name, settings.admin_session_seconds, _address(request))
    await audit.write(db, name, "login", details={"address": _address(request)})
    session = await sessions.lookup(db, token)
    expires = session.expires_at.isoformat() if session.expires_at is not None else None
    return JSONResponse({"token": token, "admin": name, "expires_at": expires})


Handler = Callable[[Request, sessions.Session], Awaitable[Response]]


def _automation(request: Request, token: str) -> sessions.Session | None:
    """The session of the environment's admin token (TORTUGA_ADMIN_TOKEN) when ``token`` is
    it (a constant-time comparison); None when it is not, or when no such token is set."""
    expected = _services(request).settings.admin_token
    if expected and hmac.compare_digest(token.encode(), expected.encode()):
        return sessions.Session(AUTOMATION, "", None, automation=True)
    return None


def admin_only(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """The route answers only to a live admin session (401 ``not-admin`` otherwise)."""

    async def route(request: Request) -> Response:
        try:
            token = sessions.bearer(request.headers.get("authorization"))
            session = _automation(request, token) or await sessions.lookup(_db(request), token)
        except sessions.NotAdmin as exc:
            return _error(401, "not-admin", str(exc))
        return await handler(request, session)

    return route


async def logout(request: Request, session: sessions.Session) -> Response:
    if session.automation:
        return _error(400, "not-a-session", "the environment's admin token cannot sign out")
    db = _db(request)
    await sessions.revoke(db, session)
    await audit.write(db, session.admin, "logout")
    return JSONResponse({"ok": True})


async def me(request: Request, session: sessions.Session) -> Response:
    expires = session.expires_at.isoformat() if session.expires_at is not None else None
    return JSONResponse({"admin": session.admin, "expires_at": expires})


def _int(value: str | None, default: int | None, low: int, high: int) -> int | None:
    if value is None or value == "":
        return default
    return max(low, min(high, int(value)))


async def audit_list(request: Request, session: sessions.Session) -> Response:
    q = request.query_params
    try:
        limit = _int(q.get("limit"), 50, 1, 200) or 50
        before = _int(q.get("before"), None, 1, 2**62)
    except ValueError:
        return _error(400, "bad-request", "limit and before are whole numbers")
    found: list[dict[str, Any]] = await audit.search(
        _db(request),
        admin=q.get("admin") or None,
        action=q.get("action") or None,
        target=q.get("room") or None,
        text=q.get("q") or None,
        before=before,
        limit=limit,
    )
    return JSONResponse({"entries": found})


async def rooms_list(request: Request, session: sessions.Session) -> Response:
    q = request.query_params
    found = await console.all_rooms(
        _services(request).rooms,
        status=q.get("status") or None,
        game=q.get("game") or None,
        q=q.get("q") or None,
        grace_ms=_grace_ms(request),
    )
    return JSONResponse({"rooms": found})


async def room_detail(request: Request, session: sessions.Session) -> Response:
    try:
        rooms = _services(request).rooms
        room = await console.one_room(rooms, request.path_params["room"], _grace_ms(request))
    except RoomError as exc:
        return _error(404, exc.code, exc.message)
    return JSONResponse({"room": room})


async def nodes_list(request: Request, session: sessions.Session) -> Response:
    return JSONResponse({"nodes": await console.nodes(_services(request).rooms)})


class Because(msgspec.Struct, forbid_unknown_fields=True):
    reason: str


async def _reason(request: Request) -> str | JSONResponse:
    """The ``{"reason"}`` an action needs: said in a few words, at most 500 characters."""
    body = await _read(request)
    if isinstance(body, JSONResponse):
        return body
    try:
        reason = msgspec.json.decode(body, type=Because).reason.strip()
    except msgspec.DecodeError as exc:
        return _error(400, "bad-request", f"expected {{reason}}: {exc}")
    return _said(reason)


def _said(reason: str) -> str | JSONResponse:
    """A reason as the audit keeps it: said in a few words, at most 500 characters."""
    if not reason or len(reason) > audit.MAX_REASON:
        return _error(400, "reason-required", "say why, in 1 to 500 characters")
    return reason


async def _room(request: Request) -> Room | JSONResponse:
    """The room the path names, or 404."""
    try:
        return await _services(request).rooms.get(request.path_params["room"])
    except RoomError as exc:
        return _error(404, exc.code, exc.message)


async def _room_under_way(request: Request) -> Room | JSONResponse:
    """The room the path names with a game under way: 404 without the room, 409 without
    the game."""
    room = await _room(request)
    if isinstance(room, Room) and room.status != "playing":
        return _error(409, "game-not-started", f"the room is {room.status}: no game under way")
    return room


async def close_room(request: Request, session: sessions.Session) -> Response:
    """End the game under way for everyone (the abandon path: every socket gets the last
    version with reason ``admin`` and the seed; the record is archived as abandoned)."""
    reason = await _reason(request)
    if isinstance(reason, JSONResponse):
        return reason
    room = await _room_under_way(request)
    if isinstance(room, JSONResponse):
        return room
    rooms, room_id = _services(request).rooms, room.id
    await audit.write(_db(request), session.admin, "close", target=room_id, reason=reason)
    try:
        closed = await rooms.ending.abandon(room_id, None, CLOSED_BY_ADMIN)
    except RoomError as exc:
        return _error(409, exc.code, exc.message)
    return JSONResponse({"room": {"id": closed.id, "status": closed.status}})


class Announcement(msgspec.Struct, forbid_unknown_fields=True):
    text: str = ""
    room: str | None = None  # None: every room
    minutes: int = DEFAULT_ANNOUNCE_MINUTES  # how long it stands (snapshots carry it)
    clear: bool = False  # take the standing announcement down instead


async def announce(request: Request, session: sessions.Session) -> Response:
    """A message from the operators to one room or to every room: an ``announce`` frame
    on each room's channel, so every socket in it gets it, on whichever node. It stands for
    ``minutes`` (kept in Redis: a snapshot -- a reload, a new socket -- carries it) unless
    cleared earlier (``clear``: an ``unannounce`` frame)."""
    body = await _read(request)
    if isinstance(body, JSONResponse):
        return body
    try:
        form = msgspec.json.decode(body, type=Announcement)
        text = "" if form.clear else clean_text(form.text, MAX_ANNOUNCEMENT)
    except (msgspec.DecodeError, BadText) as exc:
        return _error(400, "bad-request", f"expected {{text, room?, minutes?}}: {exc}")
    if not 1 <= form.minutes <= MAX_ANNOUNCE_MINUTES:
        return _error(400, "bad-request", f"minutes: from 1 to {MAX_ANNOUNCE_MINUTES}")
    rooms = _services(request).rooms
    store = rooms.store
    if form.room is not None:
        try:
            targets = [(await rooms.get(form.room)).id]
        except RoomError as exc:
            return _error(404, exc.code, exc.message)
    else:
        targets = await store.all_room_ids(console.MAX_ROOMS)
    details: dict[str, Any] = {"rooms": len(targets)}
    if not form.clear:
        details.update(text=text, minutes=form.minutes)
    action = "clear-announcement" if form.clear else "announce"
    await audit.write(_db(request), session.admin, action, target=form.room, details=details)
    at = datetime.now(UTC).isoformat(timespec="milliseconds")
    until = int(time.time() * 1000) + form.minutes * 60_000
    data: dict[str, Any] = {"text": text, "at": at, "until": until}
    kind = "unannounce" if form.clear else "announce"
    if form.clear:
        data = {"at": at}
    standing = None if form.clear else json.dumps(data, separators=(",", ":"))
    if form.room is None:
        await store.set_announcement(standing, form.minutes * 60_000)
    for room_id in targets:
        payload = pack(Published(k=kind, room=room_id, data=data))
        if form.room is not None:
            await store.room_field(room_id, "announce", standing, payload)
        else:
            await store.publish(store.keys.channel(room_id), payload)
    return JSONResponse({"rooms": len(targets), "until": None if form.clear else until})


async def reveal(request: Request, session: sessions.Session) -> Response:
    """Every seat's view of the game under way (what each player sees, hands included),
    for an admin who says why. The audit row is committed BEFORE anything is read for the
    answer; the room's players are then told that an admin looked (``inspected``), with
    nothing of who, why or what, and the room keeps it for the rest of the game (its
    summary's ``inspected``: how often, when) and for the game's record."""
    reason = await _reason(request)
    if isinstance(reason, JSONResponse):
        return reason
    room = await _room(request)
    if isinstance(room, JSONResponse):
        return room
    rooms, room_id = _services(request).rooms, room.id
    if room.state is None:
        return _error(409, "game-not-started", f"the room is {room.status}: no game to show")
    await audit.write(
        _db(request),
        session.admin,
        "reveal",
        target=room_id,
        reason=reason,
        details={"version": room.version},
    )
    game = room.game
    state = game.decode(room.state)
    views = [game.view(state, seat) for seat in range(room.players)]
    at = datetime.now(UTC).isoformat(timespec="seconds")
    payload = pack(Published(k="inspected", room=room_id, data={"at": at}))
    # Kept with the room (snapshots and resumes carry it; the game's record too), so a
    # player away now learns of it on their return.
    await rooms.store.note_inspected(room_id, room.game_no, at, INSPECTED_KEPT, payload)
    return Response(
        msgspec.json.encode({"room": room_id, "version": room.version, "views": views}),
        media_type="application/json",
    )


class Extension(msgspec.Struct, forbid_unknown_fields=True):
    seconds: int
    reason: str


async def extend(request: Request, session: sessions.Session) -> Response:
    """Push the deadline of what a game under way waits for now by ``seconds`` (1 to a
    day), for an admin who says why: audited, then one compare-and-set; every socket in
    the room gets a ``deadline`` frame with the new time."""
    body = await _read(request)
    if isinstance(body, JSONResponse):
        return body
    try:
        form = msgspec.json.decode(body, type=Extension)
    except msgspec.DecodeError as exc:
        return _error(400, "bad-request", f"expected {{seconds, reason}}: {exc}")
    reason = _said(form.reason.strip())
    if isinstance(reason, JSONResponse):
        return reason
    if not 1 <= form.seconds <= clocks.MAX_EXTEND_SECONDS:
        return _error(400, "bad-request", "seconds: from 1 to 86400")
    room = await _room_under_way(request)
    if isinstance(room, JSONResponse):
        return room
    rooms, room_id = _services(request).rooms, room.id
    if room.paused_at is not None:
        return _error(409, clocks.PAUSED, "the room's clocks are paused: resume them first")
    await audit.write(
        _db(request),
        session.admin,
        "extend",
        target=room_id,
        reason=reason,
        details={"version": room.version, "seconds": form.seconds},
    )
    try:
        notice = await clocks.extend(rooms, room_id, form.seconds)
    except RoomError as exc:
        return _error(409, exc.code, exc.message)
    return JSONResponse({"room": room_id, **notice})


async def _clock_action(request: Request, session: sessions.Session, action: str) -> Response:
    reason = await _reason(request)
    if isinstance(reason, JSONResponse):
        return reason
    room = await _room_under_way(request)
    if isinstance(room, JSONResponse):
        return room
    rooms, room_id = _services(request).rooms, room.id
    if action == "pause" and room.paused_at is not None:
        return _error(409, clocks.PAUSED, "the room's clocks are paused already")
    if action == "resume" and room.paused_at is None:
        return _error(409, clocks.NOT_PAUSED, "the room's clocks are not paused")
    details = {"version": room.version}
    await audit.write(
        _db(request), session.admin, action, target=room_id, reason=reason, details=details
    )
    try:
        if action == "pause":
            notice = await clocks.pause(rooms, room_id)
        else:
            notice = await clocks.resume(rooms, room_id)
    except RoomError as exc:
        return _error(409, exc.code, exc.message)
    return JSONResponse({"room": room_id, **notice})


async def pause(request: Request, session: sessions.Session) -> Response:
    """Stop a game's clocks (audited, reason required): no deadline fires, bots and
    stand-ins wait; players may still move. Every socket gets ``paused``."""
    return await _clock_action(request, session, "pause")


async def resume(request: Request, session: sessions.Session) -> Response:
    """Start a paused game's clocks again (audited, reason required): the current deadline
    gets the time it had left. Every socket gets ``unpaused``."""
    return await _clock_action(request, session, "resume")


class LobbyLock(msgspec.Struct, forbid_unknown_fields=True):
    locked: bool
    reason: str = ""


async def lobby_state(request: Request, session: sessions.Session) -> Response:
    why = await _services(request).rooms.store.lobby_locked()
    return JSONResponse({"locked": why is not None, "reason": why})


async def lock_lobby(request: Request, session: sessions.Session) -> Response:
    """Lock the lobby (no new rooms on any node; games under way go on) or unlock it."""
    body = await _read(request)
    if isinstance(body, JSONResponse):
        return body
    try:
        form = msgspec.json.decode(body, type=LobbyLock)
    except msgspec.DecodeError as exc:
        return _error(400, "bad-request", f"expected {{locked, reason}}: {exc}")
    reason = form.reason.strip()
    if not reason or len(reason) > audit.MAX_REASON:
        return _error(400, "reason-required", "say why, in 1 to 500 characters")
    action = "lock-lobby" if form.locked else "unlock-lobby"
    await audit.write(_db(request), session.admin, action, reason=reason)
    await _services(request).rooms.store.lock_lobby(reason if form.locked else None)
    return JSONResponse({"locked": form.locked, "reason": reason if form.locked else None})


routes = [
    Route("/login", login, methods=["POST"]),
    Route("/logout", admin_only(logout), methods=["POST"]),
    Route("/me", admin_only(me)),
    Route("/audit", admin_only(audit_list)),
    Route("/rooms", admin_only(rooms_list)),
    Route("/rooms/{room}", admin_only(room_detail)),
    Route("/rooms/{room}/close", admin_only(close_room), methods=["POST"]),
    Route("/rooms/{room}/reveal", admin_only(reveal), methods=["POST"]),
    Route("/rooms/{room}/extend", admin_only(extend), methods=["POST"]),
    Route("/rooms/{room}/pause", admin_only(pause), methods=["POST"]),
    Route("/rooms/{room}/resume", admin_only(resume), methods=["POST"]),
    Route("/nodes", admin_only(nodes_list)),
    Route("/announce", admin_only(announce), methods=["POST"]),
    Route("/lobby", admin_only(lobby_state)),
    Route("/lobby", admin_only(lock_lobby), methods=["POST"]),
]
