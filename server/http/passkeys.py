"""HTTP: passkeys (WebAuthn) -- an optional way for a player to sign in as themselves on any
device, with no password (docs/PROTOCOL.md, "Passkeys"). Guests never need one.

The ceremonies are checked by Duo's ``webauthn`` library (attestation ``none`` accepted: a
passkey proves it is the same authenticator, not which model it is):

- ``POST /api/me/passkeys/options``: registration options for the token's user
  (discoverable credential, user verification preferred, their passkeys excluded).
- ``POST /api/me/passkeys {credential}``: the new credential, verified; its id, public key,
  sign count and transports kept in Postgres with the device it was added on.
- ``GET /api/me/passkeys`` / ``DELETE /api/me/passkeys/{id}``: the owner's passkeys.
- ``POST /api/signin/passkey/options``: authentication options; no user needed (the
  browser offers the site's discoverable credentials).
- ``POST /api/signin/passkey {credential}``: the assertion, verified against the stored
  public key and sign count (a counter that does not go up is refused); the answer is a
  token of the user's current generation, issued as the sign-in link does it, and the
  device is listed on the player's page (``sign_ins``, ``how`` = ``passkey``).

Each challenge is 32 random bytes kept in Redis under its SHA-256 for
``settings.passkey_challenge_seconds``, bound to its ceremony (and a registration's to its
user) and taken with ``GETDEL``: it works once. A refused or malformed ceremony changes
nothing: no row, no counter moved, no token. Bodies are at most ``MAX_BODY`` bytes.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import (
    parse_authentication_credential_json,
    parse_client_data_json,
    parse_registration_credential_json,
)
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from server import protocol as p
from server.archive import devices
from server.archive.db import Database
from server.http.lobby import _address, _services, _user, handle
from server.http.push_routes import device_name
from server.http.signin import _bucket
from server.identity.tokens import User
from server.protocol.bodies import read_body
from server.table.room import RoomError

BAD_PASSKEY = "bad-passkey"  # the ceremony was refused: signature, origin, counter, unknown key
BAD_CHALLENGE = "bad-challenge"  # no such live challenge: used, expired, another's or forged
BAD_CREDENTIAL = "bad-credential"  # not a WebAuthn credential at all (malformed)
TOO_MANY_PASSKEYS = "too-many-passkeys"
NO_SUCH_PASSKEY = "no-such-passkey"
NO_PASSKEYS = "no-passkeys"  # a site without Postgres keeps none
REGISTER = "passkey-register"
SIGN_IN = "passkey-signin"
MAX_BODY = 16 * 1024  # an attestation ``none`` with an ES256 key is well under 2 KiB
MAX_ID = 512  # characters of a credential id (base64url), the column's width
RP_NAME = "Tortuga"


class Ceremony(msgspec.Struct, forbid_unknown_fields=True):
    credential: dict[str, Any]


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _digest(challenge: bytes) -> str:
    return hashlib.sha256(b"tortuga-passkey:" + challenge).hexdigest()


def _db(request: Request) -> Database:
    db: Database | None = request.app.state.db
    if db is None:
        raise RoomError(NO_PASSKEYS, "this site keeps no passkeys")
    return db


async def _ceremony(request: Request) -> dict[str, Any]:
    """The body's credential (at most ``MAX_BODY`` bytes), as the browser's
    ``PublicKeyCredential.toJSON()`` gives it."""
    settings = _services(request).settings
    try:
        raw = await read_body(request, min(MAX_BODY, settings.max_frame_bytes))
        obj = p.parse_json(raw, settings.max_json_depth, "the body")
    except p.ProtocolError as exc:
        raise RoomError(exc.code, exc.message) from None
    try:
        body = msgspec.convert(obj, type=Ceremony)
    except msgspec.ValidationError as exc:
        raise RoomError(p.BAD_MESSAGE, str(exc)) from None
    cred = body.credential
    if not isinstance(cred.get("id"), str) or not 1 <= len(cred["id"]) <= MAX_ID:
        raise RoomError(BAD_CREDENTIAL, "a credential has an id (base64url)")
    return cred


def _challenge_of(client_data: bytes) -> bytes:
    try:
        return parse_client_data_json(client_data).challenge
    except (WebAuthnException, ValueError, KeyError, TypeError):
        raise RoomError(BAD_CREDENTIAL, "the credential's client data is not readable") from None


async def _take(request: Request, kind: str, challenge: bytes) -> dict[str, Any]:
    """The challenge's ceremony, taken (a second taker gets ``bad-challenge``)."""
    held = await _services(request).rooms.store.take_once(kind, _digest(challenge))
    if held is None:
        raise RoomError(BAD_CHALLENGE, "this passkey request was already used or has expired")
    value: dict[str, Any] = json.loads(held)
    return value


