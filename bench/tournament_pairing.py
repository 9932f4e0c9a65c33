"""Tournament pairing: speed and quality of Swiss rounds and arena re-seating (services/tournaments, pure).

    python -m bench.tournament_pairing --players 10000 --seats 4 --rounds 7 --runs 3
    python -m bench.tournament_pairing --arena --rate 1000 --seconds 30 --runs 3

Swiss: `--players` join with random seeds; each round is paired (`Swiss.pair_next`: ranking, byes, seating) and
then every table gets a seeded random result through the one result source (services/common/standings.places).
Per round, the median over `--runs` events of the pairing time, and the quality: the repeat-opponent rate (pairs
at a table who met before / pairs seated) and the standings spread (per table, the distance in the round's
standings between its best and worst placed player, mean and max over tables; a table of N by standings has
at least N-1).

Arena: `--rate` games end every simulated second (the game lengths are drawn so that many are running:
`--rate` x `--mean-s` tables); each second records every finished table (`Arena.record`) and seats the queue
(`Arena.seat`). Reports the CPU time per simulated second (median and p95; under 1 s means one process keeps up),
the rematch rate (a table holding a pair that met at the last table of either) and the standings spread per table
(distance in the standings of all players between its best and worst placed player, every 5th second).
"""

from __future__ import annotations

import argparse
import heapq
import os
import random
import statistics
import time

from services.common.standings import places
from services.tournaments.arena import Arena, ArenaSettings
from services.tournaments.seating import repeats
from services.tournaments.swiss import Swiss, SwissSettings


def _result(rng: random.Random, seats: int) -> tuple[list[int], list[int]]:
    scores = [rng.randrange(20) for _ in range(seats)]
    return places([(s,) for s in scores]), scores


def swiss_run(players: int, seats: int, rounds: int, seed: int) -> list[dict[str, float]]:
    """One event; per round: seconds to pair, repeat rate, standings spread (mean, max)."""
    rng = random.Random(seed)
    event = Swiss(SwissSettings(seats=seats, rounds=rounds))
    for i in range(players):
        event.join(f"p{i}", seed=rng.random())
    out = []
    while not event.finished():
        met = {p: event.tally.met(p) for p in event.tally.records}
        rank = {s.player: i for i, s in enumerate(event.tally.ranked())}
        started = time.process_time()
        pairing = event.pair_next()
        took = time.process_time() - started
        tables = [t.players for t in pairing.tables]
        pairs = sum(len([p for p in t if p]) * (len([p for p in t if p]) - 1) // 2 for t in tables)
        spreads = [max(rank[p] for p in t if p) - min(rank[p] for p in t if p) for t in tables]
        out.append({"seconds": took, "repeat_rate": repeats(tables, met) / pairs,
                    "spread_mean": statistics.fmean(spreads), "spread_max": max(spreads)})
        for table in pairing.tables:
            placed, scores = _result(rng, seats)
            event.record(pairing.round, table.number, placed, scores)
    return out


def arena_run(rate: int, seconds: int, seats: int, mean_s: float, seed: int) -> dict[str, float]:
    """`seconds` simulated seconds at `rate` games ending a second; CPU seconds per simulated second."""
    rng = random.Random(seed)
    players = int(rate * mean_s * seats)             # `rate` x `mean_s` tables running
    arena = Arena(ArenaSettings(seats=seats, start_ms=0, end_ms=(seconds + 10) * 1000))
    for i in range(players):
        arena.join(f"p{i}", 0, seed=rng.random())
    running: list[tuple[int, int, tuple[str | None, ...]]] = []
    counter = 0
    per_second, seated, rematched, spreads, ended = [], 0, 0, [], 0
    for second in range(seconds + 1):
        now = second * 1000
        finished = []
        while running and running[0][0] <= now:
            finished.append(heapq.heappop(running))
        began = time.process_time()
        for ends, _, table in finished:
            placed, scores = _result(rng, seats)
            arena.record(table, placed, scores, ends)
        took = time.process_time() - began
        # the report's standings as seating sees them, taken outside the timed part (seating reads the tally)
        rank = {r.player: i for i, r in enumerate(arena.ranked())} if second % 5 == 0 else {}
        began = time.process_time()
        tables = arena.seat(now)
        took += time.process_time() - began
        for table in tables:
            humans = [p for p in table if p]
            rematched += any(b in arena.last_opponents.get(a, ()) for a in humans for b in humans if a != b)
            if rank:
                spreads.append(max(rank[p] for p in humans) - min(rank[p] for p in humans))
            counter += 1
            # exponential lengths: the first tables' ends are already spread as in a steady state
            heapq.heappush(running, (now + max(1, int(rng.expovariate(1 / mean_s) * 1000)), counter, table))
        seated += len(tables)
        if second >= 1:
            ended += len(finished)
            per_second.append(took)
    per_second.sort()
    return {"players": players, "ended_per_s": ended / seconds, "cpu_s_median": statistics.median(per_second),
            "cpu_s_p95": per_second[int(0.95 * (len(per_second) - 1))], "rematch_rate": rematched / max(seated, 1),
            "spread_mean": statistics.fmean(spreads) if spreads else 0.0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--arena", action="store_true", help="arena re-seating instead of Swiss rounds")
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--rate", type=int, default=1000, help="arena: games ending per second")
    parser.add_argument("--seconds", type=int, default=30, help="arena: simulated seconds")
    parser.add_argument("--mean-s", type=float, default=10.0, help="arena: mean game length, simulated s")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs)")
    if args.arena:
        runs = [arena_run(args.rate, args.seconds, args.seats, args.mean_s, args.seed + r) for r in range(args.runs)]
        print(f"arena: {runs[0]['players']} players at {args.seats}-seat tables, {args.rate} games ending a "
              f"second for {args.seconds} s, median of {args.runs} runs (CPU seconds per simulated second)")
        for key in ("ended_per_s", "cpu_s_median", "cpu_s_p95", "rematch_rate", "spread_mean"):
            print(f"  {key:14} {statistics.median(r[key] for r in runs):.4f}   runs: "
                  + " ".join(f"{r[key]:.4f}" for r in runs))
    else:
        runs = [swiss_run(args.players, args.seats, args.rounds, args.seed + r) for r in range(args.runs)]
        print(f"swiss: {args.players} players at {args.seats}-seat tables, {args.rounds} rounds, median of "
              f"{args.runs} runs (CPU seconds to pair the round)")
        print("round  pair_s  repeat_rate  spread_mean  spread_max")
        for i in range(args.rounds):
            med = {k: statistics.median(r[i][k] for r in runs) for k in runs[0][i]}
            print(f"{i + 1:5}  {med['seconds']:6.3f}  {med['repeat_rate']:11.5f}  {med['spread_mean']:11.2f}  "
                  f"{med['spread_max']:10.0f}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
