"""Every knob of a node, from environment variables, with defaults that run locally.

Nothing else reads the environment. ``Settings.from_env()`` is called once at start-up;
tests build ``Settings(...)`` directly.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit


def _env(name: str) -> str | None:
    """A variable's value; unset and empty alike mean the setting's default."""
    value = os.environ.get(name)
    return value if value else None


MIN_ADMIN_TOKEN = 32  # characters: a token from ``secrets.token_urlsafe(24)`` or longer


def _admin_token(value: str) -> str:
    """TORTUGA_ADMIN_TOKEN, refused at start-up when it is too short to be a secret."""
    if value and len(value) < MIN_ADMIN_TOKEN:
        raise SystemExit(f"TORTUGA_ADMIN_TOKEN: at least {MIN_ADMIN_TOKEN} characters")
    return value


def _origins(value: str) -> tuple[str, ...]:
    """TORTUGA_ALLOWED_ORIGINS: comma-separated origins, without a trailing slash."""
    return tuple(o.strip().rstrip("/") for o in value.split(",") if o.strip())


def _yes(value: str) -> bool:
    return value not in ("0", "false", "no")


def _kept(data_dir: Path, name: str) -> bytes:
    """32 random bytes kept (hex, mode 0600) in the data folder's file ``name``, made on
    first use: every node started on the same folder reads the same ones."""
    path = data_dir / name
    if path.exists():
        return bytes.fromhex(path.read_text().strip())
    data_dir.mkdir(parents=True, exist_ok=True)
    value = secrets.token_bytes(32)
    path.write_text(value.hex())
    path.chmod(0o600)
    return value


def _load_secret(data_dir: Path) -> bytes:
    """The token-signing secret: TORTUGA_SECRET, else one kept in the data folder, so that
    tokens survive a restart and every node started on the same folder shares it."""
    return _kept(data_dir, "secret")


def _load_signing_key(data_dir: Path) -> bytes:
    """The server's signing key (the private scalar of its ECDSA P-256 key, 32 bytes):
    TORTUGA_SIGNING_KEY, else one kept in the data folder beside the token secret, so that
    every node started on the same folder signs with it (server/identity/signing.py)."""
    return _kept(data_dir, "signing-key")


def _load_vapid_key(data_dir: Path) -> bytes:
    """The site's VAPID key for Web Push (the private scalar of an ECDSA P-256 key, 32
    bytes): TORTUGA_VAPID_PRIVATE_KEY (base64url, the form ``web-push
    generate-vapid-keys`` prints), else one kept in the data folder beside the token secret,
    so every node started on the same folder sends with it (server/identity/webpush.py)."""
    return _kept(data_dir, "vapid-key")


def _b64url(value: str) -> bytes:
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


def _hosts(value: str) -> tuple[str, ...]:
    """TORTUGA_PUSH_HOSTS: comma-separated host names (a name covers its subdomains);
    ``*``: any public host."""
    hosts = tuple(h.strip().lower().lstrip(".") for h in value.split(",") if h.strip())
    return () if hosts == ("*",) else hosts


# The push services of the browsers people use (Chrome/Edge/Opera: FCM; Firefox: Mozilla's
# autopush; Safari: Apple's; Edge on Windows: WNS): a subscription's endpoint must be on one.
PUSH_HOSTS = (
    "fcm.googleapis.com",
    "push.services.mozilla.com",
    "push.apple.com",
    "notify.windows.com",
)


@dataclass(frozen=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8000
    public_url: str | None = None  # how players reach this site (invite links); default host:port
    data_dir: Path = Path("data")
    redis_url: str | None = None  # None: start the embedded Redis under data_dir
    database_url: str | None = None  # None: start the embedded Postgres under data_dir
    # A read replica (or any read-only URL) the history routes read from; None: the primary.
    database_read_url: str | None = None
    redis_prefix: str = ""  # a key space of its own (tests); keys stay hash-tagged per room
    redis_pool_size: int = 100  # connections to Redis per node; more commands wait for one
    redis_pool_wait_seconds: float = 10.0  # how long a command waits for a free connection
    redis_retries: int = 10  # retries of a command on a connection error (backoff to 1 s)
    secret: bytes = field(default=b"", repr=False)
    # The server's key for the moves it makes for a seat (defaults, stand-ins, bots): the
    # 32-byte private scalar (TORTUGA_SIGNING_KEY, else the data folder's ``signing-key``);
    # empty -- TORTUGA_SECRET set without it, or settings built in tests -- derived from
    # ``secret``, so every node that shares the secret shares the key.
    signing_key: bytes = field(default=b"", repr=False)
    # Admin sessions (server/admin/): how long a login lives; login attempts allowed per
    # (account, client address) and per client address (a burst, refilled over a quarter of
    # an hour; never per account alone, which strangers could drain); password checks
    # (argon2id, ~0.2 s of CPU and 64 MiB each) running at once on a node, past which a
    # login is refused (503 ``busy``).
    admin_session_seconds: float = 8 * 3600.0
    admin_logins_per_name_and_address: int = 5
    admin_logins_per_address: int = 20
    admin_login_checks: int = 2
    # ``/metrics`` answers a request bearing this token (Prometheus' ``authorization``
    # setting) or a live admin session; empty: admin sessions only.
    metrics_token: str = field(default="", repr=False)
    # An admin token for automation (scripts, CI): a request bearing it acts as the admin
    # ``automation`` (server/admin/routes.py), audited as such; empty: no such token. At
    # least ``MIN_ADMIN_TOKEN`` characters (``from_env`` refuses a shorter one).
    admin_token: str = field(default="", repr=False)
    node_id: str = field(default_factory=lambda: secrets.token_hex(4))
    # Tokens (server/identity/tokens.py): how long one lives, and how old one in use gets before the
    # server hands out a fresh one (HTTP header X-Tortuga-Token, the websocket's hello).
    token_ttl_seconds: float = 30 * 24 * 3600.0
    token_refresh_seconds: float = 24 * 3600.0
    # Websocket upgrades are refused unless their Origin is one of these (a request
    # without Origin is no browser's: allowed). Empty: the origin of the public URL.
    allowed_origins: tuple[str, ...] = ()
    auth_timeout_seconds: float = 10.0  # a socket must send its ``auth`` frame by then
    # Seats and sockets.
    grace_seconds: float = 60.0  # a dropped player's seat is held this long
    max_frame_bytes: int = 16 * 1024  # a websocket frame, and an HTTP request body
    max_json_depth: int = 32  # nesting of arrays and objects in a frame or a body
    rate_per_second: float = 20.0  # messages per user on a node (all its sockets), sustained
    rate_burst: int = 40
    flood_strikes: int = 20  # rate-limited messages before the socket is closed
    flood_cooldown_seconds: float = 30.0  # then its user may open no socket on any node
    chat_max_chars: int = 500
    chat_per_second: float = 1.0  # chat messages per user (all sockets, all nodes), sustained
    chat_burst: int = 5
    chat_history: int = 50  # recent chat messages a room keeps (snapshots and resumes carry them)
    max_sockets_per_user: int = 8  # open websockets of one user on one node
    # Connections from one address still sending a request's head, or websockets not yet
    # signed in (server/realtime/arrivals.py); past it a new one is refused (429).
    max_pending_per_address: int = 32
    head_seconds: float = 10.0  # a request's head (line and headers) must come within this
    # Bytes waiting to be written to one socket (its queue and its unsent buffer) past which
    # it is cut off as too slow; it comes back with a resume, as after any drop.
    max_queued_bytes: int = 1024 * 1024
    # A keepalive ping every this many seconds; a socket that has not answered one this long
    # after it was sent is cut off, with whatever was waiting to be written to it.
    ping_seconds: float = 20.0
    # A resume further behind than this gets one snapshot instead of every version missed.
    resume_max_versions: int = 32
    rooms_listed: int = 100  # public rooms in one list
    # Quotas (server/table/quotas.py; 0: none).
    max_open_rooms_per_user: int = 5  # rooms a user hosts that are not over
    max_bot_games_per_user: int = 2  # games of bots only a host has under way
    guests_per_address_per_hour: int = 30  # new guest identities from one client address
    max_public_rooms_per_address: int = 20  # public rooms not over made from one address
    # Joins and resumes (each a room read and a snapshot or the missed versions), a bucket
    # per user and one per client address, shared by every node: a burst, then a refill.
    resume_burst: int = 6
    resume_per_second: float = 0.5
    resume_address_burst: int = 100
    resume_address_per_second: float = 10.0
    lobby_idle_seconds: int = 3600  # a lobby with no change and no socket for this long goes
    # A public lobby whose host has had no socket in it this long leaves the public list (its
    # link still works; it is listed again when the host comes back). 0: listed until it goes.
    lobby_host_away_seconds: float = 120.0
    # Proxies trusted for X-Forwarded-For (addresses; none by default: anything on the host
    # could otherwise name any client address). Set it to the proxy's (docker-compose.yml).
    forwarded_allow_ips: str = ""
    bot_delay: float = 0.6  # seconds a bot "thinks" (0 in tests)
    # The bot ladder's arena (server/ladder/arena.py): tables at once per game (0: no arena),
    # seats per table, how often it looks, how long a table waits for its bots to get ready,
    # and the seconds every move, commit and opening of its games has.
    ladder_tables: int = 0
    ladder_players: int = 3
    ladder_every_seconds: float = 5.0
    ladder_lobby_seconds: float = 60.0
    ladder_move_seconds: float = 30.0
    # Each game's options at the arena's tables (JSON, by game id; a game left out: its defaults).
    ladder_options: dict[str, Any] = field(default_factory=dict)
    # Clocks (server/table/deadlines.py) and nodes (server/realtime/heartbeat.py).
    bot_rescue_seconds: float = 5.0  # a bot move not made by then (its node died) is made
    clock_poll_seconds: float = 0.25  # how often a node looks for due deadlines
    clock_lease_seconds: float = 15.0  # a claimed deadline comes due again after (claimer died)
    heartbeat_seconds: float = 2.0  # how often a node says it is alive
    node_ttl_seconds: float = 10.0  # a node silent this long is dead: its sockets stop counting
    sweep_seconds: float = 10.0  # how often a node re-arms the rooms it has sockets in
    # Graceful drain (server/realtime/drain.py): on SIGTERM a node waits this long at most for its
    # sockets to reconnect elsewhere; each client waits a random part of the spread first.
    drain_seconds: float = 10.0
    reconnect_spread_ms: int = 1000
    visit_concurrency: int = 16  # rooms re-armed at once (joins, starts, the sweep)
    bot_concurrency: int = 32  # bot runs reading or writing Redis at once (per node)
    room_ttl_seconds: int = 7 * 24 * 3600  # a finished or abandoned room's keys expire after
    # A game no human player has been connected to for this long is abandoned by the clock.
    abandon_after_seconds: float = 7 * 24 * 3600.0
    archive_every_versions: int = 50  # a game under way is archived at least this often
    # The final record not on the archive stream by then (its writer died) is put there by
    # any node's clock (the ``archive|<room>`` member).
    archive_rescue_seconds: float = 5.0
    # Ratings (server/archive/write.py, RatingRules): a game is rated among its established
    # users -- first seen more than ``rated_min_age_seconds`` before it, with at least
    # ``rated_min_games`` finished games -- when it has two; a leaderboard lists users with
    # at least ``leaderboard_min_games`` rated games.
    rated_min_games: int = 3
    rated_min_age_seconds: float = 24 * 3600.0
    leaderboard_min_games: int = 5
    migrate_on_start: bool = True  # the server upgrades the schema itself (else: refuses)
    # Web Push (server/archive/push.py; needs Postgres): the VAPID key's private scalar
    # (TORTUGA_VAPID_PRIVATE_KEY, else the data folder's ``vapid-key``; empty -- settings
    # built in tests -- derived from ``secret``: every node that shares it shares the key),
    # the contact the push services are given (VAPID ``sub``: ``mailto:`` or a URL; default
    # the public URL), the hosts a subscription's endpoint may name (``PUSH_HOSTS``; empty:
    # any public host), and -- tests and a loopback setup only -- ``push_private_endpoints``:
    # http and private, loopback or link-local addresses allowed (off: never, SSRF).
    vapid_private_key: bytes = field(default=b"", repr=False)
    vapid_subject: str = ""
    push_hosts: tuple[str, ...] = PUSH_HOSTS
    push_private_endpoints: bool = False
    push_timeout_seconds: float = 5.0  # one POST to a push service, connection included
    push_queue: int = 1000  # steps waiting to be looked at for pushes; past it, dropped
    push_senders: int = 4  # pushes being sent at once (per node)
    push_devices_per_user: int = 10  # subscriptions one user keeps (the oldest go)
    push_ttl_seconds: int = 24 * 3600  # how long a push service keeps a push for a device
    # One identity on every device (server/http/signin.py): a one-time sign-in link lives
    # this long; links a user may make (a burst, then one every ``signin_link_every``
    # seconds) and tries at using one from one client address (a burst, then one a second).
    signin_link_seconds: int = 300
    signin_links_burst: int = 5
    signin_link_every: float = 60.0
    signin_tries_burst: int = 20
    # Passkeys (WebAuthn, server/http/passkeys.py): the relying party's id -- the site's
    # domain, which a passkey is bound to ("": the host of ``base_url()``; set it when the
    # public URL's host is not the domain passkeys should be made for); a ceremony's challenge
    # lives this long (single-use); the passkeys one user keeps.
    rp_id: str = ""
    passkey_challenge_seconds: int = 120
    passkeys_per_user: int = 10

    @classmethod
    def from_env(cls) -> Settings:
        """The settings of the variables set (``_VARIABLES``); every other field keeps its
        default above, the one place a default is written."""
        values: dict[str, Any] = {
            name: read(raw)
            for name, (variable, read) in _VARIABLES.items()
            if (raw := _env(variable)) is not None
        }
        data_dir = Path(values.pop("data_dir", cls.data_dir)).resolve()
        secret_hex = _env("TORTUGA_SECRET")
        secret = bytes.fromhex(secret_hex) if secret_hex else _load_secret(data_dir)
        key_hex = _env("TORTUGA_SIGNING_KEY")
        if key_hex:
            key = bytes.fromhex(key_hex)
        elif secret_hex:  # nodes that share the secret share the key derived from it
            key = b""
        else:
            key = _load_signing_key(data_dir)
        vapid_b64 = _env("TORTUGA_VAPID_PRIVATE_KEY")
        if vapid_b64:
            vapid = _b64url(vapid_b64)
        elif secret_hex:  # nodes that share the secret share the key derived from it
            vapid = b""
        else:
            vapid = _load_vapid_key(data_dir)
        return cls(
            data_dir=data_dir, secret=secret, signing_key=key, vapid_private_key=vapid, **values
        )

    def base_url(self) -> str:
        """How players reach the site: the public URL, else this node's address."""
        return (self.public_url or f"http://{self.host}:{self.port}").rstrip("/")

    def relying_party(self) -> str:
        """Passkeys' relying party id: ``rp_id``, else the host of the public URL."""
        return self.rp_id or (urlsplit(self.base_url()).hostname or "localhost")

    def origins(self) -> frozenset[str]:
        """The origins whose pages may open websockets here."""
        if self.allowed_origins:
            return frozenset(self.allowed_origins)
        parts = urlsplit(self.base_url())
        return frozenset({f"{parts.scheme}://{parts.netloc}"})

    def with_(self, **changes: object) -> Settings:
        return replace(self, **changes)  # type: ignore[arg-type]


