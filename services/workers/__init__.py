"""Bot workers: Celery tasks that play bot seats through the game-state service.

    python -m services.workers --concurrency 2    (celery -A services.workers.app:app worker, __main__.py)

- `skyboard.bot_move(game_id, seat, version)` (tasks.py, logic in move.py):
  load the state at `version` from Redis through the service's storage layer
  (`loader.load_game_sync`: snapshot + log tail replayed by the engine; no second
  copy of the rules), exit at once if the game moved on, think with the seat's
  level (`ai.make_bot`; the process keeps each seat's bot for its next decision,
  `bot_cache.py`, so a search can start from the subtree it kept), and submit through the internal
  GameAdmin service (`SubmitBotAction`, with the service credential) with `expected_version=version` and
  the idempotency key `bot:<game>:<seat>:<version>`, so a duplicated or redelivered task is harmless.
- A bot's randomness is seeded from the game's own secret (`bot_key` in its metadata, made at creation,
  never served to clients) with the seat and version: opponents cannot recompute a bot's sealed choices,
  while a redelivered task still replays the same reasoning. Logs name an action's kind, never its content.
- Workers keep no sweeper of their own: the game-state service re-queues a bot
  decision pending longer than its level's budget plus BOT_REDISPATCH_S (one
  instance claims each), so a worker killed mid-thought never stalls a game.
- Prometheus metrics (metrics.py), multiprocess-safe with PROMETHEUS_MULTIPROC_DIR.

Configuration (environment, besides the service's Settings: REDIS_URL,
KEY_PREFIX, BOT_QUEUE, SERVICE_SECRET): see config.py.
"""

#: The Celery app (module:attribute) every bot worker runs (python -m services.workers); it registers skyboard.bot_move.
WORKER_APP = "services.workers.app:app"
