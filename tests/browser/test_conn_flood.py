"""A tab whose user is shut out for flooding (the server refuses its socket with
``rate-limited {retry_after_ms}`` and closes it with 4008) waits exactly that long before
its next try, its badge saying why -- it does not knock every second in the meantime."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from test_table_mocked import CODE, USER, _summary
from web_harness import SOCKET_URL

pytestmark = pytest.mark.browser


def test_a_shut_out_tab_waits_what_the_server_said(chromium: Any, web_only_url: str) -> None:
    context = chromium.new_context()
    identity = json.dumps({"token": "tok", "user": USER})
    context.add_init_script(f"localStorage.setItem('tortuga.identity', {json.dumps(identity)})")
    page = context.new_page()
    page.route(f"**/api/rooms/{CODE}", lambda route: route.fulfill(json=_summary()))
    tries: list[float] = []

    def server(ws: Any) -> None:
        def received(raw: str | bytes) -> None:
            msg = json.loads(raw)
            if msg["type"] != "auth":
                return
            tries.append(time.monotonic())
            if len(tries) == 1:  # shut out: 2 s to go
                refusal = {
                    "type": "error",
                    "code": "rate-limited",
                    "message": "closed for flooding: no new socket for 2 s",
                    "ref": None,
                    "retry_after_ms": 2000,
                }
                ws.send(json.dumps(refusal))
                ws.close(code=4008, reason="flooding")
            else:
                ws.send(json.dumps({"type": "hello", "user": USER, "node": "mock"}))

        ws.on_message(received)

    try:
        page.route_web_socket(SOCKET_URL, server)
        page.goto(f"{web_only_url}/r/{CODE}")
        badge = page.locator("#conn[data-state='slowed']")
        badge.wait_for()
        assert badge.inner_text() == "too many messages — back in a moment"
        page.wait_for_function("() => document.querySelector('#conn').dataset.state === 'open'")
        assert len(tries) == 2, tries
        assert tries[1] - tries[0] >= 2.0  # not before the time the server said
    finally:
        context.close()
