"""The SQL system of record's tables (SQLAlchemy 2 declarative models; Alembic migrations create them).

`archived_games` holds one row per game, everything needed to serve and replay it from SQL alone:
the action log as zlib of the exact JSON lines Redis held (joined by newlines), and the final state
(the engine's canonical JSON, zlib) so reads need no replay. `archived_game_players` is the history
index: one row per (player, game) with the columns the history query filters and sorts on copied in,
so a player's page is one index range scan. Migration 0003 added what a finished game's view shows of its clock
and seats (time control, the reserves left at the end, abandoned seats); older rows have them NULL.

`players`, `api_keys`, `ratings` and `settled_games` are the accounts (migration 0002): a player's name and
kind, its API keys' SHA-256 (the current key has no expiry; a rotated one keeps working until `expires_ms`),
its openskill rating per game with the ordinal stored (indexed: the leaderboard is an index range scan), and
one row per rated game whose result was applied (inserted in the rating update's transaction: exactly once).

`tournaments`, `tournament_players`, `tournament_rounds` and `tournament_tables` are the tournaments (migration
0004): the events as created, their entrants, each Swiss round once (its primary key) and every table with its
game and, once ended, its places and scores; an event's standings are recomputed from these rows.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, Float, ForeignKey, Index, Integer, LargeBinary, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    """Metadata of every archive table (Alembic's target)."""


class ArchivedGameRow(Base):
    """One finished (or aborted) game, immutable once written."""

    __tablename__ = "archived_games"

    game_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    game: Mapped[str] = mapped_column(String(64))
    players: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    seed: Mapped[int] = mapped_column(BigInteger)
    bots: Mapped[dict[str, str]] = mapped_column(JSON)  # seat -> bot level
    owner: Mapped[str] = mapped_column(String(64), default="")
    seat_players: Mapped[dict[str, str]] = mapped_column(JSON)  # seat -> player id, where known
    token_hashes: Mapped[dict[str, str]] = mapped_column(JSON)  # seat -> sha256 of its seat token (never tokens)
    resigned: Mapped[list[int]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(16))
    version: Mapped[int] = mapped_column(Integer)
    digest: Mapped[str] = mapped_column(String(64))
    scores: Mapped[list[int]] = mapped_column(JSON)
    winners: Mapped[list[int]] = mapped_column(JSON)
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    #: ms per decision (a correspondence control's days reach 2.6e9: BIGINT; SQLite's INTEGER is 64-bit already)
    turn_ms: Mapped[int] = mapped_column(BigInteger().with_variant(Integer(), "sqlite"), default=0)
    log_z: Mapped[bytes] = mapped_column(LargeBinary)
    state_z: Mapped[bytes] = mapped_column(LargeBinary)
    created_ms: Mapped[int] = mapped_column(BigInteger)
    finished_ms: Mapped[int] = mapped_column(BigInteger)
    archived_ms: Mapped[int] = mapped_column(BigInteger)
    #: the time control's JSON shape (services/gamestate/clocks.py); NULL: no clock, or a row from before 0003
    time_control: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True), nullable=True)
    #: seat -> reserve ms each seat had left when the game ended (realtime controls with a reserve)
    reserves: Mapped[dict[str, int] | None] = mapped_column(JSON(none_as_null=True), nullable=True)
    #: seats abandoned (consecutive timeouts, inactivity) that the zombie bot played out
    abandoned: Mapped[list[int] | None] = mapped_column(JSON(none_as_null=True), nullable=True)

    __table_args__ = (
        Index("ix_archived_games_created", "created_ms"),
        Index("ix_archived_games_game_created", "game", "created_ms"),
    )


class ArchivedPlayerRow(Base):
    """A player's part in an archived game: its seats, and whether it created (owns) the game."""

    __tablename__ = "archived_game_players"

    player_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    game_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("archived_games.game_id", ondelete="CASCADE"), primary_key=True
    )
    seats: Mapped[list[int]] = mapped_column(JSON)
    owner: Mapped[bool] = mapped_column(Boolean, default=False)
    game: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16))
    finished_ms: Mapped[int] = mapped_column(BigInteger)

    __table_args__ = (
        Index("ix_archived_players_history", "player_id", "finished_ms", "game_id"),
        Index("ix_archived_players_game_history", "player_id", "game", "finished_ms", "game_id"),
    )


