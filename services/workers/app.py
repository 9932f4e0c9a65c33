"""The worker's Celery entry point: `celery -A services.workers.app worker -Q <BOT_QUEUE>`.

Importing it registers the tasks on the shared app; when the worker is ready
it starts the metrics exporter. (Stalled decisions are re-queued by the
game-state service, not here.)
"""

from __future__ import annotations

import logging

from celery.signals import worker_ready

from services.celery_app import celery_app as app
from services.workers import tasks

log = logging.getLogger(__name__)

__all__ = ["app", "tasks"]

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
