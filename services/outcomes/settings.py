"""Configuration of the outcomes consumer: the gateway's `GATEWAY_*` variables (the accounts' Redis, key prefix,
SQL and account-stream retention, as the matchmaker reads them), plus where the game-state service keeps its
outbox and how this consumer reads it."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from services.matchmaker.settings import MatchmakerSettings


class OutcomesSettings(MatchmakerSettings):
    """The matchmaker's fields (GATEWAY_*: the accounts' side) and the outbox's side."""

    model_config = SettingsConfigDict(env_prefix="GATEWAY_", extra="ignore", frozen=True)

    gamestate_redis_url: str | None = Field(
        None, description="The game-state service's Redis (its REDIS_URL), which holds the outbox streams; unset: "
        "GATEWAY_REDIS_URL (one Redis for both, `make run`'s).",
    )
    gamestate_key_prefix: str = Field("sb:", description="The game-state service's KEY_PREFIX.")
    outcomes_group: str = Field(
        "outcomes", description="The consumer group over the outbox streams: every consumer of one deployment "
        "joins the same group (each entry goes to one of them); a second group would do every effect again.",
    )
    outcomes_batch: int = Field(100, ge=1, le=10_000, description="Entries read per bucket at a time.")
    outcomes_idle_poll_s: float = Field(
        0.1, gt=0, le=1.0, description="How long a read of the 64 outbox streams that finds nothing waits: on one "
        "Redis, one XREADGROUP of every stream blocked this long (it returns at the next commit); on a cluster, one "
        "XREADGROUP per bucket, then a pause this long (it bounds the delay of an effect there).",
    )
    outcomes_claim_idle_s: float = Field(
        30.0, gt=0, description="An entry read but not acknowledged this long (its consumer died mid-batch) is "
        "claimed by another consumer (XAUTOCLAIM) and done again: every effect is idempotent.",
    )
    outcomes_metrics_port: int = Field(
        9106, ge=0, description="Prometheus /metrics of the consumer (its lag); 0: none.",
    )
