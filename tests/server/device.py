"""A device key for test clients, as a browser makes one with WebCrypto (ECDSA P-256):
registered with the user (``POST /api/me/keys``), named in ``auth {token, key}``, and
signing moves the way web-client/js/chain.js does (server/table/chain.py)."""

from __future__ import annotations

from typing import Any

import httpx
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from server.identity.signing import b64url, kid_of
from server.table import chain


class Device:
    def __init__(self) -> None:
        self.private = ec.generate_private_key(ec.SECP256R1())
        raw = self.private.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        self.public = b64url(raw)
        self.kid = kid_of(raw)

    def sign(self, kind: str, room: str, version: int, seat: int, c: str) -> str:
        """r || s of the message, base64url: WebCrypto's form."""
        der = self.private.sign(
            chain.sig_message(kind, room, version, seat, c), ec.ECDSA(hashes.SHA256())
        )
        r, s = decode_dss_signature(der)
        return b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))

    async def register(self, url: str, token: str) -> httpx.Response:
        async with httpx.AsyncClient(base_url=url) as http:
            return await http.post(
                "/api/me/keys",
                json={"key": self.public},
                headers={"Authorization": f"Bearer {token}"},
            )

    def act(self, room: str, version: int, seat: int, move: Any, salt: str) -> dict[str, Any]:
        """The fields of a signed ``act``."""
        c = chain.commitment(f"act@{version}", seat, move, salt)
        sig = self.sign(chain.ACT, room, version, seat, c)
        return {"move": move, "version": version, "salt": salt, "sig": sig}
