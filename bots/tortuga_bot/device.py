"""A bot's device key: the ECDSA P-256 key its moves are signed with, as a browser's
(docs/PROTOCOL.md, "Signatures"; web-client/js/chain.js).

- The public key is the uncompressed point (65 bytes, ``0x04 || x || y``) in base64url
  without padding; its ``kid`` is the hex SHA-256 of those 65 bytes.
- A signature is ``r || s`` (64 bytes, big-endian) in base64url without padding, ECDSA with
  SHA-256 over ``chain.sig_message(...)`` -- WebCrypto's form, not DER.
- The private key lives in a file the bot's owner chooses (PKCS #8 PEM, mode 0600): a bot
  signs with the same key on every run, and the site knows it by the kid it registered.
  ``key_path`` is the default place: ``$XDG_CONFIG_HOME/tortuga-bot/<site>-<user>.key``
  (``~/.config/...``). One key per user of a site: a key belongs to the user it was
  registered with first (the archive names each kid's user), as a browser's device to the
  person signed in on it.

The cryptography is OpenSSL's (the ``cryptography`` package): nothing here is hand-made.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import logging
import os
import re
import secrets
import stat
from pathlib import Path
from urllib.parse import urlsplit

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)

from tortuga_bot.chain import sig_message

log = logging.getLogger("tortuga_bot")

_CURVE = ec.SECP256R1()
_ECDSA = ec.ECDSA(hashes.SHA256())


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    """base64url without padding; ValueError for anything else."""
    if not text.isascii() or "=" in text:
        raise ValueError("not base64url without padding")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except binascii.Error:
        raise ValueError("not base64url") from None


def kid_of(point: bytes) -> str:
    """A public key's name: the hex SHA-256 of its 65-byte uncompressed point."""
    return hashlib.sha256(point).hexdigest()


class KeyFileError(Exception):
    """A key file that is not a P-256 private key (or cannot be read or made)."""


class DeviceKey:
    """One device's key pair; ``path``: the file it is kept in (None: made for this run)."""

    def __init__(self, private: ec.EllipticCurvePrivateKey, path: Path | None = None) -> None:
        if not isinstance(private.curve, ec.SECP256R1):
            raise KeyFileError(f"a device key is P-256, not {private.curve.name}")
        self._private = private
        self.path = path
        point = private.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        self.public = b64url(point)  # as POST /api/me/keys takes it
        self.kid = kid_of(point)

    def __repr__(self) -> str:
        return f"DeviceKey(kid={self.kid[:16]}..., path={self.path})"

    @classmethod
    def generate(cls) -> DeviceKey:
        """A new key kept in memory only (a guest's: its user lives for one run)."""
        return cls(ec.generate_private_key(_CURVE))

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> DeviceKey:
        """The key kept in ``path``, made there first (mode 0600, its folder 0700) when the
        file does not exist. Two bots starting at once with the same file get the same key:
        the file appears whole or not at all."""
        path = Path(path).expanduser()
        try:
            return cls._read(path)
        except FileNotFoundError:
            pass
        key = cls(ec.generate_private_key(_CURVE), path)
        pem = key._private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            temporary = path.parent / f".{path.name}.{secrets.token_hex(6)}"
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(pem)
                    out.flush()
                    os.fsync(out.fileno())
                os.link(temporary, path)  # fails if another run made it meanwhile
            except FileExistsError:
                return cls._read(path)
            finally:
                with contextlib.suppress(FileNotFoundError):
                    temporary.unlink()
        except OSError as exc:
            raise KeyFileError(f"cannot make the key file {path}: {exc}") from None
        log.info("made a device key %s in %s", key.kid[:16], path)
        return key

    @classmethod
    def _read(cls, path: Path) -> DeviceKey:
        try:
            data = path.read_bytes()
            mode = stat.S_IMODE(path.stat().st_mode)
        except FileNotFoundError:
            raise  # to be made
        except OSError as exc:
            raise KeyFileError(f"cannot read the key file {path}: {exc}") from None
        if mode & 0o077:
            log.warning("the key file %s can be read by others (mode %o): chmod 600 it", path, mode)
        try:
            private = serialization.load_pem_private_key(data, password=None)
        except (ValueError, TypeError) as exc:
            raise KeyFileError(f"{path} holds no private key this library reads: {exc}") from None
        if not isinstance(private, ec.EllipticCurvePrivateKey):
            raise KeyFileError(f"{path} holds a key that is not ECDSA P-256")
        return cls(private, path)

    def sign(self, kind: str, room: str, version: int, seat: int, c: str) -> str:
        """This device's signature of one move (``chain.sig_message``): r || s, base64url."""
        return self.sign_bytes(sig_message(kind, room, version, seat, c))

    def sign_bytes(self, message: bytes) -> str:
        r, s = decode_dss_signature(self._private.sign(message, _ECDSA))
        return b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


def verify(public: str, message: bytes, sig: str) -> bool:
    """Whether ``sig`` (r || s, base64url) is the signature of ``message`` by the key whose
    uncompressed point is ``public`` (base64url)."""
    try:
        point, raw = unb64url(public), unb64url(sig)
        key = ec.EllipticCurvePublicKey.from_encoded_point(_CURVE, point)
    except ValueError:
        return False
    if len(raw) != 64:
        return False
    r, s = int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")
    try:
        key.verify(encode_dss_signature(r, s), message, _ECDSA)
    except (InvalidSignature, ValueError):
        return False
    return True


def config_dir() -> Path:
    """``$XDG_CONFIG_HOME/tortuga-bot``, else ``~/.config/tortuga-bot``."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "tortuga-bot"


def key_path(url: str, user: str, folder: str | os.PathLike[str] | None = None) -> Path:
    """Where a bot's key for ``user`` on the site at ``url`` is kept by default:
    ``<folder>/<site>-<user>.key``, the site being its host (and port, and path), e.g.
    ``~/.config/tortuga-bot/play.example.org-b_4f2a.key``."""
    parts = urlsplit(url if "//" in url else f"//{url}")
    site = (parts.netloc + parts.path.rstrip("/")) or "site"
    name = _safe(f"{site}-{user}")
    return Path(folder if folder is not None else config_dir()) / f"{name}.key"


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", text).strip(".") or "key"
