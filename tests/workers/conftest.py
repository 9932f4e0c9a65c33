"""Fixtures for the bot-worker integration tests: the service's own fixtures (real Redis under a
per-test prefix, in-process gRPC instances) with the real engines, plus real Celery worker processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from services.gamestate.service import Registry
from tests.services.conftest import (  # noqa: F401 - fixtures re-exported for these tests
    broker,
    loop_thread,
    make_client,
    make_instance,
    prefix,
    rdb,
    redis_url,
    settings,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def registry() -> Registry:
    """The real engines (the service tests use a toy game instead)."""
    return Registry()


class Worker:
    """A `celery worker` subprocess on this test's queue; its log is kept for assertions."""

    def __init__(self, proc: subprocess.Popen, log: Path):
        self.proc = proc
        self.log = log

    def text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def wait_for(self, needle: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if needle in self.text():
                return
            if self.proc.poll() is not None:
                raise AssertionError(f"worker exited ({self.proc.returncode}):\n{self.text()[-3000:]}")
            time.sleep(0.05)
        raise AssertionError(f"{needle!r} not in the worker log after {timeout}s:\n{self.text()[-3000:]}")

    def freeze(self) -> None:
        """SIGSTOP the worker process group: it holds what it has taken and can do nothing more with it."""
        os.killpg(self.proc.pid, signal.SIGSTOP)

    def kill(self) -> None:
        """SIGKILL the whole worker process group (no chance to ack, clean up or finish)."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture
def prom_dir(tmp_path: Path) -> Path:
    path = tmp_path / "prom"
    path.mkdir()
    return path


@pytest.fixture
def start_worker(settings, tmp_path: Path, prom_dir: Path) -> Iterator[Callable[..., Worker]]:  # noqa: F811
    workers: list[Worker] = []

    def start(target: str, **env: str) -> Worker:
        log = tmp_path / f"worker-{len(workers)}.log"
        full_env = {
            **os.environ,
            "REDIS_URL": settings.redis_url,
            "KEY_PREFIX": settings.key_prefix,
            "BOT_QUEUE": settings.bot_queue,
            "SERVICE_SECRET": settings.service_secret,
            "GAMESTATE_TARGET": target,
            "WORKER_METRICS_PORT": "0",
            "PROMETHEUS_MULTIPROC_DIR": str(prom_dir),
            "PYTHONPATH": str(ROOT),
            **env,
        }
        cmd = [
            sys.executable, "-m", "celery", "-A", "services.workers.app", "worker", "--pool=solo",
            "-Q", settings.bot_queue, "-n", f"test-{uuid.uuid4().hex[:8]}@%h", "--loglevel=INFO",
            "--without-gossip", "--without-mingle", "--without-heartbeat",
        ]
        with log.open("wb") as out:
            proc = subprocess.Popen(cmd, cwd=ROOT, env=full_env, stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        worker = Worker(proc, log)
        workers.append(worker)
        worker.wait_for("ready.", timeout=60)
        return worker

    yield start
    for worker in workers:
        worker.stop()
