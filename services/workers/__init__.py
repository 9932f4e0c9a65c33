"""Bot workers: Celery tasks that play bot seats through the game-state service's internal API.

    python -m services.workers --concurrency 2    (celery -A services.workers.app:app worker, __main__.py)

A worker holds no game truth and keeps no sweeper: it loads the state, thinks and submits at the version it was
asked about, so a duplicated, redelivered or lost task is harmless (the service re-queues a stalled decision).
How a task runs, its seeding, metrics and settings: docs/platform/bots.md ("Workers"); configuration: config.py.
"""

#: The Celery app (module:attribute) every bot worker runs (python -m services.workers); it registers skyboard.bot_move.
WORKER_APP = "services.workers.app:app"

from ai.policy import one_blas_thread  # noqa: E402  (before any task module imports numpy)

one_blas_thread()
