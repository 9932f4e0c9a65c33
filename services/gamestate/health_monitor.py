"""Health that follows the storage: NOT_SERVING while Redis cannot be reached, SERVING again after.

Why: an instance without Redis can answer nothing but UNAVAILABLE, so load balancers, Kubernetes
readiness probes and `make run`'s supervisor should route around it instead of sending it calls.
Liveness is unaffected (the process is fine; Redis is what is missing). Once graceful shutdown has
begun the servicer ignores further changes, so a shutdown is never reported as serving again.
"""

from __future__ import annotations

import asyncio
import logging

import redis.asyncio as aioredis
from grpc_health.v1 import health, health_pb2

from services.common.waits import rest, within

log = logging.getLogger(__name__)

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


async def redis_reachable(redis: aioredis.Redis, timeout_s: float) -> bool:
    """One PING within timeout_s."""
    try:
        return bool(await within(redis.ping(), timeout_s))
    except (TimeoutError, OSError, aioredis.RedisError):
        return False


async def follow_redis(
    servicer: health.aio.HealthServicer,
    names: tuple[str, ...],
    redis: aioredis.Redis,
    interval_s: float,
    stop: asyncio.Event,
) -> None:
    """Every interval_s, set every name in `names` to SERVING or NOT_SERVING by whether Redis answers."""
    serving = True
    while not stop.is_set():
        up = await redis_reachable(redis, timeout_s=max(0.1, interval_s))
        if up != serving:
            serving = up
            log.warning("Redis %s: health %s", "reachable again" if up else "unreachable", "SERVING" if up else
                        "NOT_SERVING")
            for name in names:
                await servicer.set(name, SERVING if up else NOT_SERVING)
        await rest(stop, interval_s)
