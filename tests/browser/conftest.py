"""Browser tests: Debian's Chromium driven by Playwright, against servers started in-process.

Never downloads a browser: Chromium is /usr/bin/chromium (the README's test command installs it
with apt when missing). Every test here is marked ``browser``.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chromium_binary import CHROMIUM, CHROMIUM_ARGS

ROOT = Path(__file__).resolve().parents[2]
WEB_ROOT = ROOT / "web-client"
SCREENSHOTS = ROOT / "artifacts" / "screenshots"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ThreadedServer:
    """An ASGI app served by uvicorn on a thread of its own (its own event loop)."""

    def __init__(self, app: Any, port: int | None = None) -> None:
        import uvicorn

        self.port = port or free_port()
        from server.app import uvicorn_options
        from server.settings import Settings

        config = uvicorn.Config(
            app,
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            **uvicorn_options(Settings()),
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> ThreadedServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Chromium, per module: Playwright's sync API keeps an event loop running on this thread
    while it is up, so it must not outlive the module (async tests elsewhere need the thread).
    Request it AFTER ``site`` (which sets up Redis/Postgres with asyncio)."""
    if not Path(CHROMIUM).exists():
        # CI and `./tortuga test` (as root) install Debian's chromium; never a download.
        message = f"no Chromium at {CHROMIUM}: apt-get install chromium chromium-driver"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="session")
def web_only_url() -> Iterator[str]:
    """Only the client's own routes (for module tests that need no game server)."""
    from starlette.applications import Starlette

    from server.http.web import routes

    with ThreadedServer(Starlette(routes=routes(WEB_ROOT))) as server:
        yield server.url


@pytest.fixture
def screenshot_dir() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


@pytest.fixture(scope="module")
def site_changes() -> dict[str, Any]:
    """Settings a test module changes for its site (override in the module)."""
    return {}


@pytest.fixture(scope="module")
def site(redis_url: str, database_url: str, site_changes: dict[str, Any]) -> Iterator[str]:
    """The whole site (``create_app``: room server, pages, history API), fresh per module, at
    its public URL (a module may set ``public_url``, ``{port}`` in it filled in: e.g.
    ``http://localhost:{port}`` for passkeys, which want a domain)."""
    import redis as redis_sync
    from web_harness import site_settings

    from server.app import create_app

    port = free_port()
    changes = {
        k: v.format(port=port) if isinstance(v, str) and "{port}" in v else v
        for k, v in site_changes.items()
    }
    settings = site_settings(redis_url, database_url, port, **changes)
    with ThreadedServer(create_app(settings), port=port) as server:
        yield (settings.public_url or server.url).rstrip("/")
    client = redis_sync.Redis.from_url(redis_url)
    try:
        for key in client.scan_iter(match=f"{settings.redis_prefix}*", count=1000):
            client.delete(key)
    finally:
        client.close()
