"""The quickstart's SDK program, taken from docs/quickstart.md as a newcomer would copy it, plays a whole game
against a platform bot on a real stack (game-state service, a real Celery bot worker, the gateway); and what the
docs show of a game's event stream (its `state` kinds, the keep-alive period) is what the server sends."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import httpx
import pytest

from services.common.settings import Settings
from services.gamestate.service import Registry
from services.gamestate.updates import STREAM_KINDS
from services.gateway.settings import GatewaySettings
from tests.gateway.conftest import Gateway, ServiceInstance, gateway_settings, new_prefix, rdb, redis_url
from tests.gateway.helpers import read_sse
from tests.service_secret import SERVICE_SECRET
from tests.workers.conftest import Worker

__all__ = ["rdb", "redis_url"]
ROOT = Path(__file__).resolve().parents[2]


def python_blocks(page: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (ROOT / "docs" / page).read_text(), re.S)


def documented_kinds() -> set[str]:
    """The `state` kinds docs/streams.md lists, in its paragraph opening with **`kind`**."""
    text = (ROOT / "docs" / "streams.md").read_text()
    paragraph = re.search(r"^\*\*`kind`\*\*(.*?)(?:\n\n|\Z)", text, re.S | re.M)
    assert paragraph, "docs/streams.md lists the `state` kinds in a paragraph opening with **`kind`**"
    return set(re.findall(r"`([a-z_]+)`", paragraph[1]))


def shown_kinds() -> set[str]:
    """The kinds of the `state` events the docs' examples show (their data: `"kind": ..., "actor"`)."""
    pages = (ROOT / "docs").rglob("*.md")
    return {k for page in pages for k in re.findall(r'"kind": "([a-z_]+)", "actor"', page.read_text())}


def test_the_docs_show_the_stream_kinds_and_keep_alive_the_server_sends() -> None:
    """A newcomer copied `kind: "action"` from the quickstart where the server sends "move", and waited "a few
    seconds" for a keep-alive that comes every 15: the docs name exactly the server's kinds and period."""
    assert documented_kinds() == set(STREAM_KINDS)
    assert shown_kinds() and shown_kinds() <= set(STREAM_KINDS), shown_kinds()
    ping = GatewaySettings.model_fields["sse_ping_s"].default
    assert f"keep-alive comment every {ping:g} s" in (ROOT / "docs" / "streams.md").read_text()


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
        gateway = Gateway(gateway_settings(redis_url, service), outbox=service.settings.key_prefix)
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
    with httpx.Client(base_url=stack_with_a_bot.url, timeout=30) as http:  # the game's stream, as a spectator
        [game] = http.get("/v1/games", params={"status": "finished"}).json()["games"]
        states = [e.json() for e in read_sse(http, f"/v1/games/{game['game_id']}/events") if e.event == "state"]
    kinds = {s["kind"] for s in states}
    assert {"created", "move"} <= kinds <= documented_kinds(), kinds  # what the quickstart shows is what is sent
