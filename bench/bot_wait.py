"""What a player waits for each bot decision, at every level a game offers, on `make run`'s worker pool.

    python -m bench.bot_wait [--tables opensky:2,aeroplanes:3,blueskies:2] [--levels offered|a,b] [--games 2]
                             [--concurrency 2] [--think 1] [--warmup 8] [--seconds 45] [--json out.json]

For each table and each level the game offers (`ai.levels.ladder`, weakest first), a fresh platform on loopback
(bench.stack: the game-state service and ONE Celery worker with a prefork pool of `--concurrency` processes, as
`make run` starts it: services/dev/stack.py STACK_WORKER_CONCURRENCY, 2) and `--games` scripted humans, each in
seat 0 of a game whose other seats are bots of the level (bench.bot_load's humans: they watch their game, think a
log-normal time of median `--think` s and play a random legal action; a finished game is replaced by the next seed).
Every setting of the bots is production's: the degradation policy at BOT_DEGRADE_AFTER_S=3, follow-ups first.

A bot decision's wait is its queue wait plus its thinking, as the worker logs them for every decision in the
`--seconds` window after `--warmup` (`waited X s, thought Y s`): from the game's commit that made the bot's seat act
to the bot's move being decided (the submission after it takes milliseconds). Reported per level: decisions, the
wait's p50 / p95 / max, the thinking's mean and p95, the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from typing import Any

from ai.levels import ladder
from bench.bot_load import phase

#: production's degradation threshold (services/common/settings.py BOT_DEGRADE_AFTER_S)
THRESHOLD_S = 3.0


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", default="opensky:2,aeroplanes:3,blueskies:2")
    parser.add_argument("--levels", default="offered", help="'offered' (each game's ladder) or a comma list")
    parser.add_argument("--games", type=int, default=2, help="concurrent human-against-bot games per level")
    parser.add_argument("--concurrency", type=int, default=2, help="the worker's prefork pool (make run: 2)")
    parser.add_argument("--think", type=float, default=1.0, help="median human think time, seconds")
    parser.add_argument("--ramp", type=float, default=2.0)
    parser.add_argument("--warmup", type=float, default=8.0)
    parser.add_argument("--seconds", type=float, default=45.0)
    parser.add_argument("--redispatch", type=float, default=15.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    tables = [(g, int(p)) for g, _, p in (t.partition(":") for t in args.tables.split(","))]
    print(f"bot decision waits: {args.games} games per level, one worker of {args.concurrency} processes; load "
          f"average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    rows = []
    for game, players in tables:
        levels = ladder(game) if args.levels == "offered" else args.levels.split(",")
        for level in levels:
            args.level = level
            row = asyncio.run(phase("on", THRESHOLD_S, True, args, [(game, players)]))
            row.update(game=game, players=players)
            rows.append(row)
    print("\n| table | level | decisions | wait p50 / p95 / max s | think mean / p95 s | load |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['game']} {r['players']}p | `{r['level']}` | {r['decisions']} | {r['decision_wait_p50_s']:.2f} / "
              f"**{r['decision_wait_p95_s']:.2f}** / {r['decision_wait_max_s']:.2f} | {r['think_mean_s']:.3f} / "
              f"{r['think_p95_s']:.3f} | {r['load_before']:.1f}->{r['load_after']:.1f} |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"args": vars(args), "rows": rows}, out, indent=1)
    return rows


if __name__ == "__main__":
    main()
