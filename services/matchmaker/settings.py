"""Configuration of the matchmaker, from environment variables (`GATEWAY_*`, as the gateway's).

The gateway queues the tickets this loop matches and seats accounts in the games it makes, so the two roles
must agree on Redis, the key prefix, the game-state service and the retention of tickets and account streams:
they read the same variables, and `GatewaySettings` extends these fields with the HTTP side's own.
"""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from services.common.settings import StoreFields


class MatchmakerSettings(StoreFields):
    """Every knob of the matchmaking loop, and what it shares with the gateway (the store's fields: StoreFields, read
    as `GATEWAY_*`, and SERVICE_SECRET, ARCHIVE_URL, REDIS_CLUSTER as the other services name them)."""

    model_config = SettingsConfigDict(env_prefix="GATEWAY_", extra="ignore", frozen=True)

    key_prefix: str = Field("sbgw:", description="Prefix of every Redis key the gateway and matchmaker write.")
    gamestate_addr: str = Field(
        "127.0.0.1:50052", description="host:port of the game-state service's internal gRPC listener (its "
        "ADMIN_GRPC_ADDR: GameAdmin, and GameService without the public port's per-caller limits, which the gateway "
        "applies per player itself).",
    )
    gamestate_timeout_s: float = Field(10.0, gt=0, description="Deadline of one unary call to the service.")
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

