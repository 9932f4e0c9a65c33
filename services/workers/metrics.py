"""Prometheus metrics of the bot workers.

Multiprocess-safe: with PROMETHEUS_MULTIPROC_DIR set before import (as for
the service, see services/gamestate/metrics.py), every prefork child writes its
own files and the worker's exporter aggregates them.
"""

from __future__ import annotations

from prometheus_client import Counter, Histogram

THINK_SECONDS = Histogram(
    "skyboard_bot_think_seconds",
    "Wall-clock time a bot spent choosing one action, per game and level.",
    ["game", "level"],
    buckets=(0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0),
)
ITERATIONS = Histogram(
    "skyboard_bot_iterations",
    "Search iterations of one decision (0 for non-searching levels), per game and level.",
    ["game", "level"],
    buckets=(0, 10, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 25000, 100000),
)
QUEUE_WAIT = Histogram(
    "skyboard_bot_queue_wait_seconds",
    "From the decision becoming pending (the game's last commit) to a worker starting on it.",
    ["game"],
    buckets=(0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0),
)
MOVES = Counter(
    "skyboard_bot_moves_total",
    "Bot move tasks by outcome: submitted, duplicate, stale, finished, not_to_act, not_a_bot, unknown_game.",
    ["outcome"],
)
FAILURES = Counter(
    "skyboard_bot_failures_total",
    "Bot move tasks that failed, by reason (service error reason, timeout, exception type).",
    ["reason"],
)
DEGRADED = Counter(
    "skyboard_bot_degraded_decisions_total",
    "Decisions made with a shrunk think budget (the bot queue's degradation policy), per game and level.",
    ["game", "level"],
)
