"""CPU seconds the REST gateway process spends per request (GET game, GET actions, POST action).

Why: the gateway's cost is framework overhead; wall-clock throughput on this shared 2-core machine
depends on the neighbours, but the gateway process's own user+system CPU time per request does not
(much). Runs the real processes (`python -m services.gamestate`, `python -m services.gateway`) via
bench.stack, plays games with one keep-alive lean client and reads the gateway's /proc/<pid>/stat.

    python -m bench.gateway_cpu --rounds 300
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time

from bench.lean_http import LeanClient
from bench.stack import Stack

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """utime + stime of `pid` (fields 14 and 15 of /proc/<pid>/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


async def drive(url: str, game: str, players: int, rounds: int) -> int:
    """Plays games: per round GET game, GET actions, POST the first legal action. Returns requests sent."""
    client = LeanClient(url)
    sent = 0
    game_id, tokens = "", {}
    to_act: list[int] = []
    try:
        for _ in range(rounds):
            if not to_act:
                r = await client.post("/v1/games", {"game": game, "players": players, "seed": 7})
                assert r.status_code == 201, r.text
                body = r.json()
                game_id, tokens = body["game_id"], {s["seat"]: s["token"] for s in body["seats"]}
                sent += 1
            auth = {"Authorization": f"Bearer {tokens[to_act[0] if to_act else 0]}"}
            g = await client.get(f"/v1/games/{game_id}", auth)
            assert g.status_code == 200, g.text
            seat = g.json()["to_act"][0]
            auth = {"Authorization": f"Bearer {tokens[seat]}"}
            la = await client.get(f"/v1/games/{game_id}/actions", auth)
            assert la.status_code == 200, la.text
            body = la.json()
            s = await client.post(f"/v1/games/{game_id}/actions",
                                  {"action": body["actions"][0], "expected_version": body["version"]}, auth)
            assert s.status_code == 200, s.text
            out = s.json()
            to_act = out["to_act"] if out["status"] == "active" else []
            sent += 3
    finally:
        await client.close()
    return sent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=300)
    ap.add_argument("--game", default="opensky")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--no-rate-limit", action="store_true", help="measure without the Redis rate limiter")
    args = ap.parse_args()
    # rate limits on (and high) so their Redis script is part of the measured cost, as in production
    limit = "0" if args.no_rate_limit else "1000000"
    env = {"GATEWAY_RATE_LIMIT_IP": limit, "GATEWAY_RATE_LIMIT_TOKEN": limit}
    with Stack(gateway_env=env) as stack:
        pid = stack.procs["gateway"].popen.pid
        asyncio.run(drive(stack.gateway_url, args.game, args.players, 20))  # warm-up
        cpu0, t0 = cpu_seconds(pid), time.perf_counter()
        n = asyncio.run(drive(stack.gateway_url, args.game, args.players, args.rounds))
        cpu, wall = cpu_seconds(pid) - cpu0, time.perf_counter() - t0
    print(f"{n} requests in {wall:.2f}s wall; gateway CPU {cpu:.2f}s = {cpu / n * 1000:.3f} ms/request")


if __name__ == "__main__":
    main()
