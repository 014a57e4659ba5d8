"""HTTP: a device's Web Push subscription (docs/PROTOCOL.md, "Web Push").

``GET /api/push`` tells a page the site's VAPID public key (the browser's
``applicationServerKey``) and what a device may choose to receive; ``PUT /api/me/push`` keeps
this device's subscription for the token's user with its choices (kinds, quiet hours, time
zone, language); ``DELETE /api/me/push`` forgets it. Nothing is asked of a visitor: the page
offers it, and the browser asks for the permission only after the player's click.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from server.archive import devices
from server.archive.db import Database
from server.archive.devices import KINDS, Prefs
from server.http.lobby import _body, _user, handle
from server.identity import webpush
from server.identity.webpush import BadSubscription
from server.table.room import RoomError

BAD_SUBSCRIPTION = "bad-subscription"
NO_PUSH = "no-push"  # the site keeps no history (no Postgres): no subscriptions either
_TZ = re.compile(r"[A-Za-z0-9_+\-/]{1,64}")
_LANG = re.compile(r"[a-z]{2,3}")


class Keys(msgspec.Struct, forbid_unknown_fields=True):
    p256dh: str
    auth: str


class Subscribe(msgspec.Struct, forbid_unknown_fields=True):
    endpoint: str
    keys: Keys
    kinds: list[str] = msgspec.field(default_factory=lambda: list(KINDS))
    quiet_from: int | None = None  # minute of the day
    quiet_to: int | None = None
    tz: str = "UTC"
    lang: str = "en"
    expirationTime: float | None = None  # PushSubscription.toJSON()'s own


class Unsubscribe(msgspec.Struct, forbid_unknown_fields=True):
    endpoint: str


def device_name(agent: str | None) -> str:
    """A device as its player would recognise it, from its User-Agent: "Chrome on Android"."""
    ua = agent or ""
    browser = next(
        (
            name
            for mark, name in (
                ("Edg/", "Edge"),
                ("OPR/", "Opera"),
                ("Firefox/", "Firefox"),
                ("Chrome/", "Chrome"),
                ("Safari/", "Safari"),
            )
            if mark in ua
        ),
        "",
    )
    system = next(
        (
            name
            for mark, name in (
                ("Android", "Android"),
                ("iPhone", "iPhone"),
                ("iPad", "iPad"),
                ("Windows", "Windows"),
                ("Mac OS X", "macOS"),
                ("CrOS", "ChromeOS"),
                ("Linux", "Linux"),
            )
            if mark in ua
        ),
        "",
    )
    if browser and system:
        return f"{browser} on {system}"
    return browser or system or "?"


def database(request: Request) -> Database:
    db: Database | None = request.app.state.db
    if db is None:
        raise RoomError(NO_PUSH, "this site keeps no devices (it runs without a database)")
    return db


def _prefs(body: Subscribe) -> Prefs:
    kinds = tuple(k for k in KINDS if k in body.kinds)
    if len(set(body.kinds)) != len(kinds):
        raise RoomError(BAD_SUBSCRIPTION, f"kinds are among {', '.join(KINDS)}")
    quiet = (body.quiet_from, body.quiet_to)
    if (quiet[0] is None) != (quiet[1] is None) or any(
        q is not None and not 0 <= q < 24 * 60 for q in quiet
    ):
        raise RoomError(BAD_SUBSCRIPTION, "quiet hours are two minutes of the day, or none")
    if not _TZ.fullmatch(body.tz) or not _LANG.fullmatch(body.lang):
        raise RoomError(BAD_SUBSCRIPTION, "the time zone or language is not valid")
    return Prefs(kinds, body.quiet_from, body.quiet_to, body.tz, body.lang)


@handle
async def push_key(request: Request) -> Response:
    key: Any = request.app.state.vapid
    return JSONResponse(
        {"key": key.public, "kinds": list(KINDS), "enabled": request.app.state.db is not None}
    )


@handle
async def subscribe(request: Request) -> Response:
    user = await _user(request)
    body: Subscribe = await _body(request, Subscribe)
    db = database(request)
    settings = request.app.state.services.settings
    try:
        webpush.check_endpoint(body.endpoint, settings.push_hosts, settings.push_private_endpoints)
        webpush.check_keys(body.keys.p256dh, body.keys.auth)
    except BadSubscription as exc:
        raise RoomError(BAD_SUBSCRIPTION, str(exc)) from None
    prefs = _prefs(body)
    await devices.keep_subscription(
        db,
        user.id,
        request.state.claims.gen,
        body.endpoint,
        body.keys.p256dh,
        body.keys.auth,
        prefs,
        device_name(request.headers.get("user-agent")),
        settings.push_devices_per_user,
    )
    await request.app.state.services.rooms.store.note_push_user(user.id)
    return JSONResponse(
        {
            "kinds": list(prefs.kinds),
            "quiet_from": prefs.quiet_from,
            "quiet_to": prefs.quiet_to,
            "tz": prefs.tz,
        }
    )


@handle
async def unsubscribe(request: Request) -> Response:
    user = await _user(request)
    body: Unsubscribe = await _body(request, Unsubscribe)
    dropped = await devices.drop_subscription(database(request), body.endpoint, user.id)
    return JSONResponse({"dropped": dropped})


routes = [
    Route("/api/push", push_key, methods=["GET"]),
    Route("/api/me/push", subscribe, methods=["PUT"]),
    Route("/api/me/push", unsubscribe, methods=["DELETE"]),
]
