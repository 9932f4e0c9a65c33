"""Paired strength comparison of greedy-rule variants: which weights of a game's decision rule win more.

    python -m research.lab.rule_variants --game opensky --players 4 --games 2000 \\
        --variant base='{}' --variant lease2='{"lease_aircraft": 2}'

A variant is the game's rule (`ai/heuristics/<game>.py`) with some `RuleParams` fields replaced, or that rule
corrected by a learned model (`"model": "os2-r2.npz"`, a file of `ai/policy/models`, as the `fast` level plays
it: `ai.policy.bot.PolicyBot`), so a model and the rule it corrects are compared on the same games. It plays one
seat of each seeded game (game g: seed (--seed, g), line-up rotated by g places, as in `research.lab.tournament`)
against the unchanged `greedy` rule in the others (`--against JSON`: that rule with these `RuleParams` fields
replaced, to measure a changed rule against the rule as it was). Rules are cheap, so thousands of games take
seconds, and every variant plays the same games, so the differences between variants are paired. `base='{}'` is the
greedy rule against itself: its win rate is the seat's fair share only on average over seats.
"""

from __future__ import annotations

import argparse
import importlib
import json
import multiprocessing
import os
import sys
from typing import Any

from ai.bot import Bot
from ai.greedy import GreedyBot
from ai.heuristics import with_params
from ai.policy import MODELS_DIR
from ai.policy.bot import PolicyBot
from research.lab import background
from research.lab.match import play_match
from research.lab.paired import parse_fields, seat_lines, seat_outcome, summarize, variant_seat
from research.lab.tournament import game_seed

#: The key of a variant naming the model that corrects its rule.
MODEL = "model"


def rule_module(game: str) -> Any:
    module = importlib.import_module(f"ai.heuristics.{game}")
    if not hasattr(module, "RuleParams"):
        raise ValueError(f"the {game} rule has no RuleParams to vary")
    return module


def parse_variant(game: str, text: str) -> tuple[str, dict]:
    """NAME=JSON object of the game's RuleParams fields and optionally "model" (a model file of the game in
    `ai/policy/models` that corrects that rule); ValueError naming the problem otherwise."""
    name, fields = parse_fields(text, rule_module(game).RuleParams, extra=frozenset({MODEL}))
    if MODEL in fields:
        path = MODELS_DIR / str(fields[MODEL])
        if not path.is_file():
            raise ValueError(f"variant {name}: no model file {path}")
    return name, fields


def variant_bot(game: str, fields: dict) -> Bot:
    """The bot a variant's seat plays: the rule with the fields replaced, corrected by the model if one is named."""
    params = {k: v for k, v in fields.items() if k != MODEL}
    if MODEL in fields:
        return PolicyBot(MODELS_DIR / str(fields[MODEL]), rule_params=params)
    return GreedyBot(with_params(game, params))


def play(job: tuple) -> tuple[str, int, float, float]:
    """(variant, game index, win credit of the variant's seat, its final margin over the best other seat)."""
    game, players, name, fields, index, seed, options, against = job
    levels = ["greedy"] * players
    seat = variant_seat(index, players)
    bots = [variant_bot(game, fields) if s == seat else GreedyBot(with_params(game, against)) for s in range(players)]
    result = play_match(game, levels, game_seed(seed, index), options, None, bots)
    credit, margin = seat_outcome(result, seat)
    return name, index, credit, margin


def main(argv: list[str] | None = None) -> list[tuple[str, int, float, float]]:
    background.yield_cpu_to_others()  # started niced with setsid, it yields to other sessions too
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="opensky")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--options", default="{}", help='game options as JSON, e.g. \'{"map": "north_america"}\'')
    parser.add_argument("--workers", type=int, default=max(1, (os.cpu_count() or 2) - 1))
    parser.add_argument("--variant", action="append", default=[], help="NAME=JSON of RuleParams fields")
    parser.add_argument("--against", default="{}", help="JSON of RuleParams fields the other seats' rule replaces")
    args = parser.parse_args(argv)
    try:
        variants = [parse_variant(args.game, v) for v in (args.variant or ["base={}"])]
        _, against = parse_fields(f"against={args.against}", rule_module(args.game).RuleParams)
    except ValueError as exc:
        parser.error(str(exc))
    options = json.loads(args.options)
    jobs = [(args.game, args.players, n, f, i, args.seed, options, against)
            for n, f in variants for i in range(args.games)]
    if args.workers > 1:
        with multiprocessing.Pool(args.workers) as pool:
            results = pool.map(play, jobs, chunksize=16)
    else:
        results = [play(job) for job in jobs]
    print(f"{args.game}, {args.players} players, {args.games} games per variant, seed {args.seed}, options {options}"
          + (f", against {against}" if against else ""))
    names = [n for n, _ in variants]
    for line in summarize(results, names) + seat_lines(results, names, args.players):
        print(line)
    sys.stdout.flush()
    return results


if __name__ == "__main__":
    main()
