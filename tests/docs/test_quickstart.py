"""The quickstart's SDK program, taken from docs/quickstart.md as a newcomer would copy it, plays a whole game
against a platform bot on a real stack (game-state service, a real Celery bot worker, the gateway)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from services.common.settings import Settings
from services.gamestate.service import Registry
from tests.gateway.conftest import Gateway, ServiceInstance, gateway_settings, new_prefix, rdb, redis_url
from tests.service_secret import SERVICE_SECRET
from tests.workers.conftest import Worker

__all__ = ["rdb", "redis_url"]
ROOT = Path(__file__).resolve().parents[2]


def python_blocks(page: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (ROOT / "docs" / page).read_text(), re.S)


@pytest.fixture
def stack_with_a_bot(redis_url: str, rdb, tmp_path: Path):
    prefix = new_prefix()
    settings = Settings(redis_url=redis_url, grpc_addr="127.0.0.1:0", metrics_port=0, key_prefix=prefix,
                        dispatch_bots=True, bot_queue=f"{prefix}bots", service_secret=SERVICE_SECRET,
                        watch_block_ms=200, shutdown_grace_s=0.5)
    service = ServiceInstance(settings, Registry())
    env = {**os.environ, "REDIS_URL": redis_url, "KEY_PREFIX": prefix, "BOT_QUEUE": settings.bot_queue,
           "SERVICE_SECRET": SERVICE_SECRET, "GAMESTATE_TARGET": service.addr, "WORKER_METRICS_PORT": "0",
           "PROMETHEUS_MULTIPROC_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    log = tmp_path / "worker.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "services.workers.app", "worker", "--pool=solo", "-Q",
             settings.bot_queue, "-n", f"docs-{uuid.uuid4().hex[:8]}@%h", "--loglevel=INFO", "--without-gossip",
             "--without-mingle", "--without-heartbeat"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    worker = Worker(proc, log)
    gateway = None
    try:
        worker.wait_for("ready.", timeout=60)
        gateway = Gateway(gateway_settings(redis_url, service))
        yield gateway
    finally:
        if gateway is not None:
            gateway.stop()
        worker.stop()
        service.stop()
        rdb.delete(settings.bot_queue, f"_kombu.binding.{settings.bot_queue}")


def test_the_quickstart_sdk_program_plays_a_game_against_a_bot(stack_with_a_bot: Gateway) -> None:
    program = next(block for block in python_blocks("quickstart.md") if "create_game" in block)
    program = program.replace("http://127.0.0.1:8000", stack_with_a_bot.url)
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    scores = run.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"\[\d+, \d+\]", scores), run.stdout
