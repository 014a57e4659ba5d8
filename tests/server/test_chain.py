"""The move chain and signed moves (docs/PROTOCOL.md, "The move chain"): the canonical
encoding against the spec's vectors (tests/server/chain_vectors.json, which the browser's
chain.js is tested on too), a game played by device-signed clients whose record verifies,
every refusal of a bad signature or key (changing nothing), and a record an insider
rewrote and recomputed refused by ``verify`` for the signature it could not make."""

from __future__ import annotations

import asyncio
import copy
import json
import secrets
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import insider
import pytest
from device import Device
from test_protocol import refused
from tortuga_client import Client, Node, autoplay, create_app, final_records, guest, open_socket

from server.archive.chain_check import differs_from_seen
from server.archive.commands import read_heads
from server.archive.record import decode_record
from server.archive.replay import log_of, verify_log
from server.identity.signing import ServerKey, public_key, verify
from server.table import chain

VECTORS = json.loads((Path(__file__).parent / "chain_vectors.json").read_text())


def test_the_spec_vectors() -> None:
    assert chain.CHAIN == VECTORS["chain"] == "tortuga-chain/1"
    assert chain.GENESIS == VECTORS["genesis"] == "0" * 64
    for v in VECTORS["canonical"]:
        assert chain.canonical(v["value"]).decode() == v["text"]
    assert VECTORS["canonical"][0]["text"] == '{"A":{"y":"x\\"y","z":-3},"a":[true,null,"é"],"b":1}'
    for v in VECTORS["commitments"]:
        assert chain.commitment(v["label"], v["seat"], v["move"], v["salt"]) == v["c"]
    # The sealed commit's digest is the same formula (docs/PROTOCOL.md's example).
    bid = VECTORS["commitments"][1]
    assert (bid["label"], bid["move"]) == ("bid@1", {"bid": 3})
    for v in VECTORS["messages"]:
        text = chain.sig_message(v["kind"], v["room"], v["version"], v["seat"], v["c"])
        assert text.decode() == v["text"]
    assert VECTORS["messages"][1]["text"] == (
        '{"c":"' + "07" * 32 + '","kind":"entropy","room":"K7QXMH4P","seat":0,'
        '"tortuga":"tortuga-sig/1","version":0}'
    )
    prev = chain.GENESIS
    for v in VECTORS["links"]:
        assert v["link"]["prev"] == prev
        assert v["link"]["at"] == chain.at_ms(v["at_iso"])
        assert chain.canonical(v["link"]).decode() == v["text"]
        assert chain.head(v["link"]) == v["head"]
        prev = v["head"]
    for v in VECTORS["signatures"]:
        kid, key = public_key(v["key"])
        assert kid == v["kid"]
        assert verify(key, v["message"].encode(), v["sig"]) is v["valid"]
    server = ServerKey(bytes(range(1, 33)))
    assert server.public == VECTORS["signatures"][0]["key"]


async def _registered(node: Node, name: str) -> tuple[Device, str, dict[str, str]]:
    token, user = await guest(node, name)
    device = Device()
    answer = await device.register(node.url, token)
    assert answer.status_code == 201 and answer.json()["kid"] == device.kid
    return device, token, user


async def test_key_registration_and_auth_refusals(node: Node) -> None:
    token, _user = await guest(node, "Anne")
    for bad in ["", "not base64!", "A" * 87, Device().public[:-4]]:
        answer = await Device().register(node.url, token)  # a good one is accepted
        assert answer.status_code == 201
        import httpx

        async with httpx.AsyncClient(base_url=node.url) as http:
            r = await http.post(
                "/api/me/keys", json={"key": bad}, headers={"Authorization": f"Bearer {token}"}
            )
        assert r.status_code == 400 and r.json()["error"]["code"] in ("bad-key", "bad-message")
    # A point off the curve: 0x04 and 64 bytes of 0x01.
    from server.identity.signing import b64url

    async with httpx.AsyncClient(base_url=node.url) as http:
        r = await http.post(
            "/api/me/keys",
            json={"key": b64url(b"\x04" + b"\x01" * 64)},
            headers={"Authorization": f"Bearer {token}"},
        )
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad-key"
    assert "not on the P-256 curve" in r.json()["error"]["message"]
    # A socket naming a key its user never registered is closed with 4011 unknown-key.
    ws = await open_socket(node.ws_url, token, key=Device().kid)
    frame = json.loads(await ws.recv())
    assert frame["code"] == "unknown-key"
    await asyncio.wait_for(ws.wait_closed(), 5)
    assert ws.close_code == 4011


