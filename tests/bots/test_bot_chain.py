"""The bot library's move chain (bots/tortuga_bot/chain.py, device.py) on the spec's vectors
-- tests/server/chain_vectors.json, the ones the server's chain.py and the browser's chain.js
pass -- and its device key file. Offline: no node."""

from __future__ import annotations

import base64
import json
import os
import stat
from pathlib import Path

import pytest
from tortuga_bot import chain
from tortuga_bot.device import DeviceKey, KeyFileError, key_path, verify
from tortuga_bot.games import device_key
from tortuga_bot.seal import digest
from tortuga_bot.site import Site

from server.archive.commands import read_heads
from server.identity.signing import public_key
from server.identity.signing import verify as server_verify

VECTORS = json.loads(
    (Path(__file__).resolve().parents[1] / "server" / "chain_vectors.json").read_text()
)


def test_the_canonical_encoding_and_commitments_are_the_specs() -> None:
    """ "canonical(x) is JSON with object keys sorted by code point, no spaces, non-ASCII
    written as UTF-8" and "commitment = hex(sha256(label ":" seat ":" canonical(move) ":"
    salt))": the library writes the vectors' bytes, and a sealed commit's digest is the
    commitment under the phase's label."""
    assert (VECTORS["chain"], VECTORS["sig"]) == (chain.CHAIN, chain.SIG)
    assert VECTORS["genesis"] == chain.GENESIS
    for v in VECTORS["canonical"]:
        assert chain.canonical(v["value"]) == v["text"].encode("utf-8")
    for v in VECTORS["commitments"]:
        assert chain.commitment(v["label"], v["seat"], v["move"], v["salt"]) == v["c"]
    bid = VECTORS["commitments"][1]
    assert bid["label"] == "bid@1"
    assert digest(bid["label"], bid["seat"], bid["move"], bid["salt"]) == bid["c"]


def test_what_is_signed_and_the_heads_are_the_specs() -> None:
    """ "A signature is ... over the UTF-8 of canonical({"c", "kind", "room", "seat",
    "tortuga": "tortuga-sig/1", "version"})", and a head is "hex(sha256(canonical(link)))",
    each link naming the head before it."""
    for v in VECTORS["messages"]:
        message = chain.sig_message(v["kind"], v["room"], v["version"], v["seat"], v["c"])
        assert message == v["text"].encode("utf-8")
    prev = chain.GENESIS
    for v in VECTORS["links"]:
        assert v["link"]["prev"] == prev
        assert chain.canonical(v["link"]) == v["text"].encode("utf-8")
        assert chain.head(v["link"]) == v["head"]
        prev = v["head"]
    assert chain.phase_version("bid@7") == 7


def test_signatures_are_the_specs() -> None:
    """ "its public key is the uncompressed point (65 bytes) in base64url without padding,
    its kid the hex SHA-256 of those bytes. A signature is r || s (64 bytes), base64url
    without padding, with SHA-256": the vectors' signatures verify (or not) as they say, and
    a signature the library makes verifies with the server's own check."""
    for v in VECTORS["signatures"]:
        assert verify(v["key"], v["message"].encode("utf-8"), v["sig"]) is v["valid"]
    key = DeviceKey.generate()
    kid, public = public_key(key.public)  # the server reads the library's public key
    assert kid == key.kid and len(key.public) == 87  # 65 bytes, base64url unpadded
    act = VECTORS["messages"][0]
    sig = key.sign(act["kind"], act["room"], act["version"], act["seat"], act["c"])
    assert len(sig) == 86  # 64 bytes
    assert server_verify(public, act["text"].encode("utf-8"), sig)
    assert verify(key.public, act["text"].encode("utf-8"), sig)
    other = chain.sig_message("act", act["room"], act["version"], act["seat"] + 1, act["c"])
    assert not verify(key.public, other, sig), "another seat's message"
    assert not verify(DeviceKey.generate().public, act["text"].encode(), sig), "another key"


def test_the_key_file_is_made_once_private_and_reused(tmp_path: Path) -> None:
    """ "kept in a file the bot's owner chooses ... created with mode 0600, so a bot signs
    with the same key across runs"."""
    path = tmp_path / "keys" / "site-b_1.key"
    first = DeviceKey.load(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    again = DeviceKey.load(path)
    assert again.kid == first.kid and again.public == first.public
    assert [p.name for p in path.parent.iterdir()] == [path.name], "no temporary file left"
    bad = tmp_path / "bad.key"
    bad.write_text("not a key")
    with pytest.raises(KeyFileError, match="holds no private key"):
        DeviceKey.load(bad)


def test_the_default_key_file_is_per_site_and_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "default: beside the bot's token/config, e.g. ~/.config/tortuga-bot/<site>-<user>.key"
    -- the user being the one the bot account's token names; a guest (a user of one run)
    gets a key of the run, in no file."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert key_path("http://127.0.0.1:8000", "b_42") == (
        tmp_path / "tortuga-bot" / "127.0.0.1_8000-b_42.key"
    )
    assert key_path("https://play.example.org/", "u/x").name == "play.example.org-u_x.key"
    payload = chain.canonical({"u": "b_42", "n": "Polly", "t": 1, "e": 2, "g": 0})
    token = base64.urlsafe_b64encode(payload).rstrip(b"=").decode() + ".signature"
    site = Site("http://127.0.0.1:8000", token)
    assert site.user_id == "b_42"
    key = device_key(site)
    assert key.path == tmp_path / "tortuga-bot" / "127.0.0.1_8000-b_42.key"
    assert device_key(site).kid == key.kid
    assert device_key(site, guest=True).path is None
    assert device_key(Site("http://x", "not-a-token"), tmp_path / "mine.key").kid != key.kid
    with pytest.raises(KeyFileError, match="names no user"):
        device_key(Site("http://x", "not-a-token"))
    assert sorted(os.listdir(tmp_path / "tortuga-bot")) == ["127.0.0.1_8000-b_42.key"]


def test_a_heads_file_is_what_tortuga_verify_reads(tmp_path: Path) -> None:
    """ "can write them to a file in the format `tortuga verify GAME --heads FILE` reads":
    ``{"room", "game_id", "heads": {"<version>": head}}``."""
    heads = {2: "cd" * 32, 1: "ab" * 32, 10: "ef" * 32}
    path = chain.save_heads(tmp_path / "heads", "K7QXMH4P", "K7QXMH4P-1", heads)
    assert path == tmp_path / "heads" / "K7QXMH4P-1.json"
    saved = json.loads(path.read_text())
    assert saved["room"] == "K7QXMH4P" and saved["game_id"] == "K7QXMH4P-1"
    assert list(saved["heads"]) == ["1", "2", "10"]
    assert read_heads(path.read_text()) == heads
