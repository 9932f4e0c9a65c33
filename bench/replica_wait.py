"""What REDIS_WAIT_REPLICAS costs per action, on a local Redis Cluster (docs/decisions/redis-cluster.md).

    python -m bench.replica_wait --runs 5 --games 4

Starts a local cluster of Debian's redis-server (3 primaries, 3 replicas: services/dev/local_cluster.py) and two
game-state instances in this process on it, one with REDIS_WAIT_REPLICAS=0 and one with 1 (the commit's WAIT on the
connection that wrote it). Each run plays `--games` random Blue Skies 2-player games through each instance in turn
(one client, one action at a time, so the figure is the latency an action pays) and records the median SubmitAction
latency of each; the report is the median over the runs of each median, and of the per-run ratio WAIT 1 / WAIT 0,
with the load average before and after (the machine is shared). Keys are left in the throw-away cluster.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import statistics
import time
import uuid

from services.common.settings import Settings
from services.dev.local_cluster import LocalCluster
from services.gamestate.client import AsyncGameClient
from services.gamestate.server import Running, start

GAME = "blueskies"


async def _play(client: AsyncGameClient, seed: int) -> list[float]:
    """One random game; the latency of each SubmitAction (s)."""
    rng = random.Random(seed)
    created = await client.create_game(GAME, 2, seed=seed)
    latencies = []
    while (view := await client.get_game(created.game_id)).status == "active":
        seat = view.to_act[rng.randrange(len(view.to_act))]
        token = created.token(seat)
        actions = (await client.legal_actions(created.game_id, token)).actions
        t = time.perf_counter()
        await client.submit(created.game_id, token, rng.choice(actions), view.version)
        latencies.append(time.perf_counter() - t)
    return latencies


async def _instance(url: str, wait: int) -> Running:
    settings = Settings(redis_url=url, redis_cluster=True, redis_wait_replicas=wait, grpc_addr="127.0.0.1:0",
                        admin_grpc_addr="127.0.0.1:0", metrics_port=0, key_prefix=f"sbbench:{uuid.uuid4().hex[:8]}:",
                        dispatch_bots=False, service_secret=secrets.token_urlsafe(32), allow_anonymous_create=True,
                        rate_limit_ip=0, rate_limit_token=0, rate_limit_ip_ceiling=0)
    return await start(settings, sweeper=False)


async def main_async(args: argparse.Namespace) -> None:
    load0 = os.getloadavg()
    with LocalCluster() as cluster:
        cluster.wait_healthy()
        running = {wait: await _instance(cluster.url, wait) for wait in (0, 1)}
        clients = {wait: AsyncGameClient(f"127.0.0.1:{r.port}") for wait, r in running.items()}
        medians: dict[int, list[float]] = {0: [], 1: []}
        actions = {0: 0, 1: 0}
        try:
            for _warm in range(2):
                for wait in (0, 1):
                    await _play(clients[wait], 1)
            for run in range(args.runs):
                for wait in (0, 1) if run % 2 == 0 else (1, 0):  # alternate which goes first
                    lat = [x for g in range(args.games) for x in await _play(clients[wait], 1000 * run + g)]
                    medians[wait].append(statistics.median(lat))
                    actions[wait] += len(lat)
                print(f"run {run + 1}: WAIT 0 {medians[0][-1] * 1000:.2f} ms, WAIT 1 {medians[1][-1] * 1000:.2f} ms",
                      flush=True)
        finally:
            for c in clients.values():
                await c.close()
            for r in running.values():
                await r.stop(1.0)
    load1 = os.getloadavg()
    ratios = [b / a for a, b in zip(medians[0], medians[1])]
    print(f"{GAME} 2p, {args.runs} runs x {args.games} games per setting ({actions[0]} + {actions[1]} actions)")
    for wait in (0, 1):
        print(f"REDIS_WAIT_REPLICAS={wait}: median SubmitAction {statistics.median(medians[wait]) * 1000:.2f} ms "
              f"(runs: {', '.join(f'{m * 1000:.2f}' for m in medians[wait])})")
    print(f"ratio WAIT 1 / WAIT 0: median {statistics.median(ratios):.2f} (runs: "
          f"{', '.join(f'{r:.2f}' for r in ratios)}); extra per action "
          f"{(statistics.median(medians[1]) - statistics.median(medians[0])) * 1000:.2f} ms")
    print(f"load average before {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}, "
          f"after {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f} ({os.cpu_count()} CPUs)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--games", type=int, default=4, help="games per setting per run")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
