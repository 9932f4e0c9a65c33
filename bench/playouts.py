"""Random-playout throughput of every registered engine, one core.

    python -m bench.playouts [--games NAME ...] [--runs 5] [--seconds 2]

For each game and player count: full random games per second and actions per
second, the median of several timed runs. A random player asks for the legal
actions and applies one, exactly as callers do, so this measures the contract.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import engine
from engine.playout import play_random


def measure(name: str, players: int, seconds: float, seed: int) -> tuple[float, float]:
    """One timed run: (games/s, actions/s) of full random games."""
    game = engine.get(name)
    rng = random.Random(seed)
    games = actions = 0
    start = time.perf_counter()
    while True:
        state = game.new(players, rng.randrange(2**31))
        actions += play_random(state, rng)
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return games / elapsed, actions / elapsed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="*", default=engine.games())
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args(argv)
    print(f"{'game':<12} {'players':>7} {'games/s':>10} {'actions/s':>11}   (median of {args.runs} runs)")
    for name in args.games:
        game = engine.get(name)
        for players in range(game.min_players, game.max_players + 1):
            runs = [measure(name, players, args.seconds, seed) for seed in range(args.runs)]
            gps = statistics.median(r[0] for r in runs)
            aps = statistics.median(r[1] for r in runs)
            print(f"{name:<12} {players:>7} {gps:>10.1f} {aps:>11.0f}", flush=True)


if __name__ == "__main__":
    main()
