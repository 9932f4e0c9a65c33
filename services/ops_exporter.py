"""`python -m services.ops_exporter`: Prometheus gauges read from Redis, for the alerts no process sees alone.

No service instance knows the bot queue's depth and age (all three priority lists, services/common/bot_policy.py), the
games stuck waiting on a bot or the matchmaking queue; this read-only exporter samples them from Redis every
EXPORTER_INTERVAL_S and serves them on EXPORTER_PORT. It writes nothing, so any number may run (one is enough).
What each gauge means: docs/platform/bots.md ("Queue policy").
"""

from __future__ import annotations

import json
import logging
import signal
import threading
import time
from dataclasses import dataclass

import redis
from prometheus_client import CollectorRegistry, Gauge, start_http_server
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from services.accounts.keys import Keys as GatewayKeys
from services.common.bot_policy import background_list, budget_scale, human_lists, sent_at
from services.common.entry import configure_logging
from services.common.redis_clients import sync_redis
from services.common.settings import Settings
from services.gamestate.keys import BUCKETS, Keys
from services.gateway.settings import GatewaySettings

log = logging.getLogger("services.ops_exporter")


class ExporterSettings(BaseSettings):
    """Knobs of the exporter itself (Redis, key prefix and bot queue come from services.common.settings)."""

    model_config = SettingsConfigDict(env_prefix="EXPORTER_", extra="ignore", frozen=True)

    host: str = Field("127.0.0.1", description="Address the /metrics HTTP server binds.")
    port: int = Field(9103, description="Port of the /metrics HTTP server.")
    interval_s: float = Field(2.0, gt=0, description="Seconds between two samples of Redis.")
    scan_limit: int = Field(5000, gt=0, description="Most active games inspected per sample (oldest first).")


