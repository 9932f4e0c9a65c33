"""Throughput and latency of the game-state service over real gRPC and Redis.

    python -m bench.submit --games 5 --clients 4

Starts one instance (in this process) on a loopback port with a throw-away
key prefix, plays random games of every registered game from `--clients`
threads, and prints accepted submissions per second and latency percentiles
of SubmitAction. Keys are deleted afterwards. Needs Redis (REDIS_URL).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import secrets
import statistics
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import redis

import engine
from services.common.settings import Settings
from services.gamestate.client_sync import GameClient
from services.gamestate.server import start


def _play(target: str, name: str, seed: int) -> list[float]:
    """One random game; returns the latency of each SubmitAction."""
    rng = random.Random(seed)
    game = engine.get(name)
    latencies = []
    with GameClient(target) as client:
        created = client.create_game(name, game.min_players, seed=seed)
        while (view := client.get_game(created.game_id)).status != "finished":
            seat = view.to_act[rng.randrange(len(view.to_act))]
            token = created.token(seat)
            actions = client.legal_actions(created.game_id, token).actions
            t = time.perf_counter()
            client.submit(created.game_id, token, rng.choice(actions), view.version)
            latencies.append(time.perf_counter() - t)
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=5, help="games per registered game")
    parser.add_argument("--clients", type=int, default=4, help="concurrent client threads")
    args = parser.parse_args()
    prefix = f"sbbench:{uuid.uuid4().hex[:8]}:"
    # its own private instance: a random secret, and anonymous creation (it measures play, not accounts)
    settings = Settings(grpc_addr="127.0.0.1:0", metrics_port=0, key_prefix=prefix, dispatch_bots=False,
                        service_secret=secrets.token_urlsafe(32), allow_anonymous_create=True)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    running = asyncio.run_coroutine_threadsafe(start(settings), loop).result(30)
    target = f"127.0.0.1:{running.port}"
    try:
        print(f"{'game':<12} {'games':>5} {'moves':>6} {'moves/s':>8} {'p50 ms':>7} {'p99 ms':>7}")
        for name in engine.games():
            t = time.perf_counter()
            with ThreadPoolExecutor(args.clients) as pool:
                runs = list(pool.map(lambda seed, n=name: _play(target, n, seed), range(args.games)))
            elapsed = time.perf_counter() - t
            lat = sorted(x for run in runs for x in run)
            p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
            print(
                f"{name:<12} {args.games:>5} {len(lat):>6} {len(lat) / elapsed:>8.0f} "
                f"{statistics.median(lat) * 1000:>7.2f} {p99 * 1000:>7.2f}"
            )
    finally:
        asyncio.run_coroutine_threadsafe(running.stop(1.0), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        client = redis.Redis.from_url(settings.redis_url)
        keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
        if keys:
            client.delete(*keys)


if __name__ == "__main__":
    main()
