"""The archive of finished games and its per-player history index.

Revision ID: 0001_archive
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_archive"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "archived_games",
        sa.Column("game_id", sa.String(64), primary_key=True),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("bots", sa.JSON(), nullable=False),
        sa.Column("owner", sa.String(64), nullable=False),
        sa.Column("seat_players", sa.JSON(), nullable=False),
        sa.Column("token_hashes", sa.JSON(), nullable=False),
        sa.Column("resigned", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("scores", sa.JSON(), nullable=False),
        sa.Column("winners", sa.JSON(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("turn_ms", sa.Integer(), nullable=False),
        sa.Column("log_z", sa.LargeBinary(), nullable=False),
        sa.Column("state_z", sa.LargeBinary(), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("finished_ms", sa.BigInteger(), nullable=False),
        sa.Column("archived_ms", sa.BigInteger(), nullable=False),
    )
    op.create_index("ix_archived_games_created", "archived_games", ["created_ms"])
    op.create_index("ix_archived_games_game_created", "archived_games", ["game", "created_ms"])
    op.create_table(
        "archived_game_players",
        sa.Column("player_id", sa.String(64), primary_key=True),
        sa.Column(
            "game_id", sa.String(64), sa.ForeignKey("archived_games.game_id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("owner", sa.Boolean(), nullable=False),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("finished_ms", sa.BigInteger(), nullable=False),
    )
    op.create_index("ix_archived_players_history", "archived_game_players", ["player_id", "finished_ms", "game_id"])
    op.create_index(
        "ix_archived_players_game_history", "archived_game_players", ["player_id", "game", "finished_ms", "game_id"]
    )


def downgrade() -> None:
    op.drop_table("archived_game_players")
    op.drop_table("archived_games")
