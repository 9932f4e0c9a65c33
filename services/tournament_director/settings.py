"""Configuration of the tournament director: the outcomes consumer's variables (GATEWAY_*: the accounts' Redis and
SQL, the game-state service and its outbox) plus the director's own group and pace."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from services.outcomes.settings import OutcomesSettings


class DirectorSettings(OutcomesSettings):
    """The outcomes consumer's fields and the director's."""

    model_config = SettingsConfigDict(env_prefix="GATEWAY_", extra="ignore", frozen=True)

    tournaments_group: str = Field(
        "tournaments", description="The director's consumer group over the outbox streams (its own: the outcomes "
        "consumer's group does the turns and ratings); every director of a deployment joins it.",
    )
    tournaments_tick_s: float = Field(
        1.0, gt=0, le=60, description="How often due events are started and tables without a game created.",
    )
    tournaments_metrics_port: int = Field(
        9108, ge=0, description="Prometheus /metrics of the director (rounds paired, games created, its group's "
        "lag); 0: none.",
    )