class OpsMetrics:
    """The gauges, on their own registry (tests build several)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.redis_up = Gauge("skyboard_redis_up", "1 when Redis answered the last sample, else 0.", registry=r)
        self.queue_depth = Gauge("skyboard_bot_queue_depth",
                                 "Bot move tasks waiting in the Celery queue (human-waiting follow-ups and first "
                                 "decisions, and bot-only games).", registry=r)
        self.queue_age = Gauge("skyboard_bot_queue_oldest_seconds",
                               "How long the oldest bot task a human waits on has been queued (follow-ups and "
                               "first decisions).", registry=r)
        self.background_depth = Gauge("skyboard_bot_queue_background_depth",
                                      "Bot move tasks of games with bots only (served after every human's).",
                                      registry=r)
        self.background_age = Gauge("skyboard_bot_queue_background_oldest_seconds",
                                    "How long the oldest bot-only game's task has been queued.", registry=r)
        self.budget_scale = Gauge("skyboard_bot_budget_scale",
                                  "Factor the degradation policy puts on every level's think budget (1: none; "
                                  "never below mcts-easy's budget).", registry=r)
        self.active = Gauge("skyboard_active_games_by_game", "Games not finished, per game.", ["game"], registry=r)
        self.waiting = Gauge("skyboard_games_waiting_on_bot", "Active games whose next decision is a bot's.",
                             registry=r)
        self.wait_oldest = Gauge("skyboard_bot_wait_oldest_seconds",
                                 "Longest time an active game has been waiting on a bot decision.", registry=r)
        self.mm_queued = Gauge("skyboard_matchmaking_queued", "Matchmaking tickets waiting for a game.",
                               registry=r)
        self.mm_oldest = Gauge("skyboard_matchmaking_oldest_seconds",
                               "How long the oldest queued matchmaking ticket has waited.", registry=r)
        self.sample_seconds = Gauge("skyboard_exporter_sample_seconds", "Duration of the last Redis sample.",
                                    registry=r)


@dataclass
class QueueHead:
    """The task id at the head of the queue and when it was first seen there."""

    task_id: str | None = None
    since: float = 0.0


def _task_id(raw: bytes | str | None) -> str | None:
    if raw is None:
        return None
    try:
        return str(json.loads(raw)["headers"]["id"])
    except (ValueError, KeyError, TypeError):
        return str(hash(raw))


class Sampler:
    """One sample of Redis into the gauges."""

    def __init__(self, client: redis.Redis, settings: Settings, metrics: OpsMetrics, scan_limit: int,
                 gateway_prefix: str = GatewaySettings.model_fields["key_prefix"].default,
                 broker: redis.Redis | None = None):
        """`broker`: the Celery broker's Redis, where the bot lists are (CELERY_BROKER_URL; on a Redis Cluster a
        standalone Redis apart from `client`); default `client` (one Redis for both)."""
        self.redis = client
        self.broker = client if broker is None else broker
        self.keys = Keys(settings.key_prefix)
        self.gateway_keys = GatewayKeys(gateway_prefix)
        self.queue = settings.bot_queue
        self.human = human_lists(settings.bot_queue)
        self.background = background_list(settings.bot_queue)
        self.degrade_after_s = settings.bot_degrade_after_s
        self.metrics = metrics
        self.scan_limit = scan_limit
        self.heads = {name: QueueHead() for name in self.human}
        self.known_games: set[str] = set()

    def sample(self, now: float | None = None) -> None:
        now = time.time() if now is None else now
        started = time.perf_counter()
        m = self.metrics
        try:
            self._queue(now)
            self._games(now)
            self._matchmaking(now)
        except (redis.RedisError, OSError) as exc:
            log.warning("Redis sample failed: %s", exc)
            m.redis_up.set(0)
            return
        m.redis_up.set(1)
        m.sample_seconds.set(time.perf_counter() - started)

    def _queue(self, now: float) -> None:
        pipe = self.broker.pipeline()
        for name in (*self.human, self.background):
            pipe.llen(name)
            pipe.lindex(name, -1)  # kombu LPUSHes and workers BRPOP: each list's oldest message is last
        replies = pipe.execute()
        *human, background, oldest_background = replies
        depth = sum(human[0::2])
        age = max(self._head_age(name, oldest, now) for name, oldest in zip(self.human, human[1::2]))
        sent_background = sent_at(oldest_background)
        self.metrics.queue_depth.set(depth + background)
        self.metrics.queue_age.set(age)
        self.metrics.background_depth.set(background)
        self.metrics.background_age.set(0.0 if sent_background is None else max(0.0, now - sent_background))
        self.metrics.budget_scale.set(budget_scale(age, self.degrade_after_s))

    def _head_age(self, name: str, oldest: bytes | str | None, now: float) -> float:
        """How long the message at the head of human list `name` has been queued (0 if it is empty)."""
        task = _task_id(oldest)
        if task != self.heads[name].task_id:
            self.heads[name] = QueueHead(task, now)
        sent = sent_at(oldest)
        return 0.0 if task is None else max(0.0, now - (sent if sent is not None else self.heads[name].since))

    def _games(self, now: float) -> None:
        listing = self.redis.pipeline()
        for b in range(BUCKETS):  # the per-bucket indexes (services/gamestate/keys.py)
            listing.zrange(self.keys.active(b), 0, self.scan_limit - 1)
        ids = [i.decode() if isinstance(i, bytes) else i for found in listing.execute() for i in found]
        ids = ids[: self.scan_limit]
        pipe = self.redis.pipeline()
        for game_id in ids:
            pipe.hmget(self.keys.meta(game_id), "game", "status", "to_act", "bots", "updated_ms")
        per_game: dict[str, int] = {}
        waiting = 0
        oldest_ms = 0.0
        for fields in pipe.execute() if ids else []:
            game, status, to_act, bots, updated = (f.decode() if isinstance(f, bytes) else f for f in fields)
            if game is None or status != "active":
                continue
            per_game[game] = per_game.get(game, 0) + 1
            bot_seats = {int(s) for s in json.loads(bots or "{}")}
            if bot_seats & set(json.loads(to_act or "[]")):
                waiting += 1
                oldest_ms = max(oldest_ms, now * 1000 - int(updated or 0))
        for game in sorted(self.known_games - per_game.keys()):
            self.metrics.active.labels(game).set(0)
        for game, count in sorted(per_game.items()):
            self.metrics.active.labels(game).set(count)
        self.known_games |= per_game.keys()
        self.metrics.waiting.set(waiting)
        self.metrics.wait_oldest.set(max(oldest_ms, 0.0) / 1000)


    def _matchmaking(self, now: float) -> None:
        buckets = sorted(b.decode() if isinstance(b, bytes) else b
                         for b in self.redis.smembers(self.gateway_keys.buckets()))
        pipe = self.redis.pipeline()
        for bucket in buckets:
            pipe.zcard(self.gateway_keys.queue(bucket))
            pipe.zrange(self.gateway_keys.queue(bucket), 0, 0, withscores=True)  # score = enqueue ms
        replies = pipe.execute() if buckets else []
        queued = sum(replies[0::2])
        oldest = min((first[0][1] for first in replies[1::2] if first), default=None)
        self.metrics.mm_queued.set(queued)
        self.metrics.mm_oldest.set(0.0 if oldest is None else max(now - oldest / 1000, 0.0))


def main() -> None:
    configure_logging()
    settings = Settings()
    own = ExporterSettings()
    metrics = OpsMetrics()
    client = sync_redis(settings.redis_url, cluster=settings.redis_cluster, socket_timeout=5, socket_connect_timeout=5)
    broker = redis.Redis.from_url(settings.broker_url, socket_timeout=5, socket_connect_timeout=5)
    sampler = Sampler(client, settings, metrics, own.scan_limit, GatewaySettings().key_prefix, broker=broker)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    start_http_server(own.port, addr=own.host, registry=metrics.registry)
    print(f"ops exporter on http://{own.host}:{own.port}/metrics (queue {settings.bot_queue!r})", flush=True)
    while not stop.is_set():
        sampler.sample()
        stop.wait(own.interval_s)
    client.close()
    broker.close()


if __name__ == "__main__":
    main()
