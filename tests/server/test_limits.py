"""Cheap denial of service, refused cheaply: request bodies, nesting, text.

Each test talks to a real node on the real Redis. A request the server must refuse before
reading it all is sent over a raw socket, so that the test decides how much is ever sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

import httpx
import websockets
from raw_http import refused_unread
from tortuga_client import Client, Node, create_room, dump, guest, open_socket


async def test_a_body_declared_too_large_is_refused_unread(node: Node) -> None:
    """The node must "refuse on Content-Length over the limit with 413". A 300 MB body is
    announced and never sent; the answer comes at once, from the head alone."""
    head = (
        "POST /api/guest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Content-Length: 300000000\r\n\r\n"
    )
    status, stopped = await refused_unread(node.settings.port, head, [b'{"name": "'])
    assert status.startswith(b"HTTP/1.1 413") and stopped, status


async def test_a_chunked_body_is_cut_off_past_the_limit(node: Node) -> None:
    """The node must "stop reading a stream once it passes the limit". A chunked body (no
    length) that goes on past ``max_frame_bytes`` and never ends is refused with 413."""
    head = (
        "POST /api/guest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    )
    chunk = b"x" * 4096
    parts = [b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(8)]  # 32 KiB, no end
    status, stopped = await refused_unread(node.settings.port, head, parts)
    assert status.startswith(b"HTTP/1.1 413") and stopped, status
    async with httpx.AsyncClient(base_url=node.url) as http:
        r = await http.post("/api/guest", content=b'{"name": "' + b"x" * 20000 + b'"}')
        assert r.status_code == 413 and r.json()["error"]["code"] == "body-too-large"


async def test_a_client_gone_before_its_body_came_is_no_error_of_the_servers(node: Node) -> None:
    """A page that leaves in the middle of a request (its POST half sent) is a refusal
    nobody reads, not "Exception in ASGI application" in the node's log; the node serves
    on."""
    errors: list[logging.LogRecord] = []
    handler = logging.Handler(logging.ERROR)
    handler.emit = errors.append  # type: ignore[method-assign]
    logging.getLogger("uvicorn.error").addHandler(handler)
    try:
        head = (
            "POST /api/guest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            "Content-Length: 200\r\n\r\n"
        )
        _, writer = await asyncio.open_connection("127.0.0.1", node.settings.port)
        writer.write(head.encode() + b'{"name": "Ha')
        await writer.drain()
        await asyncio.sleep(0.2)  # the route is reading the body
        writer.close()
        await asyncio.sleep(0.3)
    finally:
        logging.getLogger("uvicorn.error").removeHandler(handler)
    assert [r.getMessage() for r in errors] == []
    async with httpx.AsyncClient(base_url=node.url) as http:
        assert (await http.post("/api/guest", json={"name": "Ha"})).status_code == 200


async def test_deep_json_is_bad_json_everywhere(
    node: Node, redis_client: Any, redis_prefix: str
) -> None:
    """Deeply nested JSON used to raise RecursionError: a 500 on the HTTP routes, the socket
    closed with a traceback. Now it is ``bad-json``, and the socket goes on."""
    deep = "[" * 5000 + "]" * 5000
    token, _ = await guest(node, "Anne")
    async with httpx.AsyncClient(base_url=node.url) as http:
        r = await http.post("/api/guest", content=f'{{"name": "Anne", "x": {deep}}}')
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad-json", r.text
        r = await http.post(
            "/api/rooms",
            content=f'{{"game": "skull-king", "options": {deep}}}',
            headers={"Authorization": f"Bearer {token}"},
        )
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad-json", r.text
    c = await Client.connect(node, "Ben")
    before = await dump(redis_client, redis_prefix)
    await c.send_raw(f'{{"type": "act", "move": {deep}, "ref": "r1"}}')
    error = await c.of("error")
    assert error["code"] == "bad-json" and "nests" in error["message"]
    # A 33-level move is refused too; 32 levels of anything is still decoded.
    await c.send_raw(json.dumps({"type": "ping", "t": [[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]}))
    assert (await c.of("pong"))["t"][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0] == [1]
    assert await dump(redis_client, redis_prefix) == before
    await c.send("ping", t=2)
    assert (await c.of("pong"))["t"] == 2 and c.closed is None


async def test_text_made_to_be_slow_to_scan_is_refused_everywhere(
    node: Node, redis_client: Any, redis_prefix: str
) -> None:
    """A body or frame of the size limit made of escaped quotes (slow for a scanner that
    starts again from every quote) is refused as ``bad-json`` by the unauthenticated guest
    route, the room route and a socket, which goes on working; nothing is written. What it
    costs is checked in tests/server/test_json_text.py."""
    worst = ("[" * 40 + '"' + '\\"' * 8200)[: node.settings.max_frame_bytes]
    token, _ = await guest(node, "Anne")
    async with httpx.AsyncClient(base_url=node.url) as http:
        r = await http.post("/api/guest", content=worst)
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad-json", r.text
        r = await http.post(
            "/api/rooms", content=worst, headers={"Authorization": f"Bearer {token}"}
        )
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad-json", r.text
    c = await Client.connect(node, "Ben")
    before = await dump(redis_client, redis_prefix)
    await c.send_raw(worst)
    assert (await c.of("error"))["code"] == "bad-json"
    assert await dump(redis_client, redis_prefix) == before
    await c.send("ping", t=3)
    assert (await c.of("pong"))["t"] == 3 and c.closed is None


async def test_one_text_policy_for_names_and_chat(
    node: Node, redis_client: Any, redis_prefix: str
) -> None:
    """Chat accepted NUL, ESC and U+202E, which names refuse. One policy for both: no
    control, format (bidi) or unassigned characters; white space collapsed."""
    async with httpx.AsyncClient(base_url=node.url) as http:
        for bad in ("Anne\u202e", "A\x00nne", "\x1b[31mAnne", "An\u2066ne"):
            r = await http.post("/api/guest", json={"name": bad})
            assert r.json()["error"]["code"] == "bad-name", bad
    token, user = await guest(node, "Anne")
    room = await create_room(node, token)
    c = await Client.connect(node, token=token, user=user)
    await c.send("join", room=room["id"])
    await c.of("snapshot")
    before = await dump(redis_client, redis_prefix)
    for bad in ("hi\x00", "\x1b[2Jgone", "evil \u202egnp.exe", "a\u2067b", "\ufffe"):
        answer = await c.call("chat", text=bad)
        assert answer["type"] == "error" and answer["code"] == "bad-text", (bad, answer)
    assert (await c.call("chat", text="   "))["code"] == "bad-message"
    assert (await c.call("chat", text="x" * 501))["code"] == "chat-too-long"
    assert await dump(redis_client, redis_prefix) == before
    assert (await c.call("chat", text="  yo\n\tho  \U0001f3f4\u200d\u2620\ufe0f "))["type"] == "ok"
    said = await c.of("chat")
    assert said["text"] == "yo ho \U0001f3f4\u200d\u2620\ufe0f"


async def test_sockets_are_capped_per_user(start: Any) -> None:
    """One token held 600 sockets in a room. A node keeps at most ``max_sockets_per_user``
    open sockets of one user: the next is told ``too-many-sockets`` and closed (4009)."""
    node = await start("a", max_sockets_per_user=3)
    token, user = await guest(node, "Anne")
    room = await create_room(node, token)
    held = [await Client.connect(node, token=token, user=user) for _ in range(3)]
    for c in held:
        await c.send("join", room=room["id"], **{"as": "spectator"})
        await c.of("snapshot")
    ws = await open_socket(node.ws_url, token)
    error = json.loads(await ws.recv())
    assert error["type"] == "error" and error["code"] == "too-many-sockets"
    with contextlib.suppress(websockets.ConnectionClosed):
        await ws.recv()
    assert ws.close_code == 4009
    other = await Client.connect(node, "Ben")  # another user is not counted with Anne
    await other.send("ping", t=1)
    assert (await other.of("pong"))["t"] == 1
    # A socket that closes makes room for another.
    await held[0].close()
    for _ in range(100):
        ws = await open_socket(node.ws_url, token)
        first = json.loads(await ws.recv())
        await ws.close()
        if first["type"] == "hello":
            break
        await asyncio.sleep(0.05)
    assert first["type"] == "hello"


async def test_chat_rate_is_per_user_across_sockets_and_nodes(start: Any) -> None:
    """20 sockets posted 100 chat lines in 2 s, each socket with its own bucket. The bucket
    is the user's, in Redis: every socket of the user on every node draws on the same
    ``chat_burst`` (here 5, refilling about never)."""
    slow = {"chat_per_second": 0.0001, "chat_burst": 5, "max_sockets_per_user": 20}
    nodes = [await start("a", **slow), await start("b", **slow)]
    token, user = await guest(nodes[0], "Anne")
    room = await create_room(nodes[0], token)
    sockets = []
    for i in range(20):
        c = await Client.connect(nodes[i % 2], token=token, user=user)
        await c.send("join", room=room["id"], **{"as": "spectator"})
        await c.of("snapshot")
        sockets.append(c)
    answers = await asyncio.gather(
        *(
            c.call("chat", text=f"line {i} from {n}")
            for n, c in enumerate(sockets)
            for i in range(5)
        )
    )
    said = [a for a in answers if a["type"] == "ok"]
    refused = [a for a in answers if a["type"] == "error"]
    assert len(said) == 5 and len(refused) == 95
    assert {a["code"] for a in refused} == {"rate-limited"}
    # Another user has a bucket of their own.
    ben = await Client.connect(nodes[1], "Ben")
    await ben.send("join", room=room["id"], **{"as": "spectator"})
    await ben.of("snapshot")
    assert (await ben.call("chat", text="hello"))["type"] == "ok"


async def test_a_resume_from_far_behind_gets_one_snapshot(node: Node) -> None:
    """Six sockets resuming from version 0 drove a node to 92 % of a core, each replayed
    every version. Further behind than ``resume_max_versions`` (32 by default), a resume
    gets one snapshot."""
    token, user = await guest(node, "Anne")
    room = await create_room(node, token, seats=2, options={"rounds": 6})
    host = await Client.connect(node, token=token, user=user)
    await host.send("join", room=room["id"], **{"as": "spectator"})
    await host.of("snapshot")
    for seat in range(2):
        assert (await host.call("add_bot", seat=seat))["type"] == "ok"
    assert (await host.call("start"))["type"] == "ok"
    end = await host.wait(lambda f: f["type"] == "event" and f["event"]["status"] == "finished")
    assert end["version"] > 40
    assert node.settings.resume_max_versions == 32
    late = await Client.connect(node, token=token, user=user)
    await late.send("resume", room=room["id"], version=0)
    snapshot = await late.of("snapshot")
    assert snapshot["version"] == end["version"] and late.versions() == []
    # Close behind, the missed versions are replayed as before.
    near = await Client.connect(node, token=token, user=user)
    await near.send("resume", room=room["id"], version=end["version"] - 5)
    await near.of("resumed")
    assert near.versions() == list(range(end["version"] - 4, end["version"] + 1))
