"""Configuration of the matchmaker, from environment variables (`GATEWAY_*`, as the gateway's).

The gateway queues the tickets this loop matches and seats accounts in the games it makes, so the two roles
must agree on Redis, the key prefix, the game-state service and the retention of tickets and account streams:
they read the same variables, and `GatewaySettings` extends these fields with the HTTP side's own.
"""

from __future__ import annotations

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class MatchmakerSettings(BaseSettings):
    """Every knob of the matchmaking loop, and what it shares with the gateway."""

    model_config = SettingsConfigDict(env_prefix="GATEWAY_", extra="ignore", frozen=True)

    redis_url: str = Field(
        "redis://127.0.0.1:6379/0", description="Redis, the hot store: rated games in play, tickets, rate limits, "
        "account streams, the API-key lookup cache (players, keys and ratings are in SQL: GATEWAY_ARCHIVE_URL)."
    )
    redis_cluster: bool = Field(
        False,
        validation_alias=AliasChoices("GATEWAY_REDIS_CLUSTER", "REDIS_CLUSTER"),
        description="GATEWAY_REDIS_URL names a node of a Redis Cluster (issue #40; "
        "docs/platform/redis-cluster-running.md): the gateway and the matchmaker use a cluster client. Off: one "
        "Redis (the default, and `make run`'s). "
        "GATEWAY_REDIS_CLUSTER, or REDIS_CLUSTER as the other services read it.",
    )
    key_prefix: str = Field("sbgw:", description="Prefix of every Redis key the gateway and matchmaker write.")
    gamestate_addr: str = Field(
        "127.0.0.1:50052", description="host:port of the game-state service's internal gRPC listener (its "
        "ADMIN_GRPC_ADDR: GameAdmin, and GameService without the public port's per-caller limits, which the gateway "
        "applies per player itself).",
    )
    gamestate_timeout_s: float = Field(10.0, gt=0, description="Deadline of one unary call to the service.")
    service_secret: str | None = Field(
        None,
        repr=False,
        validation_alias=AliasChoices("GATEWAY_SERVICE_SECRET", "SERVICE_SECRET"),
        description="The service credential for the game-state service's internal GameAdmin calls (creation on "
        "a player's behalf, the matchmaker's batches). No default: the gateway and matchmaker refuse to start "
        "without it. GATEWAY_SERVICE_SECRET, or SERVICE_SECRET as the other services read it.",
    )
    archive_url: str | None = Field(
        None,
        validation_alias=AliasChoices("GATEWAY_ARCHIVE_URL", "ARCHIVE_URL"),
        description="Required: the SQL system of record (PostgreSQL `postgresql+asyncpg://...`, or SQLite "
        "`sqlite+aiosqlite:///path`, `make run`'s default under .skyboard/): players, API-key hashes, ratings and "
        "leaderboards, and the archive of finished games (GET /v1/players/{id}/games), the same database as the "
        "game-state service's ARCHIVE_URL. The gateway refuses to start without it. GATEWAY_ARCHIVE_URL, or "
        "ARCHIVE_URL; the matchmaker reads it too (ratings).",
    )
    account_events_maxlen: int = Field(
        1000, ge=10, description="Events kept per account stream (GET /v1/players/me/events); older ones are trimmed."
    )
    account_events_keep_s: int = Field(
        7 * 86_400, gt=0, description="How long account stream events (and undelivered sealed seat tokens) are kept."
    )
    ticket_ttl_s: float = Field(30.0, gt=0, description="A queued ticket expires this long after its last poll.")
    ticket_keep_s: int = Field(3600, gt=0, description="How long a ticket's record stays readable.")
    default_bots_after_s: float = Field(60.0, ge=0, description="Bot fill delay when a ticket names none.")
    bot_fill_level: str = Field("greedy", description="Bot level that fills empty seats.")
    mm_seconds_per_decision: float = Field(
        60.0, gt=0, le=86_400, description="The matchmaking default time control (a ticket without `time_control`): "
        "realtime, this many seconds per decision...",
    )
    mm_reserve_seconds: float = Field(
        300.0, ge=0, le=86_400, description="...plus a reserve of this many seconds per seat (only the time beyond "
        "the per-decision seconds is drawn from it).",
    )
    mm_base_gap: float = Field(5.0, ge=0, description="Rating gap (ordinal points) allowed at once.")
    mm_gap_per_s: float = Field(1.0, ge=0, description="How fast the allowed gap widens per second of waiting.")
    mm_claim_stale_s: float = Field(
        120.0, gt=0, description="Claims older than this are released (their matchmaker died); > the service timeout."
    )
    mm_interval_s: float = Field(0.5, gt=0, description="Pause between two matchmaker passes.")
    mm_batch_size: int = Field(
        64, ge=1, le=256, description="Games the matchmaker claims, creates (one CreateGames) and records at once."
    )
    mm_batches_in_flight: int = Field(
        4, ge=1, description="Batches a matchmaking pass works on concurrently (overlaps Redis, service, matcher)."
    )
    mm_settle_check_s: float = Field(
        10.0, ge=0, description="How often the matchmaker checks whether an unsettled rated game finished "
        "(games a player watches are settled by the gateway at once)."
    )
