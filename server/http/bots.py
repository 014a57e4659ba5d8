"""Players' bot accounts and the ladder's door (docs/BOTS.md).

A player makes bot accounts from their page: each is a user of its own (``b_...``) with the
name the player gave it, the player as its owner, and a token shown once (it lives a year; it
is never stored). Revoking one raises its token generation -- the same mechanism as "sign out
everywhere" -- so its token is refused from then on, on every node, and its open sockets are
closed; the account stays listed, marked revoked. A bot sits at a table as a person does,
marked as a bot with its owner's name, where the room's host allows players' bots.

``POST /api/ladder/ready`` is a bot account telling the arena (server/ladder/arena.py) it
is ready for ladder games of some games, for ``LADDER_READY_SECONDS``.
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from engines.registry import GAMES
from server import protocol as p
from server.http.lobby import _body, _services, _user, handle
from server.identity.tokens import BOT_TOKEN_TTL, BadName, User, is_bot_account
from server.table.entry import Published, now_iso, pack
from server.table.room import RoomError, now_ms

MAX_BOTS_PER_PLAYER = 5
LADDER_READY_SECONDS = 30
NOT_FOR_BOTS = "not-for-bots"  # a bot account may not make bot accounts
TOO_MANY_BOTS = "too-many-bots"
NO_SUCH_BOT = "no-such-bot"


class NewBot(msgspec.Struct, forbid_unknown_fields=True):
    name: str


class LadderReady(msgspec.Struct, forbid_unknown_fields=True):
    games: Annotated[list[str], msgspec.Meta(max_length=8)]


@handle
async def list_bots(request: Request) -> Response:
    user = await _user(request)
    accounts = await _services(request).rooms.store.bot_accounts(user.id)
    return JSONResponse({"bots": accounts})


@handle
async def create_bot(request: Request) -> Response:
    """A new bot account of the asking player, and its token (shown this once)."""
    user = await _user(request)
    if is_bot_account(user.id):
        raise RoomError(NOT_FOR_BOTS, "a bot account cannot make bot accounts")
    body: NewBot = await _body(request, NewBot)
    services = _services(request)
    store = services.rooms.store
    accounts = await store.bot_accounts(user.id)
    if sum(not a.get("revoked") for a in accounts) >= MAX_BOTS_PER_PLAYER:
        raise RoomError(TOO_MANY_BOTS, f"at most {MAX_BOTS_PER_PLAYER} bots per player")
    try:
        bot = services.tokens.bot_account(body.name)
    except BadName as exc:
        raise RoomError("bad-name", str(exc)) from None
    account = {
        "id": bot.id,
        "name": bot.name,
        "owner": user.id,
        "owner_name": user.name,
        "created_at": now_iso(),
        "revoked": False,
    }
    await store.add_bot_account(user.id, account)
    token = services.tokens.issue(bot, 0, ttl=BOT_TOKEN_TTL)
    mine = {k: account[k] for k in ("id", "name", "created_at", "revoked")}
    return JSONResponse({"bot": mine, "token": token}, status_code=201)


@handle
async def revoke_bot(request: Request) -> Response:
    """Revoke one of the asking player's bot accounts: its token dies on every node."""
    user = await _user(request)
    bot_id = request.path_params["bot"]
    store = _services(request).rooms.store
    account = await store.revoke_bot_account(user.id, str(bot_id))
    if account is None:
        raise RoomError(NO_SUCH_BOT, "you have no such bot")
    await store.sign_out(
        account["id"],
        lambda g: pack(Published(k="signout", data={"user": account["id"], "gen": g})),
    )
    mine = {k: account[k] for k in ("id", "name", "created_at", "revoked")}
    return JSONResponse({"bot": mine})


@handle
async def ladder_ready(request: Request) -> Response:
    """A bot account is ready for the ladder's games of ``games`` (for a while)."""
    user: User = await _user(request)
    if not is_bot_account(user.id):
        raise RoomError(p.BAD_MESSAGE, "only a bot account plays on the ladder")
    body: LadderReady = await _body(request, LadderReady)
    unknown = [g for g in body.games if g not in GAMES]
    if unknown:
        raise RoomError("no-such-game", f"no game {unknown[0]!r}")
    store = _services(request).rooms.store
    until = now_ms() + LADDER_READY_SECONDS * 1000
    for game in body.games:
        await store.ladder_ready(game, user.id, until)
    return JSONResponse({"games": body.games, "until": until})


routes = [
    Route("/api/me/bots", list_bots, methods=["GET"]),
    Route("/api/me/bots", create_bot, methods=["POST"]),
    Route("/api/me/bots/{bot}/revoke", revoke_bot, methods=["POST"]),
    Route("/api/ladder/ready", ladder_ready, methods=["POST"]),
]
