"""CPU of Blue Skies' guided `mcts-normal` against the greedy-prior search it replaced, in the same run.

    python -m bench.guided_cost [--positions 10] [--repeats 3]

Both searches decide the same positions (`bench.bot_cost.positions`: every 7th decision of greedy games) at their
own iteration caps: the guided search (`ai.levels.GAME_SEARCH`, the learned policy as the root prior) at 1,000, the
greedy-prior search (`ai.levels.SEARCH["mcts-normal"]`) at 5,300, what its 1.0 s buys on a free core. The ratio
of the means is the figure to carry between machines (absolute CPU seconds differ by 2x between them).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Callable

import ai
from ai.bot import Bot
from ai.ismcts import ISMCTSBot
from ai.levels import FREE_CORE_RATE, SEARCH, free_core_iterations
from bench.bot_cost import positions


def mean_cpu(make: Callable[[], Bot], budget: ai.Budget, sample, repeats: int) -> float:
    """Mean process CPU seconds of one decision, a fresh bot each time (no kept tree), over `repeats` passes."""
    spent = []
    for _ in range(repeats):
        for index, (state, seat) in enumerate(sample):
            bot = make()
            start = time.process_time()
            bot.choose(state, seat, random.Random(index), budget)
            spent.append(time.process_time() - start)
    return statistics.fmean(spent)


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--positions", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    old_cap = round((SEARCH["mcts-normal"].budget.seconds or 1.0) * FREE_CORE_RATE["blueskies"])
    new_cap = free_core_iterations("mcts-normal", "blueskies")
    rows = []
    for players in args.players:
        sample = positions("blueskies", players, args.positions, 7, 1)
        old = mean_cpu(lambda: ISMCTSBot("mcts-normal", SEARCH["mcts-normal"]), ai.Budget(iterations=old_cap),
                       sample, args.repeats)
        new = mean_cpu(lambda: ai.make_bot("mcts-normal"), ai.Budget(iterations=new_cap), sample, args.repeats)
        row = {"players": players, "greedy_prior_s": old, "guided_s": new, "ratio": new / old,
               "load": os.getloadavg()[0]}
        rows.append(row)
        print(f"blueskies {players}p  greedy-prior ({old_cap} it.) {old:.4f} s  guided ({new_cap} it.) {new:.4f} s  "
              f"ratio {new / old:.3f}  load {row['load']:.1f}", flush=True)
    return rows


if __name__ == "__main__":
    main()
