"""The one check every service suite makes before it touches Redis: reachable, or fail under CI, else skip."""

from __future__ import annotations

import os

import pytest
import redis


def require_redis(url: str, who: str) -> str:
    """`url` if Redis answers a PING there; otherwise fail when CI=true (never skip in CI), else skip."""
    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        message = f"Redis at {url} is not reachable ({exc}); {who} need a real Redis"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return url
