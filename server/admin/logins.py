"""Who may try an admin password, and what one try may cost.

- A login's body is JSON, said so (``Content-Type: application/json``; 415 otherwise): a
  cross-site page can post a form or ``text/plain`` without asking, not JSON, so no page a
  visitor opens can spend anyone's attempts.
- Attempts are counted per client address and per (name, address), in Redis, on every node
  together: never per name alone, which anyone anywhere could drain to lock the real admin
  out. An IPv6 address counts by its /64 (what one host is given), so cycling through one's
  own addresses buys nothing.
- The password check (argon2id: about 0.2 s of CPU and 64 MiB) runs only once both buckets
  allowed the attempt, in a thread (the event loop keeps serving), and at most
  ``admin_login_checks`` at once on a node: past that a login is refused at once (503
  ``busy``), never queued, so failed attempts cannot turn a node's CPU or memory into
  theirs. A name no account can have is refused without a check.
"""

from __future__ import annotations

import hashlib
import ipaddress
import time

from server.admin import accounts
from server.archive.db import Database
from server.redis.store import Store
from server.settings import Settings

WINDOW_SECONDS = 900.0  # login attempts refill over this long


def is_json(content_type: str | None) -> bool:
    """Whether a request's Content-Type says JSON (``application/json``, any parameters)."""
    if not content_type:
        return False
    return content_type.split(";", 1)[0].strip().lower() == "application/json"


def address_group(address: str) -> str:
    """The part of a client address attempts are counted by: an IPv4 address as it is, an
    IPv6 one by its /64; anything else (a name, ``unknown``) as it is."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address[:100]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def _pair(name: str, group: str) -> str:
    """The (name, address) bucket's id: a digest, so no text of the request names a key."""
    return hashlib.sha256(f"{name}\0{group}".encode()).hexdigest()[:32]


async def allowed(store: Store, settings: Settings, name: str, address: str) -> bool:
    """One attempt taken from the address's bucket, then from the (name, address) one;
    False (nothing checked) when either is empty."""
    group = address_group(address)
    now_ms = int(time.time() * 1000)
    for kind, who, burst in (
        ("address", group, settings.admin_logins_per_address),
        ("pair", _pair(name, group), settings.admin_logins_per_name_and_address),
    ):
        if burst <= 0:
            continue
        key = store.keys.admin_logins(kind, who)
        if not await store.take_token(key, now_ms, burst / WINDOW_SECONDS, burst):
            return False
    return True


class Busy(Exception):
    """As many password checks as a node runs at once are running."""


class Checks:
    """A node's password checks: at most ``limit`` at once, the others refused."""

    def __init__(self, limit: int) -> None:
        self.limit = max(1, limit)
        self.running = 0

    async def check(self, db: Database, name: str, password: str) -> bool:
        """Whether ``name`` is an enabled admin with this password; Busy past the bound."""
        try:
            accounts.check_name(name)
        except accounts.AdminError:
            return False  # no account has this name: nothing to check
        if self.running >= self.limit:
            raise Busy
        self.running += 1
        try:
            return await accounts.check(db, name, password)
        finally:
            self.running -= 1
