"""Guest identities and the signed tokens that carry them.

A token is ``base64url(payload) "." base64url(HMAC-SHA256(secret, payload))`` where the
payload is the JSON ``{"u": user id, "n": name, "t": issued at, "e": expires at, "g":
generation, "a": address mark}`` (times in epoch seconds; ``a``, the keyed hash of the
address the guest was made from, ``address_mark``: absent from tokens made before it was
written). The signature binds them together, so a token can neither be forged nor edited
into another user's, another address's, or given a longer life. Every node of a site
shares the secret, so a token works on any node.

A token dies three ways: it expires (``settings.token_ttl_seconds`` after it was issued; a
token in use is refreshed long before: ``Identity.fresh``), its signature is not this
site's, or its user signed out everywhere -- which raises the user's generation number in
Redis (``Store.sign_out``), so every token issued before with a lower ``g`` is refused.
A genuine token is refused too while an operator bans its user from the site, the address
its guest was made from, or the address the request comes from (``Identity.current``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace

from server.identity.text import BadText, clean_text

MAX_NAME = 32
DEFAULT_TTL = 30 * 24 * 3600  # seconds a token lives (refreshed while it is used)
MARK_CHARS = 32  # an address mark's length (hex)
BOT_PREFIX = "b_"  # the user ids of players' bot accounts (server/http/bots.py)
BOT_TOKEN_TTL = 365 * 24 * 3600  # a bot account's token lives a year (until revoked)


def is_bot_account(user_id: str | None) -> bool:
    """A player's bot account (not a person, not one of the server's own bots)."""
    return user_id is not None and user_id.startswith(BOT_PREFIX)


def address_mark(secret: bytes, address: str) -> str:
    """A client address as the site keeps it: a keyed hash (HMAC with the site's secret),
    never the address itself."""
    return hmac.new(secret, b"address:" + address.encode(), hashlib.sha256).hexdigest()[:MARK_CHARS]


class BadToken(Exception):
    """The token is absent, malformed or not signed by this site."""

    code = "bad-token"  # the error code of the refusal
    status = 401  # HTTP
    close = 4001  # websocket close code


class Banned(BadToken):
    """A genuine token of a user an operator banned from the site (server/table/moderation.py):
    every route and socket refuses it with ``banned``."""

    code = "banned"
    status = 403
    close = 4010


class BadName(ValueError):
    """A display name that is empty, too long or made of control characters."""


@dataclass(frozen=True, slots=True)
class User:
    id: str
    name: str

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "name": self.name}


@dataclass(frozen=True, slots=True)
class Claims:
    """What a genuine token says: who, when it was issued and expires (epoch seconds), and
    the user's generation number it was issued under; ``mark``: the address mark of the
    address the guest was made from (None: a token from before marks were written)."""

    user: User
    issued: int
    expires: int
    gen: int
    mark: str | None = None


@dataclass(frozen=True, slots=True)
class Standing:
    """What Redis says of a user at one look (``Store.user_standing``): their token
    generation, their site ban (its JSON) if any, whether an operator banned one of the
    address marks asked about, and the mark their guest was made with when it was looked up
    (a token without a mark)."""

    gen: int
    ban: str | None = None
    address_banned: bool = False
    mark: str | None = None


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def clean_name(raw: object) -> str:
    """A display name under the text policy (server/identity/text.py): 1..32 characters."""
    try:
        return clean_text(raw, MAX_NAME, "a name")
    except BadText as exc:
        raise BadName(exc.message) from None


class Tokens:
    """Issues and checks the tokens of one site (one secret)."""

    def __init__(self, secret: bytes, ttl: float = DEFAULT_TTL) -> None:
        if len(secret) < 16:
            raise ValueError("the signing secret needs at least 16 bytes")
        self._key = hashlib.sha256(b"tortuga-token:" + secret).digest()
        self._secret = secret
        self.ttl = int(ttl)

    def mark(self, address: str) -> str:
        """The site's keyed hash of a client address (``address_mark``)."""
        return address_mark(self._secret, address)

    def _sign(self, payload: bytes) -> str:
        return _b64(hmac.new(self._key, payload, hashlib.sha256).digest())

    def bot_account(self, name: str) -> User:
        """A new bot account's user (its token: ``issue`` with ``BOT_TOKEN_TTL``)."""
        return User(f"{BOT_PREFIX}{secrets.token_urlsafe(9)}", clean_name(name))

    def guest(self, name: str, mark: str | None = None) -> tuple[str, User]:
        """A new guest user with that display name, and its token (``mark``: the address
        mark of the address it is made from)."""
        user = User(f"g_{secrets.token_urlsafe(9)}", clean_name(name))
        return self.issue(user, mark=mark), user

    def issue(
        self,
        user: User,
        gen: int = 0,
        now: float | None = None,
        mark: str | None = None,
        ttl: int | None = None,
    ) -> str:
        issued = int(time.time() if now is None else now)
        data: dict[str, object] = {
            "u": user.id,
            "n": user.name,
            "t": issued,
            "e": issued + (self.ttl if ttl is None else ttl),
            "g": gen,
        }
        if mark is not None:
            data["a"] = mark
        payload = json.dumps(data, separators=(",", ":")).encode()
        return f"{_b64(payload)}.{self._sign(payload)}"

    def claims(self, token: str | None, now: float | None = None) -> Claims:
        """What a token says; BadToken unless this site signed it and it has not expired.
        (Whether its user signed out since is ``Identity.check``'s question.)"""
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
            issued = int(data["t"])
            mark = data.get("a")
            # A token from before expiries were written lives ``ttl`` from its issue.
            claims = Claims(
                User(str(data["u"]), str(data["n"])),
                issued,
                int(data.get("e", issued + self.ttl)),
                int(data.get("g", 0)),
                mark[:MARK_CHARS] if isinstance(mark, str) and mark else None,
            )
        except (ValueError, KeyError, TypeError, AttributeError):
            raise BadToken("malformed token") from None
        if claims.expires <= (time.time() if now is None else now):
            raise BadToken("the token has expired: sign in again")
        return claims

    def check(self, token: str | None) -> User:
        """The user a token names; BadToken unless this site signed it (and it is alive)."""
        return self.claims(token).user


def bearer(header: str | None) -> str:
    """The token of an ``Authorization: Bearer <token>`` header."""
    if not header or not header.startswith("Bearer "):
        raise BadToken("no bearer token")
    return header[len("Bearer ") :].strip()


class Identity:
    """Tokens checked against the users' generation numbers (sign out everywhere) and the
    operators' bans, and refreshed while they are used.

    ``generation(user_id)`` reads the user's current generation (0 until they first signed
    out everywhere). A token is refreshed -- a new one with the same generation and a new
    expiry -- once it is older than ``refresh_after`` seconds: HTTP answers carry it in
    the ``X-Tortuga-Token`` header, the websocket's ``hello`` in ``token``.

    ``standing(user_id, marks, lookup)`` (``Store.user_standing``) reads in one round trip
    the generation, a site ban, and whether one of ``marks`` is a banned address (with
    ``lookup``, the mark the guest was made with is looked up too: a token without one)."""

    def __init__(
        self,
        tokens: Tokens,
        generation: Callable[[str], Awaitable[int]],
        refresh_after: float,
        standing: Callable[[str, Sequence[str], bool], Awaitable[Standing]] | None = None,
    ) -> None:
        self.tokens = tokens
        self.generation = generation
        self.refresh_after = refresh_after
        self.standing = standing

    async def check(self, token: str | None, address: str | None = None) -> Claims:
        return await self.current(self.tokens.claims(token), address)

    async def current(self, claims: Claims, address: str | None = None) -> Claims:
        """``claims`` (of a token whose signature was checked) unless signed out since, its
        user banned, or an address banned: the one its guest was made from, or ``address``,
        the one the request comes from. A token without a mark comes back with the mark its
        guest was made with, when the site still knows it (its refreshed token carries it)."""
        if self.standing is None:
            gen = await self.generation(claims.user.id)
            if claims.gen < gen:
                raise BadToken("this token was signed out: sign in again")
            return claims
        marks = [m for m in (claims.mark, self.tokens.mark(address) if address else None) if m]
        standing = await self.standing(claims.user.id, marks, claims.mark is None)
        if claims.gen < standing.gen:
            raise BadToken("this token was signed out: sign in again")
        if standing.ban is not None:
            raise Banned(ban_message(standing.ban))
        if standing.address_banned:
            raise Banned("the site's operators banned the address you play from")
        if claims.mark is None and standing.mark is not None:
            claims = replace(claims, mark=standing.mark)
        return claims

    async def from_header(self, header: str | None, address: str | None = None) -> Claims:
        return await self.check(bearer(header), address)

    def fresh(self, claims: Claims, now: float | None = None) -> str | None:
        """A new token for a token in use that is due for it, else None."""
        at = time.time() if now is None else now
        if at - claims.issued < self.refresh_after:
            return None
        return self.tokens.issue(claims.user, claims.gen, at, claims.mark)


def ban_message(ban: str) -> str:
    """What a banned user is told: the operators' reason (from the ban's JSON)."""
    try:
        reason = json.loads(ban).get("reason")
    except (ValueError, AttributeError):
        reason = None
    return f"banned from this site: {reason}" if reason else "banned from this site"
