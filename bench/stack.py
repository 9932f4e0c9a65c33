"""Real platform processes on loopback for the load bench and the soak, launched by services/dev/launch.py.

Each role runs as its own OS process (the same entry points an operator
starts: `python -m services.gamestate`, `python -m services.gateway`, a Celery
worker, and what `make run` starts beside them: the outcomes consumer, the
tournament director, the matchmaker and the ops exporter (the webhook
deliverer when asked), so a bench measures the whole pipeline that follows a
commit), on fixed free ports so that a process killed with SIGKILL
can be restarted on the same address and clients simply reconnect. Every key
goes under one prefix, deleted by `cleanup`.
"""

from __future__ import annotations

import os
import secrets
import sys
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import redis

from services.common.healthcheck import grpc_serving, http_ok
from services.dev.launch import Proc, free_port

ROOT = Path(__file__).resolve().parents[1]
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
#: this stack's service credential (random per run, as `make run` makes one)
SERVICE_SECRET = secrets.token_urlsafe(32)
#: this stack's webhook key (GATEWAY_WEBHOOK_KEY), random per run likewise
WEBHOOK_KEY = secrets.token_urlsafe(32)


def default_prefix() -> str:
    """Under pytest, the test run's namespace (its end-of-run sweep removes leftovers); otherwise a
    benchmark namespace that no test run ever sweeps."""
    run = os.environ.get("SKYBOARD_TEST_RUN")
    return f"sbproof{run}:{uuid.uuid4().hex[:8]}:" if run else f"sbbench:{uuid.uuid4().hex[:8]}:"


