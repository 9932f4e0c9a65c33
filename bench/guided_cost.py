"""CPU of a game's guided `mcts-normal` against the greedy-prior search it replaces, in the same run.

    python -m bench.guided_cost [--game blueskies] [--players 2 4] [--positions 10] [--repeats 3]
    python -m bench.guided_cost --game aeroplanes --prior ap3-r3.npz      # a candidate not yet in ai/games/<game>.py

Both searches decide the same positions (`bench.bot_cost.positions`: every 7th decision of greedy games) at their
own iteration caps: the guided search (the learned policy as the root prior: the game's profile's `search`,
`ai/games/<game>.py`, or `--prior` with `--iterations`, default 1,000) and the greedy-prior search
(`ai.levels.SEARCH["mcts-normal"]`) at what its 1.0 s buys on a free core (the profile's `free_core_rate`: Blue
Skies 5,300, Aeroplanes 5,200). The ratio of the means is the figure to carry between machines (absolute CPU
seconds differ by 2x between them).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import statistics
import time
from collections.abc import Callable

import ai
from ai.bot import Bot
from ai.games import profile
from ai.ismcts import ISMCTSBot, SearchConfig
from ai.levels import SEARCH, CappedBot
from bench.bot_cost import positions

DEFAULT_PLAYERS = {"blueskies": [2, 4], "aeroplanes": [3]}


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


def guided_config(game: str, prior: str | None, iterations: int | None) -> SearchConfig:
    """The guided search to price: `--prior` on `mcts-normal`'s settings, or the game's shipped guided level."""
    if prior is not None:
        return dataclasses.replace(SEARCH["mcts-normal"], policy_prior=prior, policy_weight=1.0,
                                   budget=ai.Budget(seconds=1.0, iterations=iterations or 1000))
    shipped = profile(game).search.get("mcts-normal")
    if shipped is None:
        raise SystemExit(f"{game} ships no guided mcts-normal (ai/games/{game}.py): name a candidate with --prior")
    if iterations is not None:
        shipped = dataclasses.replace(shipped, budget=ai.Budget(seconds=1.0, iterations=iterations))
    return shipped


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=sorted(DEFAULT_PLAYERS), default="blueskies")
    parser.add_argument("--players", type=int, nargs="+")
    parser.add_argument("--prior", help="a policy file in ai/policy/models to price as the root prior")
    parser.add_argument("--iterations", type=int, help="the guided search's iteration cap")
    parser.add_argument("--positions", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    game = args.game
    guided = guided_config(game, args.prior, args.iterations)
    old_cap = CappedBot("mcts-normal:greedy-prior", game).budget.iterations  # what 1.0 s buys on a free core
    new_cap = guided.budget.iterations
    rows = []
    for players in args.players or DEFAULT_PLAYERS[game]:
        sample = positions(game, players, args.positions, 7, 1)
        old = mean_cpu(lambda: ISMCTSBot("mcts-normal", SEARCH["mcts-normal"]), ai.Budget(iterations=old_cap),
                       sample, args.repeats)
        new = mean_cpu(lambda: ISMCTSBot("mcts-normal", guided), ai.Budget(iterations=new_cap), sample, args.repeats)
        row = {"game": game, "players": players, "greedy_prior_s": old, "guided_s": new, "ratio": new / old,
               "load": os.getloadavg()[0]}
        rows.append(row)
        print(f"{game} {players}p  greedy-prior ({old_cap} it.) {old:.4f} s  guided ({new_cap} it.) {new:.4f} s  "
              f"ratio {new / old:.3f}  load {row['load']:.1f}", flush=True)
    return rows


if __name__ == "__main__":
    main()
