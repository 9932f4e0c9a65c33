"""Apply the Alembic migrations programmatically (at service start, and `python -m services.archive upgrade`;
`downgrade <revision>` rolls back).

The migrations run on the caller's async connection (Alembic's "connection sharing" recipe), so no
second event loop or sync driver is needed. On PostgreSQL a transaction-scoped advisory lock makes
replicas starting together migrate one after the other.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, text
from sqlalchemy.ext.asyncio import AsyncEngine

MIGRATIONS = Path(__file__).resolve().parent / "migrations"

#: pg_advisory_xact_lock key of the archive's migrations (any constant; "sb-arch" in ASCII)
LOCK_KEY = 0x73622D61726368


def alembic_config(url: str | None = None) -> Config:
    """An Alembic config for the archive's migrations (`url` for offline/CLI use)."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    if url:
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def _run(connection: Connection, step: str, revision: str) -> None:
    cfg = alembic_config()
    cfg.attributes["connection"] = connection
    (command.upgrade if step == "upgrade" else command.downgrade)(cfg, revision)


async def _migrate(engine: AsyncEngine, step: str, revision: str) -> None:
    async with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            await conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": LOCK_KEY})
        await conn.run_sync(_run, step, revision)


async def upgrade(engine: AsyncEngine, revision: str = "head") -> None:
    """Bring the archive at `engine` to `revision` (idempotent)."""
    await _migrate(engine, "upgrade", revision)


async def downgrade(engine: AsyncEngine, revision: str) -> None:
    """Take the archive at `engine` back to `revision` (an operator's rollback; see each revision's notes)."""
    await _migrate(engine, "downgrade", revision)