async def _signed_table(node: Node, bots: int = 1) -> tuple[list[Client], str]:
    """Two device-signed players (seats 0 and 1) and ``bots`` bots, started."""
    device, token, user = await _registered(node, "Anne")
    host = await Client.connect(node, token=token, user=user, device=device)
    room = await _room(node, token, 2 + bots)
    other_device, t2, u2 = await _registered(node, "Ben")
    other = await Client.connect(node, token=t2, user=u2, device=other_device)
    for seat, client in enumerate([host, other]):
        await client.send("join", room=room)
        await client.of("snapshot")
        assert (await client.call("sit", seat=seat))["type"] == "ok"
        entropy = secrets.token_hex(32)
        seat_sig = client.device.sign("entropy", room, 0, seat, entropy)
        assert (await client.call("ready", entropy=entropy, sig=seat_sig))["type"] == "ok"
    for seat in range(2, 2 + bots):
        assert (await host.call("add_bot", seat=seat))["type"] == "ok"
    return [host, other], room


async def _room(node: Node, token: str, seats: int) -> str:
    from tortuga_client import create_room

    info = await create_room(node, token, seats=seats, options={"rounds": 2})
    return str(info["id"])


async def test_signed_moves_refused_unless_they_verify(
    node: Node, redis_client: Any, redis_prefix: str
) -> None:
    (anne, ben), room = await _signed_table(node, bots=0)
    assert (await anne.call("start"))["type"] == "ok"
    await anne.has_version(1)
    sealed = await anne.seen(lambda f: f["type"] == "sealed")
    phase, version = sealed["phase"], sealed["version"]
    salt = secrets.token_hex(16)
    dig = chain.commitment(phase, 0, {"bid": 1}, salt)
    # Without a signature, from a socket with a key: signature-required, nothing changes.
    await refused(
        anne, redis_client, redis_prefix, "signature-required", "commit", phase=phase, digest=dig
    )
    # Signed by another device, or for another version: bad-signature, nothing changes.
    wrong = Device().sign("commit", room, version, 0, dig)
    await refused(
        anne,
        redis_client,
        redis_prefix,
        "bad-signature",
        "commit",
        phase=phase,
        digest=dig,
        sig=wrong,
    )
    stale = anne.device.sign("commit", room, version + 1, 0, dig)
    await refused(
        anne,
        redis_client,
        redis_prefix,
        "bad-signature",
        "commit",
        phase=phase,
        digest=dig,
        sig=stale,
    )
    # The right one is taken.
    good = anne.device.sign("commit", room, version, 0, dig)
    assert (await anne.call("commit", phase=phase, digest=dig, sig=good))["type"] == "ok"
    # A socket without a key may not send a signature it cannot have checked.
    plain = await Client.connect(node, token=ben.token, user=ben.user)
    await plain.send("join", room=room)
    await plain.of("snapshot")
    ben_dig = chain.commitment(phase, 1, {"bid": 0}, salt)
    ben_sig = ben.device.sign("commit", room, version, 1, ben_dig)
    await refused(
        plain,
        redis_client,
        redis_prefix,
        "bad-signature",
        "commit",
        phase=phase,
        digest=ben_dig,
        sig=ben_sig,
    )


async def _played_record(node: Node, redis_client: Any, redis_prefix: str) -> dict[str, Any]:
    clients, room = await _signed_table(node)
    assert (await clients[0].call("start"))["type"] == "ok"
    await asyncio.gather(*(autoplay(c, "skull-king") for c in clients))
    for _ in range(200):
        entries = await final_records(redis_client, redis_prefix)
        records = [json.loads(f[b"record"]) for _, f in entries]
        if records := [r for r in records if r["room"] == room]:
            return records[0]
        await asyncio.sleep(0.05)
    raise AssertionError("no final record")


def _verify(record: dict[str, Any]) -> Any:
    return verify_log(log_of(decode_record(json.dumps(record))))


