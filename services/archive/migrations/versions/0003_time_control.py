"""Archived games keep their time control, the reserves left at the end and the abandoned seats; turn_ms is BIGINT.

Rows archived before this revision get NULL in the new columns and read as a game without a time control (their
`turn_ms` still says how long a decision was). `turn_ms` held a correspondence control's days in ms, which reaches
2.6e9 at 30 days: past PostgreSQL's INTEGER, so such a game could not be archived there; it becomes BIGINT.
SQLite's INTEGER is 64-bit whatever the declared type, so nothing changes there (and `archived_games` is never
copied: a table copy would drop it, which with foreign keys on cascades to `archived_game_players`).

Downgrade drops the three columns (what they held is lost) and on PostgreSQL makes `turn_ms` INTEGER again, which
fails, changing nothing, while an archived game's decision time is past INTEGER (a correspondence control of 25
days or more): such rows cannot be represented before this revision.

Revision ID: 0003_time_control
Revises: 0002_accounts
Create Date: 2025-03-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_time_control"
down_revision = "0002_accounts"
branch_labels = None
depends_on = None

COLUMNS = ("time_control", "reserves", "abandoned")


def upgrade() -> None:
    for name in COLUMNS:  # ADD COLUMN on both backends (SQLite: in place, no table copy)
        op.add_column("archived_games", sa.Column(name, sa.JSON(), nullable=True))
    if op.get_bind().dialect.name == "postgresql":
        op.alter_column("archived_games", "turn_ms", type_=sa.BigInteger(), existing_type=sa.Integer(),
                        existing_nullable=False)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.alter_column("archived_games", "turn_ms", type_=sa.Integer(), existing_type=sa.BigInteger(),
                        existing_nullable=False)
    for name in reversed(COLUMNS):  # DROP COLUMN in place (SQLite 3.35 and later)
        op.drop_column("archived_games", name)
