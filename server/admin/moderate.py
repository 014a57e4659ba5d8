"""``/admin/api``: the operators' hand on players, chat and nodes.

- ``POST /rooms/{room}/kick`` ``{user, reason}``: the user's seat is freed (in the lobby) or
  given to a bot that plays it from now on (a game under way); their sockets in the room
  are told why (``kicked``) and taken out of it. They may come back (as a spectator).
- ``POST /rooms/{room}/replace`` ``{seat, reason, level?}``: a human's seat to a bot.
- ``POST /users/{user}/ban`` ``{reason, room?, address?}``: from one room (a kick that also
  keeps them out: ``banned-from-room``, and anyone from the address their guest was made
  from, when it is known) or from the site (every route and socket refuses them: ``banned``;
  their open sockets are closed on every node; with ``address``, the address the guest was
  made from too: no new guest from it, every guest made from it and every request from it
  refused, their sockets closed: 409 ``no-address`` when it is not known). ``/unban`` lifts
  it (and its address ban).
- ``POST /users/{user}/mute`` ``{reason, room?, minutes?}``: their chat refused (``muted``)
  in one room or everywhere, for good or for ``minutes``. ``/unmute`` lifts it.
- ``GET /rooms/{room}/chat``; ``POST /rooms/{room}/chat/hide`` ``{id, reason}``: the message
  leaves every client's chat and the room's kept history; its text stays in the audit.
- ``GET /moderation``: the site's bans and mutes.
- ``POST /nodes/{instance}/drain`` ``{reason, force?}``: the node tells its sockets to
  reconnect elsewhere and takes no new ones (server/realtime/drain.py: it watches its field
  of ``nodes:draining``, so the request may reach any node). The last live node not
  draining is not drained (409 ``last-serving-node``: nowhere would be left to reconnect to)
  unless ``force`` is true (audited with ``force``). ``/undrain`` ``{reason}`` lifts an
  admin's drain: the node serves again within a heartbeat (a drain on SIGTERM cannot be
  lifted: that node is stopping).

Every action is written to the audit first (who, what, which room, why; the user, the seat,
a hidden message's text in ``details``); a refusal writes nothing and changes nothing.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from server import protocol as p
from server.admin import audit
from server.admin.routes import _db, _error, _read, _room, _said, _services, admin_only
from server.admin.sessions import Session
from server.realtime.drain import ADMIN as BY_AN_ADMIN
from server.realtime.drain import kind_of as drain_kind
from server.table import moderation
from server.table.entry import Published, pack
from server.table.room import (
    BAN_FIELD,
    BAN_MARK_FIELD,
    LOBBY,
    MUTE_FIELD,
    PLAYING,
    Room,
    RoomError,
    now_ms,
)

MAX_MUTE_MINUTES = 30 * 24 * 60
USER_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
NOT_BANNED, NOT_MUTED = "not-banned", "not-muted"
NO_SUCH_MESSAGE, NO_SUCH_NODE, DRAINING = "no-such-message", "no-such-node", "draining"
NOT_DRAINING, STOPPING = "not-draining", "stopping"
LAST_SERVING_NODE = "last-serving-node"
NO_ADDRESS = "no-address"
BY_ADMIN = "admin"  # who did it, as players are told (never the admin's name)

# The HTTP status of a refusal by its code (else 400).
STATUS = {
    p.NO_SUCH_ROOM: 404,
    NO_SUCH_MESSAGE: 404,
    NO_SUCH_NODE: 404,
    p.SEAT_EMPTY: 409,
    p.GAME_OVER: 409,
    p.GAME_NOT_STARTED: 409,
    p.BUSY: 409,
    NOT_BANNED: 409,
    NOT_MUTED: 409,
    DRAINING: 409,
    NOT_DRAINING: 409,
    NO_ADDRESS: 409,
    STOPPING: 409,
    LAST_SERVING_NODE: 409,
}

T = TypeVar("T")


class Kick(msgspec.Struct, forbid_unknown_fields=True):
    user: str
    reason: str


class Replace(msgspec.Struct, forbid_unknown_fields=True):
    seat: int
    reason: str
    level: str | None = None  # a level of the game's bots (default: heuristic, or its first)


class Sanction(msgspec.Struct, forbid_unknown_fields=True):
    reason: str
    room: str | None = None  # None: the whole site
    minutes: int | None = None  # mutes: for how long (None: until unmuted)
    name: str | None = None  # the user's name, for the console's lists
    address: bool = False  # a site ban: no new guest from the address the user came from


class Hide(msgspec.Struct, forbid_unknown_fields=True):
    id: str
    reason: str


class Because(msgspec.Struct, forbid_unknown_fields=True):
    reason: str


class Drain(msgspec.Struct, forbid_unknown_fields=True):
    reason: str
    force: bool = False  # drain it even when it is the last node serving


class Refused(Exception):
    def __init__(self, response: JSONResponse) -> None:
        self.response = response


async def _form(request: Request, kind: type[T]) -> T:
    body = await _read(request)
    if isinstance(body, JSONResponse):
        raise Refused(body)
    try:
        return msgspec.json.decode(body, type=kind)
    except msgspec.DecodeError as exc:
        fields = ", ".join(kind.__struct_fields__)  # type: ignore[attr-defined]
        raise Refused(_error(400, "bad-request", f"expected {{{fields}}}: {exc}")) from None


def _reason(text: str) -> str:
    said = _said(text.strip())
    if isinstance(said, JSONResponse):
        raise Refused(said)
    return said


def _user(raw: str) -> str:
    if not USER_ID.match(raw):
        raise Refused(_error(400, "bad-request", "a user id: 1-64 letters, digits, _ . : -"))
    return raw


def _refusal(exc: RoomError) -> JSONResponse:
    return _error(STATUS.get(exc.code, 400), exc.code, exc.message)


async def _the_room(request: Request, room_id: str | None = None) -> Room:
    if room_id is not None:
        try:
            return await _services(request).rooms.get(room_id)
        except RoomError as exc:
            raise Refused(_refusal(exc)) from None
    room = await _room(request)
    if isinstance(room, JSONResponse):
        raise Refused(room)
    return room


def guarded(handler: Any) -> Any:
    """The route's refusals (``Refused``, ``RoomError``) become their JSON errors."""

    async def route(request: Request, session: Session) -> Response:
        try:
            response: Response = await handler(request, session)
        except Refused as exc:
            return exc.response
        except RoomError as exc:
            return _refusal(exc)
        return response

    return admin_only(route)


