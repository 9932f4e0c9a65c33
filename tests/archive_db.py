"""SQL databases of one test run: a PostgreSQL database of its own (created, migrated, dropped) and a
SQLite file, each made once per session.

The PostgreSQL one is also every test gateway's system of record (players, keys, ratings): `shared_pg_url()`
makes it on first use, from a fixture or from a plain helper such as tests/gateway/conftest.py's
`gateway_settings`, and `drop_shared_pg()` (tests/conftest.py, at session end) drops it. Tests isolate by
their random ids (players, games), not by database.

PostgreSQL is 127.0.0.1:5432 as user postgres unless ARCHIVE_TEST_PG (a server URL, no database) says
otherwise. With CI=true an unreachable server fails the tests instead of skipping them.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import pytest

from services.archive.db import make_engine
from services.archive.migrate import upgrade
from tests.run_id import RUN

PG_SERVER = os.environ.get("ARCHIVE_TEST_PG", "postgresql://postgres@127.0.0.1:5432")


async def _admin(sql: str) -> None:
    conn = await asyncpg.connect(f"{PG_SERVER}/postgres", timeout=5)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


async def _migrate(url: str) -> None:
    engine = make_engine(url)
    try:
        await upgrade(engine)
    finally:
        await engine.dispose()


def require_postgres() -> None:
    """Return if PostgreSQL answers; fail under CI=true, else skip."""
    try:
        asyncio.run(_admin("SELECT 1"))
    except (OSError, asyncpg.PostgresError, TimeoutError) as exc:
        message = f"PostgreSQL at {PG_SERVER} is not reachable ({exc}); the archive tests need a real PostgreSQL"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)


_shared: dict[str, str] = {}


def shared_pg_url() -> str:
    """The run's migrated PostgreSQL database (skyboard_test_<run>_<random>), created on first use."""
    if "url" not in _shared:
        require_postgres()
        name = f"skyboard_test_{RUN}_{uuid.uuid4().hex[:8]}"
        asyncio.run(_admin(f'CREATE DATABASE "{name}"'))
        _shared["name"] = name
        url = f"{PG_SERVER.replace('postgresql://', 'postgresql+asyncpg://', 1)}/{name}"
        asyncio.run(_migrate(url))
        _shared["url"] = url
    return _shared["url"]


def drop_shared_pg() -> None:
    """Drop the run's database if it was made (at session end: every gateway is stopped by then)."""
    name = _shared.pop("name", None)
    _shared.pop("url", None)
    if name is not None:
        asyncio.run(_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@contextlib.contextmanager
def own_pg_database(tag: str) -> Iterator[str]:
    """An empty PostgreSQL database (skyboard_test_<run>_<tag>_<random>, not migrated) for one test, dropped after
    it: for tests of the migrations themselves."""
    require_postgres()
    name = f"skyboard_test_{RUN}_{tag}_{uuid.uuid4().hex[:8]}"
    asyncio.run(_admin(f'CREATE DATABASE "{name}"'))
    try:
        yield f"{PG_SERVER.replace('postgresql://', 'postgresql+asyncpg://', 1)}/{name}"
    finally:
        asyncio.run(_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@contextlib.contextmanager
def own_archive(backend: str, folder: Path, tag: str) -> Iterator[str]:
    """A migrated archive database of one test alone, which it may alter (add a constraint, a trigger, change a
    column): on PostgreSQL its own database (dropped after), on SQLite a file in `folder`."""
    if backend == "postgresql":
        with own_pg_database(tag) as url:
            asyncio.run(_migrate(url))
            yield url
        return
    url = f"sqlite+aiosqlite:///{folder / f'{tag}.db'}"
    asyncio.run(_migrate(url))
    yield url


@pytest.fixture(scope="session")
def archive_pg_url() -> Iterator[str]:
    """The run's migrated PostgreSQL database, dropped at the end of the session."""
    yield shared_pg_url()


@pytest.fixture(scope="session")
def archive_sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A migrated SQLite archive file of this run."""
    path: Path = tmp_path_factory.mktemp("archive") / "archive.db"
    url = f"sqlite+aiosqlite:///{path}"
    asyncio.run(_migrate(url))
    return url


@pytest.fixture(scope="session", params=["postgresql", "sqlite"])
def archive_url(request: pytest.FixtureRequest) -> str:
    """Each archive backend in turn (tests that are cheap enough to run on both)."""
    return request.getfixturevalue(f"archive_{'pg' if request.param == 'postgresql' else 'sqlite'}_url")
