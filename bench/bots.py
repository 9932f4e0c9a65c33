"""ISMCTS search speed of every registered game, one core.

    python -m bench.bots [--games NAME ...] [--level mcts-normal] [--runs 5] [--seconds 1.0]

For each game and player count: iterations per second of one ISMCTS search at
the first real decision of a game (the first position where the seat to act
has at least two legal actions), the median of several runs with different
seeds. One iteration = one fresh determinization, tree descent, rollout (cut
off by the level's rollout depth and the game's evaluation) and backup.
Target: at least 1,000 iterations/s per core for 2-player OpenSky.
Both wall-clock and CPU-time rates are printed (see `measure`).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import engine
from ai.bot import Budget
from ai.ismcts import ISMCTSBot
from ai.levels import SEARCH
from engine.core import State


def first_decision(name: str, players: int, seed: int) -> tuple[State, int]:
    """The first position (following the seat-0-first legal actions) where a seat has a real choice."""
    state = engine.get(name).new(players, seed)
    while True:
        for seat in state.to_act():
            actions = state.legal_actions(seat)
            if len(actions) >= 2:
                return state, seat
        seat = state.to_act()[0]
        state.apply(seat, state.legal_actions(seat)[0])


def measure(name: str, players: int, level: str, seconds: float, seed: int) -> tuple[float, float]:
    """One timed search: iterations per wall-clock second and per CPU second of this process.

    On a shared machine the wall-clock figure drops with the load; the CPU-time
    figure is what one core delivers while this process runs.
    """
    state, seat = first_decision(name, players, seed)
    bot = ISMCTSBot(level, SEARCH[level])
    cpu = time.process_time()
    bot.choose(state, seat, random.Random(seed), Budget(seconds=seconds))
    cpu = time.process_time() - cpu
    return bot.stats.iterations / bot.stats.seconds, bot.stats.iterations / max(cpu, 1e-9)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="*", default=engine.games())
    parser.add_argument("--level", default="mcts-normal", choices=sorted(SEARCH))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--players", type=int, nargs="*", default=None, help="player counts (default: all)")
    args = parser.parse_args(argv)
    print(f"{'game':<12} {'players':>7} {'iter/s wall':>12} {'iter/s CPU':>11}   ({args.level}, median of "
          f"{args.runs} runs of {args.seconds:g} s at the first decision)")
    for name in args.games:
        game = engine.get(name)
        counts = args.players or range(game.min_players, game.max_players + 1)
        for players in counts:
            if not game.min_players <= players <= game.max_players:
                continue
            runs = [measure(name, players, args.level, args.seconds, seed) for seed in range(args.runs)]
            wall = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            print(f"{name:<12} {players:>7} {wall:>12.0f} {cpu:>11.0f}", flush=True)


if __name__ == "__main__":
    main()
