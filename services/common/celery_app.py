"""The Celery application shared by the game-state service (producer) and bot workers.

The service only sends tasks by name (`skyboard.bot_move`); the workers in
services/workers/ register the task implementations on this same app.
"""

from __future__ import annotations

from celery import Celery

from services.common.settings import Settings, get_settings


def make_celery(settings: Settings | None = None) -> Celery:
    """A Celery app on the configured Redis broker, with bot tasks routed to BOT_QUEUE."""
    settings = settings or get_settings()
    app = Celery("skyboard", broker=settings.broker_url)
    app.conf.update(
        task_default_queue=settings.bot_queue,
        task_routes={"skyboard.bot_move": {"queue": settings.bot_queue}},
        task_ignore_result=True,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_serializer="json",
        accept_content=["json"],
        broker_connection_retry_on_startup=True,
    )
    return app


celery_app = make_celery()
