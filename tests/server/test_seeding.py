"""Deals that not even the server can choose: the room commits to a
server seed when it is set up; each player's client adds 32 random bytes with ``ready``;
the game seed is derived from both (server/table/seeding.py, README "The deal seed")."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import secrets
from pathlib import Path
from typing import Any

import httpx
from tortuga_client import Client, Node, autoplay, dump, final_records, guest, seat_players

from server.archive.record import decode_record
from server.archive.replay import log_of, verify_log
from server.table import seeding

VECTORS = json.loads(Path(__file__).with_name("seed_vectors.json").read_text())


def test_the_derivation_matches_its_specification_and_vectors() -> None:
    """seed = sha256(utf8("tortuga-seed/2") || 0x00 || server_seed || c_0 || ... || c_n-1);
    the server's bytes for seat i = HMAC-SHA256(server_seed, utf8("tortuga-seat/1") || 0x00
    || u64be(i)); recomputed here from the text of the specification, not from the module."""
    assert VECTORS["label"] == "tortuga-seed/2" and len(VECTORS["vectors"]) >= 3
    assert VECTORS["legacy_label"] == "tortuga-seed/1"
    assert VECTORS["seat_label"] == "tortuga-seat/1"
    for v in VECTORS["vectors"]:
        server = bytes.fromhex(v["server_seed"])
        parts = [bytes.fromhex(c) for c in v["contributions"]]
        by_hand = hashlib.sha256(b"tortuga-seed/2\x00" + server + b"".join(parts)).hexdigest()
        assert v["seed"] == by_hand == seeding.derive(server, parts).hex()
        legacy = hashlib.sha256(b"tortuga-seed/1\x00" + server + b"".join(parts)).hexdigest()
        assert v["legacy_seed"] == legacy
        assert v["commitment"] == hashlib.sha256(server).hexdigest() == seeding.commitment(server)
        for seat, fixed in enumerate(v["server_bytes"]):
            msg = b"tortuga-seat/1\x00" + seat.to_bytes(8, "big")
            assert fixed == hmac.new(server, msg, hashlib.sha256).hexdigest()
            assert fixed == seeding.server_bytes(server, seat).hex()
    # Order matters: the same bytes in another seat order give another seed.
    v = VECTORS["vectors"][1]
    swapped = [bytes.fromhex(c) for c in reversed(v["contributions"])]
    assert seeding.derive(bytes.fromhex(v["server_seed"]), swapped).hex() != v["seed"]


async def test_the_seed_is_derived_from_the_commitment_and_the_players_bytes(
    node: Node, redis_client: Any, redis_prefix: str
) -> None:
    table = await seat_players([node], 3, options={"rounds": 1}, bots={2: "random"})
    host, bert = table.clients
    # Published when the room is set up; the server seed itself is not.
    commitment = table.room["seed_commitment"]
    assert len(commitment) == 64 and table.room["server_seed"] is None
    # Bert sends his own bytes again (the latest counts); the lobby shows only that he did.
    mine = secrets.token_hex(32)
    assert (await bert.call("ready", entropy=mine))["type"] == "ok"
    await bert.seen(lambda f: f["type"] == "room" and f["room_state"]["seats"][1]["contributed"])
    assert mine not in json.dumps(bert.frames) and mine not in json.dumps(host.frames)
    assert (await host.call("start"))["type"] == "ok"
    start = (await bert.has_version(1))["event"]
    contributions = start["contributions"]
    assert [c["seat"] for c in contributions] == [0, 1, 2]
    assert contributions[1] == {"seat": 1, "entropy": mine, "by": "player"}
    assert contributions[0]["by"] == "player" and contributions[2]["by"] == "server"  # a bot
    assert start["seed_commitment"] == commitment and "server_seed" not in start
    await asyncio.wait_for(asyncio.gather(*(autoplay(c, "skull-king") for c in table.clients)), 60)
    end = next(f for f in reversed(bert.frames) if f["type"] == "event")["event"]
    server_seed = bytes.fromhex(end["server_seed"])
    assert hashlib.sha256(server_seed).hexdigest() == commitment
    # The bot's bytes are the ones the commitment fixed for its seat, not drawn at the start.
    assert contributions[2]["entropy"] == seeding.server_bytes(server_seed, 2).hex()
    seed = seeding.derive(server_seed, [bytes.fromhex(c["entropy"]) for c in contributions])
    assert end["seed"] == seed.hex()
    assert hashlib.sha256(seed).hexdigest() == start["seed_digest"]
    # The archive record carries the derivation; verify checks it and catches a forgery.
    for _ in range(100):
        records = await final_records(redis_client, redis_prefix)
        if records:
            break
        await asyncio.sleep(0.05)
    record = decode_record(records[0][1][b"record"])
    assert record.deal is not None and record.deal["server_seed"] == end["server_seed"]
    report = verify_log(log_of(record))
    assert report.ok and "contribution" in report.message, report.message
    record.deal["contributions"][1]["entropy"] = secrets.token_hex(32)
    forged = verify_log(log_of(record))
    assert not forged.ok and "not derived" in forged.message


async def test_a_player_who_sends_nothing_gets_server_bytes_and_bad_bytes_are_refused(
    node: Node, redis_client: Any, redis_prefix: str
) -> None:
    """ "A player who sends nothing gets server-chosen bytes, marked so.\""""
    token, user = await guest(node, "Host")
    async with httpx.AsyncClient(base_url=node.url) as http:
        r = await http.post(
            "/api/rooms",
            json={"game": "skull-king", "seats": 2, "options": {"rounds": 1}},
            headers={"Authorization": f"Bearer {token}"},
        )
    room = r.json()
    host = await Client.connect(node, token=token, user=user)
    await host.send("join", room=room["id"])
    await host.of("snapshot")
    assert (await host.call("sit", seat=0))["type"] == "ok"
    before = await dump(redis_client, redis_prefix)
    for bad in ("00" * 31, "AB" * 32, "zz" * 32, 7):
        assert (await host.call("ready", entropy=bad))["code"] == "bad-message"
    assert await dump(redis_client, redis_prefix) == before
    assert (await host.call("ready"))["type"] == "ok"  # no bytes: an older client
    assert (await host.call("add_bot", seat=1))["type"] == "ok"
    assert (await host.call("start"))["type"] == "ok"
    start = (await host.has_version(1))["event"]
    assert [c["by"] for c in start["contributions"]] == ["server", "server"]
