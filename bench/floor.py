"""The floor of the load bench: a bare FastAPI endpoint doing one Redis GET and one SET.

Served by uvicorn exactly like the gateway (one process, same log level), so
REST latency divided by this one is the platform's own overhead.
Run as `python -m bench.floor` with FLOOR_PORT, REDIS_URL and FLOOR_PREFIX.
"""

from __future__ import annotations

import os

import redis.asyncio as aioredis
import uvicorn
from fastapi import FastAPI


def create_app(redis_url: str, prefix: str) -> FastAPI:
    app = FastAPI()
    client = aioredis.from_url(redis_url, max_connections=10_000)  # the same pool cap as the platform

    @app.get("/healthz")
    async def healthz() -> dict:
        return {"status": "ok"}

    @app.post("/floor/{key}")
    async def floor(key: str) -> dict:
        value = await client.get(f"{prefix}{key}")
        count = int(value or 0) + 1
        await client.set(f"{prefix}{key}", count, ex=600)
        return {"key": key, "count": count}

    return app


def main() -> None:
    port = int(os.environ["FLOOR_PORT"])
    app = create_app(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"), os.environ["FLOOR_PREFIX"])
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="info")


if __name__ == "__main__":
    main()
