"""SQL (SQLAlchemy 2, async) as the system of record: the durable archive of finished games.

Redis stays the hot store of active games; once a game is over, the game-state service's archiver
(`services/gamestate/archiver.py`) copies it here and only then removes it from Redis. Readers (the
game-state service's fallback reads, the gateway's history) use `ArchiveRepository`. The same database holds
the accounts' tables (players, API-key hashes, ratings, settled rated games), read and written by
`services.accounts.repository.AccountRepository`.
One set of Alembic migrations (`migrations/`) serves PostgreSQL (asyncpg) and SQLite (aiosqlite).
"""
