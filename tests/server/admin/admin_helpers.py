"""Helpers of the admin tests: log in over HTTP, bearer headers."""

from __future__ import annotations

import httpx
from tortuga_client import Node

PASSWORD = "correct horse battery"


async def login(node: Node, name: str, password: str = PASSWORD) -> httpx.Response:
    async with httpx.AsyncClient(base_url=node.url) as http:
        return await http.post("/admin/api/login", json={"name": name, "password": password})


async def admin_token(node: Node, name: str) -> str:
    r = await login(node, name)
    assert r.status_code == 200, r.text
    token: str = r.json()["token"]
    return token


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
