"""Does a level hand the subsidy race over? Paired games of a rule variant against the scripted subsidy race.

    python -m research.lab.subsidy_race --players 2 --games 400 --seed 500 --variant fast='{}' \\
        --variant guard='{"callsign_race": 10}' --ledger research/<folder>/ledgers/race-2p-seed500.jsonl

Game g (seed (--seed, g)) seats the scripted opponent (`ai.scripted.opensky_subsidy_race`) in seat
`variant_seat(g, players)`, so over `players` consecutive games it plays every seat, and the variant in every
other seat. A variant is the `fast` level's rule at that player count (`ai.games.fast_rule_params`) with some
`RuleParams` fields replaced (`'{}'`: the level as it plays), so every variant meets the same deals and seatings
and the differences are paired. Each game records how many of the six cubes the scripted seat took (OS-7) and who
won; the ledger (one JSON line a game, keyed by the settings and the code fingerprint) makes a run resumable.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from typing import Any

import engine
from ai.bot import Bot
from ai.games import fast_rule_params
from ai.greedy import GreedyBot
from ai.heuristics import with_params
from ai.scripted.opensky_subsidy_race import subsidy_race_bot
from research.lab import background
from research.lab.paired import parse_fields, variant_seat
from research.lab.tournament import code_fingerprint, game_seed, wilson

GAME = "opensky"


def rule_bot(players: int, fields: dict[str, Any]) -> Callable[[], Bot]:
    """A maker of the `fast` level's rule at `players` with `fields` replaced (a variant's seats)."""
    params = {**fast_rule_params(GAME, players), **fields}
    return lambda: GreedyBot(with_params(GAME, params))


def play(players: int, make: Callable[[], Bot], index: int, seed: int, options: dict[str, Any]) -> dict[str, Any]:
    """One game, the racer in seat `variant_seat(index, players)` and a bot of `make` in every other: the racer's
    seat, its cubes, its score, the best other score, and its win credit."""
    game = engine.get(GAME)
    seat = variant_seat(index, players)
    bots = [subsidy_race_bot() if s == seat else make() for s in range(players)]
    state: Any = game.new(players, game_seed(seed, index), options)
    master = random.Random(game_seed(seed, index) * 7919 + 17)
    rngs = [random.Random(master.getrandbits(64)) for _ in range(players)]
    while not state.is_over():
        for s in state.to_act():
            if state.legal_actions(s):
                state.apply(s, bots[s].choose(state, s, rngs[s]))
    scores, winners = state.scores(), state.winners()
    return {
        "seat": seat,
        "cubes": sum(1 for owner in state.cube_owner if owner == seat),
        "score": scores[seat],
        "best_other": max(x for s, x in enumerate(scores) if s != seat),
        "racer_credit": 1.0 / len(winners) if seat in winners else 0.0,
    }


def handed_over(rows: list[dict[str, Any]], players: int) -> list[str]:
    """What the decision rule (research/2026-12-06-opensky-subsidy-race) finds wrong in these games: the racer
    took all six cubes in some game, or its win credit is separated above its fair share 1/players."""
    faults = []
    six = sum(1 for r in rows if r["cubes"] == 6)
    if six:
        faults.append(f"the racer took all six cubes in {six} of {len(rows)} games")
    low, _ = wilson(sum(r["racer_credit"] for r in rows), len(rows))
    if low > 1 / players:
        faults.append(f"the racer's win credit is separated above a fair 1/{players} (lower end {low:.1%})")
    return faults


def summary(name: str, rows: list[dict[str, Any]], players: int) -> str:
    """The variant's line: games, the racer's cubes (mean, all six, by its seat), the variant's win credit
    against it with a Wilson interval (fair share: (players - 1) / players)."""
    n = len(rows)
    credit = sum(1.0 - r["racer_credit"] for r in rows)
    low, high = wilson(credit, n)
    by_seat = []
    for s in range(players):
        seat_rows = [r for r in rows if r["seat"] == s]
        by_seat.append(f"{sum(r['cubes'] for r in seat_rows) / max(1, len(seat_rows)):.2f}")
    six = sum(1 for r in rows if r["cubes"] == 6)
    return (f"{name:<12}{n:>6}  racer cubes {sum(r['cubes'] for r in rows) / max(1, n):.2f} (by racer seat "
            f"{' / '.join(by_seat)}; all six in {six})  variant win credit {credit / max(1, n):.1%} "
            f"[{low:.1%}, {high:.1%}]")


def main(argv: list[str] | None = None) -> dict[str, list[dict[str, Any]]]:
    background.yield_cpu_to_others()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--options", default="{}", help='game options as JSON, e.g. \'{"map": "north_america"}\'')
    parser.add_argument("--variant", action="append", default=[], help="NAME=JSON of RuleParams fields")
    parser.add_argument("--ledger", help="JSON lines, one a game: resumes a run with the same settings")
    args = parser.parse_args(argv)
    from ai.heuristics.opensky import RuleParams

    try:
        variants = [parse_fields(v, RuleParams) for v in (args.variant or ["fast={}"])]
    except ValueError as exc:
        parser.error(str(exc))
    options = json.loads(args.options)
    code = code_fingerprint(GAME)
    done: dict[tuple[str, int], dict[str, Any]] = {}
    keys = {name: {"players": args.players, "seed": args.seed, "options": options, "fields": fields, "code": code}
            for name, fields in variants}
    if args.ledger:
        try:
            with open(args.ledger, encoding="utf-8") as handle:
                for line in handle:
                    try:
                        entry = json.loads(line)
                    except ValueError:
                        continue
                    name = entry.get("variant")
                    if name in keys and entry.get("key") == keys[name]:
                        done[(name, int(entry["index"]))] = entry["result"]
        except FileNotFoundError:
            pass
    results: dict[str, list[dict[str, Any]]] = {}
    for name, fields in variants:
        rows = []
        for index in range(args.games):
            row = done.get((name, index))
            if row is None:
                row = play(args.players, rule_bot(args.players, fields), index, args.seed, options)
                if args.ledger:
                    with open(args.ledger, "a", encoding="utf-8") as handle:
                        handle.write(json.dumps({"variant": name, "key": keys[name], "index": index,
                                                 "result": row}) + "\n")
            rows.append(row)
        results[name] = rows
    print(f"opensky, {args.players} players, {args.games} games per variant, seed {args.seed}, options {options}")
    for name, rows in results.items():
        print(summary(name, rows, args.players))
    names = list(results)
    for name in names[1:]:
        diffs = [(1 - b["racer_credit"]) - (1 - a["racer_credit"]) for a, b in zip(results[names[0]], results[name],
                                                                                   strict=True)]
        mean = sum(diffs) / len(diffs)
        var = sum((d - mean) ** 2 for d in diffs) / max(1, len(diffs) - 1)
        print(f"{name} - {names[0]}: win credit {mean:+.3f} ± {1.96 * (var / len(diffs)) ** 0.5:.3f} (95%, paired)")
    sys.stdout.flush()
    return results


if __name__ == "__main__":
    main()
