"""Operations endpoints: liveness, readiness (Redis + game-state service), Prometheus metrics."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
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


@router.get("/metrics", summary="Prometheus metrics", response_class=Response,
            responses={200: {"content": {"text/plain": {}}}})
async def metrics(c: Ctx) -> Response:
    return Response(generate_latest(c.metrics.registry), media_type=CONTENT_TYPE_LATEST)
