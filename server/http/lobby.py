"""HTTP: guest identities, the games on offer, creating and listing rooms.

Every route but ``POST /api/guest`` needs ``Authorization: Bearer <token>``; an answer to a
token due for refreshing carries a fresh one in ``X-Tortuga-Token``. Errors are
``{"error": {"code", "message"}}`` with the same codes as the websocket.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from engines.registry import GAMES
from server import protocol as p
from server.identity.signing import BadKey, public_key
from server.identity.tokens import BadName, BadToken, Claims, User
from server.protocol.bodies import CLOSE_CONNECTION, read_body
from server.realtime.session import Services
from server.table import moderation
from server.table.entry import Published, pack
from server.table.room import RoomError
from server.table.seats import NewRoom

TOKEN_HEADER = "X-Tortuga-Token"  # a fresh token for the one the request used


class CreateRoom(msgspec.Struct, forbid_unknown_fields=True):
    game: str
    options: dict[str, Any] = msgspec.field(default_factory=dict)
    seats: int | None = None  # default: the game's smallest table
    public: bool = True
    spectators: bool = True
    deadlines: dict[str, float | None] = msgspec.field(default_factory=dict)
    takeback: bool = False
    absent: Literal["bot", "default"] = "bot"  # who plays a seat gone past the grace time
    player_bots: bool = True  # players' bot accounts may sit (docs/BOTS.md)
    again: str | None = None  # "Play again" after this room's game: its players are invited


class Guest(msgspec.Struct):
    name: str


class DeviceKey(msgspec.Struct, forbid_unknown_fields=True):
    key: str  # base64url of the uncompressed P-256 point (server/identity/signing.py)


MAX_DEVICE_KEYS = 32  # devices one user may register


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def _services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


async def _user(request: Request) -> User:
    """The token's user (BadToken: none, forged, expired or signed out). The token is kept
    on the request so that the answer can carry a fresh one (``handle``)."""
    identity = _services(request).identity
    claims = await identity.from_header(request.headers.get("authorization"), _address(request))
    request.state.claims = claims
    return claims.user


def _address(request: Request) -> str:
    """The client's address (uvicorn's, or a trusted proxy's X-Forwarded-For when the proxy
    is one of settings.forwarded_allow_ips: server/http/forwarded.py)."""
    return request.client.host if request.client is not None else "unknown"


async def _body(request: Request, kind: type[Any]) -> Any:
    settings = _services(request).settings
    try:
        raw = await read_body(request, settings.max_frame_bytes)
        obj = p.parse_json(raw, settings.max_json_depth, "the body")
    except p.ProtocolError as exc:
        raise RoomError(exc.code, exc.message) from None
    try:
        return msgspec.convert(obj, type=kind)
    except msgspec.ValidationError as exc:
        raise RoomError(p.BAD_MESSAGE, str(exc)) from None


_STATUS = {
    p.NO_SUCH_ROOM: 404,
    "no-such-game": 404,
    p.BAD_TOKEN: 401,
    p.BODY_TOO_LARGE: 413,
    p.TOO_MANY_ROOMS: 429,
    p.TOO_MANY_PUBLIC_ROOMS: 429,
    p.TOO_MANY_BOT_GAMES: 429,
    p.TOO_MANY_GUESTS: 429,
    p.TOO_MANY_KEYS: 429,
    p.BANNED: 403,
    "too-many-bots": 429,
    "no-such-bot": 404,
    "not-for-bots": 403,
    "too-many-links": 429,  # server/http/signin.py
    "too-many-passkeys": 429,  # server/http/passkeys.py
    "no-such-passkey": 404,
    "no-passkeys": 503,
    p.RATE_LIMITED: 429,
}


def handle(endpoint: Any) -> Any:
    """Turn refusals into JSON errors."""

    async def wrapped(request: Request) -> Response:
        try:
            response: Response = await endpoint(request)
        except BadToken as exc:  # Banned too: 403 ``banned``
            return _error(exc.status, exc.code, str(exc))
        except RoomError as exc:
            refusal = _error(_STATUS.get(exc.code, 400), exc.code, exc.message)
            if exc.code == p.BODY_TOO_LARGE:  # the rest of the body is never read
                refusal.headers.update(CLOSE_CONNECTION)
            return refusal
        claims = getattr(request.state, "claims", None)
        if isinstance(claims, Claims):
            fresh = _services(request).identity.fresh(claims)
            if fresh is not None:
                response.headers[TOKEN_HEADER] = fresh
        return response

    return wrapped


@handle
async def guest(request: Request) -> Response:
    body: Guest = await _body(request, Guest)
    services = _services(request)
    # The client's address, kept only as a keyed hash (server/table/moderation.py), in the
    # guest's token too: an address ban reaches every guest made from it.
    address = _address(request)
    mark = services.tokens.mark(address)
    try:
        token, user = services.tokens.guest(body.name, mark)
    except BadName as exc:
        raise RoomError("bad-name", str(exc)) from None
    store = services.rooms.store
    if await store.address_banned(mark):
        raise RoomError(p.BANNED, "the site's operators refuse new guests from this address")
    if services.rooms.quotas is not None:
        await services.rooms.quotas.take_guest(address)
    await store.note_guest_address(user.id, mark, moderation.ADDRESS_DAYS * 86400)
    return JSONResponse({"token": token, "user": user.to_json()})


@handle
async def games(request: Request) -> Response:
    await _user(request)
    return JSONResponse(
        {
            "games": [
                {
                    "id": g.id,
                    "title": g.title,
                    "seats": {
                        "min": g.seats.start,
                        "max": g.seats.stop - 1,
                        "ghost_hand_at": list(g.ghost_hand_at),
                    },
                    "bot_levels": list(g.bot_levels),
                    "options": g.options_schema(),
                }
                for g in GAMES.values()
            ]
        }
    )


def _address_mark(request: Request) -> str:
    """The client's address as the node sees it (a trusted proxy's X-Forwarded-For applied,
    server/http/forwarded.py), as the site keeps it: a keyed hash."""
    address = request.client.host if request.client is not None else "unknown"
    return moderation.address_mark(_services(request).settings.secret, address)


@handle
async def create_room(request: Request) -> Response:
    user = await _user(request)
    body: CreateRoom = await _body(request, CreateRoom)
    game = GAMES.get(body.game)
    seats = body.seats if body.seats is not None else (game.seats.start if game else 0)
    service = _services(request).rooms.seats
    invited = await service.invitees(user.id, body.again) if body.again is not None else ()
    ask = NewRoom(
        game=body.game,
        options=body.options,
        players=seats,
        public=body.public,
        spectators=body.spectators,
        deadlines=dict(body.deadlines),
        takeback=body.takeback,
        absent=body.absent,
        player_bots=body.player_bots,
        address=_address_mark(request),
        again_of=body.again,
        invited=invited,
    )
    room = await service.create(user.id, user.name, ask)
    return JSONResponse(room.summary(_services(request).rooms.base_url), status_code=201)


@handle
async def list_rooms(request: Request) -> Response:
    await _user(request)
    services = _services(request)
    return JSONResponse(
        {"rooms": await services.rooms.listing.list_public(services.settings.rooms_listed)}
    )


@handle
async def get_room(request: Request) -> Response:
    user = await _user(request)
    code = request.path_params["code"]
    if not isinstance(code, str):
        raise RoomError(p.NO_SUCH_ROOM, "there is no such room")
    services = _services(request)
    room = await services.rooms.find(code, presence=True)
    body = room.summary(services.rooms.base_url)
    body["turn"] = await services.rooms.turns.turn_of(room, user.id)
    return JSONResponse(body)


@handle
async def sign_out(request: Request) -> Response:
    """Sign out everywhere: every token of the user issued so far dies (on every node at
    once: the generation is in Redis). The answer is a token of the new generation, for
    the browser that asked; it may drop it to sign out here too."""
    user = await _user(request)
    mark = request.state.claims.mark
    services = _services(request)
    gen = await services.rooms.store.sign_out(
        user.id,
        lambda g: pack(Published(k="signout", data={"user": user.id, "gen": g})),
    )
    request.state.claims = None
    token = services.tokens.issue(user, gen, mark=mark)
    return JSONResponse({"token": token, "user": user.to_json()})


@handle
async def register_key(request: Request) -> Response:
    """A device's public key, registered with the token's user (again: no change): the
    device signs its moves with the private key, and its sockets name the key (``kid``) in
    ``auth``. ``bad-key`` for anything but a P-256 point in base64url."""
    user = await _user(request)
    body: DeviceKey = await _body(request, DeviceKey)
    try:
        kid, _key = public_key(body.key)
    except BadKey as exc:
        raise RoomError(p.BAD_KEY, str(exc)) from None
    store = _services(request).rooms.store
    if not await store.register_key(user.id, kid, body.key, MAX_DEVICE_KEYS):
        raise RoomError(p.TOO_MANY_KEYS, f"a user registers at most {MAX_DEVICE_KEYS} devices")
    return JSONResponse({"kid": kid, "user": user.id}, status_code=201)


@handle
async def my_rooms(request: Request) -> Response:
    """The rooms the token's user sits in (lobby and playing), most recent activity first,
    each with ``seat`` and ``turn`` (whose move; ``turn.you``: this user owes one)."""
    user = await _user(request)
    return JSONResponse({"rooms": await _services(request).rooms.turns.my_rooms(user.id)})


routes = [
    Route("/api/guest", guest, methods=["POST"]),
    Route("/api/games", games, methods=["GET"]),
    Route("/api/rooms", list_rooms, methods=["GET"]),
    Route("/api/rooms", create_room, methods=["POST"]),
    Route("/api/rooms/{code}", get_room, methods=["GET"]),
    Route("/api/me/rooms", my_rooms, methods=["GET"]),
    Route("/api/me/signout", sign_out, methods=["POST"]),
    Route("/api/me/keys", register_key, methods=["POST"]),
]
