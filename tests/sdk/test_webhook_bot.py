"""The webhook-driven example bots (clients/python/examples/webhook_bot.py, clients/typescript/examples/
webhook_bot.ts) as a newcomer runs them on a development stack: each registers a webhook, starts a correspondence
game against the platform's `greedy` bot (a real Celery worker), and plays every move from a verified `your_turn`
delivery, sent by a real `python -m services.webhooks`, until `game_end` arrives the same way."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.gateway.conftest import Gateway, free_port
from tests.redis_required import CLUSTER

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "clients" / "typescript"
BOTS = {"python": [sys.executable, str(ROOT / "clients/python/examples/webhook_bot.py")],
        "typescript": ["node", str(TS / "dist/examples/webhook_bot.js")]}


@pytest.fixture(scope="module")
def deliverer(bot_stack: Gateway) -> Iterator[subprocess.Popen]:
    s = bot_stack.settings
    env = {**os.environ, "GATEWAY_REDIS_URL": s.redis_url, "GATEWAY_KEY_PREFIX": s.key_prefix,
           "GATEWAY_WEBHOOK_KEY": s.webhook_key or "", "GATEWAY_WEBHOOKS_ALLOW_HTTP_LOOPBACK": "true",
           "GATEWAY_WEBHOOKS_POLL_S": "0.05", "GATEWAY_WEBHOOKS_METRICS_PORT": "0",
           "REDIS_CLUSTER": "true" if CLUSTER else "false"}
    proc = subprocess.Popen([sys.executable, "-m", "services.webhooks"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    yield proc
    proc.terminate()
    proc.wait(10)


@pytest.mark.slow
@pytest.mark.parametrize("lang", sorted(BOTS))
def test_a_webhook_driven_bot_plays_a_correspondence_game_to_its_end(bot_stack: Gateway, deliverer, lang: str):
    if lang == "typescript":
        subprocess.run(["npx", "--no-install", "tsc", "-p", "tsconfig.json"], cwd=TS, check=True, timeout=300)
    env = {**os.environ, "SKYBOARD_URL": bot_stack.url, "PORT": str(free_port()), "GAME": "opensky"}
    env.pop("SKYBOARD_API_KEY", None)
    try:
        done = subprocess.run(BOTS[lang], env=env, capture_output=True, text=True, timeout=240)
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"the bot did not finish its game: {exc.stdout!r} {exc.stderr!r}") from None
    assert done.returncode == 0, done.stdout + done.stderr
    assert "game over: scores" in done.stdout, done.stdout + done.stderr
    assert deliverer.poll() is None, "the deliverer kept running"
