"""Operations endpoints: liveness and readiness (Redis + game-state service).

Prometheus metrics are not here: they have a port of their own (GATEWAY_METRICS_PORT, services/gateway/metrics.py).
"""

from __future__ import annotations

from fastapi import APIRouter
from redis.exceptions import RedisError

from services.gateway.context import Ctx
from services.gateway.errors import ApiError
from services.gateway.models import Health

router = APIRouter()


@router.get("/healthz", response_model=Health, summary="The process is up")
async def healthz() -> Health:
    return Health(status="ok")


@router.get("/readyz", response_model=Health, summary="Redis and the game-state service are reachable",
            responses={503: {"description": "a dependency is down"}})
async def readyz(c: Ctx) -> Health:
    try:
        redis_ok = bool(await c.redis.ping())
    except (RedisError, OSError):
        redis_ok = False
    service_ok = await c.gamestate.healthy()
    if not (redis_ok and service_ok):
        down = [name for name, ok in (("redis", redis_ok), ("gamestate", service_ok)) if not ok]
        raise ApiError(503, f"not ready: {', '.join(down)} unreachable", "not_ready")
    return Health(status="ready", checks={"redis": redis_ok, "gamestate": service_ok})

