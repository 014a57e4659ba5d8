"""Passkeys (WebAuthn, server/http/passkeys.py) against real nodes, with a software
authenticator written here: an ES256 key, attestation ``none``, assertions signed over the
authenticator data and the client data's hash -- what a platform authenticator sends.

A passkey signs the same player in on another node (their rooms there); its challenge
works once; a wrong signature, a counter going back, another user's challenge are refused
and change nothing; after "sign out everywhere" a passkey gives a fresh valid token while
the old ones stay dead."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from tortuga_client import Client, Node, create_room
from webauthn.helpers import encode_cbor

sys.path.insert(0, str(Path(__file__).resolve().parent / "archive"))
from archive_helpers import play_record, store

from server.archive.db import Database

PHONE = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/131.0 Mobile"
LAPTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36"
RP_ID = "127.0.0.1"  # the nodes' public URL's host (``Settings.relying_party``)


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Authenticator:
    """One discoverable ES256 credential, as a phone's platform authenticator keeps it."""

    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    credential_id: bytes = field(default_factory=lambda: os.urandom(32))
    count: int = 0
    user_handle: bytes = b""

    def cose_key(self) -> bytes:
        numbers = self.key.public_key().public_numbers()
        x, y = numbers.x.to_bytes(32, "big"), numbers.y.to_bytes(32, "big")
        return encode_cbor({1: 2, 3: -7, -1: 1, -2: x, -3: y})

    def create(self, options: dict[str, Any], origin: str) -> dict[str, Any]:
        assert options["rp"]["id"] == RP_ID
        assert options["authenticatorSelection"]["residentKey"] == "required"
        self.user_handle = unb64(options["user"]["id"])
        client = json.dumps(
            {"type": "webauthn.create", "challenge": options["challenge"], "origin": origin}
        ).encode()
        self.count += 1
        auth_data = (
            hashlib.sha256(RP_ID.encode()).digest()
            + bytes([0x45])  # user present, user verified, attested credential data
            + struct.pack(">I", self.count)
            + bytes(16)  # AAGUID
            + struct.pack(">H", len(self.credential_id))
            + self.credential_id
            + self.cose_key()
        )
        attestation = encode_cbor({"fmt": "none", "attStmt": {}, "authData": auth_data})
        return {
            "id": b64(self.credential_id),
            "rawId": b64(self.credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64(client),
                "attestationObject": b64(attestation),
                "transports": ["internal", "hybrid"],
            },
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        }

    def get(
        self, options: dict[str, Any], origin: str, count: int | None = None, forge: bool = False
    ) -> dict[str, Any]:
        assert options["rpId"] == RP_ID and options["allowCredentials"] == []
        self.count = self.count + 1 if count is None else count
        client = json.dumps(
            {"type": "webauthn.get", "challenge": options["challenge"], "origin": origin}
        ).encode()
        auth_data = (
            hashlib.sha256(RP_ID.encode()).digest()
            + bytes([0x05])  # user present, user verified
            + struct.pack(">I", self.count)
        )
        signed = auth_data + hashlib.sha256(client).digest()
        signer = ec.generate_private_key(ec.SECP256R1()) if forge else self.key
        signature = signer.sign(signed, ec.ECDSA(hashes.SHA256()))
        return {
            "id": b64(self.credential_id),
            "rawId": b64(self.credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64(client),
                "authenticatorData": b64(auth_data),
                "signature": b64(signature),
                "userHandle": b64(self.user_handle),
            },
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        }


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def post(node: Node, path: str, token: str | None = None, **kw: Any) -> httpx.Response:
    headers = {"User-Agent": PHONE if token is None else LAPTOP, **(auth(token) if token else {})}
    async with httpx.AsyncClient(base_url=node.url, headers=headers) as http:
        return await http.post(path, **kw)


async def get(node: Node, path: str, token: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=node.url) as http:
        return await http.get(path, headers=auth(token))


async def add_passkey(node: Node, token: str, device: Authenticator) -> httpx.Response:
    r = await post(node, "/api/me/passkeys/options", token)
    assert r.status_code == 200, r.text
    credential = device.create(r.json(), node.url)
    return await post(node, "/api/me/passkeys", token, json={"credential": credential})


async def sign_in(node: Node, device: Authenticator, **how: Any) -> httpx.Response:
    r = await post(node, "/api/signin/passkey/options")
    assert r.status_code == 200, r.text
    options = r.json()
    assert options["userVerification"] == "preferred"
    body = {"credential": device.get(options, node.url, **how)}
    return await post(node, "/api/signin/passkey", json=body)


def code(r: httpx.Response) -> str:
    error: str = r.json()["error"]["code"]
    return error