@dataclass
class Stack:
    """A game-state service, a gateway, the outcomes consumer, the matchmaker, the ops exporter and optionally
    Celery bot workers, sharing one key prefix (`make run`'s roles: services/dev/stack.py)."""

    redis_url: str = REDIS_URL
    dispatch_bots: bool = False
    workers: int = 0
    #: each worker's pool: 0 = one process (`-P solo`, one core at most), N = a prefork pool of N processes (what
    #: `make run` starts: services/dev/stack.py, STACK_WORKER_CONCURRENCY, 2)
    worker_concurrency: int = 0
    #: the outbox consumer (`python -m services.outcomes`): your_turn/game_end, seats ended, ratings settled
    outcomes: bool = True
    #: the matchmaker (`python -m services.matchmaker`) and the ops exporter (`python -m services.ops_exporter`)
    matchmaker: bool = True
    exporter: bool = True
    #: the webhook deliverer (`python -m services.webhooks`); receivers on loopback are allowed (a bench's own)
    webhooks: bool = False
    #: the tournament director (`python -m services.tournament_director`): one more consumer group on the outbox
    tournaments: bool = True
    prefix: str = field(default_factory=lambda: default_prefix())
    service_env: dict[str, str] = field(default_factory=dict)
    gateway_env: dict[str, str] = field(default_factory=dict)
    worker_env: dict[str, str] = field(default_factory=dict)
    #: environment of the outcomes consumer, on top of the gateway's (GATEWAY_*)
    outcomes_env: dict[str, str] = field(default_factory=dict)
    procs: dict[str, Proc] = field(default_factory=dict)
    root: Path = ROOT

    def __post_init__(self) -> None:
        self.log_dir = Path(tempfile.mkdtemp(prefix="sbproof-logs-"))
        self.grpc_addr = f"127.0.0.1:{free_port()}"
        #: the service's internal listener (GameAdmin): what the gateway and the workers call
        self.admin_addr = f"127.0.0.1:{free_port()}"
        self.gateway_port = free_port()
        self.gateway_url = f"http://127.0.0.1:{self.gateway_port}"
        self.gateway_metrics_port = free_port()
        self.bot_queue = f"{self.prefix}bots"
        base = {**os.environ, "PYTHONUNBUFFERED": "1"}
        service_env = {
            **base, "REDIS_URL": self.redis_url, "GRPC_ADDR": self.grpc_addr, "ADMIN_GRPC_ADDR": self.admin_addr,
            # load comes from 127.0.0.1: the public port's per-caller limits are off (as the gateway's below)
            "RATE_LIMIT_IP": "0", "RATE_LIMIT_TOKEN": "0", "RATE_LIMIT_IP_CEILING": "0",
            "STREAM_LIMIT_ADDRESS": "0", "STREAM_LIMIT_CREDENTIAL": "0", "METRICS_PORT": "0",
            "KEY_PREFIX": self.prefix, "BOT_QUEUE": self.bot_queue, "SERVICE_SECRET": SERVICE_SECRET,
            "DISPATCH_BOTS": "true" if self.dispatch_bots else "false", "SHUTDOWN_GRACE_S": "0.5",
            "BOT_REDISPATCH_S": "2",
            # benchmarks measure play, not accounts: games are created anonymously (the development setting)
            "ALLOW_ANONYMOUS_CREATE": "true",
            **self.service_env,
        }
        self.procs["service"] = Proc("service", [sys.executable, "-m", "services.gamestate"], service_env,
                                     lambda: grpc_serving(self.grpc_addr, 1.0), self.log_dir, cwd=self.root)
        gateway_env = {
            **base, "GATEWAY_PORT": str(self.gateway_port), "GATEWAY_REDIS_URL": self.redis_url,
            "GATEWAY_GAMESTATE_ADDR": self.admin_addr, "GATEWAY_KEY_PREFIX": f"{self.prefix}gw:",
            "GATEWAY_STREAM_LIMIT_IP": "0", "GATEWAY_STREAM_LIMIT_TOKEN": "0",
            "GATEWAY_RATE_LIMIT_IP": "0", "GATEWAY_RATE_LIMIT_TOKEN": "0",
            "GATEWAY_RATE_LIMIT_IP_CEILING": "0", "GATEWAY_ACCOUNTS_PER_ADDRESS": "0",
            "GATEWAY_ACCOUNTS_PER_ADDRESS_DAILY": "0",
            "GATEWAY_ALLOW_ANONYMOUS_CREATE": "true",
            "GATEWAY_METRICS_PORT": str(self.gateway_metrics_port), "SERVICE_SECRET": SERVICE_SECRET,
            "GATEWAY_WEBHOOK_KEY": WEBHOOK_KEY, "GATEWAY_WEBHOOKS_ALLOW_HTTP_LOOPBACK": "true",
            # the gateway's SQL system of record (players, keys, ratings): a SQLite file of this stack's own
            "GATEWAY_ARCHIVE_URL": f"sqlite+aiosqlite:///{self.log_dir / 'skyboard.db'}",
            **self.gateway_env,
        }
        self.procs["gateway"] = Proc("gateway", [sys.executable, "-m", "services.gateway"], gateway_env,
                                     lambda: http_ok(f"{self.gateway_url}/healthz", 1.0), self.log_dir, cwd=self.root)
        self.outcomes_metrics_port = free_port()
        self.outcomes_group = self.outcomes_env.get("GATEWAY_OUTCOMES_GROUP", "outcomes")
        if self.outcomes:
            outcomes_env = {**gateway_env, "GATEWAY_GAMESTATE_REDIS_URL": self.redis_url,
                            "GATEWAY_GAMESTATE_KEY_PREFIX": self.prefix,
                            "GATEWAY_OUTCOMES_METRICS_PORT": str(self.outcomes_metrics_port), **self.outcomes_env}
            self.procs["outcomes"] = Proc("outcomes", [sys.executable, "-m", "services.outcomes"], outcomes_env,
                                          self._outcomes_ready, self.log_dir, cwd=self.root)
        if self.tournaments:  # no endpoint of its own: alive is ready (as under `make run`)
            self.procs["tournaments"] = Proc("tournaments", [sys.executable, "-m", "services.tournament_director"],
                                             {**gateway_env, "GATEWAY_GAMESTATE_REDIS_URL": self.redis_url,
                                              "GATEWAY_GAMESTATE_KEY_PREFIX": self.prefix}, lambda: True,
                                             self.log_dir, cwd=self.root)
        if self.webhooks:  # no endpoint of its own: ready once it says it starts (its imports done, a bench's
            # first deliveries are not held up by them)
            self.procs["webhooks"] = Proc("webhooks", [sys.executable, "-m", "services.webhooks"],
                                          {**gateway_env, "GATEWAY_WEBHOOKS_METRICS_PORT": "0"},
                                          self._log_says("webhooks", "webhook deliverer for accounts"),
                                          self.log_dir, cwd=self.root)
        if self.matchmaker:  # no endpoint: alive is ready (as under `make run`)
            self.procs["matchmaker"] = Proc("matchmaker", [sys.executable, "-m", "services.matchmaker"], gateway_env,
                                            lambda: True, self.log_dir, cwd=self.root)
        if self.exporter:
            exporter_port = free_port()
            exporter_env = {**service_env, "EXPORTER_PORT": str(exporter_port)}
            self.procs["exporter"] = Proc("exporter", [sys.executable, "-m", "services.ops_exporter"], exporter_env,
                                          lambda: http_ok(f"http://127.0.0.1:{exporter_port}/metrics", 1.0),
                                          self.log_dir, cwd=self.root)
        for i in range(self.workers):
            pool = ["-c", "1", "-P", "solo"] if self.worker_concurrency <= 0 else \
                ["-c", str(self.worker_concurrency), "-P", "prefork"]
            argv = [sys.executable, "-m", "celery", "-A", worker_app(), "worker", "-Q", self.bot_queue,
                    *pool, "--without-gossip", "--without-mingle", "--without-heartbeat",
                    "-n", f"w{i}-{uuid.uuid4().hex[:6]}@%h", "--loglevel", "INFO"]
            prom = self.log_dir / f"prom{i}"
            prom.mkdir()
            worker_env = {**service_env, "WORKER_METRICS_PORT": "0", "GAMESTATE_TARGET": self.admin_addr,
                          "PROMETHEUS_MULTIPROC_DIR": str(prom), **self.worker_env}
            name = f"worker{i}"
            self.procs[name] = Proc(name, argv, worker_env, self._worker_ready(name), self.log_dir)

    def _outcomes_ready(self) -> bool:
        """The consumer's group exists on every bucket's outbox stream: nothing committed from now on is missed."""
        from services.gamestate.keys import BUCKETS, Keys

        keys = Keys(self.prefix)
        client = redis.Redis.from_url(self.redis_url)
        try:
            with client.pipeline(transaction=False) as pipe:
                for b in range(BUCKETS):
                    pipe.exists(keys.changes(b))
                if not all(pipe.execute()):
                    return False
            with client.pipeline(transaction=False) as pipe:
                for b in range(BUCKETS):
                    pipe.xinfo_groups(keys.changes(b))
                return all(any(g["name"] == self.outcomes_group.encode() for g in groups) for groups in pipe.execute())
        finally:
            client.close()

    def _worker_ready(self, name: str):
        """Celery logs 'ready.' once per start; the log is appended to across restarts."""
        return self._log_says(name, "ready.")

    def _log_says(self, name: str, line: str):
        """Ready once the process logged `line` once per start (the log is appended to across restarts)."""

        def ready() -> bool:
            path = self.log_dir / f"{name}.log"
            text = path.read_text(errors="replace") if path.exists() else ""
            return text.count(line) >= self.procs[name].starts

        return ready

    def start(self) -> Stack:
        for proc in self.procs.values():
            proc.start()
        return self

    def stop(self) -> None:
        for proc in reversed(list(self.procs.values())):
            proc.stop()

    def cleanup(self) -> None:
        client = redis.Redis.from_url(self.redis_url)
        try:
            for pattern in (f"{self.prefix}*", f"_kombu.binding.{self.prefix}*"):
                keys = list(client.scan_iter(match=pattern, count=2000))
                for i in range(0, len(keys), 1000):
                    client.delete(*keys[i:i + 1000])
        finally:
            client.close()

    def __enter__(self) -> Stack:
        try:
            return self.start()
        except BaseException:
            self.stop()
            self.cleanup()
            raise

    def __exit__(self, *exc) -> None:
        self.stop()
        self.cleanup()


def worker_app() -> str:
    """The Celery app module of the bot workers (services/workers/), as `celery -A` wants it."""
    return os.environ.get("SKYBOARD_WORKER_APP", "services.workers.app")


def workers_available() -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(worker_app().split(":")[0]) is not None
    except ModuleNotFoundError:
        return False
