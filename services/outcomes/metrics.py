"""Prometheus metrics of the outcomes consumer: its lag behind the commits, and what it did.

The lag gauges are measured from Redis (the group's pending and unread entries over every bucket), so every
consumer of a group reports the same figure: alert on their max (deploy/prometheus/alerts.yml:
SkyboardOutcomesLagging)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

BEHIND = Gauge(
    "skyboard_outcomes_entries_behind",
    "Outbox entries committed but not yet done by the consumer group (unread plus read and not acknowledged).",
)
OLDEST_AGE = Gauge(
    "skyboard_outcomes_oldest_entry_age_seconds",
    "Age of the oldest outbox entry the consumer group has not done yet (0: none behind).",
)
ENTRIES = Counter("skyboard_outcomes_entries_total", "Outbox entries handled, by result (done, failed).", ["result"])
SETTLED = Counter("skyboard_outcomes_games_settled_total", "Rated games whose ratings this consumer settled.")
DELAY = Histogram(
    "skyboard_outcomes_delay_seconds",
    "From a version's commit to its effects done (account events, seats, ratings).",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 15.0, 60.0),
)
GROUPS_RECREATED = Counter(
    "skyboard_outcomes_groups_recreated_total",
    "Outbox streams whose consumer group was gone (stream deleted or group destroyed) and was made again.",
)
