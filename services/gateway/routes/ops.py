"""Operations endpoints: liveness and readiness (Redis, the SQL database, the game-state service; one shared check,
services/gateway/domain/readiness.py, so that calls to /readyz, which no rate limit bounds, cost the backends at
most one probe per GATEWAY_READY_CACHE_S per process).

Prometheus metrics are not here: they have a port of their own (GATEWAY_METRICS_PORT, services/gateway/metrics.py).
"""

from __future__ import annotations

from fastapi import APIRouter

from services.gateway.context import Ctx
from services.gateway.http.errors import ApiError
from services.gateway.models.games import Health

router = APIRouter()


@router.get("/healthz", response_model=Health, summary="The process is up")
async def healthz() -> Health:
    return Health(status="ok")


@router.get("/readyz", response_model=Health,
            summary="Redis, the SQL database and the game-state service are reachable",
            responses={503: {"description": "a dependency is down"}})
async def readyz(c: Ctx) -> Health:
    checks = await c.readiness.get()
    if not all(checks.values()):
        down = [name for name, ok in checks.items() if not ok]
        raise ApiError(503, f"not ready: {', '.join(down)} unreachable", "not_ready")
    return Health(status="ready", checks=dict(checks))
