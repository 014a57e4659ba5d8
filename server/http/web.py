"""The browser client's routes: the single-page app, its ES modules and the rules pages.

There is no build step: ``web-client/`` is served as it is. ``/``, ``/r/{code}`` (a room by its
invite link), ``/replay/{game_id}``, ``/leaderboard/{game}``, ``/ladder/{game}`` and
``/player/{user}`` all answer the same page, whose modules read the path; ``/rules/{game}``
answers a short static page per game, in the player's language when it has one
(``rules/<game>.<lang>.html``), and ``/rules`` the page that lists them all
(``rules/index.html``); ``/static/...`` the modules, styles and pages themselves
(revalidated by ETag on every load, so a new deploy is picked up at once).
``/manifest.webmanifest`` and ``/sw.js`` make the site an installable app: the service worker
is served from the root (its scope is the whole site) with the server's version and the
shell's files written into it (``service_worker``), so a deploy installs a new worker and a
fresh cache.

``/r/{code}`` is rendered: its head carries the room's preview card (server/http/unfurl.py), so a
link pasted into a chat app unfurls; a code typed in lower case or in groups of four
(``k7qx-mh4p``) is redirected to the room's own code (server/table/room_codes.py).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Message, Receive, Scope, Send

from server.http import unfurl
from server.http.catalogue import COOKIE, Catalogues
from server.ops.version import version
from server.table.room import RoomError

STATIC_PREFIX = "/static"

# Every script is a same-origin module and no user text is ever parsed as HTML, so the
# pages can forbid inline scripts and foreign origins entirely.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "manifest-src 'self'; worker-src 'self'; "
    "connect-src 'self' ws: wss:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-cache",
}
_GAME = re.compile(r"[a-z][a-z0-9-]{0,40}")
INDEX = "index"  # rules/index.html: every game's rules, listed
SHELL_FOLDERS = ("js", "css", "icons")  # what the service worker caches: the shell's files


def service_worker(root: Path) -> str:
    """``sw.js`` with the server's version and the shell's static files (every file of
    ``SHELL_FOLDERS``, as ``/static/...`` paths) written in: its cache is named by the
    version, so a new deploy's worker replaces the cache."""
    files = sorted(
        f"{STATIC_PREFIX}/{p.relative_to(root).as_posix()}"
        for folder in SHELL_FOLDERS
        for p in (root / folder).rglob("*")
        if p.is_file() and not p.name.startswith(".")
    )
    text = (root / "sw.js").read_text(encoding="utf-8")
    text = text.replace('"__TORTUGA_VERSION__"', json.dumps(version()), 1)
    return text.replace('["__TORTUGA_SHELL__"]', json.dumps(files), 1)


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
    texts = Catalogues(root / "js" / "i18n")
    head_mark = "<title>Tortuga</title>"

    def page(path: Path) -> Response:
        if not path.is_file():
            raise HTTPException(404, "no such page")
        return FileResponse(path, media_type="text/html; charset=utf-8", headers=HEADERS)

    def language(request: Request) -> str:
        return texts.choose(
            request.query_params.get("lang"),
            request.cookies.get(COOKIE),
            request.headers.get("accept-language"),
        )

    def rendered(card: str, lang: str) -> Response:
        """The app page in ``lang`` with ``card`` in its head, and the games that have a
        rules page."""
        games = sorted(
            p.stem for p in rules.glob("*.html") if "." not in p.stem and p.stem != INDEX
        )
        head = f'{card}\n<meta name="tortuga:rules" content="{" ".join(games)}">'
        body = index.read_text(encoding="utf-8").replace(head_mark, head, 1)
        body = body.replace('<html lang="en">', f'<html lang="{lang}">', 1)
        return HTMLResponse(body, headers={**HEADERS, "Vary": "Accept-Language, Cookie"})

    def base_url(request: Request) -> str:
        services: Any = getattr(request.app.state, "services", None)
        if services is not None:
            return str(services.rooms.base_url)
        return str(request.base_url).rstrip("/")

    async def app_page(request: Request) -> Response:
        url = base_url(request) + request.url.path
        lang = language(request)
        return rendered(unfurl.site(url, texts, lang), lang)

    async def room_page(request: Request) -> Response:
        """The app, with the room's preview card in its head (when this app serves rooms)."""
        code = str(request.path_params["code"])
        services: Any = getattr(request.app.state, "services", None)
        if services is None:
            return await app_page(request)
        try:
            room = await services.rooms.find(code)
        except RoomError:
            return await app_page(request)  # the app itself says there is no such room
        if room.id != code:
            return RedirectResponse(f"/r/{room.id}", status_code=308, headers=HEADERS)
        url = f"{services.rooms.base_url}/r/{room.id}"
        lang = language(request)
        return rendered(unfurl.tags(room, url, texts, lang), lang)

    async def rules_page(request: Request) -> Response:
        """A game's rules (``/rules/{game}``), or the list of every game's (``/rules``)."""
        game = str(request.path_params.get("game", INDEX))
        if not _GAME.fullmatch(game):
            raise HTTPException(404, "no such game")
        own = rules / f"{game}.{language(request)}.html"
        if own.is_file():
            return FileResponse(
                own,
                media_type="text/html; charset=utf-8",
                headers={**HEADERS, "Vary": "Accept-Language, Cookie"},
            )
        return page(rules / f"{game}.html")

    worker = service_worker(root)  # read once: a deploy restarts the node

    async def sw(request: Request) -> Response:
        return Response(worker, media_type="text/javascript; charset=utf-8", headers=HEADERS)

    async def manifest(request: Request) -> Response:
        return FileResponse(
            root / "manifest.webmanifest", media_type="application/manifest+json", headers=HEADERS
        )

    return [
        Route("/", app_page, methods=["GET", "HEAD"]),
        Route("/sw.js", sw, methods=["GET", "HEAD"]),
        Route("/manifest.webmanifest", manifest, methods=["GET", "HEAD"]),
        Route("/signin", app_page, methods=["GET", "HEAD"]),
        Route("/r/{code}", room_page, methods=["GET", "HEAD"]),
        Route("/replay/{game_id}", app_page, methods=["GET", "HEAD"]),
        Route("/leaderboard/{game}", app_page, methods=["GET", "HEAD"]),
        Route("/ladder/{game}", app_page, methods=["GET", "HEAD"]),
        Route("/player/{user_id}", app_page, methods=["GET", "HEAD"]),
        Route("/admin", app_page, methods=["GET", "HEAD"]),
        Route("/rules", rules_page, methods=["GET", "HEAD"]),
        Route("/rules/{game}", rules_page, methods=["GET", "HEAD"]),
        Mount(STATIC_PREFIX, app=_Static(directory=root), name="web-static"),
    ]


def default_root() -> Path:
    """``web-client/`` next to the ``server`` package (a source checkout)."""
    return Path(__file__).resolve().parents[2] / "web-client"