def _bot_level(room: Room, asked: str | None) -> str:
    levels = room.game.bot_levels
    if asked is not None:
        if asked not in levels:
            raise RoomError(p.BAD_BOT_LEVEL, f"bot levels: {', '.join(levels)}")
        return asked
    return "heuristic" if "heuristic" in levels else levels[0]


async def _publish(request: Request, room_id: str, kind: str, data: dict[str, Any]) -> None:
    store = _services(request).rooms.store
    await store.publish(
        store.keys.channel(room_id), pack(Published(k=kind, room=room_id, data=data))
    )


# -- kick, replace, room bans ------------------------------------------------------------------
async def _remove(
    request: Request, session: Session, room: Room, user: str, reason: str, *, ban: bool
) -> dict[str, Any]:
    """Kick ``user`` out of ``room`` (and with ``ban`` keep them out): audited first; their
    seat freed (lobby) or given to a bot (a game under way); their sockets told why."""
    rooms = _services(request).rooms
    seat = room.seat_of(user)
    if not ban and room.status not in (LOBBY, PLAYING):
        raise RoomError(p.GAME_OVER, "the game is over: nobody to kick")
    name = room.seats[seat].name if seat is not None else None
    details = {"user": user, "name": name, "seat": seat, "scope": "room"}
    await audit.write(
        _db(request),
        session.admin,
        "ban" if ban else "kick",
        target=room.id,
        reason=reason,
        details=details,
    )
    if ban:
        banned = moderation.entry(session.admin, reason, name=name)
        await rooms.store.room_field(room.id, BAN_FIELD + user, banned)
        # The address their guest was made from: a fresh guest from there stays out too.
        address = await rooms.store.guest_address_of(user)
        if address is not None:
            by_address = moderation.entry(session.admin, reason, user=user)
            await rooms.store.room_field(room.id, BAN_MARK_FIELD + address, by_address)
    bot = None
    if seat is not None and room.status == LOBBY:
        await rooms.seats.vacate(room.id, seat)
    elif seat is not None and room.status == PLAYING:
        after, _ = await rooms.seats.to_bot(room.id, seat, _bot_level(room, None))
        bot = after.seats[seat].name
        replaced = {"seat": seat, "name": bot, "bot": after.seats[seat].bot, "by": BY_ADMIN}
        await _publish(request, room.id, "replaced", replaced)
    await _publish(request, room.id, "kicked", {"user": user, "ban": ban, "reason": reason})
    return {"room": room.id, "user": user, "seat": seat, "bot": bot, "ban": ban}


