"""What /readyz checks: one round trip to each backend (Redis, the SQL database, the game-state service), at once.

`Context.readiness` shares one such probe between all the callers of /readyz (services/common/healthcheck.py
SharedCheck), since no rate limit bounds them; each probe counts itself in `skyboard_gateway_readiness_checks`.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from redis.exceptions import RedisError
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

if TYPE_CHECKING:
    from services.gateway.context import Context


async def _sql_ok(c: Context) -> bool:
    try:
        async with asyncio.timeout(5):
            async with c.accounts_db.engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
        return True
    except (SQLAlchemyError, OSError, TimeoutError):
        return False


async def _redis_ok(c: Context) -> bool:
    try:
        return bool(await c.redis.ping())
    except (RedisError, OSError):
        return False


async def probe(c: Context) -> dict[str, bool]:
    """Whether each backend answered (name -> ok)."""
    c.metrics.readiness_checks.inc()
    redis_ok, sql_ok, service_ok = await asyncio.gather(_redis_ok(c), _sql_ok(c), c.gamestate.healthy())
    return {"redis": redis_ok, "sql": sql_ok, "gamestate": service_ok}