async def test_a_signed_game_verifies_and_an_insiders_rewrite_does_not(
    node: Node, redis_client: Any, redis_prefix: str
) -> None:
    record = await _played_record(node, redis_client, redis_prefix)
    report = _verify(record)
    assert report.ok, report.message
    assert "the move chain holds from the deal to the end" in report.message
    proofs = [p for e in record["events"] for p in e["chain"]["moves"].values()]
    assert {p["by"] for p in proofs} == {"player", "server"}  # the bot's moves are the server's
    assert "0 unsigned" in report.message
    # Heads chain: each event's head hashes its link onto the one before.
    assert record["events"][0]["chain"]["game"]["seats"][2] == {
        "bot": "heuristic",
        "seat": 2,
        "user": None,
    }
    assert all(len(e["head"]) == 64 for e in record["events"])

    # Each insider's rewrite, recomputed as an insider would, fails on the signature.
    bid = copy.deepcopy(record)
    changed = insider.rewrite_bid(bid)
    insider.recompute(bid)
    report = _verify(bid)
    assert not report.ok and report.version == changed
    assert f"version {changed}: seat 0's move has a broken signature" in report.message

    # "... and against the heads this device saw": the heads a player's browser was sent
    # (saved to a file and given to `tortuga verify --heads`) name the first move where the
    # rewritten archive is not the game that device saw.
    saved = json.dumps(
        {"room": record["room"], "heads": {str(e["version"]): e["head"] for e in record["events"]}}
    )
    seen = read_heads(saved)
    report = verify_log(log_of(decode_record(json.dumps(record))), seen)
    assert (
        report.ok and f"the {len(seen)} head(s) the device saw are the archive's" in report.message
    )
    report = verify_log(log_of(decode_record(json.dumps(bid))), seen)
    assert not report.ok and report.version == changed
    assert f"differs from what the device saw at move {changed}" in report.message

    opens = [
        e["version"]
        for e in record["events"]
        if e["version"] > 2 and "act@" in next(iter(e["chain"]["moves"].values()))["l"]
    ]
    dropped = copy.deepcopy(record)
    insider.drop_event(dropped, opens[0])
    insider.recompute(dropped)
    report = _verify(dropped)
    assert not report.ok and report.version == opens[0], report.message
    assert "broken signature" in report.message

    swapped = copy.deepcopy(record)
    insider.swap_events(swapped, opens[0])
    insider.recompute(swapped)
    report = _verify(swapped)
    assert not report.ok and report.version == opens[0] and "broken signature" in report.message

    dealt = copy.deepcopy(record)
    insider.replace_contribution(dealt, 0)
    insider.recompute(dealt)
    report = _verify(dealt)
    assert not report.ok and report.version == 1
    assert "seat 0's contribution to the deal has a broken signature" in report.message

    # A server-made move passed off as the player's: by "player" with the server's key.
    passed = copy.deepcopy(record)
    event = next(e for e in passed["events"] if e["chain"]["moves"].get("2"))
    event["chain"]["moves"]["2"]["by"] = "player"
    insider.recompute(passed)
    report = _verify(passed)
    assert (
        not report.ok
        and "is a default, a stand-in's or a bot's, but is not marked" in report.message
    )


async def test_unsigned_clients_still_play_marked_unsigned(
    node: Node, redis_client: Any, redis_prefix: str
) -> None:
    from tortuga_client import seat_players

    table = await seat_players([node], 2)
    assert (await table.clients[0].call("start"))["type"] == "ok"
    await asyncio.gather(*(autoplay(c, "skull-king") for c in table.clients))
    for _ in range(200):
        entries = await final_records(redis_client, redis_prefix)
        records = [
            json.loads(f[b"record"])
            for _, f in entries
            if json.loads(f[b"record"])["room"] == table.id
        ]
        if records:
            break
        await asyncio.sleep(0.05)
    report = _verify(records[0])
    assert report.ok, report.message
    assert "0 move(s) signed by their player's device" in report.message
    bys = {p["by"] for e in records[0]["events"] for p in e["chain"]["moves"].values()}
    assert bys == {"unsigned"}


_ = create_app  # the node fixtures build apps with it


def test_a_heads_file_is_read_strictly() -> None:
    """A heads file that is not what a browser saves is refused with what is wrong in it."""
    head = "ab" * 32
    assert read_heads(json.dumps({"heads": {"1": head, "7": head}})) == {1: head, 7: head}
    assert read_heads(json.dumps({"3": head})) == {3: head}
    for bad, why in (
        ("not json", "not JSON"),
        ("{}", "holds no heads"),
        (json.dumps({"heads": {"x": head}}), "not a version"),
        (json.dumps({"heads": {"0": head}}), "not a version"),
        (json.dumps({"heads": {"2": "AB" * 32}}), "not 64 hex digits"),
        (json.dumps({"heads": {"2": head + "0"}}), "not 64 hex digits"),
    ):
        with pytest.raises(ValueError, match=why):
            read_heads(bad)


def test_a_head_seen_after_the_last_event_is_the_last_events() -> None:
    """A game abandoned at version N+1 sent that version with the head event N left (the
    abandon is no event of the chain); a dropped last event still differs."""
    steps = [SimpleNamespace(version=1, head="a" * 64), SimpleNamespace(version=2, head="b" * 64)]
    assert differs_from_seen(steps, {1: "a" * 64, 2: "b" * 64, 3: "b" * 64}) is None
    assert differs_from_seen(steps, {3: "c" * 64}) == 3
    assert differs_from_seen(steps[:1], {1: "a" * 64, 2: "b" * 64}) == 2
