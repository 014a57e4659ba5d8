"""No commitment, no game; and what a server that drops a player's bytes leaves behind.

A room whose server seed is not committed (or whose commitment does not match it) cannot
start: a seed drawn at the start, once the players' bytes are known, is one the server
could choose. A player's bytes that the server acknowledges and then leaves out of the deal
show in the record as the server's bytes for a player's seat, and `verify` names that seat
(the player's page says it is theirs: tests/browser/test_seed_commitment_page.py)."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import pytest
from tortuga_client import Node, autoplay, dump, final_records, seat_players

from server.archive.record import decode_record
from server.archive.replay import log_of, verify_log
from server.redis.keys import Keys
from server.table import seeding
from server.table.seats import Seats


@pytest.mark.parametrize(
    "tamper",
    [
        {"delete": ("server_seed", "seed_commitment")},
        {"delete": ("seed_commitment",)},
        {"set": {"seed_commitment": "00" * 32}},
    ],
    ids=["no-seed", "no-commitment", "another-commitment"],
)
async def test_a_room_without_its_commitment_cannot_start(
    node: Node, redis_client: Any, redis_prefix: str, tamper: dict[str, Any]
) -> None:
    table = await seat_players([node], 2, options={"rounds": 1}, bots={1: "random"})
    (host,) = table.clients
    key = Keys(redis_prefix).room(table.id)
    if tamper.get("delete"):
        await redis_client.hdel(key, *tamper["delete"])
    if tamper.get("set"):
        await redis_client.hset(key, mapping=tamper["set"])
    before = await dump(redis_client, redis_prefix)
    refused = await host.call("start")
    assert refused["type"] == "error" and refused["code"] == "no-commitment", refused
    assert await dump(redis_client, redis_prefix) == before


async def test_a_dropped_contribution_is_reported(
    node: Node, redis_client: Any, redis_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A patched server acknowledges seat 1's bytes and keeps none of them."""
    honest = Seats.ready

    async def dropping(
        self: Seats,
        room_id: str,
        user_id: str,
        ready: bool,
        entropy: str | None = None,
        signed: Any = None,
    ) -> Any:
        seat_one = (await self.reader.get(room_id)).seat_of(user_id) == 1
        kept = None if seat_one else entropy
        return await honest(self, room_id, user_id, ready, kept, None if seat_one else signed)

    monkeypatch.setattr(Seats, "ready", dropping)
    table = await seat_players([node], 3, options={"rounds": 1}, bots={2: "random"})
    host, bert = table.clients
    mine = secrets.token_hex(32)
    assert (await bert.call("ready", entropy=mine))["type"] == "ok"  # acknowledged...
    assert (await host.call("start"))["type"] == "ok"
    start = (await bert.has_version(1))["event"]
    assert start["contributions"][1]["by"] == "server"  # ...and left out
    await asyncio.wait_for(asyncio.gather(*(autoplay(c, "skull-king") for c in table.clients)), 60)
    for _ in range(100):
        records = await final_records(redis_client, redis_prefix)
        if records:
            break
        await asyncio.sleep(0.05)
    record = decode_record(records[0][1][b"record"])
    report = verify_log(log_of(record))
    assert report.ok, report.message
    # The report names the player's seat that has the server's bytes, not the bot's...
    assert "seat 1 (a player's seat)" in report.message, report.message
    assert "the server dropped them" in report.message
    assert "seat 2 (a player's seat)" not in report.message
    # ...which are the ones the commitment fixed for seat 1, so the derivation holds.
    assert record.deal is not None
    server_seed = bytes.fromhex(record.deal["server_seed"])
    assert record.deal["contributions"][1]["entropy"] == seeding.server_bytes(server_seed, 1).hex()
