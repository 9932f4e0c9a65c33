"""The game-state service: authoritative games stored in Redis, served over gRPC (`python -m services.gamestate`).

Modules: `pb` (generated stubs), `keys` (Redis layout), `tokens` (seat secrets), `store` (Redis storage and the
compare-and-set commit; its scripts in `lua/`), `records` (the metadata and change records it reads and writes),
`status` (a game's status, winners and deadlines at a state), `wire` (the clock in ms, compact JSON, idempotency
fingerprints), `replay` (a state from the log), `service` (the composition root and the reads), `pipeline` (the one
path of every change: commit, revoke/publish, auto-play, bot dispatch), the kinds of change `moves`, `creation`,
`endings` (resign, abort, inactivity) and `turn_clock`, `watch` (the watch stream), `lookup` (games, metadata,
seats), `bot_dispatch` (queueing and re-queueing bot moves), `server` (grpc.aio servicer), `sweeper` (the loop of
turn clock, stalled bot moves and inactivity), `bots` (levels and Celery dispatch), `metrics`, `client` (typed
client).
"""
