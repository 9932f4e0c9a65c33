"""Gateway test stack: real Redis, a real game-state service (grpc.aio on a loopback port, in its own
thread and loop, as another process would be) and the gateway served by uvicorn on a free port.

Each session uses its own key prefixes and deletes every key under them at the end. Every gateway's SQL
system of record (players, keys, ratings) is the run's one PostgreSQL database (tests/archive_db.py), made on
first use and dropped when the session ends; tests stay apart by their random player and game ids. With
CI=true an unreachable Redis (or PostgreSQL) fails the tests instead of skipping them.
"""

from __future__ import annotations

import asyncio
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator

import httpx
import pytest
import redis
import uvicorn

from services.common.settings import Settings
from services.gamestate.server import Running, start
from services.gamestate.service import Registry
from services.gateway.app import create_app
from services.gateway.settings import GatewaySettings, proxy_options
from tests.archive_db import shared_pg_url
from tests.gateway.consumer import OutcomesThread
from tests.redis_required import CLUSTER, require_redis, test_redis
from tests.run_id import RUN
from tests.service_secret import SERVICE_SECRET, WEBHOOK_KEY
from tests.services import toygame

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")


@pytest.fixture(scope="session")
def redis_url() -> str:
    return require_redis(REDIS_URL, "the gateway tests")


@pytest.fixture(scope="session")
def rdb(redis_url: str) -> Iterator[redis.Redis]:
    client = test_redis(redis_url, decode_responses=True)
    yield client
    keys = list(client.scan_iter(match=f"sbgwtest{RUN}:*", count=1000))
    if keys:
        client.delete(*keys)
    client.close()


def new_prefix() -> str:
    return f"sbgwtest{RUN}:{uuid.uuid4().hex[:8]}:"


class ServiceInstance:
    """One game-state service on a loopback port, in its own thread and event loop."""

    def __init__(self, settings: Settings, registry: Registry):
        if settings.admin_grpc_addr == Settings.model_fields["admin_grpc_addr"].default:
            settings = settings.model_copy(update={"admin_grpc_addr": "127.0.0.1:0"})  # any free port
        self.settings = settings
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.running: Running = self._run(start(settings, registry, sweeper=False))
        #: the internal listener, which the gateway, matchmaker and workers call (GameAdmin, no per-caller limits)
        self.addr = f"127.0.0.1:{self.running.admin_port}"
        #: the public listener (GameService only, rate-limited)
        self.public_addr = f"127.0.0.1:{self.running.port}"

    def _run(self, coro):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(30)

    def sweep(self) -> int:
        """One turn-clock sweep, as the (here disabled) sweeper loop would run it; returns the defaults applied."""
        return self._run(self.running.service.clock.sweep_once())

    def stop(self) -> None:
        self._run(self.running.stop(0.5))
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@pytest.fixture(scope="session")
def service(redis_url: str, rdb: redis.Redis) -> Iterator[ServiceInstance]:
    settings = Settings(
        redis_url=redis_url, redis_cluster=CLUSTER, celery_broker_url=os.environ.get("CELERY_BROKER_URL"),
        grpc_addr="127.0.0.1:0", metrics_port=0, key_prefix=new_prefix(),
        dispatch_bots=False, service_secret=SERVICE_SECRET, watch_block_ms=200, shutdown_grace_s=0.5,
        zombie_bot_level="",  # no worker here: the default decision plays resigned and abandoned seats
    )
    inst = ServiceInstance(settings, Registry({toygame.GAME.name: toygame.GAME}))
    yield inst
    inst.stop()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Gateway:
    """The gateway app under uvicorn on a free loopback port, in a thread; with `outbox` (the game-state service's
    key prefix) an outcomes consumer beside it (tests/gateway/consumer.py), as a deployment runs one."""

    def __init__(self, settings: GatewaySettings, log_level: str = "warning", outbox: str | None = None):
        self.settings = settings
        self.outcomes = OutcomesThread(settings, outbox) if outbox is not None else None
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(create_app(settings), host="127.0.0.1", port=self.port, log_level=log_level,
                                lifespan="on", **proxy_options(settings))
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 15
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)

    def client(self, **kwargs) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=kwargs.pop("timeout", 20.0), **kwargs)

    def metrics(self) -> str:
        """The Prometheus text of this gateway, from its own metrics port (never the public API port)."""
        return httpx.get(f"http://127.0.0.1:{self.settings.metrics_port}/metrics", timeout=10).text

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        if self.outcomes is not None:
            self.outcomes.stop()


def gateway_settings(redis_url: str, service: ServiceInstance, **overrides) -> GatewaySettings:
    values = dict(
        redis_url=redis_url, redis_cluster=CLUSTER, key_prefix=new_prefix(), gamestate_addr=service.addr,
        rate_limit_ip=100_000,
        rate_limit_token=100_000, rate_limit_ip_ceiling=0, accounts_per_address=100_000,
        accounts_per_address_daily=0,
        # clocks of a fraction of a second let the clock tests time out quickly (test_quotas checks the floor)
        min_seconds_per_decision=0.0, sse_ping_s=0.5, ticket_ttl_s=30, default_bots_after_s=60,
        service_secret=SERVICE_SECRET, metrics_port=free_port(),
        grpc_port=0,  # the gRPC listener: off, but where a test asks for it (tests/gateway/test_tournament_rpc.py)
        stream_limit_ip=0, stream_limit_token=0,  # every test streams from 127.0.0.1: test_stream_limits sets them
        # webhooks: a key per run, and receivers on 127.0.0.1 (the SSRF tests set it off)
        webhook_key=WEBHOOK_KEY, webhooks_allow_http_loopback=True,
    )
    values.update(overrides)
    if not values.get("archive_url"):
        values["archive_url"] = shared_pg_url()
    return GatewaySettings(**values)


@pytest.fixture(scope="session")
def gateway(redis_url: str, service: ServiceInstance) -> Iterator[Gateway]:
    gw = Gateway(gateway_settings(redis_url, service), outbox=service.settings.key_prefix)
    yield gw
    gw.stop()


@pytest.fixture
def http(gateway: Gateway) -> Iterator[httpx.Client]:
    with gateway.client() as client:
        yield client


@pytest.fixture
def make_gateway(redis_url: str, service: ServiceInstance) -> Iterator[Callable[..., Gateway]]:
    """A gateway of its own (own key prefix) with some settings overridden, and its outcomes consumer unless
    `outcomes=False` (a test that runs its own)."""
    made: list[Gateway] = []

    def make(log_level: str = "warning", outcomes: bool = True, **overrides) -> Gateway:
        gw = Gateway(gateway_settings(redis_url, service, **overrides), log_level=log_level,
                     outbox=service.settings.key_prefix if outcomes else None)
        made.append(gw)
        return gw

    yield make
    for gw in made:
        gw.stop()
