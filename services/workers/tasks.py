"""The Celery task `skyboard.bot_move`, registered on the shared app of services/common/celery_app.py."""

from __future__ import annotations

import logging

import grpc
from celery.exceptions import SoftTimeLimitExceeded

from services.common.bot_policy import QueueAge
from services.common.celery_app import celery_app
from services.common.redis_clients import sync_redis
from services.gamestate.client import GameServiceError
from services.gamestate.client_sync import GameClient
from services.workers import metrics
from services.workers.config import load_config
from services.workers.move import Mover, action_kind

log = logging.getLogger(__name__)

CONFIG = load_config()
_MOVER: Mover | None = None

#: Transient service failures worth a quick retry (the service's re-dispatch is the slower safety net).
RETRY_CODES = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


def mover() -> Mover:
    """This process's Mover, created on first use (after a prefork child has forked)."""
    global _MOVER
    if _MOVER is None:
        settings = CONFIG.settings
        redis = sync_redis(settings.redis_url, cluster=settings.redis_cluster, decode_responses=True)
        _MOVER = Mover(
            redis=redis,
            prefix=settings.key_prefix,
            admin=GameClient(CONFIG.target).admin(settings.secret()),
            queue_age=QueueAge(sync_redis(settings.broker_url, decode_responses=True), settings.bot_queue),
            degrade_after_s=settings.bot_degrade_after_s,
        )
    return _MOVER


@celery_app.task(
    name="skyboard.bot_move",
    bind=True,
    ignore_result=True,
    acks_late=True,
    soft_time_limit=CONFIG.soft_limit_s,
    time_limit=CONFIG.hard_limit_s,
    max_retries=3,
)
def bot_move(self, game_id: str, seat: int, version: int) -> None:
    """Play bot seat `seat` of `game_id` at `version` (a stale version exits at once)."""
    if (
        not isinstance(game_id, str)
        or isinstance(seat, bool)
        or not isinstance(seat, int)
        or isinstance(version, bool)
        or not isinstance(version, int)
    ):
        metrics.FAILURES.labels("bad_arguments").inc()
        log.error("bot_move called with bad arguments %r %r %r", game_id, seat, version)
        return
    try:
        result = mover().play(game_id, seat, version)
    except SoftTimeLimitExceeded:
        metrics.FAILURES.labels("soft_time_limit").inc()
        log.error("bot move %s seat %s v%s ran out of time; the service re-queues it", game_id, seat, version)
        return
    except GameServiceError as exc:
        if exc.code in RETRY_CODES:
            raise self.retry(exc=exc, countdown=1) from exc
        raise
    except Exception as exc:
        metrics.FAILURES.labels(type(exc).__name__).inc()
        raise
    # the kind of action only: its content may be hidden from other seats (a sealed bid, a discard); the priority
    # it was queued at is its tier (services/common/bot_policy.py)
    priority = (self.request.delivery_info or {}).get("priority")
    log.info("bot move %s seat %s version %s: %s %s (waited %.3f s, thought %.3f s, budget x%.2f, priority %s)",
             game_id, seat, version, result.outcome, action_kind(result.action), result.waited, result.seconds,
             result.scale, "-" if priority is None else priority)
