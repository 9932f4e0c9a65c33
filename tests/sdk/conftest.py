"""SDK test stack: real Redis, the real game-state service with every engine, the gateway under uvicorn on a
loopback port (the gateway tests' runners), and a real matchmaker process where a test asks for one; `bot_stack`
adds a real Celery bot worker, for programs that play against the platform's bots."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from services.common.settings import Settings
from services.gamestate.service import Registry
from tests.gateway.conftest import Gateway, ServiceInstance, gateway_settings, new_prefix, rdb, redis_url
from tests.service_secret import SERVICE_SECRET
from tests.workers.conftest import Worker

__all__ = ["rdb", "redis_url"]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def sdk_service(redis_url: str, rdb) -> Iterator[ServiceInstance]:
    """The game-state service with the real engines; no bot worker (zombie seats take the default decision)."""
    settings = Settings(
        redis_url=redis_url, grpc_addr="127.0.0.1:0", metrics_port=0, key_prefix=new_prefix(), dispatch_bots=False,
        service_secret=SERVICE_SECRET, watch_block_ms=200, shutdown_grace_s=0.5, zombie_bot_level="",
    )
    inst = ServiceInstance(settings, Registry())
    yield inst
    inst.stop()


@pytest.fixture(scope="session")
def sdk_gateway(redis_url: str, sdk_service: ServiceInstance) -> Iterator[Gateway]:
    gw = Gateway(gateway_settings(redis_url, sdk_service), outbox=sdk_service.settings.key_prefix)
    yield gw
    gw.stop()


@pytest.fixture
def make_sdk_gateway(redis_url: str, sdk_service: ServiceInstance) -> Iterator[Callable[..., Gateway]]:
    made: list[Gateway] = []

    def make(**overrides) -> Gateway:
        gw = Gateway(gateway_settings(redis_url, sdk_service, **overrides), outbox=sdk_service.settings.key_prefix)
        made.append(gw)
        return gw

    yield make
    for gw in made:
        gw.stop()


@contextmanager
def running_matchmaker(gateway: Gateway) -> Iterator[subprocess.Popen]:
    """`python -m services.matchmaker` on `gateway`'s Redis prefix, passing every 0.1 s."""
    s = gateway.settings
    env = {**os.environ, "GATEWAY_REDIS_URL": s.redis_url, "GATEWAY_KEY_PREFIX": s.key_prefix,
           "GATEWAY_GAMESTATE_ADDR": s.gamestate_addr, "GATEWAY_MM_INTERVAL_S": "0.1", "GATEWAY_MM_BASE_GAP": "1000",
           "SERVICE_SECRET": SERVICE_SECRET, "GATEWAY_ARCHIVE_URL": s.archive_url or "", "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "services.matchmaker"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield proc
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


@pytest.fixture
def matchmaker(sdk_gateway: Gateway) -> Iterator[subprocess.Popen]:
    with running_matchmaker(sdk_gateway) as proc:
        yield proc


@pytest.fixture(scope="module")
def bot_stack(redis_url: str, rdb, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    """The platform a newcomer's first program meets (`make run`'s parts): the game-state service dispatching bot
    seats to a real Celery worker, the gateway, and the matchmaker (bot fill with the worker's `greedy`)."""
    prefix = new_prefix()
    settings = Settings(redis_url=redis_url, grpc_addr="127.0.0.1:0", metrics_port=0, key_prefix=prefix,
                        dispatch_bots=True, bot_queue=f"{prefix}bots", service_secret=SERVICE_SECRET,
                        watch_block_ms=200, shutdown_grace_s=0.5)
    service = ServiceInstance(settings, Registry())
    logs = tmp_path_factory.mktemp("bot-worker")
    env = {**os.environ, "REDIS_URL": redis_url, "KEY_PREFIX": prefix, "BOT_QUEUE": settings.bot_queue,
           "SERVICE_SECRET": SERVICE_SECRET, "GAMESTATE_TARGET": service.addr, "WORKER_METRICS_PORT": "0",
           "PROMETHEUS_MULTIPROC_DIR": str(logs), "PYTHONPATH": str(ROOT)}
    with (logs / "worker.log").open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "services.workers.app", "worker", "--pool=solo", "-Q",
             settings.bot_queue, "-n", f"sdk-{uuid.uuid4().hex[:8]}@%h", "--loglevel=INFO", "--without-gossip",
             "--without-mingle", "--without-heartbeat"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    worker = Worker(proc, logs / "worker.log")
    gateway = None
    try:
        worker.wait_for("ready.", timeout=60)
        gateway = Gateway(gateway_settings(redis_url, service), outbox=settings.key_prefix)
        with running_matchmaker(gateway):
            yield gateway
    finally:
        if gateway is not None:
            gateway.stop()
        worker.stop()
        service.stop()
        rdb.delete(settings.bot_queue, f"_kombu.binding.{settings.bot_queue}")
