"""The worker's Celery entry point: `celery -A services.workers.app worker -Q <BOT_QUEUE>`.

Importing it registers the tasks on the shared app; when the worker is ready
it starts the re-queue sweeper thread and the metrics exporter.
"""

from __future__ import annotations

import logging

import redis as redis_sync
from celery.signals import worker_ready, worker_shutdown

from services.celery_app import celery_app as app
from services.gamestate.bots import BOT_MOVE_TASK
from services.workers import tasks
from services.workers.sweeper import start_sweeper_thread

log = logging.getLogger(__name__)

__all__ = ["app", "tasks"]

_STOP = []


@worker_ready.connect
def _on_ready(**_kwargs) -> None:
    config = tasks.CONFIG
    settings = config.settings
    if config.metrics_port:
        from services.gamestate.metrics import serve_metrics

        try:
            serve_metrics(config.metrics_port, settings.metrics_addr)
        except OSError as exc:
            log.warning("worker metrics exporter not started on port %s: %s", config.metrics_port, exc)
    if config.requeue_interval_s > 0:
        client = redis_sync.Redis.from_url(settings.redis_url, decode_responses=True)

        def send(game_id: str, seat: int, version: int) -> None:
            app.send_task(BOT_MOVE_TASK, args=[game_id, seat, version], queue=settings.bot_queue)

        _STOP.append(
            start_sweeper_thread(client, settings.key_prefix, send, config.requeue_margin_s, config.requeue_interval_s)
        )


@worker_shutdown.connect
def _on_shutdown(**_kwargs) -> None:
    for stop in _STOP:
        stop.set()
