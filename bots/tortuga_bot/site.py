"""A Tortuga site over HTTP: sign-in, rooms, "my rooms", the ladder (docs/PROTOCOL.md, HTTP).

Refusals are ``SiteError`` with the server's code; a 429 or 503 is waited out and tried again
(``Retry-After``), at most ``retries`` times.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx


class SiteError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message


class Site:
    """One site and the token this bot plays with (a bot account's, or a guest's)."""

    def __init__(self, url: str, token: str | None = None, retries: int = 5) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.retries = retries
        self.user: dict[str, str] | None = None

    @property
    def ws_url(self) -> str:
        base = self.url.replace("https://", "wss://", 1).replace("http://", "ws://", 1)
        return f"{base}/ws"

    async def request(self, method: str, path: str, body: Any = None) -> Any:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        async with httpx.AsyncClient(base_url=self.url, timeout=30) as http:
            for attempt in range(self.retries + 1):
                r = await http.request(method, path, json=body, headers=headers)
                fresh = r.headers.get("x-tortuga-token")
                if fresh:
                    self.token = fresh  # a token in use is refreshed by the site
                if r.status_code in (429, 503) and attempt < self.retries:
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