async def test_a_passkey_signs_the_player_in_on_another_node(start: Any, database_url: str) -> None:
    a = await start("a", database_url=database_url)
    b = await start("b", database_url=database_url)
    anne = await Client.connect(a, "Anne")
    room = await create_room(a, anne.token, seats=2)
    await anne.send("join", room=room["id"])
    await anne.of("snapshot")
    assert (await anne.call("sit", seat=0))["type"] == "ok"
    phone = Authenticator()
    added = await add_passkey(a, anne.token, phone)
    assert added.status_code == 201, added.text
    assert added.json()["id"] == b64(phone.credential_id)
    assert added.json()["device"] == "Chrome on Linux"
    assert added.json()["transports"] == ["internal", "hybrid"]
    listed = (await get(a, "/api/me/passkeys", anne.token)).json()["passkeys"]
    assert [k["id"] for k in listed] == [b64(phone.credential_id)]
    # On the other node, no user yet: the passkey says who.
    r = await sign_in(b, phone)
    assert r.status_code == 200, r.text
    assert r.json()["user"] == {"id": anne.user["id"], "name": "Anne"}
    there = r.json()["token"]
    mine = (await get(b, "/api/me/rooms", there)).json()["rooms"]
    assert [x["id"] for x in mine] == [room["id"]], "her games are there"
    # And her history: a private game she played is listed for her token only.
    record = play_record(players=3, rounds=1, users=[anne.user["id"], "u-ben", None], public=False)
    record["room"] = secrets.token_urlsafe(12)
    record["game_id"] = f"{record['room']}-1"
    db = await Database.connect(database_url)
    try:
        await store(db, record)
    finally:
        await db.close()
    profile = (await get(b, f"/api/history/users/{anne.user['id']}/games", there)).json()
    assert [g["id"] for g in profile["games"]] == [record["game_id"]]
    assert "ratings" in profile
    async with httpx.AsyncClient(base_url=b.url) as http:
        r = await http.get(f"/api/history/users/{anne.user['id']}/games")
        assert r.json()["games"] == [], "a private game: not for a stranger"
    devices = (await get(a, "/api/me/devices", anne.token)).json()
    assert [(s["how"], s["device"]) for s in devices["sign_ins"]] == [
        ("passkey", "Chrome on Android")
    ]
    assert devices["passkeys"][0]["last_used_at"] is not None
    # Removed by its owner (not by another player): it signs no one in any more.
    ben = await Client.connect(a, "Ben")
    async with httpx.AsyncClient(base_url=a.url) as http:
        path = f"/api/me/passkeys/{b64(phone.credential_id)}"
        r = await http.delete(path, headers=auth(ben.token))
        assert r.status_code == 404 and code(r) == "no-such-passkey"
        assert (await http.delete(path, headers=auth(anne.token))).status_code == 200
    assert code(await sign_in(a, phone)) == "bad-passkey"


async def test_refused_ceremonies_change_nothing(start: Any, database_url: str) -> None:
    a = await start("a", database_url=database_url)
    anne = await Client.connect(a, "Anne")
    phone = Authenticator()
    assert (await add_passkey(a, anne.token, phone)).status_code == 201
    # A challenge works once: the same registration again, and a replayed sign-in.
    options = (await post(a, "/api/signin/passkey/options")).json()
    body = {"credential": phone.get(options, a.url)}
    assert (await post(a, "/api/signin/passkey", json=body)).status_code == 200
    again = await post(a, "/api/signin/passkey", json=body)
    assert again.status_code == 400 and code(again) == "bad-challenge"
    # A wrong signature, then a counter going back (a cloned authenticator): refused.
    assert code(await sign_in(a, phone, forge=True)) == "bad-passkey"
    assert code(await sign_in(a, phone, count=1)) == "bad-passkey"
    # A challenge of another origin's page; an unknown credential; a forged challenge.
    options = (await post(a, "/api/signin/passkey/options")).json()
    body = {"credential": phone.get(options, "https://evil.example")}
    assert code(await post(a, "/api/signin/passkey", json=body)) == "bad-passkey"
    assert code(await sign_in(a, Authenticator())) == "bad-passkey"
    forged = {"challenge": b64(os.urandom(32)), "rpId": RP_ID, "allowCredentials": []}
    body = {"credential": phone.get(forged, a.url)}
    assert code(await post(a, "/api/signin/passkey", json=body)) == "bad-challenge"
    # Malformed: not a credential, extra fields, too large.
    r = await post(a, "/api/signin/passkey", json={"credential": {"id": "x"}})
    assert r.status_code == 400 and code(r) == "bad-credential"
    r = await post(a, "/api/signin/passkey", json={"credential": {}, "extra": 1})
    assert code(r) == "bad-message"
    r = await post(a, "/api/signin/passkey", json={"credential": {"id": "x" * 20000}})
    assert r.status_code == 413 and code(r) == "body-too-large"
    # A registration challenge is its user's: Ben cannot finish Anne's.
    ben = await Client.connect(a, "Ben")
    options = (await post(a, "/api/me/passkeys/options", anne.token)).json()
    credential = Authenticator().create(options, a.url)
    r = await post(a, "/api/me/passkeys", ben.token, json={"credential": credential})
    assert code(r) == "bad-challenge"
    # None of it left a trace: one sign-in (the good one), one passkey, the counter kept.
    devices = (await get(a, "/api/me/devices", anne.token)).json()
    assert [s["how"] for s in devices["sign_ins"]] == ["passkey"]
    assert len(devices["passkeys"]) == 1
    assert (await get(a, "/api/me/passkeys", ben.token)).json()["passkeys"] == []
    assert (await sign_in(a, phone)).status_code == 200, "the counter moved on only once"


