"""Paired strength comparison of ISMCTS settings: which search options are worth their cost.

    python -m research.lab.search_variants --game opensky --players 4 --games 32 --iterations 1000 \\
        --variant base='{}' --variant opp8='{"prior_plies": 8}'

Each variant is `mcts-normal`'s SearchConfig with the given fields replaced. Every variant plays the same
seeded games (game g: seed (--seed, g), line-up rotated by g places) in one seat against `--against`
(default greedy) in the others, so differences between variants are paired, not two independent samples.
The budget is an iteration cap, not seconds, so a result does not depend on how busy the machine is; the
think time per decision is printed to show what each option costs. `--against-iterations` gives the opponents a
cap of their own (a cheaper variant against a level at its usual search size: same strength for less CPU?).
`--against-search JSON` makes the opponents a search of their own too: `SEARCH["mcts-normal"]` with those fields
replaced and no game's own settings (`'{}'` is the greedy-prior `mcts-normal` that Blue Skies played until its
the game profile's `search`, the level the issue's targets call today's). `--ledger PATH` keeps each game as it ends, so
a run of hours can be stopped (for CI, a benchmark) and rerun with the same command: it plays only what is missing.

A variant whose JSON says `"root": "gumbel"` is the Gumbel / sequential-halving root (`ai.gumbel.GumbelBot`) with
the other fields as `GumbelConfig` fields; `--iterations` is then its simulations a decision. `--sprt P0,P1,ALPHA,BETA`
(one variant) plays games in index order up to `--games` and stops at Wald's verdict, read over the games finished
in index order (`research.lab.paired.sprt_verdict`): a sequential test written down before its games.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import multiprocessing
import os
import random
import sys
import time

from ai.bot import Bot, Budget
from ai.gumbel import GumbelBot, GumbelConfig
from ai.ismcts import ISMCTSBot, SearchConfig
from ai.levels import SEARCH, make_bot
from engine.core import Action, State
from research.lab import background
from research.lab.match import MatchResult, play_match
from research.lab.paired import (
    parse_fields,
    prefix,
    seat_lines,
    seat_outcome,
    sprt_llr,
    sprt_verdict,
    summarize,
    variant_seat,
)
from research.lab.tournament import append_ledger, code_fingerprint, game_seed, read_ledger, seating


def parse_variant(text: str) -> tuple[str, dict]:
    """NAME=JSON object of SearchConfig fields (of `GumbelConfig` fields with `"root": "gumbel"`). A JSON list
    given for a set of decision kinds (`rule_kinds`, `playout_kinds`) becomes the frozenset the compiled
    SearchConfig requires (named here: the compiled class keeps no field types to find them by)."""
    if '"root"' in text.partition("=")[2]:
        name, fields = parse_fields(text, GumbelConfig, frozenset({"root"}))
        if fields["root"] != "gumbel":
            raise ValueError(f"variant {name}: unknown root {fields['root']!r}; known: gumbel")
        return name, fields
    name, fields = parse_fields(text, SearchConfig, frozenset({"iterations"}))
    if "iterations" in fields and (not isinstance(fields["iterations"], int) or fields["iterations"] < 1):
        raise ValueError(f"variant {name}: iterations must be a positive whole number")
    for key in ("rule_kinds", "playout_kinds"):
        if isinstance(fields.get(key), list):
            fields[key] = frozenset(fields[key])
    return name, fields


class OwnBudget(Bot):
    """A bot that thinks within its own budget whatever the match offers (the opponents' `--against-iterations`)."""

    def __init__(self, inner: Bot, budget: Budget) -> None:
        super().__init__()
        self.inner, self.budget, self.level = inner, budget, inner.level

    def choose(self, state: State, seat: int, rng: random.Random, budget: Budget | None = None) -> Action:
        action = self.inner.choose(state, seat, rng, self.budget)
        self.stats = self.inner.stats
        return action

    def _choose(
        self, state: State, seat: int, actions: list[Action], rng: random.Random, budget: Budget | None
    ) -> Action:
        raise NotImplementedError("OwnBudget.choose delegates whole decisions")


def play(job: tuple) -> tuple[str, int, float, float, float]:
    """(variant, game index, win credit of the variant's seat, its final margin over the best other seat,
    think seconds per decision) of one game. A job's last fields, the opponents' own iteration cap and search,
    may be absent."""
    return outcome(job[2], job[5], job[1], play_game(job))


def outcome(name: str, index: int, players: int, result: MatchResult) -> tuple[str, int, float, float, float]:
    """`play`'s row of a finished game, played now or read from the ledger."""
    seat = variant_seat(index, players)
    credit, margin = seat_outcome(result, seat)
    return name, index, credit, margin, result.think_seconds[seat] / max(1, result.decisions[seat])


def play_indexed(job: tuple) -> tuple[str, int, MatchResult]:
    """(variant, game index, the game's result): what the pool hands back for the ledger."""
    return job[2], job[5], play_game(job)


def play_game(job: tuple) -> MatchResult:
    """One game of `job`: the variant in its seat (`variant_seat`), the opponents in the others."""
    game, players, name, fields, against, index, seed, iterations, seconds = job[:9]
    against_iterations = job[9] if len(job) > 9 else None
    against_search = job[10] if len(job) > 10 else None
    lineup = [name] + [against] * (players - 1)
    levels = seating(lineup, index)
    seat = variant_seat(index, players)  # by position, so a variant may share the opponents' level name

    def opponent(level: str) -> Bot:
        if against_search is not None:
            bot: Bot = ISMCTSBot(level, dataclasses.replace(SEARCH["mcts-normal"], **against_search))
        else:
            bot = make_bot(level)
        return OwnBudget(bot, Budget(seconds=seconds, iterations=against_iterations)) if against_iterations else bot

    def variant() -> Bot:
        """The variant's bot, held to its own iteration cap where its fields give one (two caps of one search
        compared on the same deals), else to the match's."""
        own = fields.get("iterations")
        bot = variant_bot(name, {k: v for k, v in fields.items() if k != "iterations"})
        return OwnBudget(bot, Budget(seconds=seconds, iterations=own)) if own else bot

    bots = [variant() if s == seat else opponent(level) for s, level in enumerate(levels)]
    budget = Budget(seconds=seconds, iterations=iterations)
    return play_match(game, levels, game_seed(seed, index), None, budget, bots)


def variant_bot(name: str, fields: dict) -> Bot:
    """The variant's bot: `mcts-normal`'s search with `fields` replaced, or the Gumbel root they describe."""
    if fields.get("root") == "gumbel":
        return GumbelBot(name, GumbelConfig(**{k: v for k, v in fields.items() if k != "root"}))
    return ISMCTSBot(name, dataclasses.replace(SEARCH["mcts-normal"], **fields))


def ledger_key(args: argparse.Namespace, name: str, fields: dict, against_search: dict | None) -> dict:
    """What a ledger line must share with the run to count in it: the variant, its opponents, the caps, the seed
    and the code that plays the game (`research.lab.tournament.code_fingerprint`)."""
    as_json = lambda value: json.loads(json.dumps(value, default=sorted))  # noqa: E731 - sets of kinds as lists
    return {"search_variants": args.game, "players": args.players, "variant": name, "fields": as_json(fields),
            "against": args.against, "against_iterations": args.against_iterations,
            "against_search": as_json(against_search), "iterations": args.iterations, "seconds": args.seconds,
            "seed": args.seed, "code": code_fingerprint(args.game)}


def main(argv: list[str] | None = None) -> list[tuple[str, int, float, float]]:
    background.yield_cpu_to_others()  # started niced with setsid, it yields to other sessions too
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", required=True)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=None,
                        help="also a think-time limit per decision (time-equal comparisons; use no more workers "
                             "than free cores, as the result then depends on machine load)")
    parser.add_argument("--against", default="greedy")
    parser.add_argument("--against-iterations", type=int, default=None,
                        help="the opponents' own iteration cap (default: --iterations, the same as the variants')")
    parser.add_argument("--against-search", default=None, metavar="JSON",
                        help="the opponents play SEARCH['mcts-normal'] with these SearchConfig fields replaced, in "
                             "every game alike ('{}': the greedy-prior mcts-normal); --against then only names them")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--variant", action="append", required=True, metavar="NAME=JSON")
    parser.add_argument("--sprt", metavar="P0,P1,ALPHA,BETA",
                        help="one variant: stop at the sequential probability ratio test's verdict on its win rate "
                             "(H0 P0 against H1 P1), --games the cap")
    parser.add_argument("--ledger", metavar="PATH",
                        help="JSON lines, a game a line as it ends: a rerun with the same settings and code plays "
                             "only the games the ledger lacks (a stopped run resumes; its finished games count)")
    args = parser.parse_args(argv)
    try:
        variants = dict(parse_variant(v) for v in args.variant)
        against_search = parse_variant(f"against={args.against_search}")[1] if args.against_search else None
    except ValueError as exc:
        parser.error(str(exc))
    sprt = None
    if args.sprt:
        try:
            p0, p1, alpha, beta = (float(x) for x in args.sprt.split(","))
        except ValueError:
            parser.error("--sprt takes P0,P1,ALPHA,BETA")
        if len(variants) != 1 or not 0 < p0 < p1 < 1 or not 0 < alpha < 1 or not 0 < beta < 1:
            parser.error("--sprt needs one variant and 0 < P0 < P1 < 1, 0 < ALPHA, BETA < 1")
        sprt = (p0, p1, alpha, beta)
    keys = {name: ledger_key(args, name, fields, against_search) for name, fields in variants.items()}
    done = {name: read_ledger(args.ledger, key) if args.ledger else {} for name, key in keys.items()}
    jobs = [(args.game, args.players, name, fields, args.against, i, args.seed, args.iterations,
             args.seconds, args.against_iterations, against_search)
            for i in range(args.games) for name, fields in variants.items() if i not in done[name]]
    rows = [outcome(name, i, args.players, done[name][i]) for name in variants for i in range(args.games)
            if i in done[name]]
    if args.ledger:
        print(f"ledger {args.ledger}: {len(rows)} games already played, {len(jobs)} to play", flush=True)
    start = time.perf_counter()
    verdict = sprt_line(rows, args.games, sprt) if sprt else None
    if verdict is not None and not verdict.startswith("continue"):
        jobs = []
    with multiprocessing.get_context("fork").Pool(args.workers) as pool:
        for name, index, result in pool.imap_unordered(play_indexed, jobs):
            if args.ledger:
                append_ledger(args.ledger, keys[name], index, result)
            rows.append(outcome(name, index, args.players, result))
            if sprt:
                verdict = sprt_line(rows, args.games, sprt)
                print(f"game {index} done: {verdict}", flush=True)
                if not verdict.startswith("continue"):
                    break  # the pool's exit stops the games under way: the test has its verdict
    if sprt:
        rows = [row for row in rows if row[1] < len(prefix({row[1]: row[2] for row in rows}))]
    results = [(name, index, credit, margin) for name, index, credit, margin, _ in rows]
    think: dict[str, list[float]] = {name: [] for name in variants}
    for name, _, _, _, seconds in rows:
        think[name].append(seconds)
    against_cap = f" at {args.against_iterations} iterations" if args.against_iterations else ""
    if against_search is not None:
        against_cap += f" (search {json.dumps(against_search, default=sorted)})"
    print(f"{args.game}, {args.players} players, {args.games} games against {args.against}{against_cap}, "
          f"{args.iterations} iterations"
          f"{f' or {args.seconds} s' if args.seconds else ''} per decision, seed {args.seed} "
          f"({time.perf_counter() - start:.0f} s)")
    names = list(variants)
    for name, line in zip(["", *names], summarize(results, names), strict=True):
        fields = json.dumps(variants[name], default=sorted) if name else ""  # sets of decision kinds as lists
        cost = f"  s/decision {sum(think[name]) / len(think[name]):.3f}  {fields}" if name else ""
        print(line + cost)
    for line in seat_lines(results, names, args.players):
        print(line)
    if sprt:
        print(f"SPRT H0 {sprt[0]:.0%} H1 {sprt[1]:.0%} alpha {sprt[2]} beta {sprt[3]}, cap {args.games}: {verdict}")
    sys.stdout.flush()
    return results


def sprt_line(rows: list[tuple], cap: int, sprt: tuple[float, float, float, float]) -> str:
    """The sequential test's state over the games finished in index order: the verdict, games read, the ratio."""
    credits = prefix({row[1]: row[2] for row in rows})
    p0, p1, alpha, beta = sprt
    verdict = sprt_verdict(credits, p0, p1, alpha, beta, cap)
    wins = sum(credits)
    return (f"{verdict} after {len(credits)} games in order ({wins:g} wins, "
            f"{wins / max(1, len(credits)):.1%}), LLR {sprt_llr(credits, p0, p1):+.3f}")


if __name__ == "__main__":
    main()
