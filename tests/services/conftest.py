"""Shared fixtures: real Redis (per-test key prefix, cleaned up) and real grpc.aio instances.

Instances run in one background event loop (grpc.aio supports one loop per
process), each with its own server, port, Redis connections and state cache,
so they share nothing but Redis, like separate processes; tests drive them
with the blocking client over loopback. test_restart uses real processes. With CI=true an unreachable
Redis fails the tests instead of skipping them.
"""

from __future__ import annotations

import asyncio
import os
import threading
import uuid
from collections.abc import Callable, Iterator

import pytest
import redis

from services.common.settings import Settings
from services.gamestate.client_sync import AdminClient, GameClient
from services.gamestate.server import Running, start
from services.gamestate.service import Registry
from tests.redis_required import require_redis, test_redis
from tests.run_id import RUN
from tests.service_secret import SERVICE_SECRET
from tests.services import toygame

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")


@pytest.fixture(scope="session")
def redis_url() -> str:
    return require_redis(REDIS_URL, "the service tests")


@pytest.fixture
def rdb(redis_url: str) -> Iterator[redis.Redis]:
    """The run's Redis: a cluster client under `make test-cluster` (tests/redis_required.py)."""
    client = test_redis(redis_url, decode_responses=True)
    yield client
    client.close()


@pytest.fixture
def broker(redis_url: str) -> Iterator[redis.Redis]:
    """The Celery broker's Redis, where bot tasks queue: REDIS_URL, or CELERY_BROKER_URL (a standalone Redis: Celery
    has no cluster support, so `make test-cluster` points it at one)."""
    client = redis.Redis.from_url(os.environ.get("CELERY_BROKER_URL") or redis_url, decode_responses=True)
    yield client
    client.close()


@pytest.fixture
def prefix(rdb: redis.Redis, broker: redis.Redis) -> Iterator[str]:
    """A key prefix of this test alone; every key under it (and its Celery queue) is deleted after."""
    value = f"sbtest{RUN}:{uuid.uuid4().hex[:10]}:"
    yield value
    for client in (rdb, broker):
        for pattern in (f"{value}*", f"_kombu.binding.{value}*"):
            keys = list(client.scan_iter(match=pattern, count=1000))
            if keys:
                client.delete(*keys)


@pytest.fixture
def settings(redis_url: str, prefix: str) -> Settings:
    return Settings(
        redis_url=redis_url,
        grpc_addr="127.0.0.1:0",
        admin_grpc_addr="127.0.0.1:0",
        metrics_port=0,
        key_prefix=prefix,
        bot_queue=f"{prefix}bots",
        service_secret=SERVICE_SECRET,
        # the public CreateGame (anonymous, a development setting) is how these tests make games; the owned
        # creation path and the refusal without this setting are tested in test_trust.py
        allow_anonymous_create=True,
        # the toy game has no bot a worker could run (workers use the engine registry): here the default decision
        # plays resigned and abandoned seats; tests of the zombie bot set a level on their instance
        zombie_bot_level="",
        sweep_interval_s=0.05,
        watch_block_ms=200,
        heartbeat_s=0.5,
        shutdown_grace_s=1.0,
        # the public port's per-caller limits are off here (every test calls from 127.0.0.1); the tests of the
        # limits set their own (test_public_port.py, test_stream_fanout.py)
        rate_limit_ip=0,
        rate_limit_token=0,
        rate_limit_ip_ceiling=0,
        stream_limit_address=0,
        stream_limit_credential=0,
    )


@pytest.fixture
def registry() -> Registry:
    return Registry({toygame.GAME.name: toygame.GAME})


class LoopThread:
    """One background event loop for every in-process instance (grpc.aio wants one loop per process)."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True, name="service-loop")
        self.thread.start()

    def run(self, coro, timeout: float = 30.0):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@pytest.fixture(scope="session")
def loop_thread() -> Iterator[LoopThread]:
    lt = LoopThread()
    yield lt
    lt.close()


class Instance:
    """One game-state service instance on a loopback port: own server, Redis client and cache."""

    def __init__(self, lt: LoopThread, settings: Settings, registry: Registry, *, sweeper: bool = True):
        self.lt = lt
        self.running: Running = lt.run(start(settings, registry, sweeper=sweeper))
        self.target = f"127.0.0.1:{self.running.port}"
        #: the internal listener: GameAdmin
        self.admin_target = f"127.0.0.1:{self.running.admin_port}"
        self.stopped = False

    def run(self, coro, timeout: float = 30.0):
        return self.lt.run(coro, timeout)

    def stop(self, grace: float = 1.0) -> None:
        if not self.stopped:
            self.stopped = True
            self.run(self.running.stop(grace))


@pytest.fixture
def make_instance(
    loop_thread: LoopThread, settings: Settings, registry: Registry
) -> Iterator[Callable[..., Instance]]:
    made: list[Instance] = []

    def make(**overrides) -> Instance:
        sweeper = overrides.pop("sweeper", True)
        inst = Instance(loop_thread, settings.model_copy(update=overrides), registry, sweeper=sweeper)
        made.append(inst)
        return inst

    yield make
    for inst in made:
        inst.stop()


class PublicClient(GameClient):
    """A client of the public listener whose GameAdmin calls go to the instance's internal listener (GameAdmin
    is not served on the public port)."""

    def __init__(self, target: str, admin_target: str) -> None:
        super().__init__(target)
        self._admin_client = GameClient(admin_target)

    def admin(self, secret: str) -> AdminClient:
        return self._admin_client.admin(secret)

    def close(self) -> None:
        self._admin_client.close()
        super().close()


@pytest.fixture
def make_client() -> Iterator[Callable[[Instance], GameClient]]:
    made: list[GameClient] = []

    def make(inst: Instance, *, admin: bool = False) -> GameClient:
        """A client of the instance's public listener (its `admin()` calls go to the internal listener), or of
        the internal one with admin=True."""
        client = GameClient(inst.admin_target) if admin else PublicClient(inst.target, inst.admin_target)
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


@pytest.fixture
def instance(make_instance) -> Instance:
    return make_instance()


@pytest.fixture
def client(instance: Instance, make_client) -> GameClient:
    return make_client(instance)



@pytest.fixture
def admin(instance: Instance, make_client, settings: Settings) -> AdminClient:
    """The internal GameAdmin calls of `instance` (its internal listener), with this run's service credential."""
    return make_client(instance, admin=True).admin(settings.service_secret)
