"""Redis clients with the platform's reconnect policy, for every service that talks to Redis.

redis-py's `from_url` gives each pooled connection no retries. After Redis restarts, every idle pooled
connection is a dead socket. The pool checks for one with a zero-timeout read before handing it out, yet
some got through (seen in 8 of 25 runs of tests/proof/test_redis_restart.py): the next command on such
a connection failed with "Connection closed by server" although Redis was back.
A command refused on a dead connection never ran, so reconnecting and sending it again is safe; every
write the game-state service makes is a Lua script that checks its idempotency key and the version
first, so even a reply lost after a write cannot apply it twice. Timeouts are not retried: a command
that timed out may have run, and the caller's own retry (keyed) is the right place for that.
"""

from __future__ import annotations

from typing import Any

import redis
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.retry import Retry

#: Reconnect attempts after a failed command; with the backoff below an outage still fails within ~0.3 s.
RECONNECT_RETRIES = 2
_BACKOFF_BASE_S = 0.01
_BACKOFF_CAP_S = 0.2
#: Only a refused or dropped connection; redis-py's default list would also resend after a timeout.
_RESENDABLE = (RedisConnectionError,)


def _backoff() -> ExponentialWithJitterBackoff:
    return ExponentialWithJitterBackoff(base=_BACKOFF_BASE_S, cap=_BACKOFF_CAP_S)


def async_redis(url: str, **kwargs: Any) -> aioredis.Redis:
    """An asyncio client whose commands reconnect and resend after a dropped connection."""
    return aioredis.Redis.from_url(
        url, retry=AsyncRetry(_backoff(), RECONNECT_RETRIES, supported_errors=_RESENDABLE), **kwargs
    )


def sync_redis(url: str, **kwargs: Any) -> redis.Redis:
    """A blocking client with the same reconnect policy (Celery workers, tools)."""
    return redis.Redis.from_url(
        url, retry=Retry(_backoff(), RECONNECT_RETRIES, supported_errors=_RESENDABLE), **kwargs
    )
