"""The game-state service: authoritative games stored in Redis, served over gRPC.

Modules: `pb` (generated stubs), `keys` (Redis layout), `tokens` (seat secrets),
`store` (Redis storage and the compare-and-set commit; its scripts in `lua/`), `records` (the metadata and
change records it reads and writes), `replay` (a state from the log), `service` (the
game-agnostic logic), `server` (grpc.aio servicer), `sweeper` (turn clock, stalled bot moves),
`bots` (levels and Celery dispatch), `metrics`, `client` (typed client),
`bench` (throughput and latency over real gRPC and Redis).
"""
