"""The history schema: what Postgres keeps once a game leaves Redis.

Alembic owns the schema (``migrations/``); these models are its mirror, and a test checks
that autogenerate finds no difference between them. Every constraint and index is named by
``NAMING`` so that later migrations can refer to them by name.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

STATUSES = ("playing", "finished", "abandoned")
FINAL = frozenset({"finished", "abandoned"})

Timestamp = DateTime(timezone=True)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class User(Base):
    """A guest (or, later, registered) user, by the id the room server gave them."""

    __tablename__ = "users"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(Timestamp, server_default=func.now())
    last_seen_at: Mapped[datetime] = mapped_column(Timestamp, server_default=func.now())


class Game(Base):
    """One game of one room: ``<room id>-<n>``."""

    __tablename__ = "games"
    __table_args__ = (
        CheckConstraint(
            "status IN ('playing', 'finished', 'abandoned')",
            name="status",
        ),
        Index("ix_games_ended_at", "ended_at"),
    )

    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    room: Mapped[str] = mapped_column(String(64), index=True)
    engine: Mapped[str] = mapped_column(String(40), index=True)
    options: Mapped[dict[str, Any]] = mapped_column(JSONB)
    players: Mapped[int] = mapped_column(Integer)
    # Whether its room was public: a private game is shown only to its players.
    public: Mapped[bool] = mapped_column(Boolean, server_default=text("false"))
    seed_digest: Mapped[str] = mapped_column(String(64))
    # Hex; NULL while the game is being played (it is revealed when the game ends).
    seed: Mapped[str | None] = mapped_column(String(256))
    # How the seed was made (server/table/seeding.py): {"commitment", "server_seed" (NULL until
    # the end), "contributions": [{seat, entropy, by}]}; NULL for games from before.
    deal: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    created_at: Mapped[datetime] = mapped_column(Timestamp)
    started_at: Mapped[datetime | None] = mapped_column(Timestamp)
    ended_at: Mapped[datetime | None] = mapped_column(Timestamp)
    status: Mapped[str] = mapped_column(String(16))
    # How it ended: {"scores": [...], "ranks": [...]} for a finished game, else NULL.
    outcome: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    # Admins looked at its hidden state while it was played: {"count", "at": [ISO, ...]}
    # (how often, the last times; never who, why or what); NULL: never.
    inspected: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    # The highest event version stored (the log is 1..last_version).
    last_version: Mapped[int] = mapped_column(Integer, server_default="0")
    # When ratings were updated from this game (NULL: not a rated game, or not yet).
    rated_at: Mapped[datetime | None] = mapped_column(Timestamp)
    # Rated on the bot ladder (a player's bot sat in it), never on people's ratings.
    ladder: Mapped[bool] = mapped_column(Boolean, server_default=text("false"))
    archived_at: Mapped[datetime] = mapped_column(Timestamp, server_default=func.now())


class Seat(Base):
    """Who sat where: a user, or a bot of some level; their final score and rank."""

    __tablename__ = "seats"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[str | None] = mapped_column(ForeignKey("users.id"), index=True)
    bot: Mapped[str | None] = mapped_column(String(32))
    name: Mapped[str] = mapped_column(String(100))
    score: Mapped[int | None] = mapped_column(Integer)
    rank: Mapped[int | None] = mapped_column(Integer)
    # The seat's rating ordinal before and after this game (rated games only).
    ordinal_before: Mapped[float | None] = mapped_column(Float)
    ordinal_after: Mapped[float | None] = mapped_column(Float)


class Event(Base):
    """One accepted step: enough, with the seed, to recompute every state of the game."""

    __tablename__ = "events"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    # {"<seat>": <move JSON>}; empty for version 1 (the deal).
    moves: Mapped[dict[str, Any]] = mapped_column(JSONB)
    # The seats whose move was the timeout default.
    defaults: Mapped[list[int]] = mapped_column(JSONB)
    # The seats whose move a stand-in made while their player was away (grace-time bot,
    # or the default of ``absent: "default"``).
    proxies: Mapped[list[int]] = mapped_column(JSONB, server_default=text("'[]'::jsonb"))
    # A take-back: the version whose move it undid (its state is that of the version
    # before it); NULL for a move, a reveal or the deal.
    takeback: Mapped[int | None] = mapped_column(Integer)
    # The moves are public (a sealed phase's, once revealed): shown to every reader. Other
    # moves (open ones, a private phase's) are shown only to their movers until the game
    # is over, as in the frames.
    moves_public: Mapped[bool] = mapped_column(Boolean, server_default=text("false"))
    # The moves answer a private prompt (a private sealed phase): each is shown only to its
    # mover, also once the game is over.
    moves_private: Mapped[bool] = mapped_column(Boolean, server_default=text("false"))
    at: Mapped[datetime] = mapped_column(Timestamp)
    # sha256 hex of game.encode(state) after this step.
    digest: Mapped[str] = mapped_column(String(64))
    # The move chain (server/table/chain.py; migration 0009): the head after this event and
    # its moves' proofs (``{"moves": {seat: {by, c, key, l, open, sig, salt}}, "game"?}``);
    # NULL in events stored before the chain.
    head: Mapped[str | None] = mapped_column(String(64))
    chain: Mapped[dict[str, Any] | None] = mapped_column(JSONB)


class DeviceKey(Base):
    """A public key an event's proof names (server/identity/signing.py): a device's,
    registered with its user, or the server's (no user)."""

    __tablename__ = "device_keys"

    kid: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[str | None] = mapped_column(String(64))
    public_key: Mapped[str] = mapped_column(String(100))
    first_seen: Mapped[datetime] = mapped_column(Timestamp, server_default=func.now())


