"""Fixtures of the proof tests: the service tests' own Redis, key prefix and in-process instances
(re-exported, not re-written). Their registry holds the real engines plus the toy game."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from services.dev.launch import RedisServer, free_port
from tests.services.conftest import (  # noqa: F401 (pytest fixtures)
    broker,
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
    """A redis-server of this test alone (own port and temp dir, append-only), never the shared one.

    `appendfsync always`: only that policy makes every acknowledged write survive a SIGKILL of Redis. Under
    `everysec` Redis postpones the AOF write (up to 2 s) while a background fsync runs, yet still replies,
    so a kill in that window loses acknowledged writes: CI lost 7 of 8 keys that way (stop 18)."""
    server = RedisServer(free_port(), "always")
    server.start()
    yield server
    server.close()
