"""The browser client's routes: the single-page app, its ES modules and the rules pages.

There is no build step: ``web-client/`` is served as it is. ``/``, ``/r/{code}`` (a room by its
invite link) and ``/replay/{game_id}`` all answer the same page, whose modules read the path;
``/rules/{game}`` answers a short static page per game; ``/static/...`` the modules, styles and
pages themselves (revalidated by ETag on every load, so a new deploy is picked up at once).
"""

from __future__ import annotations

import re
from pathlib import Path

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Message, Receive, Scope, Send

STATIC_PREFIX = "/static"

# Every script is a same-origin module and no user text is ever parsed as HTML, so the
# pages can forbid inline scripts and foreign origins entirely.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self' ws: wss:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-cache",
}
_GAME = re.compile(r"[a-z][a-z0-9-]{0,40}")


class _Static(StaticFiles):
    """StaticFiles that revalidates (no-cache + ETag) and sends the same safety headers."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(k.lower().encode(), v.encode()) for k, v in HEADERS.items()]
                message = {**message, "headers": headers}
            await send(message)

        await super().__call__(scope, receive, send_with_headers)


def routes(web_root: Path) -> list[BaseRoute]:
    """The client's routes, serving files from ``web_root`` (the ``web-client`` folder)."""
    root = web_root.resolve()
    index = root / "index.html"
    rules = root / "rules"

    def page(path: Path) -> Response:
        if not path.is_file():
            raise HTTPException(404, "no such page")
        return FileResponse(path, media_type="text/html; charset=utf-8", headers=HEADERS)

    async def app_page(request: Request) -> Response:
        return page(index)

    async def rules_page(request: Request) -> Response:
        game = str(request.path_params["game"])
        if not _GAME.fullmatch(game):
            raise HTTPException(404, "no such game")
        return page(rules / f"{game}.html")

    return [
        Route("/", app_page, methods=["GET", "HEAD"]),
        Route("/r/{code}", app_page, methods=["GET", "HEAD"]),
        Route("/replay/{game_id}", app_page, methods=["GET", "HEAD"]),
        Route("/rules/{game}", rules_page, methods=["GET", "HEAD"]),
        Mount(STATIC_PREFIX, app=_Static(directory=root), name="web-static"),
    ]


def default_root() -> Path:
    """``web-client/`` next to the ``server`` package (a source checkout)."""
    return Path(__file__).resolve().parent.parent / "web-client"