class PlayerRow(Base):
    """A player account (`kind` human or bot)."""

    __tablename__ = "players"

    player_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(16), default="human")
    created_ms: Mapped[int] = mapped_column(BigInteger)


class ApiKeyRow(Base):
    """The SHA-256 of an API key (never the key). `expires_ms` None: the player's current key; set: a replaced key
    in its grace period, refused from then on."""

    __tablename__ = "api_keys"

    key_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(64), ForeignKey("players.player_id", ondelete="CASCADE"))
    created_ms: Mapped[int] = mapped_column(BigInteger)
    expires_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)

    __table_args__ = (Index("ix_api_keys_player", "player_id"),)


class RatingRow(Base):
    """A player's openskill rating in one game; `ordinal` = mu - 3 sigma, stored for the leaderboard's index."""

    __tablename__ = "ratings"

    player_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("players.player_id", ondelete="CASCADE"), primary_key=True
    )
    game: Mapped[str] = mapped_column(String(64), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    ordinal: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    updated_ms: Mapped[int] = mapped_column(BigInteger)

    __table_args__ = (Index("ix_ratings_board", "game", "ordinal", "player_id"),)


class SettledGameRow(Base):
    """A rated game whose result was applied (`settled`) or dropped (`discarded`, an aborted game): once."""

    __tablename__ = "settled_games"

    game_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    game: Mapped[str] = mapped_column(String(64))
    outcome: Mapped[str] = mapped_column(String(16))
    settled_ms: Mapped[int] = mapped_column(BigInteger)


class TournamentRow(Base):
    """A tournament (migration 0004): what the organiser chose, validated by services/tournaments at creation.
    Its state is rebuilt from its players, rounds and tables (services/tournaments/store.py), never stored twice."""

    __tablename__ = "tournaments"

    tournament_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))  # "swiss" | "arena"
    game: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(100))
    organiser: Mapped[str] = mapped_column(String(64), index=True)
    settings: Mapped[dict[str, Any]] = mapped_column(JSON)  # the format's settings (seats, rounds, points, ...)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)  # the title's options every table's game is created with
    time_control: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    rated: Mapped[bool] = mapped_column(Boolean)
    bots_allowed: Mapped[bool] = mapped_column(Boolean)
    max_players: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16))  # "open" | "running" | "finished"
    created_ms: Mapped[int] = mapped_column(BigInteger)
    starts_ms: Mapped[int] = mapped_column(BigInteger)

    __table_args__ = (Index("ix_tournaments_status", "status", "starts_ms"),)


class TournamentPlayerRow(Base):
    """One entrant of a tournament; `withdrawn_ms` set once it withdrew (its running games are played out)."""

    __tablename__ = "tournament_players"

    tournament_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("tournaments.tournament_id", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))  # "human" | "bot": a bot account
    seed: Mapped[float] = mapped_column(Float)  # the rating it entered with: the first round's order
    joined_ms: Mapped[int] = mapped_column(BigInteger)
    withdrawn_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)


class TournamentRoundRow(Base):
    """A Swiss round as paired: its primary key is what makes a round paired once, whoever pairs it."""

    __tablename__ = "tournament_rounds"

    tournament_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("tournaments.tournament_id", ondelete="CASCADE"), primary_key=True
    )
    round: Mapped[int] = mapped_column(Integer, primary_key=True)
    byes: Mapped[list[str]] = mapped_column(JSON)  # players who sat the round out with the bye score
    paired_ms: Mapped[int] = mapped_column(BigInteger)


class TournamentTableRow(Base):
    """One table of a tournament (a Swiss round's, or an arena's: round 0) and, once it ended, its result."""

    __tablename__ = "tournament_tables"

    tournament_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("tournaments.tournament_id", ondelete="CASCADE"), primary_key=True
    )
    round: Mapped[int] = mapped_column(Integer, primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    players: Mapped[list[str | None]] = mapped_column(JSON)  # by seat; null for a bot seat
    game_id: Mapped[str | None] = mapped_column(String(64), nullable=True, unique=True)
    places: Mapped[list[int] | None] = mapped_column(JSON, nullable=True)
    scores: Mapped[list[int] | None] = mapped_column(JSON, nullable=True)
    created_ms: Mapped[int] = mapped_column(BigInteger)
    ended_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
