"""Joins and resumes are priced: each costs a node a room read and a snapshot or the missed
versions, so each draws on a token bucket of its user and one of its client address (as a
trusted proxy forwards it), shared by every node. Past the budget a join or resume is
refused with ``rate-limited {retry_after_ms}`` and nothing is done; a player reconnecting
as people do is never refused."""

from __future__ import annotations

import asyncio
from typing import Any

from tortuga_client import Client, Node, create_room, guest, open_socket

from server.settings import Settings

NEVER = 0.0001  # tokens a second: no refill while a test runs


async def from_address(node: Node, name: str, address: str) -> Client:
    """A guest whose socket comes through the trusted proxy from ``address``."""
    token, user = await guest(node, name)
    ws = await open_socket(node.ws_url, token, additional_headers={"X-Forwarded-For": address})
    client = Client(node, token, user, ws)
    await client.wait(lambda f: f["type"] == "hello")
    return client


async def resumes(client: Client, room: str, times: int) -> list[dict[str, Any]]:
    return [await client.call("resume", room=room, version=0) for _ in range(times)]


async def test_a_storm_of_resumes_from_one_address_is_refused_past_its_budget(start: Any) -> None:
    """Eight guests from one address resuming five times each: the address's ten are
    answered, the other thirty refused with ``retry_after_ms``; one user alone gets its own
    burst of three, whatever its address."""
    node = await start(
        "a",
        resume_burst=3,
        resume_per_second=NEVER,
        resume_address_burst=10,
        resume_address_per_second=NEVER,
    )
    host, _ = await guest(node, "Host")
    room = (await create_room(node, host))["id"]
    storm = [await from_address(node, f"s{i}", "203.0.113.7") for i in range(8)]
    answers = [
        a for got in await asyncio.gather(*(resumes(c, room, 5) for c in storm)) for a in got
    ]
    refused = [a for a in answers if a["type"] == "error"]
    assert len(answers) - len(refused) == 10
    assert len(refused) == 30
    assert {a["code"] for a in refused} == {"rate-limited"}
    assert all(a["retry_after_ms"] > 0 and a["room"] == room for a in refused)
    # Refused: nothing done (no snapshot or resumed for the refused ones).
    done = sum(1 for c in storm for f in c.frames if f["type"] in ("resumed", "snapshot"))
    assert done == 10
    loner = await from_address(node, "loner", "198.51.100.9")
    codes = [a.get("code", "ok") for a in await resumes(loner, room, 5)]
    assert codes == ["ok"] * 3 + ["rate-limited"] * 2
    # Joins are priced the same way.
    assert (await loner.call("join", room=room)).get("code") == "rate-limited"


async def test_a_player_reconnecting_is_not_refused(start: Any) -> None:
    """With the default budgets, a player who joins, drops and resumes again and again, as a
    flaky network makes them, is answered every time, while another address storms."""
    defaults = Settings()
    node = await start(
        "a",
        resume_burst=defaults.resume_burst,
        resume_per_second=defaults.resume_per_second,
        resume_address_burst=defaults.resume_address_burst,
        resume_address_per_second=defaults.resume_address_per_second,
    )
    token, user = await guest(node, "Anne")
    room = (await create_room(node, token))["id"]
    storm = [await from_address(node, f"s{i}", "203.0.113.7") for i in range(4)]
    storming = asyncio.gather(*(resumes(c, room, 40) for c in storm))
    anne = await Client.connect(node, token=token, user=user)
    await anne.send("join", room=room)
    await anne.of("snapshot")
    assert (await anne.call("sit", seat=0))["type"] == "ok"
    for _ in range(4):
        await anne.close()
        anne = await Client.connect(node, token=token, user=user)
        await anne.send("resume", room=room, version=0)
        # A socket new to the room is sent a snapshot; either way, answered.
        await anne.wait(lambda f: f["type"] in ("resumed", "snapshot"))
    stormed = [a for got in await storming for a in got]
    assert any(a.get("code") == "rate-limited" for a in stormed)
