"""A room page whose ``join`` the server refuses for now (``rate-limited {room,
retry_after_ms}``: joins and resumes are priced per user and per address) asks again once
that time has passed -- not sooner, and not never: the player still gets the room."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from test_table_mocked import CODE, USER, _summary
from web_harness import SOCKET_URL

pytestmark = pytest.mark.browser


def test_a_refused_join_is_asked_again_when_the_server_said(
    chromium: Any, web_only_url: str
) -> None:
    context = chromium.new_context()
    identity = json.dumps({"token": "tok", "user": USER})
    context.add_init_script(f"localStorage.setItem('tortuga.identity', {json.dumps(identity)})")
    page = context.new_page()
    page.route(f"**/api/rooms/{CODE}", lambda route: route.fulfill(json=_summary()))
    joins: list[float] = []

    def server(ws: Any) -> None:
        def received(raw: str | bytes) -> None:
            msg = json.loads(raw)
            if msg["type"] == "auth":
                ws.send(json.dumps({"type": "hello", "user": USER, "node": "mock"}))
            elif msg["type"] in ("join", "resume"):
                joins.append(time.monotonic())
                if len(joins) == 1:
                    refusal = {
                        "type": "error",
                        "code": "rate-limited",
                        "message": "too many joins and resumes: wait a moment",
                        "ref": None,
                        "room": CODE,
                        "retry_after_ms": 1500,
                    }
                    ws.send(json.dumps(refusal))

        ws.on_message(received)

    try:
        page.route_web_socket(SOCKET_URL, server)
        page.goto(f"{web_only_url}/r/{CODE}")
        deadline = time.monotonic() + 15
        while len(joins) < 2 and time.monotonic() < deadline:
            page.wait_for_timeout(100)
        assert len(joins) == 2, joins
        assert joins[1] - joins[0] >= 1.5  # not before the time the server said
    finally:
        context.close()
