"""Load bench of the platform (`make bench-load`): REST, its floor, gRPC, bots and matchmaking.

    python -m bench.load [--games 200] [--seconds 10] [--rates 200,400,800] [--runs 1] [--json out.json]
    python -m bench.load --only matchmaking --tickets 10000 --runs 3

Starts its own game-state service, gateway and floor (loopback, own key
prefix, removed at the end) and plays many concurrent games with random legal
moves for every seat: one coroutine per game asks `GET /actions` for a seat
that must act and posts one of them. Each load level runs for a bounded time:
paced levels offer a fixed action rate spread over all games (latency against
load), the `max` level plays as fast as answers come (throughput).

The floor is a bare FastAPI endpoint (one Redis GET + SET, same uvicorn
setup) driven by the same coroutines at the same request rates; REST overhead =
floor requests/s at `max` / REST requests/s at `max` (equivalently the ratio of
mean latencies at equal concurrency). The same game loop then runs over gRPC
directly. Bot decision latency (queued to applied) is read from the action log
timestamps of all-bot games played by a real Celery worker, when services/workers
exists. Matchmaking: 10,000 tickets put in the queue, then matcher passes until all are
matched, with the CPU seconds per 1,000 tickets of the matcher and the service.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import httpx

from bench.lean_http import LeanClient
from bench.stack import REDIS_URL, SERVICE_SECRET, Stack, workers_available
from services.common.healthcheck import http_ok
from services.dev.launch import Proc, free_port

GAMES = (("opensky", 3), ("aeroplanes", 3), ("blueskies", 3))


@dataclass
class Recorder:
    """Latencies (seconds) per endpoint and counts of accepted actions and errors."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    accepted: int = 0
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    async def timed(self, name: str, call: Awaitable[Any]) -> Any:
        start = time.perf_counter()
        try:
            return await call
        finally:
            self.latencies[name].append(time.perf_counter() - start)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(rec: Recorder, seconds: float) -> dict[str, Any]:
    out: dict[str, Any] = {"actions_per_s": rec.accepted / seconds, "errors": dict(rec.errors), "endpoints": {}}
    total = 0
    for name, values in sorted(rec.latencies.items()):
        total += len(values)
        out["endpoints"][name] = {
            "n": len(values), "p50_ms": pct(values, 0.50) * 1000, "p95_ms": pct(values, 0.95) * 1000,
            "p99_ms": pct(values, 0.99) * 1000, "mean_ms": statistics.fmean(values) * 1000,
        }
    out["requests_per_s"] = total / seconds
    return out


class Pacer:
    """Per-coroutine schedule for an offered rate (None = as fast as answers come)."""

    def __init__(self, interval: float | None, rng: random.Random):
        self.interval = interval
        self.next = time.perf_counter() + (rng.random() * interval if interval else 0.0)

    async def wait(self) -> None:
        if self.interval is None:
            return
        now = time.perf_counter()
        if self.next > now:
            await asyncio.sleep(self.next - now)
        self.next = max(self.next + self.interval, time.perf_counter() - self.interval)


@dataclass
class Slot:
    """One of the concurrent games a coroutine plays; replaced by a new game when it ends."""

    game_id: str = ""
    tokens: dict[int, str] = field(default_factory=dict)
    to_act: list[int] = field(default_factory=list)
    status: str = "finished"
    http: Any = None  # the slot's own HTTP client (lean) or the shared one (httpx)


Driver = Callable[[Recorder, random.Random, float, float | None, Slot], Awaitable[None]]


async def run_level(driver: Driver, slots: list[Slot], seconds: float, rate: float | None,
                    seed: int) -> dict[str, Any]:
    """One coroutine per slot for `seconds`; each offers rate/len(slots) actions/s (None: closed loop)."""
    rec = Recorder()
    interval = len(slots) / rate if rate else None
    stop_at = time.perf_counter() + seconds
    start = time.perf_counter()
    await asyncio.gather(*(driver(rec, random.Random(seed * 100_003 + i), stop_at, interval, slot)
                           for i, slot in enumerate(slots)))
    return summary(rec, time.perf_counter() - start)


def resilient(driver: Driver) -> Driver:
    """A driver that counts a dropped connection as an error and plays on with a new game."""

    async def play(rec: Recorder, rng: random.Random, stop_at: float, interval: float | None, slot: Slot) -> None:
        while time.perf_counter() < stop_at:
            try:
                await driver(rec, rng, stop_at, interval, slot)
                return
            except (httpx.TransportError, OSError, asyncio.IncompleteReadError) as exc:
                rec.errors[type(exc).__name__] += 1
                slot.status = "finished"

    return play