async def kick(request: Request, session: Session) -> Response:
    form = await _form(request, Kick)
    reason, user = _reason(form.reason), _user(form.user)
    room = await _the_room(request)
    return JSONResponse(await _remove(request, session, room, user, reason, ban=False))


async def replace(request: Request, session: Session) -> Response:
    """A human's seat to a bot (mid-game: it plays the seat from now on); everyone in the
    room is told (``replaced``, and the new seats in a ``room`` frame)."""
    form = await _form(request, Replace)
    reason = _reason(form.reason)
    room = await _the_room(request)
    rooms = _services(request).rooms
    if room.status not in (LOBBY, PLAYING):
        raise RoomError(p.GAME_OVER, "the game is over")
    if not 0 <= form.seat < room.players or room.seats[form.seat].user is None:
        raise RoomError(p.SEAT_EMPTY, f"seat {form.seat} holds no player")
    level = _bot_level(room, form.level)
    before = room.seats[form.seat]
    details = {"seat": form.seat, "user": before.user, "name": before.name, "level": level}
    await audit.write(
        _db(request), session.admin, "replace", target=room.id, reason=reason, details=details
    )
    after, _ = await rooms.seats.to_bot(room.id, form.seat, level)
    bot = after.seats[form.seat]
    notice = {"seat": form.seat, "name": bot.name, "bot": bot.bot, "by": BY_ADMIN}
    await _publish(request, room.id, "replaced", notice)
    return JSONResponse({"room": room.id, **notice})


# -- bans and mutes ----------------------------------------------------------------------------
async def ban(request: Request, session: Session) -> Response:
    form = await _form(request, Sanction)
    reason, user = _reason(form.reason), _user(request.path_params["user"])
    if form.room is not None:
        if form.address:
            raise Refused(_error(400, "bad-request", "address: only with a ban from the site"))
        room = await _the_room(request, form.room)
        return JSONResponse(await _remove(request, session, room, user, reason, ban=True))
    store = _services(request).rooms.store
    mark = await store.guest_address_of(user) if form.address else None
    if form.address and mark is None:
        raise RoomError(
            NO_ADDRESS,
            f"the user's address is not known (a guest made in the last "
            f"{moderation.ADDRESS_DAYS} days): ban without it",
        )
    details: dict[str, Any] = {"user": user, "name": form.name, "scope": "site"}
    if mark is not None:
        details["address"] = True  # never the address, nor its mark
    await audit.write(_db(request), session.admin, "ban", reason=reason, details=details)
    if mark is not None:
        await store.ban_address(mark, user)
    await store.set_site_entry(
        store.keys.site_bans,
        user,
        moderation.entry(session.admin, reason, name=form.name, address=mark is not None),
    )
    message = f"an operator banned you from this site: {reason}"
    said: dict[str, Any] = {"user": user, "message": message}
    if mark is not None:
        said["mark"] = mark  # every node closes the sockets of guests made there
    await store.publish_users(pack(Published(k="ban", room="", data=said)))
    return JSONResponse({"user": user, "scope": "site", "ban": True, "address": mark is not None})


