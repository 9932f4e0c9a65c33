"""CPU cost of one bot decision per level and game, and decisions per second per worker core.

    python -m bench.bot_cost [--games opensky:2 aeroplanes:3 blueskies:2] [--positions 8] [--json out.json]

Positions are sampled along greedy self-play games (every `--every`-th decision with a choice, games seeded
`--seed`, `--seed`+1, ...), so they cover the opening, the middle and the end. At each position a fresh bot of
every level decides, and the process CPU time (`time.process_time`, user + system of this process) of its
`choose` is recorded with the search iterations it ran. Two variants per search level:

- `time`: the level's own budget (seconds, with the level's and the game's iteration caps) as a worker plays
  it. On a busy machine a wall-clock budget buys fewer iterations, so this CPU figure is *at most* the budget
  and falls with the load; read it with the load average printed beside it.
- `iters`: an iteration cap only (no time limit): the level's typical count on a free core
  (`ai.levels.free_core_iterations`: the budget's seconds times the search's rate on a quiet core,
  within the level's and the game's caps). Its CPU time does not depend on how long the process waits for a
  core, so this is the figure to size workers with.

Decisions per second per worker core = 1 / mean CPU seconds per decision (decisions with a choice; a forced
move costs the worker only its load and submit, a few ms, not counted here).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from dataclasses import asdict, dataclass

from ai.policy import one_blas_thread

one_blas_thread()  # as a worker runs (services/workers): a BLAS pool's spinning threads are not the decision's cost

import ai  # noqa: E402
from ai.levels import free_core_iterations  # noqa: E402
from research.lab.selfplay import greedy_positions  # noqa: E402


@dataclass
class Row:
    game: str
    players: int
    level: str
    variant: str  # "time" (the level's own budget) or "iters" (free-core iteration cap)
    decisions: int
    cpu_mean: float
    cpu_p50: float
    cpu_p90: float
    cpu_p99: float
    cpu_max: float
    wall_mean: float
    iterations_p50: float
    decisions_per_cpu_s: float


def positions(game: str, players: int, count: int, every: int, seed: int):
    """`count` positions (deep copies) sampled along greedy self-play games."""
    found = []
    game_seed = seed
    while len(found) < count:
        for state, seat, _legal, _step in greedy_positions(game, players, game_seed, every):
            found.append((state.clone(), seat))
            if len(found) >= count:
                break
        game_seed += 1
    return found


def measure(game: str, players: int, level: str, variant: str, sample, seed: int,
            research: tuple[dict, int] | None = None) -> Row:
    """`research`: (fields, iterations) of a research variant (`research.lab.search_variants`) named `level`, measured
    at that iteration cap instead of a level."""
    cpu, wall, iters = [], [], []
    if research is not None:
        from research.lab.search_variants import variant_bot

        fields, cap = research
        make = lambda: variant_bot(level, fields)  # noqa: E731
    else:
        cap = free_core_iterations(level, game)
        make = lambda: ai.make_bot(level)  # noqa: E731
    budget = ai.Budget(iterations=cap) if variant == "iters" and cap is not None else None
    variant = variant if cap is not None else "-"
    if sample:  # one untimed decision first: a worker imports a level's modules and fills its caches once a process,
        # not once a decision
        state, seat = sample[0]
        make().choose(state, seat, random.Random(seed), budget)
    for index, (state, seat) in enumerate(sample):
        bot = make()
        rng = random.Random(seed * 1000 + index)
        c0, w0 = time.process_time(), time.perf_counter()
        bot.choose(state, seat, rng, budget)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
        iters.append(bot.stats.iterations)
    mean = statistics.fmean(cpu)
    quantiles = statistics.quantiles(cpu, n=100, method="inclusive") if len(cpu) > 1 else [cpu[0]] * 99
    return Row(game, players, level, variant, len(cpu), mean, statistics.median(cpu), quantiles[89], quantiles[98],
               max(cpu),
               statistics.fmean(wall), statistics.median(iters), (1 / mean) if mean > 0 else float("inf"))


def main(argv: list[str] | None = None) -> list[Row]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="+", default=["opensky:2", "aeroplanes:3", "blueskies:2"],
                        help="game:players pairs")
    parser.add_argument("--levels", default=",".join(ai.levels()))
    parser.add_argument("--variants", default="iters,time")
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument("--every", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", help="write the rows here")
    parser.add_argument("--research", metavar="NAME=JSON", action="append", default=[],
                        help="also a research variant of `research.lab.search_variants` (a search's fields, or a "
                             "Gumbel root's with \"root\": \"gumbel\"), at --research-iterations")
    parser.add_argument("--research-iterations", type=int, default=200)
    args = parser.parse_args(argv)
    levels = args.levels.split(",")
    from research.lab.search_variants import parse_variant

    research = dict(parse_variant(text) for text in args.research)
    started = time.time()
    load_before = os.getloadavg()
    rows: list[Row] = []
    print(f"load average {load_before[0]:.1f}; {args.positions} positions per game, seed {args.seed}", flush=True)
    print(f"{'game':<11}{'p':>2} {'level':<12}{'variant':<8}{'n':>3} {'CPU s mean':>10} {'p50':>7} {'p90':>7} "
          f"{'p99':>7} {'max':>7} {'iters p50':>9} {'dec/s/core':>10}", flush=True)
    for spec in args.games:
        game, _, players = spec.partition(":")
        sample = positions(game, int(players or 2), args.positions, args.every, args.seed)
        for level in levels:
            searching = ai.default_budget(level) is not None
            for variant in args.variants.split(","):
                if not searching and variant == "time":
                    continue  # random and greedy have no budget: one variant says it all
                rows.append(measure(game, int(players or 2), level, variant, sample, args.seed))
                _print(rows[-1])
        for name, fields in research.items():
            rows.append(measure(game, int(players or 2), name, "iters", sample, args.seed,
                                (fields, args.research_iterations)))
            _print(rows[-1])
    load_after = os.getloadavg()
    print(f"load average {load_before[0]:.1f} -> {load_after[0]:.1f}; {time.time() - started:.0f} s", flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"load_before": load_before, "load_after": load_after, "args": vars(args),
                       "rows": [asdict(r) for r in rows]}, out, indent=1)
    return rows


def _print(row: Row) -> None:
    print(f"{row.game:<11}{row.players:>2} {row.level:<12}{row.variant:<8}{row.decisions:>3} "
          f"{row.cpu_mean:>10.4f} {row.cpu_p50:>7.4f} {row.cpu_p90:>7.4f} {row.cpu_p99:>7.4f} {row.cpu_max:>7.4f} "
          f"{row.iterations_p50:>9.0f} {row.decisions_per_cpu_s:>10.1f}", flush=True)


if __name__ == "__main__":
    main()
