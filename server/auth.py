"""Guest identities and the signed tokens that carry them.

A token is ``base64url(payload) "." base64url(HMAC-SHA256(secret, payload))`` where the
payload is the JSON ``{"u": user id, "n": name, "t": issued at}``. The signature binds the
id and the name together, so a token can neither be forged nor edited into another user's.
Every node of a site shares the secret, so a token works on any node.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass

from server.text import BadText, clean_text

MAX_NAME = 32


class BadToken(Exception):
    """The token is absent, malformed or not signed by this site."""


class BadName(ValueError):
    """A display name that is empty, too long or made of control characters."""


@dataclass(frozen=True, slots=True)
class User:
    id: str
    name: str

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "name": self.name}


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def clean_name(raw: object) -> str:
    """A display name under the text policy (server/text.py): 1..32 characters."""
    try:
        return clean_text(raw, MAX_NAME, "a name")
    except BadText as exc:
        raise BadName(exc.message) from None


class Tokens:
    """Issues and checks the tokens of one site (one secret)."""

    def __init__(self, secret: bytes) -> None:
        if len(secret) < 16:
            raise ValueError("the signing secret needs at least 16 bytes")
        self._key = hashlib.sha256(b"tortuga-token:" + secret).digest()

    def _sign(self, payload: bytes) -> str:
        return _b64(hmac.new(self._key, payload, hashlib.sha256).digest())

    def guest(self, name: str) -> tuple[str, User]:
        """A new guest user with that display name, and its token."""
        user = User(f"g_{secrets.token_urlsafe(9)}", clean_name(name))
        return self.issue(user), user

    def issue(self, user: User) -> str:
        payload = json.dumps(
            {"u": user.id, "n": user.name, "t": int(time.time())}, separators=(",", ":")
        ).encode()
        return f"{_b64(payload)}.{self._sign(payload)}"

    def check(self, token: str | None) -> User:
        """The user a token names; BadToken unless this site signed it."""
        if not token or token.count(".") != 1 or len(token) > 1024:
            raise BadToken("no token")
        body, signature = token.split(".")
        try:
            payload = _unb64(body)
        except ValueError:
            raise BadToken("malformed token") from None
        if not hmac.compare_digest(self._sign(payload), signature):
            raise BadToken("the token's signature does not match")
        try:
            data = json.loads(payload)
            return User(str(data["u"]), str(data["n"]))
        except (ValueError, KeyError, TypeError):
            raise BadToken("malformed token") from None

    def from_header(self, header: str | None) -> User:
        """The user of an ``Authorization: Bearer <token>`` header."""
        if not header or not header.startswith("Bearer "):
            raise BadToken("no bearer token")
        return self.check(header[len("Bearer ") :].strip())
