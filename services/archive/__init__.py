"""SQL (SQLAlchemy 2, async) as the system of record: the durable archive of finished games, and the accounts.

Redis stays the hot store of active games; once a game is over, the game-state service's archiver
(`services/gamestate/archiver.py`) copies it here and only then removes it from Redis. Readers (the
game-state service's fallback reads, the gateway's history) use `ArchiveRepository`. Players, API-key
hashes, ratings and settled rated games are here too (`accounts.AccountRepository`, behind the gateway's
`Players`, `Accounts` and `Ratings`; `import_redis` copies the former Redis records once).
One set of Alembic migrations (`migrations/`) serves PostgreSQL (asyncpg) and SQLite (aiosqlite).
"""
