"""The admin routes read a request body as the player routes do: within a limit, a body
over it refused (413 ``body-too-large``) before it is read -- from ``Content-Length`` at
once, a chunked body as soon as it passes the limit -- and the connection closed, so that
the node reads no more of it (a login used to read the whole body first: 300 MB took a node
from 88 to 614 MB).

Each request goes over a raw socket (raw_http.py), so that the test decides how much is
ever sent: a few bytes of a 300 MB body, or chunks that never end; then it goes on sending,
to see that the node takes no more.
"""

from __future__ import annotations

import secrets
from typing import Any

import httpx
from raw_http import refused_unread
from starlette.routing import Route

from server.admin.moderate import routes as moderation_routes
from server.admin.routes import MAX_BODY
from server.admin.routes import routes as admin_routes

TOKEN = secrets.token_urlsafe(32)
NO_BODY = {"/logout"}  # POST routes that take no body
PARAMS = {"{room}": "NOPE", "{user}": "u-nobody", "{instance}": "n-nobody"}


def _posted() -> list[str]:
    """Every admin route that reads a body, its path parameters filled in."""
    paths = []
    for route in [*admin_routes, *moderation_routes]:
        assert isinstance(route, Route)
        if "POST" in (route.methods or set()) and route.path not in NO_BODY:
            path = route.path
            for name, value in PARAMS.items():
                path = path.replace(name, value)
            paths.append("/admin/api" + path)
    return paths


def _head(path: str, framing: str) -> str:
    return (
        f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Authorization: Bearer {TOKEN}\r\n{framing}\r\n\r\n"
    )


async def test_every_admin_body_is_refused_past_the_limit_unread(
    start: Any, admin_url: str
) -> None:
    node = await start("a", database_url=admin_url, admin_token=TOKEN)
    paths, port = _posted(), node.settings.port
    assert "/admin/api/login" in paths and "/admin/api/users/u-nobody/ban" in paths
    chunk = b"x" * 4096
    chunks = [b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(MAX_BODY // 4096 + 2)]
    for path in paths:
        declared = _head(path, "Content-Length: 300000000")
        status, stopped = await refused_unread(port, declared, [b'{"reason": "'])
        assert status.startswith(b"HTTP/1.1 413") and stopped, (path, status)
        streamed = _head(path, "Transfer-Encoding: chunked")  # no length, and no end
        status, stopped = await refused_unread(port, streamed, chunks)
        assert status.startswith(b"HTTP/1.1 413") and stopped, (path, status)
    async with httpx.AsyncClient(base_url=node.url) as http:
        json_type = {"Content-Type": "application/json"}
        r = await http.post("/admin/api/login", content=b"x" * (MAX_BODY + 1), headers=json_type)
        assert r.status_code == 413 and r.json()["error"]["code"] == "body-too-large", r.text
        # Within the limit a body is read as before.
        r = await http.post("/admin/api/login", json={"name": "nobody", "password": "x"})
        assert r.status_code == 401 and r.json()["error"]["code"] == "bad-login", r.text
