"""What open streams and a call flood cost the game-state service, measured on one in-process instance.

Why: the abuse review (docs/decisions/abuse-bounds.md) found 200 anonymous WatchGame streams on one connection holding
200 Redis connections, closed streams lingering 5-6 s and 650 anonymous GetGame in under 2 s all answered. This prints,
for the tree it runs from (so the same file measures an older tree too: `git archive <rev> | tar -x -C /tmp/old`, copy
this file into /tmp/old/bench/ and run it there with this tree's virtualenv):

- Redis clients and clients blocked in a read (INFO clients, the whole server: run it on a quiet Redis) before
  and with `--watchers` WatchGame streams of one game on one gRPC connection;
- how long after the client closed them the service's watcher gauge (skyboard_watchers) is back and no
  connection is blocked any more;
- how many of `--calls` anonymous GetGame on one connection are answered, with the service's default limits.

    python -m bench.stream_cost --watchers 200 --calls 650
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
import uuid

import grpc
import redis
from prometheus_client import REGISTRY

from services.common.settings import Settings
from services.gamestate.client import AsyncGameClient, GameServiceError
from services.gamestate.server import start

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")


def _clients(r: redis.Redis) -> tuple[int, int]:
    info = r.info("clients")
    return int(info["connected_clients"]), int(info["blocked_clients"])


def _watchers() -> float:
    return REGISTRY.get_sample_value("skyboard_watchers") or 0.0


async def _instance(prefix: str, **limits_off: int):
    fields = Settings.model_fields
    extra = {k: v for k, v in limits_off.items() if k in fields}  # an older tree has none of them
    if "admin_grpc_addr" in fields:
        extra["admin_grpc_addr"] = "127.0.0.1:0"
    settings = Settings(redis_url=REDIS_URL, grpc_addr="127.0.0.1:0", metrics_port=0, key_prefix=prefix,
                        service_secret="stream-cost-bench-secret-of-40-characters", allow_anonymous_create=True,
                        dispatch_bots=False, **extra)
    return await start(settings, sweeper=False)


async def measure(watchers: int, calls: int) -> None:
    r = redis.Redis.from_url(REDIS_URL, decode_responses=True)
    prefix = f"sbbench-streams:{uuid.uuid4().hex[:8]}:"
    try:
        run = await _instance(prefix, stream_limit_address=0, stream_limit_credential=0, rate_limit_ip=0,
                              rate_limit_ip_ceiling=0)
        client = AsyncGameClient(f"127.0.0.1:{run.port}")
        game = await client.create_game("opensky", 2, seed=1)
        await asyncio.sleep(0.5)
        before, blocked_before = _clients(r)
        started = [asyncio.Event() for _ in range(watchers)]

        async def watch(event: asyncio.Event) -> None:
            async for _update in client.watch(game.game_id):
                event.set()

        tasks = [asyncio.create_task(watch(e)) for e in started]
        await asyncio.wait_for(asyncio.gather(*(e.wait() for e in started)), 60)
        await asyncio.sleep(1.5)  # every read is back in its blocking wait
        during, blocked = _clients(r)
        print(f"{watchers} WatchGame streams on one connection: Redis clients {before} -> {during}, "
              f"blocked in a read {blocked_before} -> {blocked}")
        closed = time.monotonic()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        while (_watchers() > 0 or _clients(r)[1] > blocked_before) and time.monotonic() - closed < 30:
            await asyncio.sleep(0.01)
        print(f"closed: the service's watchers gone and no read blocked {time.monotonic() - closed:.2f} s later")
        await client.close()
        await run.stop(0.5)

        run = await _instance(prefix)  # the tree's default limits
        client = AsyncGameClient(f"127.0.0.1:{run.port}")
        answered = refused = 0

        async def get() -> None:
            nonlocal answered, refused
            try:
                await client.get_game(game.game_id)
                answered += 1
            except GameServiceError as exc:
                if exc.code != grpc.StatusCode.RESOURCE_EXHAUSTED:
                    raise
                refused += 1

        began = time.monotonic()
        await asyncio.gather(*(get() for _ in range(calls)))
        print(f"{calls} anonymous GetGame in {time.monotonic() - began:.2f} s: {answered} answered, {refused} refused")
        await client.close()
        await run.stop(0.5)
    finally:
        keys = list(r.scan_iter(match=f"{prefix}*", count=1000))
        if keys:
            r.delete(*keys)
        r.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--watchers", type=int, default=200)
    parser.add_argument("--calls", type=int, default=650)
    args = parser.parse_args()
    asyncio.run(measure(args.watchers, args.calls))


if __name__ == "__main__":
    main()
