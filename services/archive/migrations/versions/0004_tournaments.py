"""Tournaments: the events, their entrants, the Swiss rounds as paired and every table with its result.

New tables only; nothing existing changes. Downgrade drops them (the events are lost).

Revision ID: 0004_tournaments
Revises: 0003_time_control
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_tournaments"
down_revision = "0003_time_control"
branch_labels = None
depends_on = None


def _owned(*columns: sa.Column) -> list[sa.Column]:
    """The tournament_id column every child table starts with (deleted with its tournament)."""
    return [sa.Column("tournament_id", sa.String(32),
                      sa.ForeignKey("tournaments.tournament_id", ondelete="CASCADE"), primary_key=True), *columns]


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("tournament_id", sa.String(32), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("organiser", sa.String(64), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("time_control", sa.JSON(), nullable=True),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("bots_allowed", sa.Boolean(), nullable=False),
        sa.Column("max_players", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_ms", sa.BigInteger(), nullable=False),
        sa.Column("starts_ms", sa.BigInteger(), nullable=False),
    )
    op.create_index("ix_tournaments_organiser", "tournaments", ["organiser"])
    op.create_index("ix_tournaments_status", "tournaments", ["status", "starts_ms"])
    op.create_table(
        "tournament_players",
        *_owned(sa.Column("player_id", sa.String(64), primary_key=True),
                sa.Column("kind", sa.String(16), nullable=False),
                sa.Column("seed", sa.Float(), nullable=False),
                sa.Column("joined_ms", sa.BigInteger(), nullable=False),
                sa.Column("withdrawn_ms", sa.BigInteger(), nullable=True)),
    )
    op.create_table(
        "tournament_rounds",
        *_owned(sa.Column("round", sa.Integer(), primary_key=True),
                sa.Column("byes", sa.JSON(), nullable=False),
                sa.Column("paired_ms", sa.BigInteger(), nullable=False)),
    )
    op.create_table(
        "tournament_tables",
        *_owned(sa.Column("round", sa.Integer(), primary_key=True),
                sa.Column("number", sa.Integer(), primary_key=True),
                sa.Column("players", sa.JSON(), nullable=False),
                sa.Column("game_id", sa.String(64), nullable=True, unique=True),
                sa.Column("places", sa.JSON(), nullable=True),
                sa.Column("scores", sa.JSON(), nullable=True),
                sa.Column("created_ms", sa.BigInteger(), nullable=False),
                sa.Column("ended_ms", sa.BigInteger(), nullable=True)),
    )


def downgrade() -> None:
    for table in ("tournament_tables", "tournament_rounds", "tournament_players"):
        op.drop_table(table)
    op.drop_index("ix_tournaments_status", table_name="tournaments")
    op.drop_index("ix_tournaments_organiser", table_name="tournaments")
    op.drop_table("tournaments")
