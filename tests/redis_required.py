"""The one check every service suite makes before it touches Redis: reachable, or fail under CI, else skip."""

from __future__ import annotations

import os

import pytest
import redis

#: `make test-cluster` runs the service suites against a local Redis Cluster (services/dev/local_cluster.py)
CLUSTER: bool = os.environ.get("REDIS_CLUSTER", "").lower() == "true"


def test_redis(url: str, **kwargs) -> redis.Redis:
    """A blocking client of the run's Redis for a test's own reads and clean-up: a cluster client when the run
    is on a cluster (`REDIS_CLUSTER=true`), with the services' failover patience."""
    from services.common.redis_clients import sync_redis

    return sync_redis(url, cluster=CLUSTER, **kwargs)


def redis_db(db: int) -> str:
    """Database `db` of the run's Redis (REDIS_URL's server; `make test` may have started a private one)."""
    return f"{os.environ.get('REDIS_URL', 'redis://127.0.0.1:6379/0').rsplit('/', 1)[0]}/{db}"


def require_redis(url: str, who: str) -> str:
    """`url` if Redis answers a PING there; otherwise fail when CI=true (never skip in CI), else skip."""
    try:
        test_redis(url, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        message = f"Redis at {url} is not reachable ({exc}); {who} need a real Redis"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return url
