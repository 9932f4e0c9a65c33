"""`python -m services.gamestate` (the game-state role; `make run` starts it): it prints its address, serves,
exports multiprocess metrics over HTTP, and stops cleanly on Ctrl-C (SIGINT)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from services.dev.launch import free_port
from services.gamestate.client_sync import GameClient

ROOT = Path(__file__).resolve().parents[2]


def test_services_run_serves_exports_metrics_and_stops_on_ctrl_c(settings, tmp_path):
    grpc_port, metrics_port = free_port(), free_port()
    env = {
        **os.environ,
        "REDIS_URL": settings.redis_url,
        "GRPC_ADDR": f"127.0.0.1:{grpc_port}",
        "ADMIN_GRPC_ADDR": "127.0.0.1:0",
        "METRICS_PORT": str(metrics_port),
        "KEY_PREFIX": settings.key_prefix,
        "DISPATCH_BOTS": "false",
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path),
        "SERVICE_SECRET": settings.service_secret,
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "services.gamestate"], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        first = proc.stdout.readline()
        assert f"127.0.0.1:{grpc_port}" in first, first
        with GameClient(f"127.0.0.1:{grpc_port}") as client:
            games, levels = client.catalog()
            assert "random" in levels and all({"name", "title", "options"} <= set(g) for g in games)
        text = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5).read().decode()
        assert 'skyboard_rpc_seconds_count{game="-",rpc="ListCatalog"} 1.0' in text
        assert any(tmp_path.iterdir()), "multiprocess mode writes its per-process files"
    finally:
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=15)
    assert proc.returncode == 0
    assert "stopped" in out


def test_services_run_refuses_to_start_without_a_service_secret(settings):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SERVICE_SECRET")}
    env.update({"REDIS_URL": settings.redis_url, "GRPC_ADDR": f"127.0.0.1:{free_port()}",
                "ADMIN_GRPC_ADDR": "127.0.0.1:0", "METRICS_PORT": "0",
                "KEY_PREFIX": settings.key_prefix, "DISPATCH_BOTS": "false"})
    for secret in (None, "skyboard-dev-bot-secret-change-me"):
        if secret:
            env["SERVICE_SECRET"] = secret
        done = subprocess.run([sys.executable, "-m", "services.gamestate"], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=60)
        assert done.returncode != 0
        assert "SERVICE_SECRET" in done.stderr, done.stderr


@pytest.mark.parametrize(("module", "role"), [("services.gateway", "REST gateway"),
                                              ("services.matchmaker", "matchmaker"),
                                              ("services.workers", "bot worker")])
def test_every_role_that_calls_game_admin_refuses_to_start_without_the_secret(module: str, role: str) -> None:
    """services/common/entry.py: one refusal, naming the role, before anything is connected to."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("SERVICE_SECRET")}
    done = subprocess.run([sys.executable, "-m", module], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1].startswith(f"skyboard {role}: SERVICE_SECRET"), done.stderr
