"""The initial history schema: users, games, seats, events, ratings, admin audit.

Constraint and index names follow server.archive.models.NAMING from this first revision on.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "admin_audit",
        sa.Column("id", sa.BigInteger(), autoincrement=True, nullable=False),
        sa.Column(
            "at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False
        ),
        sa.Column("admin", sa.String(length=100), nullable=False),
        sa.Column("action", sa.String(length=64), nullable=False),
        sa.Column("target", sa.String(length=200), nullable=True),
        sa.Column(
            "details",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'{}'::jsonb"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_admin_audit")),
    )
    op.create_index(op.f("ix_admin_audit_at"), "admin_audit", ["at"], unique=False)
    op.create_table(
        "games",
        sa.Column("id", sa.String(length=100), nullable=False),
        sa.Column("room", sa.String(length=64), nullable=False),
        sa.Column("engine", sa.String(length=40), nullable=False),
        sa.Column("options", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("seed_digest", sa.String(length=64), nullable=False),
        sa.Column("seed", sa.String(length=256), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("outcome", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("last_version", sa.Integer(), server_default="0", nullable=False),
        sa.Column("rated_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column(
            "archived_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint(
            "status IN ('playing', 'finished', 'abandoned')", name=op.f("ck_games_status")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
    )
    op.create_index("ix_games_ended_at", "games", ["ended_at"], unique=False)
    op.create_index(op.f("ix_games_engine"), "games", ["engine"], unique=False)
    op.create_index(op.f("ix_games_room"), "games", ["room"], unique=False)
    op.create_table(
        "users",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column(
            "last_seen_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_users")),
    )
    op.create_table(
        "events",
        sa.Column("game_id", sa.String(length=100), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("moves", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("defaults", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_events_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("game_id", "version", name=op.f("pk_events")),
    )
    op.create_table(
        "ratings",
        sa.Column("user_id", sa.String(length=64), nullable=False),
        sa.Column("engine", sa.String(length=40), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("ordinal", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), server_default="0", nullable=False),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_ratings_user_id_users")),
        sa.PrimaryKeyConstraint("user_id", "engine", name=op.f("pk_ratings")),
    )
    op.create_index("ix_ratings_engine_ordinal", "ratings", ["engine", "ordinal"], unique=False)
    op.create_table(
        "seats",
        sa.Column("game_id", sa.String(length=100), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.String(length=64), nullable=True),
        sa.Column("bot", sa.String(length=32), nullable=True),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("score", sa.Integer(), nullable=True),
        sa.Column("rank", sa.Integer(), nullable=True),
        sa.Column("ordinal_before", sa.Float(), nullable=True),
        sa.Column("ordinal_after", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_seats_game_id_games"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_seats_user_id_users")),
        sa.PrimaryKeyConstraint("game_id", "seat", name=op.f("pk_seats")),
    )
    op.create_index(op.f("ix_seats_user_id"), "seats", ["user_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_seats_user_id"), table_name="seats")
    op.drop_table("seats")
    op.drop_index("ix_ratings_engine_ordinal", table_name="ratings")
    op.drop_table("ratings")
    op.drop_table("events")
    op.drop_table("users")
    op.drop_index(op.f("ix_games_room"), table_name="games")
    op.drop_index(op.f("ix_games_engine"), table_name="games")
    op.drop_index("ix_games_ended_at", table_name="games")
    op.drop_table("games")
    op.drop_index(op.f("ix_admin_audit_at"), table_name="admin_audit")
    op.drop_table("admin_audit")
