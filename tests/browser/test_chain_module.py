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
