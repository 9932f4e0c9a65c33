"""Fixtures of the proof tests: the service tests' own Redis, key prefix and in-process instances
(re-exported, not re-written). Their registry holds the real engines plus the toy game."""

from __future__ import annotations

from tests.services.conftest import (  # noqa: F401 (pytest fixtures)
    client,
    instance,
    loop_thread,
    make_client,
    make_instance,
    prefix,
    rdb,
    redis_url,
    registry,
    settings,
)
