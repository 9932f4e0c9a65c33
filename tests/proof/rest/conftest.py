"""The gateway tests' own stack (real Redis, game-state service, uvicorn gateway), re-exported."""

from __future__ import annotations

from tests.gateway.conftest import (  # noqa: F401 (pytest fixtures)
    gateway,
    http,
    make_gateway,
    rdb,
    redis_url,
    service,
)
