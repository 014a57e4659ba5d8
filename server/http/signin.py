"""HTTP: one identity on every device -- a one-time sign-in link (with its QR code) that
signs another device in as the same user, and the devices that did (docs/PROTOCOL.md,
"Signing in on another device").

- ``POST /api/me/signin-link``: a link for the token's user, ``<public URL>/signin#<token>``
  (the token in the fragment: never in a request line, a log or a Referer), its QR code (an
  SVG data URI: ``segno``) and when it expires. The token is 256 random bits; Redis keeps
  only its SHA-256, with the user, their name and token generation, for
  ``settings.signin_link_seconds`` (``ReachStore.put_once``). Links are rate-limited per user
  and per client address.
- ``POST /api/signin/link {token}``: the link used -- taken from Redis with ``GETDEL``, so
  it works once, whoever is first; refused (``bad-link``) when used, expired, unknown, or
  made before its user signed out everywhere; rate-limited per client address. The answer
  is a token of the user's current generation (``sign out everywhere`` ends it like any
  other), and the device is listed on the player's page.
- ``GET /api/me/devices``: the devices that signed in (and the user's passkeys).

A refused link changes nothing: no token, no listing, the asking browser's own identity
untouched.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import secrets
import time
from typing import Any

import msgspec
import segno
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from server import protocol as p
from server.archive import devices
from server.http.lobby import _address, _body, _services, _user, handle
from server.http.push_routes import device_name
from server.identity.tokens import User
from server.table.room import RoomError

BAD_LINK = "bad-link"
TOO_MANY_LINKS = "too-many-links"
KIND = "signin"


class UseLink(msgspec.Struct, forbid_unknown_fields=True):
    token: str


def digest(token: str) -> str:
    return hashlib.sha256(b"tortuga-signin:" + token.encode()).hexdigest()


def qr_data_uri(url: str) -> str:
    """The link as a QR code: an SVG data URI (the page's CSP allows ``data:`` images)."""
    code = segno.make(url, error="m", micro=False)
    uri: str = code.svg_data_uri(scale=4, border=2, dark="#1b1b1b", light="#ffffff")
    return uri


async def _bucket(request: Request, key: str, every: float, burst: int) -> bool:
    store = _services(request).rooms.store
    now_ms = int(time.time() * 1000)
    return await store.take_token(f"{store.keys.prefix}{key}", now_ms, 1.0 / every, burst)


@handle
async def make_link(request: Request) -> Response:
    user = await _user(request)
    services = _services(request)
    settings = services.settings
    mark = services.tokens.mark(_address(request))
    for key in (f"signin-links:user:{user.id}", f"signin-links:address:{mark}"):
        if not await _bucket(request, key, settings.signin_link_every, settings.signin_links_burst):
            raise RoomError(TOO_MANY_LINKS, "too many sign-in links: wait a few minutes")
    token = secrets.token_urlsafe(32)
    gen = request.state.claims.gen
    value = json.dumps({"user": user.id, "name": user.name, "gen": gen})
    seconds = settings.signin_link_seconds
    await services.rooms.store.put_once(KIND, digest(token), value, seconds)
    url = f"{services.rooms.base_url}/signin#{token}"
    expires = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=seconds)
    return JSONResponse(
        {
            "url": url,
            "qr": qr_data_uri(url),
            "seconds": seconds,
            "expires_at": expires.isoformat(timespec="seconds").replace("+00:00", "Z"),
        },
        status_code=201,
    )


def _refused() -> RoomError:
    return RoomError(BAD_LINK, "this sign-in link was already used or has expired")


@handle
async def use_link(request: Request) -> Response:
    services = _services(request)
    settings = services.settings
    address = _address(request)
    mark = services.tokens.mark(address)
    if not await _bucket(request, f"signin-tries:{mark}", 1.0, settings.signin_tries_burst):
        raise RoomError(p.RATE_LIMITED, "too many tries: wait a little")
    body: UseLink = await _body(request, UseLink)
    if not 20 <= len(body.token) <= 100:
        raise _refused()
    raw = await services.rooms.store.take_once(KIND, digest(body.token))
    if raw is None:
        raise _refused()
    held: dict[str, Any] = json.loads(raw)
    store = services.rooms.store
    gen = await store.token_generation(held["user"])
    if int(held["gen"]) < gen:  # signed out everywhere since the link was made
        raise _refused()
    user = User(str(held["user"]), str(held["name"]))
    token = services.tokens.issue(user, gen, mark=mark)
    await services.identity.check(token, address)  # a banned user or address: refused
    db = request.app.state.db
    if db is not None:
        await devices.note_sign_in(
            db, user.id, "link", device_name(request.headers.get("user-agent"))
        )
    return JSONResponse({"token": token, "user": user.to_json()})


@handle
async def my_devices(request: Request) -> Response:
    user = await _user(request)
    db = request.app.state.db
    if db is None:
        return JSONResponse({"sign_ins": [], "passkeys": []})
    sign_ins = await devices.sign_ins_of(db, user.id)
    keys = await devices.passkeys_of(db, user.id)
    return JSONResponse(
        {
            "sign_ins": [
                {"how": s.how, "device": s.device, "at": s.at.isoformat()} for s in sign_ins
            ],
            "passkeys": [
                {
                    "id": k.id,
                    "device": k.device,
                    "created_at": k.created_at.isoformat(),
                    "last_used_at": k.last_used_at.isoformat() if k.last_used_at else None,
                }
                for k in keys
            ],
        }
    )


routes = [
    Route("/api/me/signin-link", make_link, methods=["POST"]),
    Route("/api/signin/link", use_link, methods=["POST"]),
    Route("/api/me/devices", my_devices, methods=["GET"]),
]
