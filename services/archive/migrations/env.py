"""Alembic environment of the archive: one set of migrations for PostgreSQL and SQLite.

Programmatic runs (services/archive/migrate.py) hand over a connection in `config.attributes`; the
`alembic` command line builds an async engine from `sqlalchemy.url` or ARCHIVE_URL.
"""

from __future__ import annotations

import asyncio
import os

from alembic import context
from sqlalchemy import Connection

from services.archive.db import async_url, make_engine
from services.archive.models import Base

config = context.config
target_metadata = Base.metadata


def _run(connection: Connection) -> None:
    # batch mode: SQLite alters tables by copying them; PostgreSQL ignores it
    context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


async def _online(url: str) -> None:
    engine = make_engine(url)
    async with engine.begin() as conn:
        await conn.run_sync(_run)
    await engine.dispose()


def _url() -> str:
    url = config.get_main_option("sqlalchemy.url") or os.environ.get("ARCHIVE_URL", "")
    if not url:
        raise SystemExit("set ARCHIVE_URL (or sqlalchemy.url) to the archive's database URL")
    return async_url(url)


if config.attributes.get("connection") is not None:
    _run(config.attributes["connection"])
elif context.is_offline_mode():
    context.configure(url=_url(), target_metadata=target_metadata, literal_binds=True, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    asyncio.run(_online(_url()))
