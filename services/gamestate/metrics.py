"""Prometheus metrics of the game-state service.

Multiprocess-safe: when PROMETHEUS_MULTIPROC_DIR is set (before import),
prometheus-client writes per-process files and the exporter aggregates them
with a MultiProcessCollector; gauges declare how processes combine.
"""

from __future__ import annotations

import os

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, multiprocess, start_http_server

RPC_LATENCY = Histogram(
    "skyboard_rpc_seconds",
    "Latency of game-state RPCs, per RPC and game.",
    ["rpc", "game"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
)
ACTIONS = Counter(
    "skyboard_actions_total",
    "Submitted actions by game and outcome (accepted, or the rejection reason).",
    ["game", "outcome"],
)
ACTIVE_GAMES = Gauge(
    "skyboard_active_games",
    "Games not finished (read from Redis by the sweeper).",
    multiprocess_mode="max",
)
WATCHERS = Gauge("skyboard_watchers", "Open WatchGame streams.", multiprocess_mode="livesum")
TIMEOUTS = Counter("skyboard_turn_timeouts_total", "Default decisions applied by the turn clock.", ["game"])
TAKE_BACKS = Counter("skyboard_take_backs_total", "Decisions taken back by their seats (TakeBack), per game.", ["game"])
ENDINGS = Counter(
    "skyboard_seat_endings_total",
    "Seats resigned or abandoned (timeouts, inactivity) and games aborted (requested, inactivity), per game.",
    ["game", "kind"],
)
BOT_DISPATCH = Counter("skyboard_bot_dispatch_total", "Bot move tasks queued, by result.", ["result"])
ARCHIVED = Counter(
    "skyboard_games_archived_total", "Finished games moved from Redis to the SQL archive, by result.", ["result"]
)
ARCHIVE_REFUSED = Counter(
    "skyboard_archive_refusals_total",
    "Attempts to archive a finished game that failed for that game alone, by kind: data (a value the database "
    "refused), constraint, unreadable (its Redis record), mismatch (the archive holds another digest).",
    ["kind"],
)
ARCHIVE_QUARANTINED = Gauge(
    "skyboard_archive_quarantined_games",
    "Finished games the archive refused, set aside in Redis until a retry (read by every archive pass).",
    multiprocess_mode="livemax",
)
REPLICA_WAIT_SHORT = Counter(
    "skyboard_replica_wait_short_total",
    "Commits and creations written but not confirmed by REDIS_WAIT_REPLICAS replicas in time (answered UNAVAILABLE).",
)
ADMIN_REFUSED = Counter(
    "skyboard_admin_refused_total", "GameAdmin calls refused for a missing or wrong service credential."
)


def registry() -> CollectorRegistry:
    """The registry to export: aggregated over processes when multiprocess mode is on."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        reg = CollectorRegistry()
        multiprocess.MultiProcessCollector(reg)
        return reg
    from prometheus_client import REGISTRY

    return REGISTRY


def serve_metrics(port: int, addr: str = "127.0.0.1") -> None:
    """Export /metrics over HTTP on `port` (0 = disabled)."""
    if port:
        start_http_server(port, addr=addr, registry=registry())
