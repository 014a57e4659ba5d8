"""web-client's chain.js -- the browser's twin of server/table/chain.py -- on the spec's
vectors (tests/server/chain_vectors.json): the canonical encoding, commitments, the signed
messages, links and heads, and ECDSA P-256 signatures checked with WebCrypto."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

VECTORS = json.loads(
    (Path(__file__).resolve().parents[1] / "server" / "chain_vectors.json").read_text()
)


@pytest.fixture(scope="module")
def page(chromium: Any, web_only_url: str) -> Iterator[Any]:
    context = chromium.new_context()
    page = context.new_page()
    page.goto(web_only_url + "/rules/skull-king")
    yield page
    context.close()


def test_chain_js_matches_the_vectors(page: Any) -> None:
    out = page.evaluate(
        """async (v) => {
          const m = await import("/static/js/chain.js");
          const seal = await import("/static/js/seal.js");
          const heads = [], texts = [], ats = [];
          for (const l of v.links) {
            heads.push(await m.headOf(l.link));
            texts.push(seal.canonicalJson(l.link));
            ats.push(m.atMs(l.at_iso));
          }
          const sigs = [];
          for (const s of v.signatures) sigs.push(await m.verifySig(s.key, s.message, s.sig));
          return {
            chain: m.CHAIN, sig: m.SIG, genesis: m.GENESIS,
            canonical: v.canonical.map((c) => seal.canonicalJson(c.value)),
            commitments: await Promise.all(
              v.commitments.map((c) => m.commitment(c.label, c.seat, c.move, c.salt))),
            messages: v.messages.map((x) => m.sigMessage(x.kind, x.room, x.version, x.seat, x.c)),
            heads, texts, ats, sigs,
          };
        }""",
        VECTORS,
    )
    assert (out["chain"], out["sig"], out["genesis"]) == (
        "tortuga-chain/1",
        "tortuga-sig/1",
        "0" * 64,
    )
    assert out["canonical"] == [c["text"] for c in VECTORS["canonical"]]
    assert out["commitments"] == [c["c"] for c in VECTORS["commitments"]]
    assert out["messages"] == [m["text"] for m in VECTORS["messages"]]
    assert out["texts"] == [link["text"] for link in VECTORS["links"]]
    assert out["heads"] == [link["head"] for link in VECTORS["links"]]
    assert out["ats"] == [link["link"]["at"] for link in VECTORS["links"]]
    assert out["sigs"] == [True, False, False] == [s["valid"] for s in VECTORS["signatures"]]


def test_a_device_key_signs_what_the_server_checks(page: Any) -> None:
    """A key made in this browser (non-extractable) signs a move; Python's check (the
    server's) accepts it and refuses it for another seat."""
    from server.identity.signing import public_key, verify
    from server.table import chain

    out = page.evaluate(
        """async () => {
          const m = await import("/static/js/chain.js");
          const dev = await m.device();
          const sig = await m.sign("act", "K7QXMH4P", 7, 2, "ab".repeat(32));
          let exported = true;
          try { await crypto.subtle.exportKey("pkcs8", dev.privateKey); }
          catch { exported = false; }
          const extractable = dev.privateKey.extractable;
          return { pub: dev.public, kid: dev.kid, sig, exported, extractable };
        }"""
    )
    kid, key = public_key(out["pub"])
    assert kid == out["kid"]
    assert out["exported"] is False and out["extractable"] is False
    assert verify(key, chain.sig_message("act", "K7QXMH4P", 7, 2, "ab" * 32), out["sig"])
    assert not verify(key, chain.sig_message("act", "K7QXMH4P", 7, 1, "ab" * 32), out["sig"])


def test_each_user_of_a_browser_signs_with_a_key_of_their_own(page: Any) -> None:
    """A key is registered with one identity ("the public key is registered with the user's
    identity"): two people who sign in on one browser get two keys, each kept for its user,
    so neither's games name a key of the other's."""
    out = page.evaluate(
        """async () => {
          const m = await import("/static/js/chain.js");
          const token = (u) => btoa(JSON.stringify({ u, n: u })).replace(/=+$/, "") + ".sig";
          const originalFetch = window.fetch;
          const posted = [];
          // The registration's answer only: this page has no site behind it (web_only_url).
          window.fetch = async (url, init) => {
            posted.push(JSON.parse(init.body).key);
            return { ok: true };
          };
          try {
            const ann = await m.registeredKid(token("g_ann"));
            const bob = await m.registeredKid(token("g_bob"));
            const annAgain = await m.registeredKid(token("g_ann"), { again: true });
            const signer = (await m.device()).kid;  // the last to sign in signs
            return { ann, bob, annAgain, signer, posted: posted.length };
          } finally {
            window.fetch = originalFetch;
          }
        }"""
    )
    assert out["ann"] and out["bob"] and out["ann"] != out["bob"]
    assert out["annAgain"] == out["ann"] and out["signer"] == out["ann"]
    assert out["posted"] == 3


def test_a_head_seen_after_the_last_event_is_the_last_events(page: Any) -> None:
    """A game abandoned at version N+1 sent that version with the head event N left (the
    abandon is no event of the chain): the browser's check takes it as seen, and a
    different head there still differs."""
    out = page.evaluate(
        """async () => {
          const m = await import("/static/js/chain.js");
          const h = (c) => c.repeat(64);
          const record = { events: [{ version: 1, head: h("a") }, { version: 2, head: h("b") }] };
          const same = await m.checkRecord(record, { 1: h("a"), 2: h("b"), 3: h("b") });
          const other = await m.checkRecord(record, { 1: h("a"), 2: h("b"), 3: h("c") });
          return { same: same.differsAt, other: other.differsAt };
        }"""
    )
    assert out == {"same": None, "other": 3}
