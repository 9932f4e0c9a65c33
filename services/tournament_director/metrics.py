"""Prometheus metrics of the tournament director: what it did (rounds paired, games created, results recorded,
creations that failed), how long its passes take, and the lag of its consumer group on the outbox.

A registry of its own, served alone by `python -m services.tournament_director`: the director is built on the
outcomes consumer (services/outcomes/), whose module-level metrics would otherwise be exported by this process too,
at zero, beside the real ones of the outcomes processes. The lag gauges are measured from Redis (the group's
pending and unread entries over every bucket), so every director of a deployment reports the same figure: alert on
their max (deploy/prometheus/alerts.yml: SkyboardTournamentDirectorStalled)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.process_collector import ProcessCollector

REGISTRY = CollectorRegistry()
ProcessCollector(registry=REGISTRY)

ROUNDS_PAIRED = Counter(
    "skyboard_tournament_rounds_paired_total",
    "Swiss rounds this director paired (each round is paired once, by whichever director gets there first).",
    registry=REGISTRY,
)
GAMES_CREATED = Counter(
    "skyboard_tournament_games_created_total",
    "Tournament tables whose game this director created and recorded.",
    registry=REGISTRY,
)
CREATION_FAILURES = Counter(
    "skyboard_tournament_game_creation_failures_total",
    "Tournament games not created: `call`, a CreateGames call that failed as a whole (every table of the batch; "
    "retried once the tables' leases lapse); `game`, one game the service refused (retried by the next pass).",
    ["kind"], registry=REGISTRY,
)
RESULTS_RECORDED = Counter(
    "skyboard_tournament_results_recorded_total",
    "Tournament tables whose result this director recorded, by how the game ended (finished, aborted).",
    ["status"], registry=REGISTRY,
)
EVENTS_FINISHED = Counter(
    "skyboard_tournament_events_finished_total",
    "Tournaments this director declared finished (their last round's tables all ended).",
    registry=REGISTRY,
)
PASSES = Counter(
    "skyboard_tournament_director_passes_total",
    "Passes of the director's loop (read, do, acknowledge, tick), by result (done, failed: logged, then retried).",
    ["result"], registry=REGISTRY,
)
PASS_SECONDS = Histogram(
    "skyboard_tournament_director_pass_seconds",
    "Wall time of one pass of the director's loop that did something (entries handled or events ticked).",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 15.0, 60.0),
    registry=REGISTRY,
)
LAST_PASS = Gauge(
    "skyboard_tournament_director_last_pass_timestamp_seconds",
    "Unix time at which the director last finished a pass that moved the due events on (its tick, about once "
    "a second) without an error; a loop that hangs, or whose ticks fail (SQL or the game-state service down), "
    "leaves it behind.",
    registry=REGISTRY,
)
ENTRIES = Counter(
    "skyboard_tournament_director_entries_total",
    "Outbox entries handled by the director's consumer group, by result (done, failed).",
    ["result"], registry=REGISTRY,
)
DELAY = Histogram(
    "skyboard_tournament_director_delay_seconds",
    "From a version's commit to the director's effects done (a result recorded, the event moved on).",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 15.0, 60.0),
    registry=REGISTRY,
)
GROUPS_RECREATED = Counter(
    "skyboard_tournament_director_groups_recreated_total",
    "Outbox streams whose director group was gone (stream deleted or group destroyed) and was made again.",
    registry=REGISTRY,
)
BEHIND = Gauge(
    "skyboard_tournament_director_entries_behind",
    "Outbox entries committed but not yet done by the director's consumer group (unread plus read and not "
    "acknowledged), by group.",
    ["group"], registry=REGISTRY,
)
OLDEST_AGE = Gauge(
    "skyboard_tournament_director_oldest_entry_age_seconds",
    "Age of the oldest outbox entry the director's consumer group has not done yet (0: none behind), by group.",
    ["group"], registry=REGISTRY,
)
