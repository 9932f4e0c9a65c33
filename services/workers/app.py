"""The worker's Celery app, which `python -m services.workers` runs (`celery -A services.workers.app:app worker`).

Importing it registers the tasks on the shared app; when the worker is ready
it starts the metrics exporter. (Stalled decisions are re-queued by the
game-state service, not here.)
"""

from __future__ import annotations

import logging
import os
import sys

from celery.signals import worker_ready

from services.common.celery_app import celery_app as app
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
            # a worker whose metrics port is taken (an orphan of an earlier stack?) stops with a clear error
            # rather than running unseen; its pool processes follow it (Celery gives them PDEATHSIG)
            message = (f"skyboard bot worker: cannot export metrics on {settings.metrics_addr}:{config.metrics_port}: "
                       f"{exc.strerror or exc}; stopping")
            log.critical(message)
            print(message, file=sys.stderr, flush=True)
            os._exit(3)
