"""The durable archive of finished games: SQL (SQLAlchemy 2, async) as the system of record.

Redis stays the hot store of active games; once a game is over, the game-state service's archiver
(`services/gamestate/archiver.py`) copies it here and only then removes it from Redis. Readers (the
game-state service's fallback reads, the gateway's history) use `ArchiveRepository`.
One set of Alembic migrations (`migrations/`) serves PostgreSQL (asyncpg) and SQLite (aiosqlite).
"""
