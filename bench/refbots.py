"""The caps at which this project's ISMCTS and OpenSpiel's spend equal CPU a decision: their speeds measured at
the same positions in the same run, so the machine's load cancels out of the ratio.

    python -m bench.refbots [--games aeroplanes:3 blueskies:2 opensky:2] [--seconds 0.1] [--positions 4]

For each table, `--positions` decisions spread over a greedy self-play game (`research.lab.ladder.calibrate`) are
searched by `mcts-normal` (its own search, `ai.levels.SEARCH`) and by OpenSpiel's ISMCTS (`research.lab.openspiel_bot`),
each at a fixed number of iterations, timed in CPU seconds (`time.process_time`). Printed: each search's iterations
a CPU second now, and the caps for `--seconds` of CPU a decision on a free core: the project's level at `--seconds`
x its free-core rate (its profile's `free_core_rate`, the ladder's convention), OpenSpiel's at that cap times the
measured ratio of the two speeds. The ladder then plays both at those caps (`--iterations`,
`--openspiel-simulations`): the same games on any machine. The load average is printed before and after: a ratio
is the more trustworthy the steadier it is.
"""

from __future__ import annotations

import argparse
import os

from ai.games import profile
from research.lab.ladder import calibrate
from research.lab.openspiel_bot import OpenSpielISMCTSBot

#: Iterations a measured decision: enough that the fixed cost of a search (its root, the final choice) is small.
PROJECT_ITERATIONS = 1500
OPENSPIEL_SIMULATIONS = 60


def main(argv: list[str] | None = None) -> list[tuple[str, int, float, float, int, int]]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="+", default=["aeroplanes:3", "blueskies:2", "opensky:2"])
    parser.add_argument("--seconds", type=float, default=0.1, help="CPU seconds a decision on a free core")
    parser.add_argument("--positions", type=int, default=4)
    args = parser.parse_args(argv)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs)")
    print(f"{'game':<11}{'players':>7}  {'mcts-normal it/s':>16}  {'openspiel sims/s':>16}  {'ratio':>7}  "
          f"caps for {args.seconds:g} s: mcts-normal, openspiel-ismcts")
    rows = []
    for table in args.games:
        game, players = table.split(":")[0], int(table.split(":")[1])
        ours = calibrate(game, players, args.positions, PROJECT_ITERATIONS)
        theirs = calibrate(game, players, args.positions, OPENSPIEL_SIMULATIONS, make=OpenSpielISMCTSBot)
        cap = round(args.seconds * profile(game).free_core_rate)
        simulations = max(1, round(cap * theirs / ours))
        rows.append((game, players, ours, theirs, cap, simulations))
        print(f"{game:<11}{players:>7}  {ours:>16.0f}  {theirs:>16.1f}  {ours / theirs:>6.0f}x  {cap}, {simulations}",
              flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return rows


if __name__ == "__main__":
    main()