HttpFactory = Callable[[], Any]


def rest_driver(make_http: HttpFactory) -> Driver:
    async def new_game(rec: Recorder, rng: random.Random, slot: Slot) -> bool:
        http = slot.http
        name, players = rng.choice(GAMES)
        r = await rec.timed("POST /v1/games", http.post("/v1/games", json={
            "game": name, "players": players, "seed": rng.randrange(2**31)}))
        if r.status_code != 201:
            rec.errors[f"create {r.status_code}"] += 1
            return False
        created = r.json()
        slot.game_id = created["game_id"]
        slot.tokens = {s["seat"]: s["token"] for s in created["seats"]}
        r = await rec.timed("GET /v1/games/{id}", http.get(f"/v1/games/{slot.game_id}"))
        if r.status_code != 200:
            rec.errors[f"get {r.status_code}"] += 1
            return False
        g = r.json()
        slot.to_act, slot.status = g["to_act"], g["status"]
        return True

    async def play(rec: Recorder, rng: random.Random, stop_at: float, interval: float | None, slot: Slot) -> None:
        pacer = Pacer(interval, rng)
        http = slot.http = slot.http or make_http()
        while time.perf_counter() < stop_at:
            if slot.status != "active" and not await new_game(rec, rng, slot):
                continue
            await pacer.wait()
            if time.perf_counter() >= stop_at:
                return
            gid = slot.game_id
            headers = {"Authorization": f"Bearer {slot.tokens[rng.choice(slot.to_act)]}"}
            r = await rec.timed("GET /v1/games/{id}/actions", http.get(f"/v1/games/{gid}/actions", headers=headers))
            if r.status_code != 200:
                rec.errors[f"actions {r.status_code}"] += 1
                slot.status = "finished"
                continue
            legal = r.json()
            body = {"action": rng.choice(legal["actions"]), "expected_version": legal["version"]}
            r = await rec.timed("POST /v1/games/{id}/actions",
                                http.post(f"/v1/games/{gid}/actions", json=body, headers=headers))
            if r.status_code != 200:
                rec.errors[f"submit {r.status_code}"] += 1
                slot.status = "finished"
                continue
            rec.accepted += 1
            answer = r.json()
            slot.to_act, slot.status = answer["to_act"], answer["status"]

    return resilient(play)


def floor_driver(make_http: HttpFactory) -> Driver:
    """Two floor requests per 'action', like GET actions + POST action."""

    async def play(rec: Recorder, rng: random.Random, stop_at: float, interval: float | None, slot: Slot) -> None:
        pacer = Pacer(interval, rng)
        http = slot.http = slot.http or make_http()
        key = f"k{rng.randrange(10**9)}"
        while time.perf_counter() < stop_at:
            await pacer.wait()
            if time.perf_counter() >= stop_at:
                return
            for _ in range(2):
                r = await rec.timed("POST /floor/{key}", http.post(f"/floor/{key}"))
                if r.status_code != 200:
                    rec.errors[f"floor {r.status_code}"] += 1
            rec.accepted += 1

    return resilient(play)


def grpc_driver(client) -> Driver:
    tokens: dict[str, Any] = {}

    async def play(rec: Recorder, rng: random.Random, stop_at: float, interval: float | None, slot: Slot) -> None:
        pacer = Pacer(interval, rng)
        while time.perf_counter() < stop_at:
            if slot.status != "active":
                name, players = rng.choice(GAMES)
                created = await rec.timed("CreateGame", client.create_game(name, players,
                                                                           seed=rng.randrange(2**31)))
                tokens[created.game_id] = created
                g = await rec.timed("GetGame", client.get_game(created.game_id))
                slot.game_id, slot.to_act, slot.status = created.game_id, g.to_act, g.status
            await pacer.wait()
            if time.perf_counter() >= stop_at:
                return
            token = tokens[slot.game_id].token(rng.choice(slot.to_act))
            legal = await rec.timed("ListLegalActions", client.legal_actions(slot.game_id, token))
            action = rng.choice(legal.actions)
            r = await rec.timed("SubmitAction", client.submit(slot.game_id, token, action, legal.version))
            rec.accepted += 1
            slot.to_act, slot.status = r.to_act, r.status

    return play


