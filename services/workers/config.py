"""Worker settings from the environment (the service's own Settings cover Redis, prefix, queue, secret).

- GAMESTATE_TARGET: host:port of the game-state service's internal gRPC listener, where GameAdmin is (default:
  the service's ADMIN_GRPC_ADDR).
- WORKER_METRICS_PORT: Prometheus exporter of the worker (9102; 0 disables it).
- BOT_SOFT_LIMIT_S / BOT_HARD_LIMIT_S: Celery soft and hard time limits of one bot move
  (default: the largest level budget + 20 s, and + 30 s).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import ai
from services.common.settings import Settings, get_settings
from services.gamestate.bots import level_budget_seconds


def max_budget_seconds() -> float:
    """The longest think time of any level."""
    return max((level_budget_seconds(level) for level in ai.levels()), default=0.0)


@dataclass(frozen=True, slots=True)
class WorkerConfig:
    settings: Settings
    target: str
    metrics_port: int
    soft_limit_s: float
    hard_limit_s: float


def _float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number, not {raw!r}") from None


def load_config() -> WorkerConfig:
    settings = get_settings()
    soft = _float("BOT_SOFT_LIMIT_S", max_budget_seconds() + 20.0)
    hard = _float("BOT_HARD_LIMIT_S", max(soft + 10.0, max_budget_seconds() + 30.0))
    if not 0 < soft < hard:
        raise ValueError("BOT_SOFT_LIMIT_S must be positive and below BOT_HARD_LIMIT_S")
    return WorkerConfig(
        settings=settings,
        target=os.environ.get("GAMESTATE_TARGET") or settings.admin_grpc_addr,
        metrics_port=int(_float("WORKER_METRICS_PORT", 9102)),
        soft_limit_s=soft,
        hard_limit_s=hard,
    )
