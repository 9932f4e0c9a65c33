"""Paired strength comparison of ISMCTS settings: which search options are worth their cost.

    python -m bench.search_variants --game opensky --players 4 --games 32 --iterations 1000 \\
        --variant base='{}' --variant opp8='{"prior_plies": 8}'

Each variant is `mcts-normal`'s SearchConfig with the given fields replaced. Every variant plays the same
seeded games (game g: seed (--seed, g), line-up rotated by g places) in one seat against `--against`
(default greedy) in the others, so differences between variants are paired, not two independent samples.
The budget is an iteration cap, not seconds, so a result does not depend on how busy the machine is; the
think time per decision is printed to show what each option costs.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import multiprocessing
import os
import sys
import time

from ai.bot import Budget
from ai.ismcts import ISMCTSBot, SearchConfig
from ai.levels import SEARCH, make_bot
from ai.match import play_match
from ai.tournament import game_seed, wilson


def parse_fields(text: str, settings: type) -> tuple[str, dict]:
    """NAME=JSON object of fields of the dataclass `settings`; ValueError naming the problem otherwise."""
    name, sep, raw = text.partition("=")
    if not sep or not name:
        raise ValueError(f"variant {text!r} is not NAME=JSON")
    fields = json.loads(raw or "{}")
    if not isinstance(fields, dict):
        raise ValueError(f"variant {name}: the JSON must be an object")
    known = {f.name for f in dataclasses.fields(settings)}
    unknown = set(fields) - known
    if unknown:
        raise ValueError(
            f"variant {name}: unknown {settings.__name__} fields {sorted(unknown)}; known: {sorted(known)}"
        )
    return name, fields


def parse_variant(text: str) -> tuple[str, dict]:
    """NAME=JSON object of SearchConfig fields."""
    return parse_fields(text, SearchConfig)


def play(job: tuple) -> tuple[str, float, float]:
    """(variant, win credit of the variant's seat, think seconds per decision) of one game."""
    game, players, name, fields, against, index, seed, iterations, seconds = job
    config = dataclasses.replace(SEARCH["mcts-normal"], **fields)
    lineup = [name] + [against] * (players - 1)
    levels = [lineup[(s + index) % players] for s in range(players)]
    seat = levels.index(name)
    bots = [ISMCTSBot(name, config) if level == name else make_bot(level) for level in levels]
    budget = Budget(seconds=seconds, iterations=iterations)
    result = play_match(game, levels, game_seed(seed, index), None, budget, bots)
    credit = 1.0 / len(result.winners) if seat in result.winners else 0.0
    return name, credit, result.think_seconds[seat] / max(1, result.decisions[seat])


def main(argv: list[str] | None = None) -> dict[str, list[float]]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", required=True)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=None,
                        help="also a think-time limit per decision (time-equal comparisons; use no more workers "
                             "than free cores, as the result then depends on machine load)")
    parser.add_argument("--against", default="greedy")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--variant", action="append", required=True, metavar="NAME=JSON")
    args = parser.parse_args(argv)
    try:
        variants = dict(parse_variant(v) for v in args.variant)
    except ValueError as exc:
        parser.error(str(exc))
    jobs = [(args.game, args.players, name, fields, args.against, i, args.seed, args.iterations,
             args.seconds) for i in range(args.games) for name, fields in variants.items()]
    credits: dict[str, list[float]] = {name: [] for name in variants}
    think: dict[str, list[float]] = {name: [] for name in variants}
    start = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(args.workers) as pool:
        for name, credit, seconds in pool.imap_unordered(play, jobs):
            credits[name].append(credit)
            think[name].append(seconds)
    fair = 1 / args.players
    print(f"{args.game}, {args.players} players, {args.games} games against {args.against}, "
          f"{args.iterations} iterations"
          f"{f' or {args.seconds} s' if args.seconds else ''} per decision, seed {args.seed} "
          f"({time.perf_counter() - start:.0f} s)")
    for name in variants:
        wins, n = sum(credits[name]), len(credits[name])
        lo, hi = wilson(wins, n)
        print(f"{name:<12} {wins:6.1f}/{n:<4} {wins / n:6.1%} [{lo:.0%}, {hi:.0%}]  fair {fair:.0%}  "
              f"s/decision {sum(think[name]) / n:.3f}  {json.dumps(variants[name])}")
    sys.stdout.flush()
    return credits


if __name__ == "__main__":
    main()