async def _keep(request: Request, kind: str, value: dict[str, Any]) -> bytes:
    challenge = secrets.token_bytes(32)
    services = _services(request)
    seconds = services.settings.passkey_challenge_seconds
    await services.rooms.store.put_once(kind, _digest(challenge), json.dumps(value), seconds)
    return challenge


def _origins(request: Request) -> list[str]:
    return sorted(_services(request).settings.origins())


def _options(options: Any) -> Response:
    return Response(options_to_json(options), media_type="application/json")


def _listed(k: Any) -> dict[str, Any]:
    return {
        "id": k.id,
        "device": k.device,
        "transports": list(k.transports or []),
        "created_at": k.created_at.isoformat(),
        "last_used_at": k.last_used_at.isoformat() if k.last_used_at else None,
    }


async def _limit_user(request: Request, user: User) -> None:
    services = _services(request)
    settings = services.settings
    mark = services.tokens.mark(_address(request))
    for key in (f"passkey-adds:user:{user.id}", f"passkey-adds:address:{mark}"):
        if not await _bucket(request, key, settings.signin_link_every, settings.signin_links_burst):
            raise RoomError(p.RATE_LIMITED, "too many passkey requests: wait a few minutes")


async def _limit_address(request: Request) -> None:
    services = _services(request)
    mark = services.tokens.mark(_address(request))
    burst = services.settings.signin_tries_burst
    if not await _bucket(request, f"passkey-tries:{mark}", 1.0, burst):
        raise RoomError(p.RATE_LIMITED, "too many tries: wait a little")


@handle
async def registration_options(request: Request) -> Response:
    user = await _user(request)
    db = _db(request)
    await _limit_user(request, user)
    settings = _services(request).settings
    mine = await devices.passkeys_of(db, user.id)
    if len(mine) >= settings.passkeys_per_user:
        raise RoomError(
            TOO_MANY_PASSKEYS, f"a player keeps at most {settings.passkeys_per_user} passkeys"
        )
    challenge = await _keep(request, REGISTER, {"user": user.id, "name": user.name})
    options = generate_registration_options(
        rp_id=settings.relying_party(),
        rp_name=RP_NAME,
        user_id=user.id.encode(),
        user_name=user.name,
        user_display_name=user.name,
        challenge=challenge,
        timeout=settings.passkey_challenge_seconds * 1000,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.PREFERRED,
        ),
        exclude_credentials=[
            PublicKeyCredentialDescriptor(id=_raw_id(k.id)) for k in mine if _raw_id(k.id)
        ],
    )
    return _options(options)


