"""Browser test stack: real Redis, the real game-state service (every registered game), the gateway with
the web client under uvicorn on loopback, and headless Debian Chromium driven by Playwright.

Reuses the gateway tests' ServiceInstance and Gateway runners and the worker tests' Worker process handle;
own key prefixes and bot queue, deleted at the end.
Chromium comes from Debian's `chromium` package: `ensure_chromium` installs it with apt-get when missing
(never `playwright install`, which downloads a browser).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from services.common.settings import Settings
from services.gamestate.service import Registry
from tests.gateway.conftest import Gateway, ServiceInstance, gateway_settings, new_prefix, rdb, redis_url
from tests.service_secret import SERVICE_SECRET
from tests.workers.conftest import Worker

__all__ = ["rdb", "redis_url"]  # the gateway tests' Redis fixtures, reused as they are

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"



def ensure_chromium() -> str:
    """The Chromium executable, installed from Debian with apt-get when it is missing (needs root)."""
    if not Path(CHROMIUM).exists():
        if shutil.which("apt-get") is None or os.geteuid() != 0:
            pytest.fail(f"{CHROMIUM} is missing; install Debian's chromium package (make browser)")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-q"], check=True, env=env, timeout=600)
        subprocess.run(["apt-get", "install", "-y", "-q", "chromium"], check=True, env=env, timeout=900)
    return CHROMIUM


@pytest.fixture(scope="session")
def wc_service(redis_url: str, rdb) -> Iterator[ServiceInstance]:
    """The game-state service with the engine registry only (what the lobby offers), queueing bot moves."""
    prefix = new_prefix()
    settings = Settings(
        redis_url=redis_url, grpc_addr="127.0.0.1:0", metrics_port=0, key_prefix=prefix, dispatch_bots=True,
        bot_queue=f"{prefix}bots", service_secret=SERVICE_SECRET, watch_block_ms=200, shutdown_grace_s=0.5,
    )
    inst = ServiceInstance(settings, Registry())
    inst.settings = settings
    yield inst
    inst.stop()
    rdb.delete(settings.bot_queue, f"_kombu.binding.{settings.bot_queue}")


@pytest.fixture(scope="session")
def bot_worker(wc_service: ServiceInstance, tmp_path_factory) -> Iterator[Worker]:
    """One real Celery bot worker process (solo pool) on the service's bot queue."""
    settings = wc_service.settings
    tmp = tmp_path_factory.mktemp("webclient-worker")
    prom = tmp / "prom"
    prom.mkdir()
    env = {
        **os.environ, "REDIS_URL": settings.redis_url, "KEY_PREFIX": settings.key_prefix,
        "BOT_QUEUE": settings.bot_queue, "SERVICE_SECRET": settings.service_secret, "GAMESTATE_TARGET": wc_service.addr,
        "WORKER_METRICS_PORT": "0", "PROMETHEUS_MULTIPROC_DIR": str(prom), "PYTHONPATH": str(ROOT),
    }
    cmd = [sys.executable, "-m", "celery", "-A", "services.workers.app", "worker", "--pool=solo",
           "-Q", settings.bot_queue, "-n", f"webclient-{uuid.uuid4().hex[:8]}@%h", "--loglevel=INFO",
           "--without-gossip", "--without-mingle", "--without-heartbeat"]
    log = tmp / "worker.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    worker = Worker(proc, log)
    try:
        worker.wait_for("ready.", timeout=60)
        yield worker
    finally:
        worker.stop()


@pytest.fixture(scope="session")
def wc_gateway(redis_url: str, wc_service: ServiceInstance) -> Iterator[Gateway]:
    gw = Gateway(gateway_settings(redis_url, wc_service, sse_ping_s=1.0), outbox=wc_service.settings.key_prefix)
    yield gw
    gw.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator:
    """Chromium per test module: Playwright's sync API keeps an event loop running in the main thread while
    open, which would break later tests (of other directories) that call asyncio.run()."""
    path = ensure_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, wc_gateway: Gateway) -> Iterator:
    context = browser.new_context(base_url=wc_gateway.url, viewport={"width": 1366, "height": 800})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    # what the gateway's Content-Security-Policy blocked (an inline script or style, another origin) is an error
    pg.on("console", lambda msg: errors.append(msg.text) if "Content Security Policy" in msg.text else None)
    pg.js_errors = errors
    yield pg
    context.close()
    assert not errors, f"JavaScript errors or CSP violations in the page: {errors}"


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """test-artifacts/ (gitignored), emptied of the previous run's screenshots."""
    ARTIFACTS.mkdir(exist_ok=True)
    for old in ARTIFACTS.glob("*.png"):
        old.unlink()
    return ARTIFACTS