class PushSubscription(Base):
    """One device's Web Push subscription for one user (server/archive/push.py): where its
    browser's push service takes pushes, the keys they are encrypted to, what the player
    chose to receive there (``kinds``: ``turn``, ``start``, ``invite``, ``end``) and its quiet
    hours (minutes of the day in ``tz``); ``gen``: the user's token generation it was made
    under (signing out everywhere ends it)."""

    __tablename__ = "push_subscriptions"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    user_id: Mapped[str] = mapped_column(String(64), index=True)
    endpoint: Mapped[str] = mapped_column(String(1024), unique=True)
    p256dh: Mapped[str] = mapped_column(String(128))
    auth: Mapped[str] = mapped_column(String(64))
    kinds: Mapped[list[str]] = mapped_column(JSONB)
    quiet_from: Mapped[int | None] = mapped_column(Integer)
    quiet_to: Mapped[int | None] = mapped_column(Integer)
    tz: Mapped[str] = mapped_column(String(64), server_default=text("'UTC'"))
    lang: Mapped[str] = mapped_column(String(8), server_default=text("'en'"))
    gen: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    device: Mapped[str] = mapped_column(String(100), server_default=text("''"))
    created_at: Mapped[datetime] = mapped_column(Timestamp, server_default=func.now())
    last_sent_at: Mapped[datetime | None] = mapped_column(Timestamp)


class Passkey(Base):
    """A player's passkey (WebAuthn, server/http/passkeys.py): the credential's id and
    public key (COSE), its signature counter, the user it signs in as (and their name then),
    the transports its authenticator named (migration 0012) and the device it was added on."""

    __tablename__ = "passkeys"

    id: Mapped[str] = mapped_column(String(512), primary_key=True)  # credential id, base64url
    user_id: Mapped[str] = mapped_column(String(64), index=True)
    name: Mapped[str] = mapped_column(String(100))
    public_key: Mapped[bytes] = mapped_column(LargeBinary)
    sign_count: Mapped[int] = mapped_column(BigInteger, server_default=text("0"))
    transports: Mapped[list[str]] = mapped_column(JSONB, server_default=text("'[]'::jsonb"))
    device: Mapped[str] = mapped_column(String(100), server_default=text("''"))
    created_at: Mapped[datetime] = mapped_column(Timestamp, server_default=func.now())
    last_used_at: Mapped[datetime | None] = mapped_column(Timestamp)


