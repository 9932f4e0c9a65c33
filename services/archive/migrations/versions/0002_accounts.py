"""Accounts in SQL: players, API-key hashes, ratings (ordinal indexed for leaderboards), settled rated games.

Revision ID: 0002_accounts
Revises: 0001_archive
Create Date: 2025-02-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_accounts"
down_revision = "0001_archive"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("player_id", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
    )
    op.create_table(
        "api_keys",
        sa.Column("key_hash", sa.String(64), primary_key=True),
        sa.Column(
            "player_id", sa.String(64), sa.ForeignKey("players.player_id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("expires_ms", sa.BigInteger(), nullable=True),
    )
    op.create_index("ix_api_keys_player", "api_keys", ["player_id"])
    op.create_table(
        "ratings",
        sa.Column(
            "player_id", sa.String(64), sa.ForeignKey("players.player_id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("game", sa.String(64), primary_key=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("ordinal", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("updated_ms", sa.BigInteger(), nullable=False),
    )
    op.create_index("ix_ratings_board", "ratings", ["game", "ordinal", "player_id"])
    op.create_table(
        "settled_games",
        sa.Column("game_id", sa.String(64), primary_key=True),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("settled_ms", sa.BigInteger(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("settled_games")
    op.drop_table("ratings")
    op.drop_table("api_keys")
    op.drop_table("players")
