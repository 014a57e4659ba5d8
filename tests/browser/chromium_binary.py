"""Debian's Chromium and the flags every browser test starts it with (the session's browser in
conftest.py, and a test that needs a profile of its own on disk)."""

from __future__ import annotations

import os

CHROMIUM = os.environ.get("TORTUGA_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