async def unban(request: Request, session: Session) -> Response:
    form = await _form(request, Sanction)
    reason, user = _reason(form.reason), _user(request.path_params["user"])
    store = _services(request).rooms.store
    if form.room is not None:
        room = await _the_room(request, form.room)
        if user not in room.banned:
            raise RoomError(NOT_BANNED, "the user is not banned from this room")
        details = {"user": user, "scope": "room"}
        await audit.write(
            _db(request), session.admin, "unban", target=room.id, reason=reason, details=details
        )
        await store.room_field(room.id, BAN_FIELD + user, None)
        for address, raw in room.banned_marks.items():
            if (moderation.live(raw) or {}).get("user") == user:
                await store.room_field(room.id, BAN_MARK_FIELD + address, None)
        return JSONResponse({"user": user, "room": room.id, "ban": False})
    if await store.site_entry(store.keys.site_bans, user) is None:
        raise RoomError(NOT_BANNED, "the user is not banned from the site")
    details = {"user": user, "scope": "site"}
    await audit.write(_db(request), session.admin, "unban", reason=reason, details=details)
    await store.unban_addresses_of(user)  # new guests from there welcome again
    await store.set_site_entry(store.keys.site_bans, user, None)
    return JSONResponse({"user": user, "scope": "site", "ban": False})


async def mute(request: Request, session: Session) -> Response:
    form = await _form(request, Sanction)
    reason, user = _reason(form.reason), _user(request.path_params["user"])
    if form.minutes is not None and not 1 <= form.minutes <= MAX_MUTE_MINUTES:
        raise Refused(_error(400, "bad-request", f"minutes: from 1 to {MAX_MUTE_MINUTES}"))
    until = None if form.minutes is None else now_ms() + form.minutes * 60_000
    store = _services(request).rooms.store
    room = await _the_room(request, form.room) if form.room is not None else None
    scope = "room" if room is not None else "site"
    details = {"user": user, "name": form.name, "scope": scope, "minutes": form.minutes}
    target = room.id if room is not None else None
    await audit.write(
        _db(request), session.admin, "mute", target=target, reason=reason, details=details
    )
    mark = moderation.entry(session.admin, reason, until=until, name=form.name)
    if room is not None:
        await store.room_field(room.id, MUTE_FIELD + user, mark)
    else:
        await store.set_site_entry(store.keys.site_mutes, user, mark)
    return JSONResponse({"user": user, "scope": scope, "room": target, "until": until})


async def unmute(request: Request, session: Session) -> Response:
    form = await _form(request, Sanction)
    reason, user = _reason(form.reason), _user(request.path_params["user"])
    store = _services(request).rooms.store
    room = await _the_room(request, form.room) if form.room is not None else None
    if room is not None:
        held = moderation.live(room.muted.get(user))
    else:
        held = moderation.live(await store.site_entry(store.keys.site_mutes, user))
    if held is None:
        raise RoomError(NOT_MUTED, "the user is not muted there")
    target = room.id if room is not None else None
    details = {"user": user, "scope": "room" if room is not None else "site"}
    await audit.write(
        _db(request), session.admin, "unmute", target=target, reason=reason, details=details
    )
    if room is not None:
        await store.room_field(room.id, MUTE_FIELD + user, None)
    else:
        await store.set_site_entry(store.keys.site_mutes, user, None)
    return JSONResponse({"user": user, "room": target, "muted": False})


async def sanctions(request: Request, session: Session) -> Response:
    """The site's bans and mutes that hold: ``{bans, mutes}``, each ``[{user, by, reason,
    at, until, name?}]`` (a room's own are in its console view)."""
    store = _services(request).rooms.store
    out: dict[str, list[dict[str, Any]]] = {}
    for kind, key in (("bans", store.keys.site_bans), ("mutes", store.keys.site_mutes)):
        listed = []
        for user, raw in sorted((await store.site_list(key)).items()):
            found = moderation.live(raw)
            if found is not None:
                listed.append({"user": user, **found})
        out[kind] = listed
    return JSONResponse(out)


# -- chat --------------------------------------------------------------------------------------
async def chat(request: Request, session: Session) -> Response:
    """The room's kept chat, with each message's id (what ``hide`` names)."""
    room = await _the_room(request)
    return JSONResponse({"messages": await _services(request).rooms.chat.history(room.id)})


async def hide(request: Request, session: Session) -> Response:
    """Hide one message: the audit keeps it (its text in ``details``) before it goes from
    the room's kept chat and, through ``chat_hidden``, from every client's."""
    form = await _form(request, Hide)
    reason = _reason(form.reason)
    room = await _the_room(request)
    rooms = _services(request).rooms
    kept = [m for m in await rooms.chat.history(room.id) if m.get("id") == form.id]
    if not kept:
        raise RoomError(NO_SUCH_MESSAGE, "the room keeps no message with that id")
    message = {k: kept[0].get(k) for k in ("id", "user", "name", "text", "at")}
    await audit.write(
        _db(request),
        session.admin,
        "hide-chat",
        target=room.id,
        reason=reason,
        details={"message": message, "user": message["user"], "text": message["text"]},
    )
    if await rooms.chat.hide(room.id, form.id) is None:
        raise RoomError(NO_SUCH_MESSAGE, "the message left the room's kept chat meanwhile")
    return JSONResponse({"room": room.id, "hidden": form.id})


