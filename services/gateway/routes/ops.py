"""Operations endpoints: liveness and readiness (Redis, the SQL database, the game-state service).

Prometheus metrics are not here: they have a port of their own (GATEWAY_METRICS_PORT, services/gateway/metrics.py).
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter
from redis.exceptions import RedisError
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from services.gateway.context import Ctx
from services.gateway.http.errors import ApiError
from services.gateway.models.games import Health

router = APIRouter()


@router.get("/healthz", response_model=Health, summary="The process is up")
async def healthz() -> Health:
    return Health(status="ok")


async def _sql_ok(c) -> bool:
    try:
        async with asyncio.timeout(5):
            async with c.accounts_db.engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
        return True
    except (SQLAlchemyError, OSError, TimeoutError):
        return False


@router.get("/readyz", response_model=Health,
            summary="Redis, the SQL database and the game-state service are reachable",
            responses={503: {"description": "a dependency is down"}})
async def readyz(c: Ctx) -> Health:
    try:
        redis_ok = bool(await c.redis.ping())
    except (RedisError, OSError):
        redis_ok = False
    sql_ok = await _sql_ok(c)
    service_ok = await c.gamestate.healthy()
    checks = {"redis": redis_ok, "sql": sql_ok, "gamestate": service_ok}
    if not all(checks.values()):
        down = [name for name, ok in checks.items() if not ok]
        raise ApiError(503, f"not ready: {', '.join(down)} unreachable", "not_ready")
    return Health(status="ready", checks=checks)

