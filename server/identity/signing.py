"""Device keys and the server's key: ECDSA P-256 signatures over moves (docs/PROTOCOL.md,
"The move chain").

A device (a browser) makes a key pair with WebCrypto (the private key non-extractable, kept
in IndexedDB) and registers its public key with the user's identity: the uncompressed point
(65 bytes, ``0x04 || x || y``) as base64url without padding. A key is named by its ``kid``,
the hex SHA-256 of those 65 bytes, so a name cannot be given to another key. A signature is
WebCrypto's form: ``r || s`` (64 bytes, big-endian), base64url without padding, over the
message's bytes with SHA-256.

The server signs the moves it makes for a seat (defaults, stand-ins, bots) with its own key
(``ServerKey``), generated into the data folder like the token secret (server/settings.py)
and shared by every node. The signature checks are OpenSSL's (the ``cryptography`` package):
nothing here is hand-made crypto.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)

POINT_BYTES = 65  # an uncompressed P-256 point
SIG_BYTES = 64  # r || s
_CURVE = ec.SECP256R1()
_ECDSA = ec.ECDSA(hashes.SHA256())
_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
KEPT_KEYS = 4096  # public keys a node keeps parsed


class BadKey(ValueError):
    """A public key that is not an uncompressed P-256 point in base64url."""


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    """base64url without padding (with it too); ValueError for anything else."""
    if not isinstance(text, str) or not text.isascii() or "=" in text.rstrip("="):
        raise ValueError("not base64url")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise ValueError("not base64url") from None


def kid_of(raw: bytes) -> str:
    """A key's name: hex sha256 of its 65-byte point."""
    return hashlib.sha256(raw).hexdigest()


def public_key(text: str) -> tuple[str, ec.EllipticCurvePublicKey]:
    """A registered public key (base64url of the uncompressed point): its kid and the key;
    BadKey when it is not a point of P-256."""
    try:
        raw = unb64url(text)
    except ValueError:
        raise BadKey("a public key is base64url (no padding) of a 65-byte P-256 point") from None
    if len(raw) != POINT_BYTES or raw[0] != 4:
        raise BadKey("a public key is the uncompressed P-256 point: 65 bytes, 0x04 first")
    try:
        key = ec.EllipticCurvePublicKey.from_encoded_point(_CURVE, raw)
    except ValueError:
        raise BadKey("that point is not on the P-256 curve") from None
    return kid_of(raw), key


_parsed: dict[str, ec.EllipticCurvePublicKey] = {}


def parsed(text: str) -> ec.EllipticCurvePublicKey:
    """``public_key`` of ``text``, kept parsed (a socket's key is checked on every move)."""
    key = _parsed.get(text)
    if key is None:
        key = public_key(text)[1]
        if len(_parsed) >= KEPT_KEYS:
            _parsed.clear()
        _parsed[text] = key
    return key


def verify(key: ec.EllipticCurvePublicKey, message: bytes, sig: str | None) -> bool:
    """Whether ``sig`` (base64url of r || s) is ``key``'s signature of ``message``."""
    if not isinstance(sig, str):
        return False
    try:
        raw = unb64url(sig)
    except ValueError:
        return False
    if len(raw) != SIG_BYTES:
        return False
    r, s = int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")
    if not (0 < r < _ORDER and 0 < s < _ORDER):
        return False
    try:
        key.verify(encode_dss_signature(r, s), message, _ECDSA)
    except InvalidSignature:
        return False
    return True


class ServerKey:
    """The server's signing key, from its 32-byte private scalar (``settings.signing_key``)."""

    def __init__(self, scalar: bytes) -> None:
        number = int.from_bytes(scalar, "big") % (_ORDER - 1) + 1
        self._key = ec.derive_private_key(number, _CURVE)
        raw = self._key.public_key().public_bytes(
            encoding=serialization.Encoding.X962,
            format=serialization.PublicFormat.UncompressedPoint,
        )
        self.public = b64url(raw)  # as a device's key is registered
        self.kid = kid_of(raw)

    @classmethod
    def derived(cls, secret: bytes) -> ServerKey:
        """A key derived from the token secret: for settings made without a signing key
        (tests); a site keeps its own in the data folder."""
        return cls(hmac.new(secret, b"tortuga-signing-key/1", hashlib.sha256).digest())

    def sign(self, message: bytes) -> str:
        r, s = decode_dss_signature(self._key.sign(message, _ECDSA))
        return b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))
