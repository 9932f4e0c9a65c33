"""Bot workers: Celery tasks that play bot seats through the game-state service's internal API.

    celery -A services.workers.app worker -Q bots --pool=prefork --concurrency=2

A worker holds no game truth and keeps no sweeper: it loads the state, thinks and submits at the version it was
asked about, so a duplicated, redelivered or lost task is harmless (the service re-queues a stalled decision).
How a task runs, its seeding, metrics and settings: docs/platform/bots.md ("Workers"); configuration: config.py.
"""
