"""Web Push as the standards say (RFC 8030 the protocol, RFC 8291 the message encryption,
RFC 8292 VAPID): the site's VAPID key, a subscription checked before it is kept, and one
push message encrypted and signed for one subscription -- the bytes and headers a push
service is sent (server/archive/push.py sends them).

The encryption is ``aes128gcm`` (RFC 8188) with the subscription's ``p256dh`` key and
``auth`` secret, done by ``pywebpush`` (``WebPusher.encode``, on ``http_ece`` and the
``cryptography`` package); the ``Authorization: vapid t=<JWT>, k=<public key>`` header is
``py_vapid``'s (``Vapid02``). Nothing here is hand-made crypto.

An endpoint is a URL the server will POST to, chosen by a browser -- or by anyone with a
token: so it must be https on one of the push services' hosts (``Settings.push_hosts``) and
resolve to public addresses only, unless ``allow_private`` (tests and loopback setups), or
the server could be pointed at its own network (SSRF). ``check_endpoint`` checks the URL
when a subscription is kept and before each POST; the addresses its name resolves to are
checked at each POST's connect (server/identity/push_transport.py).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02
from pywebpush import WebPusher

MAX_ENDPOINT = 1024  # characters of an endpoint URL
MAX_PAYLOAD = 3 * 1024  # bytes of a push's JSON (push services take 4 KB once encrypted)
ENCODING = "aes128gcm"
_ORDER = int("FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551", 16)


class BadSubscription(ValueError):
    """A subscription the server will not keep or send to (its message says why)."""


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class VapidKey:
    """The site's VAPID key pair (ECDSA P-256): the public half is the browsers'
    ``applicationServerKey``, the private half signs each push's JWT."""

    def __init__(self, private: bytes) -> None:
        scalar = int.from_bytes(private, "big") % (_ORDER - 1) + 1
        self.key = ec.derive_private_key(scalar, ec.SECP256R1())
        point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        self.public = b64url(point)  # what ``pushManager.subscribe`` is given
        self._vapid = Vapid02(private_key=self.key)

    @classmethod
    def derived(cls, secret: bytes) -> VapidKey:
        """A key derived from the token secret (settings made without one: tests)."""
        return cls(hmac.new(secret, b"tortuga-vapid-key/1", hashlib.sha256).digest())

    def authorization(self, endpoint: str, subject: str, now: float | None = None) -> str:
        """The ``Authorization`` header for a push to ``endpoint``: a JWT for the push
        service's origin (``aud``), valid 12 hours (``exp``), naming the site's contact."""
        parts = urlsplit(endpoint)
        claims = {
            "aud": f"{parts.scheme}://{parts.netloc}",
            "exp": int((time.time() if now is None else now) + 12 * 3600),
            "sub": subject,
        }
        header: str = self._vapid.sign(claims)["Authorization"]
        return header


@dataclass(frozen=True, slots=True)
class Subscription:
    """A browser's push subscription (``PushSubscription.toJSON()``): where to POST, and
    the keys its messages are encrypted to."""

    endpoint: str
    p256dh: str
    auth: str

    def info(self) -> dict[str, Any]:
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}


def check_endpoint(url: str, hosts: tuple[str, ...], allow_private: bool) -> str:
    """``url`` if the server may POST pushes to it, else ``BadSubscription``: https (http
    too when ``allow_private``), no user or password in it, a host among ``hosts`` (a name
    covers its subdomains; empty: any) unless ``allow_private``, and not an address of a
    private, loopback, link-local or reserved network unless ``allow_private``."""
    if not isinstance(url, str) or not 0 < len(url) <= MAX_ENDPOINT:
        raise BadSubscription(f"an endpoint is a URL of at most {MAX_ENDPOINT} characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise BadSubscription("the endpoint is not a URL") from None
    schemes = ("https", "http") if allow_private else ("https",)
    if parts.scheme not in schemes:
        raise BadSubscription("a push endpoint must be https")
    host = (parts.hostname or "").lower()
    if not host or parts.username is not None or parts.password is not None:
        raise BadSubscription("the endpoint names no host, or names a user")
    if port is not None and not 0 < port < 65536:
        raise BadSubscription("the endpoint's port is not valid")
    if allow_private:
        return url
    if hosts and not any(host == h or host.endswith("." + h) for h in hosts):
        raise BadSubscription("the endpoint is not on a known push service")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return url
    if not address.is_global:
        raise BadSubscription("the endpoint names a private address")
    return url


def check_keys(p256dh: str, auth: str) -> None:
    """``BadSubscription`` unless ``p256dh`` is a P-256 point (65 bytes, uncompressed) and
    ``auth`` a 16-byte secret, both base64url."""
    try:
        point, secret = unb64url(p256dh), unb64url(auth)
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except (ValueError, TypeError):
        raise BadSubscription("the subscription's keys are not valid") from None
    if len(point) != 65 or len(secret) != 16:
        raise BadSubscription("the subscription's keys are not valid")


def encrypt(subscription: Subscription, payload: bytes) -> bytes:
    """``payload`` encrypted for ``subscription`` (RFC 8291, ``aes128gcm``): only the
    browser that holds the subscription's private key can read it."""
    if len(payload) > MAX_PAYLOAD:
        raise BadSubscription(f"a push carries at most {MAX_PAYLOAD} bytes")
    body: bytes = WebPusher(subscription.info()).encode(payload, ENCODING)["body"]
    return body


def request(
    key: VapidKey, subject: str, subscription: Subscription, payload: bytes, ttl: int
) -> tuple[bytes, dict[str, str]]:
    """The body and headers of the POST that delivers ``payload`` to ``subscription``."""
    body = encrypt(subscription, payload)
    headers = {
        "Authorization": key.authorization(subscription.endpoint, subject),
        "Content-Encoding": ENCODING,
        "Content-Type": "application/octet-stream",
        "TTL": str(ttl),
        "Urgency": "normal",
    }
    return body, headers