class SignIn(Base):
    """A device signed in as a user by a one-time link or a passkey: the player's page
    lists them."""

    __tablename__ = "sign_ins"
    __table_args__ = (CheckConstraint("how IN ('link', 'passkey')", name="how"),)

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    user_id: Mapped[str] = mapped_column(String(64), index=True)
    how: Mapped[str] = mapped_column(String(16))
    device: Mapped[str] = mapped_column(String(100), server_default=text("''"))
    at: Mapped[datetime] = mapped_column(Timestamp, server_default=func.now())


class Rating(Base):
    """A user's openskill rating at one game (engine)."""

    __tablename__ = "ratings"
    __table_args__ = (Index("ix_ratings_engine_ordinal", "engine", "ordinal"),)

    user_id: Mapped[str] = mapped_column(ForeignKey("users.id"), primary_key=True)
    engine: Mapped[str] = mapped_column(String(40), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    ordinal: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, server_default="0")
    updated_at: Mapped[datetime] = mapped_column(Timestamp, server_default=func.now())


class LadderRating(Base):
    """A bot's openskill rating on the bot ladder of one game: a player's bot account (its
    user id) or the server's own bots of one level (``server:<level>``)."""

    __tablename__ = "ladder_ratings"
    __table_args__ = (Index("ix_ladder_ratings_engine_ordinal", "engine", "ordinal"),)

    entrant: Mapped[str] = mapped_column(String(64), primary_key=True)
    engine: Mapped[str] = mapped_column(String(40), primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    owner: Mapped[str | None] = mapped_column(String(64))
    owner_name: Mapped[str | None] = mapped_column(String(100))
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    ordinal: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, server_default="0")
    updated_at: Mapped[datetime] = mapped_column(Timestamp, server_default=func.now())


class AdminAudit(Base):
    """Every admin action: who did what to which target (the admin routes write
    it before they act)."""

    __tablename__ = "admin_audit"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(Timestamp, server_default=func.now(), index=True)
    admin: Mapped[str] = mapped_column(String(100))
    action: Mapped[str] = mapped_column(String(64))
    target: Mapped[str | None] = mapped_column(String(200))
    details: Mapped[dict[str, Any]] = mapped_column(JSONB, server_default=text("'{}'::jsonb"))
    # Why the admin did it, in their words (required for the actions that show hidden state).
    reason: Mapped[str | None] = mapped_column(String(500))
    # The hash chain (migration 0006): set by the database's trigger, never by the writer.
    prev_hash: Mapped[str] = mapped_column(String(64))
    hash: Mapped[str] = mapped_column(String(64))


class AdminAuditHead(Base):
    """The audit chain's last link (one row): the trigger that chains a new entry locks it,
    so that concurrent entries queue; ``--verify`` checks the last entry against it."""

    __tablename__ = "admin_audit_head"
    __table_args__ = (CheckConstraint("one", name="one"),)

    one: Mapped[bool] = mapped_column(Boolean, primary_key=True, server_default=text("true"))
    id: Mapped[int] = mapped_column(BigInteger)
    hash: Mapped[str] = mapped_column(String(64))
    at: Mapped[datetime] = mapped_column(Timestamp)


class Admin(Base):
    """An operator's account (``tortuga admin create``); never a player's identity."""

    __tablename__ = "admins"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    # argon2id, as argon2-cffi's PasswordHasher writes it (parameters and salt included).
    password_hash: Mapped[str] = mapped_column(String(200))
    disabled: Mapped[bool] = mapped_column(Boolean, server_default=text("false"))
    created_at: Mapped[datetime] = mapped_column(Timestamp, server_default=func.now())
    password_changed_at: Mapped[datetime] = mapped_column(Timestamp, server_default=func.now())


class AdminSession(Base):
    """One admin login: only the token's SHA-256 is kept. It ends when it expires, when it
    is revoked (logout, ``admin disable``, ``admin passwd``) or when its admin is disabled."""

    __tablename__ = "admin_sessions"

    digest: Mapped[str] = mapped_column(String(64), primary_key=True)
    admin: Mapped[str] = mapped_column(ForeignKey("admins.name", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(Timestamp, server_default=func.now())
    expires_at: Mapped[datetime] = mapped_column(Timestamp)
    revoked_at: Mapped[datetime | None] = mapped_column(Timestamp)
    address: Mapped[str | None] = mapped_column(String(64))
