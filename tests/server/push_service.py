"""A Web Push service of the test's own, on loopback: what a browser's push service does with
a push, checked as it would be -- and then some.

Each subscription it hands out has a real P-256 key pair and auth secret made here (as a
browser makes them). A push POSTed to it must carry ``Content-Encoding: aes128gcm``, a TTL
and a VAPID ``Authorization`` whose JWT (ES256) verifies against the key it names, for this
service's origin (``aud``), not expired; the body is decrypted with the subscription's
private key (RFC 8291, ``http_ece``). Anything wrong is kept in ``problems``. An endpoint
may be made to answer 410 (a subscription its browser dropped)."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

import http_ece
import uvicorn
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from tortuga_client import free_port


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Device:
    """One browser's subscription: its private key and auth secret stay here."""

    name: str
    key: ec.EllipticCurvePrivateKey
    auth: bytes
    status: int = 201

    def public(self) -> str:
        return b64(
            self.key.public_key().public_bytes(
                serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
            )
        )


@dataclass
class Received:
    device: str
    payload: dict[str, Any]
    claims: dict[str, Any]
    vapid_key: str
    headers: dict[str, str]


@dataclass
class PushService:
    port: int = field(default_factory=free_port)
    devices: dict[str, Device] = field(default_factory=dict)
    received: list[Received] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    server: uvicorn.Server | None = None
    task: asyncio.Task[None] | None = None

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def subscription(self, name: str, status: int = 201) -> dict[str, Any]:
        """A new device's ``PushSubscription.toJSON()``."""
        device = Device(name, ec.generate_private_key(ec.SECP256R1()), os.urandom(16), status)
        token = secrets.token_urlsafe(16)
        self.devices[token] = device
        return {
            "endpoint": f"{self.origin}/push/{token}",
            "keys": {"p256dh": device.public(), "auth": b64(device.auth)},
        }

    def of(self, name: str) -> list[Received]:
        return [r for r in self.received if r.device == name]

    async def _push(self, request: Request) -> Response:
        device = self.devices.get(request.path_params["token"])
        if device is None:
            return Response(status_code=404)
        body = await request.body()
        try:
            received = self._check(device, dict(request.headers), body)
        except Exception as exc:  # kept for the test to report
            self.problems.append(f"{device.name}: {exc!r}")
            return Response(status_code=400)
        if device.status < 300:
            self.received.append(received)
        return Response(status_code=device.status)

    def _check(self, device: Device, headers: dict[str, str], body: bytes) -> Received:
        assert headers.get("content-encoding") == "aes128gcm", headers
        assert int(headers["ttl"]) > 0
        scheme, _, params = headers["authorization"].partition(" ")
        assert scheme == "vapid", "RFC 8292's scheme"
        fields = dict(p.strip().split("=", 1) for p in params.split(","))
        jwt, vapid_key = fields["t"], fields["k"]
        head, claims_b64, sig = jwt.split(".")
        assert json.loads(unb64(head)) == {"typ": "JWT", "alg": "ES256"}
        signer = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(vapid_key))
        raw = unb64(sig)
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        try:
            signer.verify(der, f"{head}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            raise AssertionError("the VAPID JWT's signature does not verify") from None
        claims = json.loads(unb64(claims_b64))
        assert claims["aud"] == self.origin, claims
        assert time.time() < claims["exp"] <= time.time() + 24 * 3600, claims
        assert claims["sub"].startswith(("mailto:", "https://")), claims
        # Only the holder of the subscription's private key reads it (RFC 8291).
        plain = http_ece.decrypt(
            body, private_key=device.key, auth_secret=device.auth, version="aes128gcm"
        )
        return Received(device.name, json.loads(plain), claims, vapid_key, headers)

    async def __aenter__(self) -> PushService:
        app = Starlette(routes=[Route("/push/{token}", self._push, methods=["POST"])])
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.task = asyncio.create_task(self.server.serve())
        while not self.server.started:
            await asyncio.sleep(0.02)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.server is not None and self.task is not None:
            self.server.should_exit = True
            await asyncio.wait_for(self.task, 10)

    async def wait(self, name: str, count: int, timeout: float = 10.0) -> list[Received]:
        """Until ``name``'s device received ``count`` pushes (the list)."""
        deadline = time.monotonic() + timeout
        while len(self.of(name)) < count:
            assert not self.problems, self.problems
            if time.monotonic() > deadline:
                raise AssertionError(f"{name} got {len(self.of(name))} pushes, not {count}")
            await asyncio.sleep(0.02)
        return self.of(name)
