"""`make test` on a machine where nothing listens on Redis's or PostgreSQL's port (services/dev/dev_services.py):
private servers start for the run, answer, and are gone afterwards; the command's exit code is kept."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap

import asyncpg

from services.common.healthcheck import redis_answers
from services.dev import local_postgres
from services.dev.launch import free_port


def test_the_private_postgresql_comes_from_the_pgserver_wheel() -> None:
    """The dev extras' wheel, not the machine: `make test` needs no root and no apt for PostgreSQL."""
    wheel = local_postgres.wheel_bin_dir()
    assert wheel is not None and "site-packages" in wheel.parts
    assert local_postgres.bin_dir() == wheel
    version = subprocess.run([str(wheel / "postgres"), "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.startswith("postgres (PostgreSQL) ")


def test_a_temporary_postgresql_starts_answers_sql_and_leaves_nothing_behind() -> None:
    port = free_port()
    server = local_postgres.start(port)
    try:
        async def one() -> int:
            conn = await asyncpg.connect(f"{server.url}/postgres")
            try:
                return await conn.fetchval("SELECT 1")
            finally:
                await conn.close()

        assert asyncio.run(one()) == 1
    finally:
        local_postgres.stop(server)
    assert not local_postgres.answers(port) and not server.data_dir.exists()


def test_the_runner_starts_what_is_missing_for_the_command_and_stops_it_after() -> None:
    redis_port, pg_port = free_port(), free_port()
    redis_url, pg_url = f"redis://127.0.0.1:{redis_port}/0", f"postgresql://postgres@127.0.0.1:{pg_port}"
    probe = textwrap.dedent(f"""
        import sys
        from services.dev import local_postgres
        from services.common.healthcheck import redis_answers
        sys.exit(7 if redis_answers({redis_url!r}) and local_postgres.answers({pg_port}) else 1)
    """)
    env = {**os.environ, "REDIS_URL": redis_url, "ARCHIVE_TEST_PG": pg_url}
    done = subprocess.run([sys.executable, "-m", "services.dev.dev_services", "--", sys.executable, "-c", probe],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 7, done.stdout + done.stderr  # both answered inside, and the exit code is kept
    assert "starting" in done.stdout and "stopping the PostgreSQL" in done.stdout
    assert not redis_answers(redis_url) and not local_postgres.answers(pg_port)


def test_the_runner_uses_servers_that_already_answer() -> None:
    """This machine kind (and CI) starts Redis and PostgreSQL before the run: nothing is started then."""
    done = subprocess.run([sys.executable, "-m", "services.dev.dev_services", "--", sys.executable, "-c", "pass"],
                          capture_output=True, text=True, timeout=60,
                          env={k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "ARCHIVE_TEST_PG")})
    assert done.returncode == 0, done.stderr
    assert "starting" not in done.stdout