# Each setting read from the environment: its variable and how its text is read. A variable
# unset (or empty) leaves the field's default in ``Settings``.
_VARIABLES: dict[str, tuple[str, Callable[[str], object]]] = {
    "host": ("TORTUGA_HOST", str),
    "port": ("TORTUGA_PORT", int),
    "public_url": ("TORTUGA_PUBLIC_URL", str),
    "data_dir": ("TORTUGA_DATA_DIR", Path),
    "redis_url": ("TORTUGA_REDIS_URL", str),
    "database_url": ("TORTUGA_DATABASE_URL", str),
    "database_read_url": ("TORTUGA_DATABASE_READ_URL", str),
    "redis_prefix": ("TORTUGA_REDIS_PREFIX", str),
    "admin_session_seconds": ("TORTUGA_ADMIN_SESSION_SECONDS", float),
    "admin_logins_per_name_and_address": ("TORTUGA_ADMIN_LOGINS_PER_NAME_AND_ADDRESS", int),
    "admin_logins_per_address": ("TORTUGA_ADMIN_LOGINS_PER_ADDRESS", int),
    "admin_login_checks": ("TORTUGA_ADMIN_LOGIN_CHECKS", int),
    "metrics_token": ("TORTUGA_METRICS_TOKEN", str),
    "admin_token": ("TORTUGA_ADMIN_TOKEN", _admin_token),
    "node_id": ("TORTUGA_NODE_ID", str),
    "token_ttl_seconds": ("TORTUGA_TOKEN_TTL_SECONDS", float),
    "token_refresh_seconds": ("TORTUGA_TOKEN_REFRESH_SECONDS", float),
    "allowed_origins": ("TORTUGA_ALLOWED_ORIGINS", _origins),
    "grace_seconds": ("TORTUGA_GRACE_SECONDS", float),
    "lobby_host_away_seconds": ("TORTUGA_LOBBY_HOST_AWAY_SECONDS", float),
    "bot_delay": ("TORTUGA_BOT_DELAY", float),
    "ladder_tables": ("TORTUGA_LADDER_TABLES", int),
    "ladder_players": ("TORTUGA_LADDER_PLAYERS", int),
    "ladder_every_seconds": ("TORTUGA_LADDER_EVERY_SECONDS", float),
    "ladder_lobby_seconds": ("TORTUGA_LADDER_LOBBY_SECONDS", float),
    "ladder_move_seconds": ("TORTUGA_LADDER_MOVE_SECONDS", float),
    "ladder_options": ("TORTUGA_LADDER_OPTIONS", json.loads),
    "bot_rescue_seconds": ("TORTUGA_BOT_RESCUE_SECONDS", float),
    "clock_poll_seconds": ("TORTUGA_CLOCK_POLL_SECONDS", float),
    "heartbeat_seconds": ("TORTUGA_HEARTBEAT_SECONDS", float),
    "node_ttl_seconds": ("TORTUGA_NODE_TTL_SECONDS", float),
    "sweep_seconds": ("TORTUGA_SWEEP_SECONDS", float),
    "drain_seconds": ("TORTUGA_DRAIN_SECONDS", float),
    "reconnect_spread_ms": ("TORTUGA_RECONNECT_SPREAD_MS", int),
    "abandon_after_seconds": ("TORTUGA_ABANDON_AFTER_SECONDS", float),
    "archive_every_versions": ("TORTUGA_ARCHIVE_EVERY_VERSIONS", int),
    "archive_rescue_seconds": ("TORTUGA_ARCHIVE_RESCUE_SECONDS", float),
    "max_frame_bytes": ("TORTUGA_MAX_FRAME_BYTES", int),
    "max_queued_bytes": ("TORTUGA_MAX_QUEUED_BYTES", int),
    "max_pending_per_address": ("TORTUGA_MAX_PENDING_PER_ADDRESS", int),
    "head_seconds": ("TORTUGA_HEAD_SECONDS", float),
    "ping_seconds": ("TORTUGA_PING_SECONDS", float),
    "flood_cooldown_seconds": ("TORTUGA_FLOOD_COOLDOWN_SECONDS", float),
    "max_json_depth": ("TORTUGA_MAX_JSON_DEPTH", int),
    "chat_per_second": ("TORTUGA_CHAT_PER_SECOND", float),
    "chat_burst": ("TORTUGA_CHAT_BURST", int),
    "max_sockets_per_user": ("TORTUGA_MAX_SOCKETS_PER_USER", int),
    "resume_max_versions": ("TORTUGA_RESUME_MAX_VERSIONS", int),
    "max_open_rooms_per_user": ("TORTUGA_MAX_OPEN_ROOMS_PER_USER", int),
    "max_bot_games_per_user": ("TORTUGA_MAX_BOT_GAMES_PER_USER", int),
    "guests_per_address_per_hour": ("TORTUGA_GUESTS_PER_ADDRESS_PER_HOUR", int),
    "max_public_rooms_per_address": ("TORTUGA_MAX_PUBLIC_ROOMS_PER_ADDRESS", int),
    "resume_burst": ("TORTUGA_RESUME_BURST", int),
    "resume_per_second": ("TORTUGA_RESUME_PER_SECOND", float),
    "resume_address_burst": ("TORTUGA_RESUME_ADDRESS_BURST", int),
    "resume_address_per_second": ("TORTUGA_RESUME_ADDRESS_PER_SECOND", float),
    "lobby_idle_seconds": ("TORTUGA_LOBBY_IDLE_SECONDS", int),
    "forwarded_allow_ips": ("TORTUGA_FORWARDED_ALLOW_IPS", str),
    "visit_concurrency": ("TORTUGA_VISIT_CONCURRENCY", int),
    "bot_concurrency": ("TORTUGA_BOT_CONCURRENCY", int),
    "redis_pool_size": ("TORTUGA_REDIS_POOL_SIZE", int),
    "redis_pool_wait_seconds": ("TORTUGA_REDIS_POOL_WAIT_SECONDS", float),
    "redis_retries": ("TORTUGA_REDIS_RETRIES", int),
    "rated_min_games": ("TORTUGA_RATED_MIN_GAMES", int),
    "rated_min_age_seconds": ("TORTUGA_RATED_MIN_AGE_SECONDS", float),
    "leaderboard_min_games": ("TORTUGA_LEADERBOARD_MIN_GAMES", int),
    "migrate_on_start": ("TORTUGA_MIGRATE", _yes),
    "vapid_subject": ("TORTUGA_VAPID_SUBJECT", str),
    "push_hosts": ("TORTUGA_PUSH_HOSTS", _hosts),
    "push_private_endpoints": ("TORTUGA_PUSH_PRIVATE_ENDPOINTS", _yes),
    "push_timeout_seconds": ("TORTUGA_PUSH_TIMEOUT_SECONDS", float),
    "push_queue": ("TORTUGA_PUSH_QUEUE", int),
    "push_senders": ("TORTUGA_PUSH_SENDERS", int),
    "push_devices_per_user": ("TORTUGA_PUSH_DEVICES_PER_USER", int),
    "push_ttl_seconds": ("TORTUGA_PUSH_TTL_SECONDS", int),
    "signin_link_seconds": ("TORTUGA_SIGNIN_LINK_SECONDS", int),
    "rp_id": ("TORTUGA_RP_ID", str),
    "passkey_challenge_seconds": ("TORTUGA_PASSKEY_CHALLENGE_SECONDS", int),
}