def _raw_id(credential_id: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(credential_id + "=" * (-len(credential_id) % 4))
    except ValueError:
        return b""


@handle
async def register(request: Request) -> Response:
    user = await _user(request)
    db = _db(request)
    cred = await _ceremony(request)
    try:
        parsed = parse_registration_credential_json(cred)
    except (WebAuthnException, ValueError, KeyError, TypeError):
        raise RoomError(BAD_CREDENTIAL, "not a passkey registration") from None
    challenge = _challenge_of(parsed.response.client_data_json)
    held = await _take(request, REGISTER, challenge)
    if held.get("user") != user.id:  # another user's ceremony: refused, and it is spent
        raise RoomError(BAD_CHALLENGE, "this passkey request was already used or has expired")
    settings = _services(request).settings
    try:
        verified = verify_registration_response(
            credential=parsed,
            expected_challenge=challenge,
            expected_rp_id=settings.relying_party(),
            expected_origin=_origins(request),
        )
    except WebAuthnException as exc:
        raise RoomError(BAD_PASSKEY, f"the passkey was not accepted: {exc}") from None
    credential_id = _b64url(verified.credential_id)
    if len(credential_id) > MAX_ID:
        raise RoomError(BAD_CREDENTIAL, "a credential id this long is not kept")
    if len(await devices.passkeys_of(db, user.id)) >= settings.passkeys_per_user:
        raise RoomError(
            TOO_MANY_PASSKEYS, f"a player keeps at most {settings.passkeys_per_user} passkeys"
        )
    transports = [str(getattr(t, "value", t)) for t in (parsed.response.transports or [])][:8]
    device = device_name(request.headers.get("user-agent"))
    kept = await devices.add_passkey(
        db,
        credential_id,
        user.id,
        user.name,
        verified.credential_public_key,
        verified.sign_count,
        transports,
        device,
    )
    if not kept:
        raise RoomError(BAD_PASSKEY, "this passkey is already added")
    added = await devices.passkey(db, credential_id)
    return JSONResponse(_listed(added), status_code=201)


@handle
async def my_passkeys(request: Request) -> Response:
    user = await _user(request)
    db = request.app.state.db
    keys = await devices.passkeys_of(db, user.id) if db is not None else []
    return JSONResponse({"passkeys": [_listed(k) for k in keys]})


@handle
async def remove(request: Request) -> Response:
    user = await _user(request)
    db = _db(request)
    credential_id = str(request.path_params["id"])
    if len(credential_id) > MAX_ID or not await devices.drop_passkey(db, user.id, credential_id):
        raise RoomError(NO_SUCH_PASSKEY, "no such passkey")
    return JSONResponse({"removed": credential_id})


@handle
async def authentication_options(request: Request) -> Response:
    _db(request)
    await _limit_address(request)
    settings = _services(request).settings
    challenge = await _keep(request, SIGN_IN, {"flow": SIGN_IN})
    options = generate_authentication_options(
        rp_id=settings.relying_party(),
        challenge=challenge,
        timeout=settings.passkey_challenge_seconds * 1000,
        user_verification=UserVerificationRequirement.PREFERRED,
    )
    return _options(options)


@handle
async def sign_in(request: Request) -> Response:
    db = _db(request)
    await _limit_address(request)
    services = _services(request)
    settings = services.settings
    cred = await _ceremony(request)
    try:
        parsed = parse_authentication_credential_json(cred)
    except (WebAuthnException, ValueError, KeyError, TypeError):
        raise RoomError(BAD_CREDENTIAL, "not a passkey sign-in") from None
    challenge = _challenge_of(parsed.response.client_data_json)
    await _take(request, SIGN_IN, challenge)
    credential_id = _b64url(parsed.raw_id)
    key = await devices.passkey(db, credential_id) if len(credential_id) <= MAX_ID else None
    refused = RoomError(BAD_PASSKEY, "this passkey was not accepted")
    if key is None:
        raise refused
    handle_ = parsed.response.user_handle
    if handle_ is not None and handle_ != key.user_id.encode():
        raise refused
    burst = settings.signin_tries_burst
    if not await _bucket(request, f"passkey-tries:user:{key.user_id}", 1.0, burst):
        raise RoomError(p.RATE_LIMITED, "too many tries: wait a little")
    try:
        verified = verify_authentication_response(
            credential=parsed,
            expected_challenge=challenge,
            expected_rp_id=settings.relying_party(),
            expected_origin=_origins(request),
            credential_public_key=key.public_key,
            credential_current_sign_count=key.sign_count,
        )
    except WebAuthnException:  # a wrong signature, origin or RP, a counter gone back
        raise refused from None
    gen = await services.rooms.store.token_generation(key.user_id)
    address = _address(request)
    user = User(key.user_id, key.name)
    token = services.tokens.issue(user, gen, mark=services.tokens.mark(address))
    await services.identity.check(token, address)  # a banned user or address: refused
    if not await devices.use_passkey(db, credential_id, key.sign_count, verified.new_sign_count):
        raise refused  # another use moved the counter meanwhile
    device = device_name(request.headers.get("user-agent"))
    await devices.note_sign_in(db, user.id, "passkey", device)
    return JSONResponse({"token": token, "user": user.to_json()})


routes = [
    Route("/api/me/passkeys/options", registration_options, methods=["POST"]),
    Route("/api/me/passkeys", register, methods=["POST"]),
    Route("/api/me/passkeys", my_passkeys, methods=["GET"]),
    Route("/api/me/passkeys/{id}", remove, methods=["DELETE"]),
    Route("/api/signin/passkey/options", authentication_options, methods=["POST"]),
    Route("/api/signin/passkey", sign_in, methods=["POST"]),
]
