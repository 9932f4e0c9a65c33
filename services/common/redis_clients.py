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

import asyncio
import contextlib
import time
from typing import Any

import redis
import redis.asyncio as aioredis
import redis.asyncio.cluster as aiocluster
import redis.cluster
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import ClusterDownError, SlotNotCoveredError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry

#: Reconnect attempts after a failed command; with the backoff below an outage still fails within ~0.3 s.
RECONNECT_RETRIES = 2
_BACKOFF_BASE_S = 0.01
_BACKOFF_CAP_S = 0.2
#: Only a refused or dropped connection; redis-py's default list would also resend after a timeout.
_RESENDABLE = (RedisConnectionError,)


def _backoff() -> ExponentialWithJitterBackoff:
    return ExponentialWithJitterBackoff(base=_BACKOFF_BASE_S, cap=_BACKOFF_CAP_S)


#: Redis Cluster (docs/decisions/redis-cluster.md): a failover takes cluster-node-timeout plus an election (~2-4 s); the
#: cluster client re-reads the slot map and resends, backing off, for FAILOVER_PATIENCE_S before giving up. Unlike the
#: standalone policy this also resends after a timeout: every game write is a script that checks its version and
#: idempotency key, so a resent one cannot apply twice.
FAILOVER_PATIENCE_S = 8.0
_CLUSTER_BACKOFF = dict(base=0.05, cap=0.5)
_FAILOVER_ERRORS = (RedisConnectionError, RedisTimeoutError, ClusterDownError, SlotNotCoveredError)


class PatientCluster(aiocluster.RedisCluster):
    """redis-py's asyncio cluster client resends at once after a connection error, so its retries are spent
    before a replica has been promoted; this one backs off between attempts until FAILOVER_PATIENCE_S."""

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        deadline = time.monotonic() + FAILOVER_PATIENCE_S
        backoff = ExponentialWithJitterBackoff(**_CLUSTER_BACKOFF)
        failures = 0
        while True:
            try:
                return await super().execute_command(*args, **kwargs)
            except _FAILOVER_ERRORS:
                failures += 1
                if time.monotonic() > deadline:
                    raise
                self._initialize = True  # re-read the slot map: the slot's primary may have changed
                await asyncio.sleep(backoff.compute(failures))


class PatientSyncCluster(redis.cluster.RedisCluster):
    """The blocking cluster client with `PatientCluster`'s failover patience (Celery workers, tools)."""

    def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        deadline = time.monotonic() + FAILOVER_PATIENCE_S
        backoff = ExponentialWithJitterBackoff(**_CLUSTER_BACKOFF)
        failures = 0
        while True:
            try:
                return super().execute_command(*args, **kwargs)
            except _FAILOVER_ERRORS:
                failures += 1
                if time.monotonic() > deadline:
                    raise
                time.sleep(backoff.compute(failures))
                # re-read the slot map (the slot's primary may have changed); no node answering yet is fine
                with contextlib.suppress(redis.RedisError):
                    self.nodes_manager.initialize()


def async_redis(url: str, *, cluster: bool = False, **kwargs: Any) -> aioredis.Redis:
    """An asyncio client whose commands reconnect and resend after a dropped connection; with `cluster`, a
    Redis Cluster client (`url` names any node; keys must carry hash tags so each call stays in one slot)."""
    if cluster:
        return PatientCluster.from_url(  # type: ignore[return-value]
            url, retry=AsyncRetry(ExponentialWithJitterBackoff(**_CLUSTER_BACKOFF), 2), **kwargs
        )
    return aioredis.Redis.from_url(
        url, retry=AsyncRetry(_backoff(), RECONNECT_RETRIES, supported_errors=_RESENDABLE), **kwargs
    )


def sync_redis(url: str, *, cluster: bool = False, **kwargs: Any) -> redis.Redis:
    """A blocking client with the same reconnect policy (Celery workers, tools); `cluster` as `async_redis`."""
    if cluster:
        return PatientSyncCluster.from_url(  # type: ignore[return-value]
            url, retry=Retry(ExponentialWithJitterBackoff(**_CLUSTER_BACKOFF), 2), **kwargs
        )
    return redis.Redis.from_url(
        url, retry=Retry(_backoff(), RECONNECT_RETRIES, supported_errors=_RESENDABLE), **kwargs
    )
