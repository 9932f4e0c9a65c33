"""Replay a tournament ledger's first games with the current code and say whether they come out the same.

    python -m research.lab.replay_ledger \
        research/2026-12-01-strength-targets/ledgers/tournament-opensky-2p-greedy.jsonl --games 10

A ledger's code fingerprint changes with any edit under ai/ or the game's engine, and the tournament
then refuses to resume or reprint it. When the decisions themselves did not change, the same games
still replay move for move: every bot is seeded by the tournament, and a search stopped by an
iteration cap (OpenSky's levels) does not depend on the machine. This replays game i with the
tournament's seed and seating (`research.lab.tournament.game_seed`, `seating`) and compares scores, winners and
search iterations per seat with the ledger's line. Games whose bots stop on a time limit (Aeroplanes,
Blue Skies) are not expected to replay exactly.

On a busy machine a capped search can still reach the level's time limit first and then decide
differently; `--iterations N` replays with that cap and no time limit, which is exact for games
whose original decisions all stopped on the cap (or earlier, on a decided choice).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ai.bot import Budget
from research.lab.match import play_match
from research.lab.tournament import game_seed, seating


def replay(ledger: Path, games: int, iterations: int | None = None) -> list[tuple[int, bool, list[int], list[int]]]:
    """Per replayed game: (index, identical, scores now, scores in the ledger). `iterations`: replay
    with that cap and no time limit instead of the ledger's budget."""
    rows = {}
    for line in ledger.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            rows[row["index"]] = row
    out = []
    for index in sorted(rows)[:games]:
        row = rows[index]
        key, then = row["key"], row["result"]
        budget = None if key["budget"] is None else Budget(**key["budget"])
        if iterations is not None:
            budget = Budget(seconds=None, iterations=iterations)
        now = play_match(key["game"], seating(key["lineup"], index), game_seed(key["seed"], index),
                         key["options"] or None, budget)
        same = (now.scores, now.winners, now.iterations) == (then["scores"], then["winners"], then["iterations"])
        out.append((index, same, now.scores, then["scores"]))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("ledger", type=Path)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--iterations", type=int, default=None,
                        help="replay with this iteration cap and no time limit (for a busy machine)")
    args = parser.parse_args(argv)
    if not args.ledger.is_file():
        parser.error(f"ledger {args.ledger} does not exist")
    if args.games < 1:
        parser.error(f"--games {args.games} must be at least 1")
    if args.iterations is not None and args.iterations < 1:
        parser.error(f"--iterations {args.iterations} must be at least 1")
    results = replay(args.ledger, args.games, args.iterations)
    for index, same, now, then in results:
        print(f"game {index}: scores now {now}, in the ledger {then}: {'same' if same else 'DIFFERENT'}")
    identical = sum(same for _, same, _, _ in results)
    print(f"{identical} of {len(results)} games replayed identically")
    return 0 if identical == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
