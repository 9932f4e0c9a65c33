"""Where a search level overrules the greedy rule, by decision kind and iteration budget.

    python -m bench.deviations --game opensky --players 2 --games 6 --iterations 1000,3000

Greedy self-play games are played (game g: seed --seed + g); at every `--every`-th decision with a choice,
`mcts-normal`'s settings decide the same position at each iteration cap, and each choice that differs
from the greedy rule's is counted under the decision kind (the `TYPE` of the last legal action). Kinds
the search leaves to the rule (`rule_kinds`) are skipped. Both decide with the same seeded RNG, but
the rule breaks ties at random, so a kind with tied rule choices shows some difference at any budget.
A search whose strength falls as its budget grows shows here where it goes wrong: the kinds whose share
of overruled decisions grows with the budget.
"""

from __future__ import annotations

import argparse
import random
from collections import defaultdict

import engine
from ai.bot import Budget
from ai.greedy import GreedyBot
from ai.heuristics import for_game
from ai.levels import make_bot
from bench.selfplay import greedy_positions


def deviations(game: str, players: int, games: int, iterations: list[int], seed: int = 1000,
               every: int = 2) -> dict[str, list[int]]:
    """Per decision kind: [decisions sampled, then per iteration cap how many the search decided otherwise]."""
    ruled = for_game(game).rule_kinds
    counts: dict[str, list[int]] = defaultdict(lambda: [0] * (1 + len(iterations)))
    greedy = GreedyBot()
    for g in range(games):
        for state, seat, legal, step in greedy_positions(game, players, seed + g, every):
            kind = legal[-1].TYPE
            if kind in ruled:
                continue
            rule_choice = greedy.choose(state, seat, random.Random(step))
            row = counts[kind]
            row[0] += 1
            for j, cap in enumerate(iterations):
                search = make_bot("mcts-normal")
                choice = search.choose(state, seat, random.Random(step), Budget(iterations=cap))
                row[1 + j] += choice != rule_choice
    return dict(counts)


def main(argv: list[str] | None = None) -> dict[str, list[int]]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", required=True, choices=engine.games())
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--iterations", default="1000,3000", help="comma-separated iteration caps")
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--every", type=int, default=2)
    args = parser.parse_args(argv)
    try:
        caps = [int(x) for x in args.iterations.split(",")]
    except ValueError:
        parser.error(f"--iterations {args.iterations!r} is not a comma-separated list of integers")
    if not caps or min(caps) < 1:
        parser.error("--iterations needs caps of at least 1")
    counts = deviations(args.game, args.players, args.games, caps, args.seed, args.every)
    print(f"{args.game}, {args.players} players, {args.games} greedy self-play games, every {args.every}th decision")
    print(f"{'kind':<18}{'sampled':>8}" + "".join(f"{f'overruled @{c}':>20}" for c in caps))
    for kind, (n, *differ) in sorted(counts.items()):
        print(f"{kind:<18}{n:>8}" + "".join(f"{f'{d} ({d / n:.0%})':>20}" for d in differ))
    return counts


if __name__ == "__main__":
    main()
