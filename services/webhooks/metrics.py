"""Prometheus metrics of the webhook deliverer: what it sent and how it went, how long the receivers took, how
long after the event a delivery arrived, and how many deliveries wait."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

DELIVERIES = Counter(
    "skyboard_webhook_deliveries_total",
    "Webhook delivery attempts, by outcome (delivered, retry, gave_up, dropped: its webhook is gone or disabled).",
    ["outcome"],
)
LATENCY = Histogram(
    "skyboard_webhook_request_seconds", "From sending a delivery to the receiver's answer (or the failure).",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
DELAY = Histogram(
    "skyboard_webhook_delay_seconds",
    "From the event's append to the account stream (the commit, for your_turn and game_end) to its delivery "
    "acknowledged by the receiver (first attempts only).",
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 15.0, 60.0),
)
QUEUED = Gauge("skyboard_webhook_queue_depth", "Deliveries queued (due, leased or waiting for a retry).")
DISABLED = Counter("skyboard_webhooks_disabled_total", "Webhooks disabled because every delivery kept failing.")