async def bot_latency(stack: Stack, games: int, level: str, timeout: float) -> dict[str, Any]:
    """Queued-to-applied latency of bot decisions: all-bot games played by a real worker, from log timestamps."""
    from services.gamestate.client import AsyncGameClient

    gaps: list[float] = []
    async with AsyncGameClient(stack.grpc_addr) as client:
        ids = []
        for i in range(games):
            name, players = GAMES[i % len(GAMES)]
            created = await client.create_game(name, players, seed=i + 1, bots=dict.fromkeys(range(players), level))
            ids.append(created.game_id)
        deadline = time.monotonic() + timeout
        pending = set(ids)
        while pending and time.monotonic() < deadline:
            for gid in list(pending):
                if (await client.get_game(gid)).status == "finished":
                    pending.discard(gid)
            await asyncio.sleep(0.5)
        decisions = 0
        for gid in ids:
            if gid in pending:
                continue
            entries = (await client.get_log(gid)).entries
            at = [e["at_ms"] for e in entries]
            decisions += len(at)
            gaps += [(b - a) / 1000 for a, b in itertools.pairwise(at)]
    return {"level": level, "games": games, "finished": games - len(pending), "decisions": decisions,
            "p50_ms": pct(gaps, 0.5) * 1000, "p95_ms": pct(gaps, 0.95) * 1000, "p99_ms": pct(gaps, 0.99) * 1000}


