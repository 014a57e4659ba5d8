"""A Tortuga site over HTTP: sign-in, rooms, "my rooms", the ladder, the device key
(docs/PROTOCOL.md, HTTP).

Refusals are ``SiteError`` with the server's code; a 429 or 503 is waited out and tried again
(``Retry-After``), at most ``retries`` times.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import logging
from collections.abc import Collection
from typing import Any

import httpx

from tortuga_bot.device import DeviceKey

log = logging.getLogger("tortuga_bot")


class SiteError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message


def _code(r: httpx.Response) -> str | None:
    try:
        code = r.json()["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return None
    return code if isinstance(code, str) else None


class Site:
    """One site and the token this bot plays with (a bot account's, or a guest's), and the
    device key its moves are signed with (``key``; None: unsigned play)."""

    def __init__(
        self, url: str, token: str | None = None, retries: int = 5, key: DeviceKey | None = None
    ) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.retries = retries
        self.user: dict[str, str] | None = None
        self.key = key
        self.kid: str | None = None  # the key, once registered with the token's user

    @property
    def user_id(self) -> str | None:
        """The token's user: the one signed in, else the one the token names (its payload's
        ``u``, docs/PROTOCOL.md: a token is ``base64url(payload) "." signature``)."""
        if self.user is not None:
            return self.user.get("id")
        if not self.token or self.token.count(".") != 1:
            return None
        body = self.token.split(".")[0]
        try:
            payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        except (ValueError, binascii.Error):
            return None
        user = payload.get("u") if isinstance(payload, dict) else None
        return user if isinstance(user, str) and user else None

    async def signing_kid(self) -> str | None:
        """The kid a socket names in ``auth``: the device key, registered with the token's
        user first (``POST /api/me/keys``, once per sign-in, again after ``forget_kid``);
        None without a key. A site that does not take keys (a site from before the move
        chain: 404) is a ``SiteError``: such a site is played with ``--unsigned``."""
        if self.key is None:
            return None
        if self.kid != self.key.kid:
            await self.register_key(self.key)
        return self.kid

    async def register_key(self, key: DeviceKey) -> str:
        """Register ``key``'s public key with the token's user (again: no change)."""
        try:
            body = await self.request(
                "POST", "/api/me/keys", {"key": key.public}, final={"too-many-keys"}
            )
        except SiteError as exc:
            if exc.status in (404, 405):
                raise SiteError(
                    exc.status,
                    "no-device-keys",
                    "this site takes no device keys (no move chain): play it --unsigned",
                ) from None
            raise
        if not isinstance(body, dict) or body.get("kid") != key.kid:
            raise SiteError(502, "bad-answer", f"the site registered {body!r}, not {key.kid}")
        self.kid = key.kid
        log.info("device key %s registered with %s", key.kid[:16], body.get("user"))
        return key.kid

    def forget_kid(self) -> None:
        """The site does not know the key (``unknown-key``): register it again next time."""
        self.kid = None

    @property
    def ws_url(self) -> str:
        base = self.url.replace("https://", "wss://", 1).replace("http://", "ws://", 1)
        return f"{base}/ws"

    async def request(
        self, method: str, path: str, body: Any = None, final: Collection[str] = ()
    ) -> Any:
        """The answer's JSON; a 429 or 503 is tried again unless its code is in ``final``
        (a quota that waiting does not lift)."""
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        async with httpx.AsyncClient(base_url=self.url, timeout=30) as http:
            for attempt in range(self.retries + 1):
                r = await http.request(method, path, json=body, headers=headers)
                fresh = r.headers.get("x-tortuga-token")
                if fresh:
                    self.token = fresh  # a token in use is refreshed by the site
                if r.status_code in (429, 503) and attempt < self.retries and _code(r) not in final:
                    wait = float(r.headers.get("retry-after") or 1 + attempt)
                    await asyncio.sleep(min(wait, 30.0))
                    continue
                if r.status_code >= 400:
                    try:
                        error = r.json()["error"]
                        raise SiteError(r.status_code, error["code"], error.get("message", ""))
                    except (ValueError, KeyError, TypeError):
                        raise SiteError(r.status_code, "http", r.text[:200]) from None
                return r.json() if r.content else None
        raise AssertionError("unreachable")

    async def guest(self, name: str) -> dict[str, str]:
        """Sign in as a new guest (for trying a bot out; a bot account's token is better)."""
        self.token = None
        self.kid = None  # a new user: the key is registered with it at the next sign-in
        body = await self.request("POST", "/api/guest", {"name": name})
        self.token = body["token"]
        self.user = body["user"]
        return body["user"]  # type: ignore[no-any-return]

    async def create_room(self, game: str, seats: int, **fields: Any) -> dict[str, Any]:
        body = {"game": game, "seats": seats, **fields}
        return await self.request("POST", "/api/rooms", body)  # type: ignore[no-any-return]

    async def room(self, code: str) -> dict[str, Any]:
        return await self.request("GET", f"/api/rooms/{code}")  # type: ignore[no-any-return]

    async def my_rooms(self) -> list[dict[str, Any]]:
        return (await self.request("GET", "/api/me/rooms"))["rooms"]  # type: ignore[no-any-return]

    async def games(self) -> list[dict[str, Any]]:
        return (await self.request("GET", "/api/games"))["games"]  # type: ignore[no-any-return]

    async def ladder_ready(self, games: list[str]) -> dict[str, Any]:
        """Tell the site's arena this bot (a bot account) is ready for ladder games."""
        body = {"games": games}
        return await self.request("POST", "/api/ladder/ready", body)  # type: ignore[no-any-return]
