"""SDK test stack: real Redis, the real game-state service with every engine, the gateway under uvicorn on a
loopback port (the gateway tests' runners), and a real matchmaker process where a test asks for one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from services.common.settings import Settings
from services.gamestate.service import Registry
from tests.gateway.conftest import Gateway, ServiceInstance, gateway_settings, new_prefix, rdb, redis_url
from tests.service_secret import SERVICE_SECRET

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
    gw = Gateway(gateway_settings(redis_url, sdk_service, follow_scan_s=0.2))
    yield gw
    gw.stop()


@pytest.fixture
def make_sdk_gateway(redis_url: str, sdk_service: ServiceInstance) -> Iterator[Callable[..., Gateway]]:
    made: list[Gateway] = []

    def make(**overrides) -> Gateway:
        gw = Gateway(gateway_settings(redis_url, sdk_service, **overrides))
        made.append(gw)
        return gw

    yield make
    for gw in made:
        gw.stop()


@pytest.fixture
def matchmaker(sdk_gateway: Gateway) -> Iterator[subprocess.Popen]:
    """`python -m services.matchmaker` on the SDK gateway's Redis prefix, passing every 0.1 s."""
    s = sdk_gateway.settings
    env = {**os.environ, "GATEWAY_REDIS_URL": s.redis_url, "GATEWAY_KEY_PREFIX": s.key_prefix,
           "GATEWAY_GAMESTATE_ADDR": s.gamestate_addr, "GATEWAY_MM_INTERVAL_S": "0.1", "GATEWAY_MM_BASE_GAP": "1000",
           "SERVICE_SECRET": SERVICE_SECRET, "GATEWAY_ARCHIVE_URL": s.archive_url or "", "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "services.matchmaker"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    yield proc
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)
