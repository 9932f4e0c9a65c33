"""Engine factory from an archive URL (ARCHIVE_URL): PostgreSQL through asyncpg, SQLite through aiosqlite.

Plain `postgresql://` and `sqlite:///` URLs are given their async driver, so one URL serves the services
and the operators' tools alike. SQLite runs in WAL mode with a busy timeout, so the game-state service can
write while the gateway reads the same file.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

#: The embedded default of `make run` (services/dev/stack.py makes the path absolute, under the repository).
DEFAULT_SQLITE_FILE = ".skyboard/archive.db"


def async_url(url: str) -> str:
    """`url` with the async driver of its backend (asyncpg, aiosqlite) when it names none."""
    parsed = make_url(url)
    driver = {"postgresql": "postgresql+asyncpg", "postgres": "postgresql+asyncpg", "sqlite": "sqlite+aiosqlite"}
    if parsed.drivername in driver:
        parsed = parsed.set(drivername=driver[parsed.drivername])
    return parsed.render_as_string(hide_password=False)


def make_engine(url: str, *, pool_size: int = 5) -> AsyncEngine:
    """An async engine for the archive at `url` (a SQLite file's folder is created if missing)."""
    url = async_url(url)
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_async_engine(url, connect_args={"timeout": 30})

        @event.listens_for(engine.sync_engine, "connect")
        def _pragmas(dbapi_conn, _record) -> None:  # WAL: readers never block the archiver's writes
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()

        return engine
    return create_async_engine(url, pool_size=pool_size, max_overflow=pool_size, pool_pre_ping=True)