def proc_cpu_s(pid: int) -> float:
    """User + system CPU seconds a process has used so far (from /proc/<pid>/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def redis_cpu_s(redis) -> float:
    """CPU seconds the Redis server has used so far: shared with every other client of that server, so an
    upper bound of what one measurement costs it."""
    info = await redis.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


async def matchmaking(stack: Stack, tickets: int, players: int) -> dict[str, Any]:
    """Put `tickets` tickets of one bucket in the queue, then time matcher passes until every one is matched.

    Also reports the CPU seconds per 1,000 tickets of the matching phase (not the queue fill) spent by the
    matcher (this process) and the game-state service process (and Redis's, shared with its other clients):
    on a shared machine wall-clock rates move with the load, CPU per ticket much less.
    """
    import redis.asyncio as aioredis

    from services.accounts.keys import Keys
    from services.accounts.ratings import Ratings
    from services.accounts.repository import AccountRepository
    from services.archive.db import make_engine
    from services.archive.migrate import upgrade
    from services.gamestate.client import AsyncGameClient
    from services.gateway.settings import GatewaySettings
    from services.matchmaker.matcher import Matcher
    from services.matchmaker.store import TicketStore

    prefix = f"{stack.prefix}mm:{uuid.uuid4().hex[:6]}:"
    settings = GatewaySettings(redis_url=stack.redis_url, key_prefix=prefix, gamestate_addr=stack.admin_addr,
                               ticket_ttl_s=600, default_bots_after_s=3600, service_secret=SERVICE_SECRET)
    redis = aioredis.from_url(stack.redis_url)
    keys = Keys(prefix)
    store = TicketStore(redis, keys, settings.ticket_ttl_s, settings.ticket_keep_s, secret=settings.service_secret)
    gamestate = AsyncGameClient(stack.admin_addr)  # GameAdmin: the internal listener
    engine = make_engine(f"sqlite+aiosqlite:///{tempfile.mkdtemp(prefix='sbload-')}/accounts.db")
    await upgrade(engine)  # ratings are in SQL (only settling a finished rated game writes them)
    matcher = Matcher(store, Ratings(redis, keys, AccountRepository(engine)), gamestate, settings)
    service_pid = stack.procs["service"].popen.pid  # type: ignore[union-attr]
    try:
        sem = asyncio.Semaphore(64)

        async def one(i: int) -> None:
            async with sem:
                await store.create(f"p{i:06d}", "blueskies", players, {}, 3600.0, 0.0)

        t0 = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(tickets)))
        queued_s = time.perf_counter() - t0
        load = os.getloadavg()[0]
        redis0 = await redis_cpu_s(redis)
        cpu0, svc0 = time.process_time(), proc_cpu_s(service_pid)
        start = time.perf_counter()
        games = passes = 0
        while games * players < tickets and time.perf_counter() - start < 600:
            games += len(await matcher.run_once())
            passes += 1
        elapsed = time.perf_counter() - start
        matcher_cpu, service_cpu = time.process_time() - cpu0, proc_cpu_s(service_pid) - svc0
        redis_cpu = await redis_cpu_s(redis) - redis0
    finally:
        await gamestate.close()
        await redis.aclose()
        await engine.dispose()
    per_k = 1000 / max(games * players, 1)
    return {"tickets": tickets, "players": players, "matched": games * players, "games": games, "passes": passes,
            "seconds": elapsed, "tickets_per_s": games * players / elapsed, "queue_fill_s": queued_s,
            "loadavg": load, "matcher_cpu_s_per_1k": matcher_cpu * per_k,
            "service_cpu_s_per_1k": service_cpu * per_k, "redis_cpu_s_per_1k_shared": redis_cpu * per_k}


def start_floor(stack: Stack) -> tuple[Proc, str]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "FLOOR_PORT": str(port), "REDIS_URL": stack.redis_url, "FLOOR_PREFIX": f"{stack.prefix}fl:"}
    ready = partial(http_ok, f"{url}/healthz", 1.0)
    proc = Proc("floor", [sys.executable, "-m", "bench.floor"], env, ready, stack.log_dir)
    proc.start()
    return proc, url


@contextlib.asynccontextmanager
async def http_clients(kind: str, base_url: str, games: int) -> AsyncIterator[HttpFactory]:
    """Per-slot lean clients (one connection each), or one shared httpx client with a pool of `games`."""
    if kind == "httpx":
        limits = httpx.Limits(max_connections=games, max_keepalive_connections=games)
        async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=30) as shared:
            yield lambda: shared
        return
    made: list[LeanClient] = []

    def make() -> LeanClient:
        made.append(LeanClient(base_url))
        return made[-1]

    try:
        yield make
    finally:
        for client in made:
            await client.close()


async def sweep(driver: Driver, games: int, seconds: float, rates: list[float | None], seed: int,
                label: str) -> list[dict[str, Any]]:
    """The load levels in order on the same `games` slots, after an unreported warm-up that creates them."""
    slots = [Slot() for _ in range(games)]
    await run_level(driver, slots, max(2.0, seconds / 4), rates[0], seed)  # creates every game once
    out = []
    for rate in rates:
        result = await run_level(driver, slots, seconds, rate, seed)
        result |= {"offered": rate, "label": label}
        out.append(result)
        print(f"  {label:6s} offered={rate or 'max'!s:>5} -> {result['actions_per_s']:7.1f} actions/s, "
              f"{result['requests_per_s']:7.1f} req/s, errors={result['errors'] or 0}, "
              f"load avg {os.getloadavg()[0]:.1f}", flush=True)
        for name, e in result["endpoints"].items():
            print(f"         {name:32s} n={e['n']:6d} p50={e['p50_ms']:7.1f} p95={e['p95_ms']:7.1f} "
                  f"p99={e['p99_ms']:7.1f} ms", flush=True)
    return out


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    result: dict[str, Any] = {"machine": machine(), "args": vars(args), "runs": []}
    use_workers = args.only == "all" and args.bots > 0 and workers_available()
    with Stack(redis_url=args.redis_url, dispatch_bots=use_workers, workers=1 if use_workers else 0) as stack:
        if args.only == "all":
            await load_runs(stack, args, result)
        if args.tickets:
            result["matchmaking"] = await matchmaking_runs(stack, args)
        if use_workers:
            result["bots"] = await bot_latency(stack, args.bots, args.bot_level, timeout=300)
            print(f"bot decision latency: {result['bots']}", flush=True)
        elif args.bots and args.only == "all":
            result["bots"] = {"skipped": "services/workers is not installed in this tree"}
            print("bot decision latency: skipped (no services/workers in this tree)", flush=True)
    result["headline"] = headline(result, args.games)
    return result


async def load_runs(stack: Stack, args: argparse.Namespace, result: dict[str, Any]) -> None:
    """REST, floor and gRPC sweeps, `args.runs` times."""
    from services.gamestate.client import AsyncGameClient

    rates: list[float | None] = [float(r) for r in args.rates.split(",") if r] + [None]
    floor, floor_url = start_floor(stack)
    try:
        for run in range(args.runs):
            print(f"run {run + 1}/{args.runs}, load average {os.getloadavg()[0]:.1f}", flush=True)
            one: dict[str, Any] = {"loadavg_start": os.getloadavg()[0]}
            async with http_clients(args.client, stack.gateway_url, args.games) as make_http:
                one["rest"] = await sweep(rest_driver(make_http), args.games, args.seconds, rates, run, "rest")
            async with http_clients(args.client, floor_url, args.games) as make_http:
                one["floor"] = await sweep(floor_driver(make_http), args.games, args.seconds, rates, run, "floor")
            async with AsyncGameClient(stack.grpc_addr, timeout=30) as client:
                one["grpc"] = await sweep(grpc_driver(client), args.games, args.seconds, rates, run, "grpc")
            one["loadavg_end"] = os.getloadavg()[0]
            rest_max, floor_max = one["rest"][-1], one["floor"][-1]
            one["rest_overhead_x"] = floor_max["requests_per_s"] / max(rest_max["requests_per_s"], 1e-9)
            print(f"  REST overhead vs floor: {one['rest_overhead_x']:.2f}x", flush=True)
            result["runs"].append(one)
    finally:
        floor.stop()


async def matchmaking_runs(stack: Stack, args: argparse.Namespace) -> dict[str, Any]:
    """One matchmaking measurement, or `args.runs` of them (own key prefix each) with `--only matchmaking`;
    the reported figures are the medians, each run is kept under "runs"."""
    runs = []
    for _ in range(args.runs if args.only == "matchmaking" else 1):
        runs.append(await matchmaking(stack, args.tickets, 4))
        print(f"matchmaking: {runs[-1]}", flush=True)
    keys = ("tickets_per_s", "seconds", "loadavg", "matcher_cpu_s_per_1k", "service_cpu_s_per_1k",
            "redis_cpu_s_per_1k_shared")
    return {**runs[0], **{k: statistics.median(r[k] for r in runs) for k in keys}, "runs": runs}


def headline(result: dict[str, Any], games: int) -> dict[str, Any]:
    """Medians over runs of the figures the targets name."""
    runs = result["runs"]
    out: dict[str, Any] = {"games": games}
    if "matchmaking" in result:
        mm = result["matchmaking"]
        out |= {"matchmaker_tickets_per_s": mm["tickets_per_s"],
                "matchmaker_cpu_s_per_1k_tickets": mm["matcher_cpu_s_per_1k"],
                "service_cpu_s_per_1k_tickets": mm["service_cpu_s_per_1k"]}
    if not runs:
        return out

    def med(values: list[float]) -> float:
        return statistics.median(values) if values else float("nan")

    def at(level: dict, endpoint: str, key: str) -> float:
        return level["endpoints"].get(endpoint, {}).get(key, float("nan"))

    sub = "POST /v1/games/{id}/actions"
    out |= {
        "rest_max_actions_per_s": med([r["rest"][-1]["actions_per_s"] for r in runs]),
        "rest_max_submit_p99_ms": med([at(r["rest"][-1], sub, "p99_ms") for r in runs]),
        "grpc_max_actions_per_s": med([r["grpc"][-1]["actions_per_s"] for r in runs]),
        "floor_max_requests_per_s": med([r["floor"][-1]["requests_per_s"] for r in runs]),
        "rest_max_requests_per_s": med([r["rest"][-1]["requests_per_s"] for r in runs]),
        "rest_overhead_x": med([r["rest_overhead_x"] for r in runs]),
        "paced": {},
    }
    for i, level in enumerate(runs[0]["rest"][:-1]):
        out["paced"][str(int(level["offered"]))] = {
            "rest_actions_per_s": med([r["rest"][i]["actions_per_s"] for r in runs]),
            "rest_submit_p99_ms": med([at(r["rest"][i], sub, "p99_ms") for r in runs]),
            "grpc_submit_p99_ms": med([at(r["grpc"][i], "SubmitAction", "p99_ms") for r in runs]),
            "floor_p99_ms": med([at(r["floor"][i], "POST /floor/{key}", "p99_ms") for r in runs]),
        }
    return out


def machine() -> dict[str, Any]:
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        pass
    redis_version = subprocess.run(["redis-server", "--version"], capture_output=True, text=True).stdout.strip()
    return {"nproc": os.cpu_count(), "cpu": cpu, "python": sys.version.split()[0], "redis": redis_version,
            "loadavg": os.getloadavg()}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=200, help="concurrent games per level")
    p.add_argument("--seconds", type=float, default=10.0, help="duration of one load level")
    p.add_argument("--rates", default="100,200,400,800", help="paced levels, actions/s over all games")
    p.add_argument("--runs", type=int, default=3, help="repetitions (medians are reported)")
    p.add_argument("--tickets", type=int, default=10_000, help="matchmaking tickets (0 skips)")
    p.add_argument("--only", choices=["all", "matchmaking"], default="all",
                   help="matchmaking: skip the REST/floor/gRPC levels and bots; --runs repeats the matchmaking")
    p.add_argument("--bots", type=int, default=12, help="all-bot games for bot latency (0 skips)")
    p.add_argument("--bot-level", default="random")
    p.add_argument("--client", choices=["lean", "httpx"], default="lean",
                   help="HTTP client of the generator (httpx costs more client CPU than the floor server)")
    p.add_argument("--redis-url", default=REDIS_URL)
    p.add_argument("--json", help="write the full results here")
    args = p.parse_args(argv)
    result = asyncio.run(bench(args))
    print(json.dumps(result["headline"], indent=2))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
