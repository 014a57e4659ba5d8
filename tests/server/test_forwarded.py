"""A trusted proxy's X-Forwarded-For and X-Forwarded-Proto (server/http/forwarded.py): applied
by the node before its app runs, as uvicorn's middleware would ("The client address (guest
quota) comes from X-Forwarded-For" only from ``TORTUGA_FORWARDED_ALLOW_IPS``), without a
coroutine frame kept alive for a socket's life."""

from __future__ import annotations

from typing import Any

from server.http.forwarded import Forwarded


def scope(client: str, *headers: tuple[bytes, bytes], kind: str = "http") -> dict[str, Any]:
    return {"type": kind, "client": (client, 5000), "scheme": "http", "headers": list(headers)}


def test_a_trusted_proxy_names_the_client_and_the_scheme() -> None:
    s = scope("127.0.0.1", (b"x-forwarded-for", b"203.0.113.7"), (b"x-forwarded-proto", b"https"))
    Forwarded("127.0.0.1").apply(s)
    assert s["client"] == ("203.0.113.7", 0) and s["scheme"] == "https"


def test_anyone_else_names_nothing() -> None:
    s = scope(
        "198.51.100.2", (b"x-forwarded-for", b"203.0.113.7"), (b"x-forwarded-proto", b"https")
    )
    Forwarded("127.0.0.1").apply(s)
    assert s["client"] == ("198.51.100.2", 5000) and s["scheme"] == "http"


def test_the_last_untrusted_hop_is_the_client() -> None:
    """A client can put anything in front of the chain; only what the trusted proxies
    appended counts: the first address from the right that is not a trusted proxy."""
    chain = b"10.9.9.9, 203.0.113.7, 127.0.0.1"
    s = scope("127.0.0.1", (b"x-forwarded-for", chain))
    Forwarded("127.0.0.1").apply(s)
    assert s["client"] == ("203.0.113.7", 0)


def test_a_websocket_gets_a_websocket_scheme_and_a_network_is_trusted() -> None:
    s = scope("10.0.0.5", (b"x-forwarded-proto", b"https"), kind="websocket")
    s["scheme"] = "ws"
    Forwarded("10.0.0.0/8").apply(s)
    assert s["scheme"] == "wss"


def test_a_bogus_scheme_and_an_empty_chain_change_nothing() -> None:
    s = scope("127.0.0.1", (b"x-forwarded-for", b""), (b"x-forwarded-proto", b"gopher"))
    Forwarded("127.0.0.1").apply(s)
    assert s["client"] == ("127.0.0.1", 5000) and s["scheme"] == "http"


def test_it_is_done_at_once_and_uvicorn_adds_none_on_top() -> None:
    """The point of doing it here: the scope is rewritten before the node's coroutine is
    made, nothing of it left suspended (uvicorn's middleware awaited the app for a socket's
    whole life), and uvicorn is told not to add its own."""
    from server.app import uvicorn_options
    from server.settings import Settings

    forwarded = Forwarded("*")
    s = scope("192.0.2.1", (b"x-forwarded-for", b"203.0.113.9"), kind="websocket")
    forwarded.apply(s)
    assert s["client"] == ("203.0.113.9", 0)
    assert uvicorn_options(Settings())["proxy_headers"] is False