# -- nodes -------------------------------------------------------------------------------------
async def drain(request: Request, session: Session) -> Response:
    """Ask a live node to drain: it sees its field of ``nodes:draining`` within a heartbeat,
    tells every socket it holds to reconnect elsewhere and turns new ones away. Not the last
    live node that serves (nowhere would be left to reconnect to) unless ``force``: checked
    before the audit, and again in the one script that marks it (two drains at once)."""
    form = await _form(request, Drain)
    reason = _reason(form.reason)
    instance = request.path_params["instance"]
    store = _services(request).rooms.store
    alive = await _live_node(store, instance)
    draining = await store.draining_nodes()
    if instance in draining:
        raise RoomError(DRAINING, "the node drains already")
    if not form.force and not [n for n in alive if n != instance and n not in draining]:
        raise RoomError(LAST_SERVING_NODE, _LAST)
    details: dict[str, Any] = {"instance": instance}
    if form.force:
        details["force"] = True
    await audit.write(_db(request), session.admin, "drain", reason=reason, details=details)
    at = now_ms()
    info: dict[str, Any] = {"by": session.admin, "kind": BY_AN_ADMIN, "reason": reason, "at": at}
    if form.force:
        info["force"] = True
    marked = await store.drain_node(instance, json.dumps(info), sorted(alive), force=form.force)
    if marked == 0:
        raise RoomError(DRAINING, "the node drains already")
    if marked < 0:
        raise RoomError(LAST_SERVING_NODE, _LAST)
    return JSONResponse({"instance": instance, "draining": info})


_LAST = "no other live node would be left serving: say force to drain it anyway"


async def undrain(request: Request, session: Session) -> Response:
    """Lift an admin's drain: the node sees its field of ``nodes:draining`` gone within a
    heartbeat and serves again. A node draining on SIGTERM is stopping: refused."""
    form = await _form(request, Because)
    reason = _reason(form.reason)
    instance = request.path_params["instance"]
    store = _services(request).rooms.store
    await _live_node(store, instance)
    raw = await store.draining_of(instance)
    if raw is None:
        raise RoomError(NOT_DRAINING, "the node is not draining")
    if drain_kind(json.loads(raw)) != BY_AN_ADMIN:
        raise RoomError(STOPPING, "the node is stopping (SIGTERM): its drain cannot be lifted")
    await audit.write(
        _db(request), session.admin, "undrain", reason=reason, details={"instance": instance}
    )
    await store.lift_draining(instance)
    return JSONResponse({"instance": instance, "draining": None})


async def _live_node(store: Any, instance: str) -> set[str]:
    """The live node instances (``instance`` among them, else ``no-such-node``)."""
    alive: set[str] = {
        name for name, expires, _, _ in await store.live_nodes() if expires and expires > now_ms()
    }
    if instance not in alive:
        raise RoomError(NO_SUCH_NODE, "no live node has that instance name")
    return alive


routes = [
    Route("/rooms/{room}/kick", guarded(kick), methods=["POST"]),
    Route("/rooms/{room}/replace", guarded(replace), methods=["POST"]),
    Route("/rooms/{room}/chat", guarded(chat)),
    Route("/rooms/{room}/chat/hide", guarded(hide), methods=["POST"]),
    Route("/users/{user}/ban", guarded(ban), methods=["POST"]),
    Route("/users/{user}/unban", guarded(unban), methods=["POST"]),
    Route("/users/{user}/mute", guarded(mute), methods=["POST"]),
    Route("/users/{user}/unmute", guarded(unmute), methods=["POST"]),
    Route("/moderation", guarded(sanctions)),
    Route("/nodes/{instance}/drain", guarded(drain), methods=["POST"]),
    Route("/nodes/{instance}/undrain", guarded(undrain), methods=["POST"]),
]
