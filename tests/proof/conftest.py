"""Fixtures of the proof tests: the service tests' own Redis, key prefix and in-process instances
(re-exported, not re-written). Their registry holds the real engines plus the toy game."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bench.soak import RedisServer
from bench.stack import free_port
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


@pytest.fixture
def private_redis() -> Iterator[RedisServer]:
    """A redis-server of this test alone (own port and temp dir, append-only), never the shared one."""
    server = RedisServer(free_port(), "everysec")
    server.start()
    yield server
    server.close()
