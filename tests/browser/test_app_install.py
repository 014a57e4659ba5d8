"""The installable app in Chromium: the manifest parses, the service worker controls the page,
the icons load, Chromium finds nothing standing in the way of installing it, the cache holds
the shell's files only (never the API), and offline the pages say they need the server."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import pytest
from chromium_binary import CHROMIUM, CHROMIUM_ARGS

pytestmark = pytest.mark.browser


def _png_size(body: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk."""
    assert body[:8] == b"\x89PNG\r\n\x1a\n", "a PNG file"
    width, height = struct.unpack(">II", body[16:24])
    return int(width), int(height)


def _controlled(page: Any, url: str) -> None:
    """Open ``url``, wait for the worker, and reload once so that it controls the page."""
    page.goto(url)
    page.evaluate("() => navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")


def test_installable_manifest_worker_and_icons(site: str, chromium: Any, tmp_path: Path) -> None:
    # A profile of its own on disk: Chromium never offers to install from an incognito
    # context (a plain ``new_context`` is one: ``in-incognito`` would be its only error).
    context = chromium.browser_type.launch_persistent_context(
        str(tmp_path / "profile"), executable_path=CHROMIUM, args=CHROMIUM_ARGS
    )
    page = context.new_page()
    try:
        _controlled(page, site + "/")
        script = page.evaluate("() => navigator.serviceWorker.controller.scriptURL")
        assert script == site + "/sw.js", "the worker is served from the root: its scope is /"
        cdp = context.new_cdp_session(page)
        manifest = cdp.send("Page.getAppManifest")
        assert manifest["url"] == site + "/manifest.webmanifest"
        assert manifest["errors"] == [], "the manifest parses without errors"
        data = json.loads(manifest["data"])
        assert data["name"] == "Tortuga"
        assert data["display"] == "standalone"
        assert data["start_url"] == "/"
        # Chromium's own check of its installability criteria (manifest, icons, worker).
        errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
        assert errors == [], f"Chromium says the app cannot be installed: {errors}"
        for icon in data["icons"]:
            res = page.request.get(site + icon["src"])
            assert res.status == 200, icon["src"]
            assert res.headers["content-type"].startswith(icon["type"]), icon["src"]
            if icon["type"] == "image/png":
                size = int(icon["sizes"].split("x")[0])
                assert _png_size(res.body()) == (size, size), icon["src"]
        # What the worker cached: the app page and /static files, never the API or the socket.
        cached = page.evaluate(
            """async () => {
                 const names = await caches.keys();
                 const out = [];
                 for (const n of names) {
                   const c = await caches.open(n);
                   for (const r of await c.keys()) out.push([n, new URL(r.url).pathname]);
                 }
                 return out;
               }"""
        )
        names = {n for n, _ in cached}
        assert len(names) == 1 and next(iter(names)).startswith("tortuga-shell-0.")
        paths = {p for _, p in cached}
        assert "/static/js/app.js" in paths and "/static/css/app.css" in paths
        assert all(p == "/" or p.startswith("/static/") for p in paths), paths
        # The page's own calls to the API go to the server while it is controlled.
        page.evaluate("() => fetch('/api/games').then(r => r.status)")
        cached_after = page.evaluate(
            """async () => { const out = [];
                 for (const n of await caches.keys())
                   for (const r of await (await caches.open(n)).keys())
                     out.push(new URL(r.url).pathname);
                 return out; }"""
        )
        assert not [p for p in cached_after if p.startswith("/api") or p.startswith("/ws")]
    finally:
        context.close()


def test_offline_the_shell_opens_and_says_it_needs_the_server(site: str, chromium: Any) -> None:
    context = chromium.new_context()
    page = context.new_page()
    try:
        _controlled(page, site + "/")
        # Someone who has a name here (the page would ask for one first).
        page.evaluate(
            """localStorage.setItem('tortuga.identity',
                 JSON.stringify({token: 'x.y', user: {id: 'g_somebody', name: 'Anne'}}))"""
        )
        context.set_offline(True)
        page.goto(site + "/player/g_somebody")  # a page that needs the server's history
        alert = page.get_by_role("alert")
        alert.wait_for()
        assert "You are offline: this page needs the server" in alert.inner_text()
    finally:
        context.close()