async def test_sign_out_everywhere_then_a_passkey(start: Any, database_url: str) -> None:
    a = await start("a", database_url=database_url)
    anne = await Client.connect(a, "Anne")
    phone = Authenticator()
    assert (await add_passkey(a, anne.token, phone)).status_code == 201
    before = (await sign_in(a, phone)).json()["token"]
    r = await post(a, "/api/me/signout", anne.token)
    assert r.status_code == 200
    fresh = await sign_in(a, phone)
    assert fresh.status_code == 200, fresh.text
    assert (await get(a, "/api/me/rooms", fresh.json()["token"])).status_code == 200
    for old in (anne.token, before):
        r = await get(a, "/api/me/rooms", old)
        assert r.status_code == 401 and code(r) == "bad-token"


async def test_passkeys_need_an_account_and_are_rate_limited(start: Any, database_url: str) -> None:
    a = await start("a", database_url=database_url)
    assert (await post(a, "/api/me/passkeys/options")).status_code == 401
    anne = await Client.connect(a, "Anne")
    codes = [(await post(a, "/api/me/passkeys/options", anne.token)).status_code for _ in range(6)]
    assert codes == [200] * 5 + [429]


async def test_malformed_credentials_are_refused_cleanly(start: Any, database_url: str) -> None:
    """Whatever a client sends, a 4xx with a code -- never a server error."""
    a = await start("a", database_url=database_url, signin_tries_burst=200)
    anne = await Client.connect(a, "Anne")
    phone = Authenticator()
    options = (await post(a, "/api/me/passkeys/options", anne.token)).json()
    good = phone.create(options, a.url)
    client = b64(json.dumps({"type": "webauthn.get", "origin": a.url}).encode())
    shapes: list[Any] = [
        {"id": "abc", "response": []},
        {"id": "abc", "rawId": "!!!", "type": "public-key", "response": {"clientDataJSON": "!!"}},
        {"id": "abc", "rawId": "abc", "type": "public-key", "response": {"clientDataJSON": "e30"}},
        {"id": "abc", "rawId": "abc", "type": "public-key", "response": {"clientDataJSON": client}},
        {**good, "response": {**good["response"], "attestationObject": b64(b"\xa1\x01")}},
        {**good, "response": {**good["response"], "attestationObject": 7}},
        {**good, "type": "password"},
        {"id": 5},
        {"id": "a", "rawId": "a", "type": "public-key", "response": {"clientDataJSON": "a" * 9000}},
    ]
    for shape in shapes:
        for path, token in (("/api/me/passkeys", anne.token), ("/api/signin/passkey", None)):
            r = await post(a, path, token, json={"credential": shape})
            assert r.status_code == 400, (path, shape, r.text)
            assert code(r) in {"bad-credential", "bad-challenge", "bad-passkey"}, r.text
    # The good registration's challenge was spent by a malformed one: nothing was kept.
    assert (await get(a, "/api/me/passkeys", anne.token)).json()["passkeys"] == []
    r = await post(a, "/api/me/passkeys", anne.token, json={"credential": good})
    assert code(r) == "bad-challenge"


def test_the_relying_party_is_the_public_hosts_or_set(monkeypatch: Any, tmp_path: Any) -> None:
    from server.settings import Settings

    assert Settings(public_url="https://play.example.org/").relying_party() == "play.example.org"
    assert Settings(host="localhost", port=8000).relying_party() == "localhost"
    monkeypatch.setenv("TORTUGA_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("TORTUGA_PUBLIC_URL", "https://play.example.org")
    monkeypatch.setenv("TORTUGA_RP_ID", "example.org")
    monkeypatch.setenv("TORTUGA_PASSKEY_CHALLENGE_SECONDS", "60")
    settings = Settings.from_env()
    assert (settings.relying_party(), settings.passkey_challenge_seconds) == ("example.org", 60)
