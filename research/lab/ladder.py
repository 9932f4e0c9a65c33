"""The ladder: is every level measurably stronger than the one below it? Paired games between neighbouring levels.

    python -m research.lab.ladder --game opensky --players 2 --seeds 20 [--levels mcts-easy,mcts-normal] [--workers 2] \
        [--ledger bench/results/ladder-opensky-2p.jsonl]
    python -m research.lab.ladder --estimate          # CPU hours of the full table on this machine; plays nothing
    python -m research.lab.ladder --game aeroplanes --players 3 --levels mcts-normal,mcts-hard --as-built \
        --ledger bench/results/ladder-aeroplanes-3p.jsonl   # a level the game offers as another: its own search
    python -m research.lab.ladder --game opensky --players 2 --levels greedy,openspiel-ismcts \
        --openspiel-simulations 200
        # OpenSpiel's own ISMCTS through the adapter (research/lab/openspiel_bot.py; needs the research extra)

The levels default to the distinct strengths the game offers (`ai.levels.ladder`: OpenSky offers two, random and
greedy). With `--ledger` every finished game is appended to a JSONL file and a run started again plays only what
is missing (a line counts only for the same game, line-up, deal, iteration caps and code:
`research.lab.tournament.code_fingerprint`, which leaves out what plays no move).

For each neighbouring pair (lower, upper) every seed is played once per distinct rotation of the line-up (2 players:
upper-lower and lower-upper; n players: the levels alternate and the line-up is rotated through every seat, 2
distinct line-ups at 4 players), so the two levels meet on the same deals from the same seats: 2 x `--seeds` games
a pair in 2-player games. `--report` takes, per deal and line-up, the game played at the current caps and code
before any other, and says how many were not. Every
searching level plays at its free-core iteration cap (`ai.levels.free_core_iterations`, no time limit): the same
decisions on any machine, however busy. Reported per pair: the upper level's share of the win credit against its
fair share, with a 95% Wilson interval, and "separated" when the interval excludes the fair share; then a
Bradley-Terry rating of every level on the Elo scale, greedy = 0, with 95% intervals, over every game of the
listed levels in the ledger (`research.lab.rating`; openskill's ordinals moved with game order and games played).

`openspiel-ismcts` is no level of the platform: it is OpenSpiel's ISMCTS seated as a reference opponent, at
`--openspiel-simulations` simulations a decision (`research.lab.openspiel_bot`). Its ledger lines record that count as
its cap, and their code key adds a digest of the adapters, that bot and OpenSpiel's version, which the platform's
code fingerprint leaves out. `--iterations N` caps every searching level of the platform at N a decision instead
of its free-core cap (recorded as its cap): with `--as-built --levels mcts-normal,openspiel-ismcts` the two
searches meet at equal simulations, or at equal CPU with caps in the ratio of their measured speeds
(`python -m bench.refbots --calibrate`, bench/RESULTS.md "Against OpenSpiel's ISMCTS").
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import ai
from ai.bot import Bot, Budget
from ai.levels import CappedBot, free_core_iterations, played_as
from research.lab import background
from research.lab.match import MatchResult, play_match
from research.lab.rating import bradley_terry
from research.lab.tournament import append_ledger, code_fingerprint, game_seed, read_ledger, wilson

#: Decisions per seat in one game, as the ladder's own games made them (bench/results/ladder-*.jsonl, the mean over
#: every level; the 4-player rows scaled from the 2/3-player ones by the same game's ratio): the estimate's last
#: resort, for a level no ledger has played at its cap.
DECISIONS_PER_SEAT = {("opensky", 2): 47.0, ("aeroplanes", 3): 65.0, ("blueskies", 2): 38.0, ("opensky", 4): 27.0,
                      ("aeroplanes", 4): 47.0, ("blueskies", 4): 34.0}
#: The full table the issue asks for: 2 players in every game (Aeroplanes' smallest table is 3) and 4 in one
#: (OpenSky, whose whole ladder, random < greedy, a 4-player table can afford; Aeroplanes' or Blue Skies' search
#: levels at 4 players cost several CPU hours a pair: `--estimate --tables aeroplanes:4,blueskies:4`).
FULL_TABLE = [("opensky", 2), ("aeroplanes", 3), ("blueskies", 2), ("opensky", 4)]
#: Where the ladder's ledgers live (`ladder-<game>-<players>p.jsonl`), which the estimate reads its costs from.
LEDGERS = Path(__file__).resolve().parents[2] / "bench" / "results"
#: Games a pair at least: deals a pair are this over the line-ups, rounded up.
MIN_GAMES_A_PAIR = 40


def lineups(lower: str, upper: str, players: int) -> list[list[str]]:
    """Every rotation of the alternating line-up: each level meets the other from every seat."""
    base = [upper if i % 2 == 0 else lower for i in range(players)]
    rotations = [base[i:] + base[:i] for i in range(players)]
    if players % 2:  # an odd table: also the line-up with the other level in the majority
        other = [lower if level == upper else upper for level in base]
        rotations += [other[i:] + other[:i] for i in range(players)]
    # an even table's alternating line-up repeats every 2 rotations: each distinct line-up once (4 players: 2),
    # else every game would be played, stored and counted twice
    distinct: list[list[str]] = []
    for rotation in rotations:
        if rotation not in distinct:
            distinct.append(rotation)
    return distinct


#: The reference opponent from OpenSpiel (`research.lab.openspiel_bot.LEVEL`; imported only when seated).
OPENSPIEL = "openspiel-ismcts"


def _bot(level: str, game: str, as_built: bool, simulations: int, iterations: int | None = None):
    if level == OPENSPIEL:
        from research.lab.openspiel_bot import OpenSpielISMCTSBot

        return OpenSpielISMCTSBot(simulations)
    bot = CappedBot(level, game, as_built)
    if iterations is not None and bot.budget is not None:
        bot.budget = Budget(iterations=iterations)
    return bot


def _play(args: tuple[str, list[str], int, bool, int, int | None]) -> MatchResult:
    game, levels, seed, as_built, simulations, iterations = args
    return play_match(game, levels, seed,
                      bots=[_bot(level, game, as_built, simulations, iterations) for level in levels])


def _code(game: str, lineup: list[str]) -> str:
    """The code key of a ledger line: the platform's fingerprint, and with OpenSpiel's bot seated a digest of
    the adapters, that bot and OpenSpiel's version too (the platform's fingerprint leaves them out)."""
    code = code_fingerprint(game)
    if OPENSPIEL not in lineup:
        return code
    import hashlib
    from importlib.metadata import version

    root = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256(version("open-spiel").encode())
    for path in [*sorted((root / "engine" / "adapters").glob("*.py")), root / "research" / "lab" / "openspiel_bot.py"]:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return f"{code}+{digest.hexdigest()[:16]}"


@dataclass
class PairResult:
    lower: str
    upper: str
    games: int
    upper_credit: float
    upper_seats: int
    seats: int

    def share(self) -> tuple[float, float, float, float]:
        """The upper level's share of the win credit, its fair share (its share of seats) and a 95% interval."""
        low, high = wilson(self.upper_credit, self.games)
        return self.upper_credit / self.games, self.upper_seats / self.seats, low, high


def credit(result: MatchResult, level: str) -> float:
    """The win credit of `level`'s seats in one game (a shared win is split)."""
    winners = result.winners
    return sum(1 / len(winners) for seat in winners if result.levels[seat] == level) if winners else 0.0


def per_decision(results: list[MatchResult], level: str) -> float:
    """The mean search iterations of `level`'s seats a decision (forced ones, searched by nobody, included)."""
    seats = [(r.iterations[s], r.decisions[s]) for r in results for s, name in enumerate(r.levels) if name == level]
    decisions = sum(d for _, d in seats)
    return sum(i for i, _ in seats) / decisions if decisions else 0.0


def deals_for(players: int, seeds: int | None) -> int:
    """Deals a pair: `seeds` if given, else enough for `MIN_GAMES_A_PAIR` games over the line-ups."""
    return seeds if seeds is not None else -(-MIN_GAMES_A_PAIR // len(lineups("a", "b", players)))


def seat_iterations(game: str, players: int, level: str, ledgers: Path = LEDGERS, as_built: bool = False
                    ) -> float | None:
    """Search iterations one seat of `level` makes in a whole game at its current cap, the mean over the ladder
    ledger's games of that table (None: no game of the level at that cap there). Iterations, not seconds: the same
    on any machine, so the estimate only needs this machine's rate (`calibrate`)."""
    cap = free_core_iterations(level, game, as_built)
    path = ledgers / f"ladder-{game}-{players}p.jsonl"
    if cap is None or not path.exists():
        return None
    found = []
    for line in path.read_text().splitlines():
        try:
            entry = json.loads(line)
            if entry["key"]["caps"].get(level) != cap:
                continue
            result = entry["result"]
            found += [it for lv, it in zip(result["levels"], result["iterations"], strict=True) if lv == level]
        except (ValueError, KeyError, TypeError, AttributeError):
            continue  # a line cut short by a killed run
    return sum(found) / len(found) if found else None


def level_iterations(game: str, players: int, level: str, ledgers: Path = LEDGERS, as_built: bool = False
                     ) -> float:
    """Iterations a seat of `level` makes in a game: measured (`seat_iterations`), else the measured count of
    another search level of the game scaled by the caps' ratio, else the cap at every decision (an upper bound).
    `as_built`: the level's own search, even where the game offers it as another level."""
    cap = free_core_iterations(level, game, as_built)
    if cap is None:
        return 0.0
    measured = seat_iterations(game, players, level, ledgers, as_built)
    if measured is not None:
        return measured
    for other in ai.levels():  # any search measured in this table, as built: iterations scale with the cap
        other_cap = free_core_iterations(other, game, as_built=True)
        seen = seat_iterations(game, players, other, ledgers, as_built=True)
        if other_cap and seen is not None:
            return seen * cap / other_cap
    return DECISIONS_PER_SEAT[(game, players)] * cap


def calibrate(game: str, players: int, positions: int = 3, iterations: int = 1500,
              make: Callable[[], Bot] = lambda: ai.make_bot("mcts-normal")) -> float:
    """This machine's search iterations per CPU second in `game`, at `positions` decisions spread over a greedy
    self-play game (a first decision is faster than a mid-game one): a few seconds of CPU. `make`: the searching
    bot (default the `mcts-normal` level's own search; bench/refbots.py also times OpenSpiel's)."""
    import random
    import time

    from research.lab.selfplay import greedy_positions

    found = [(state.clone(), seat) for state, seat, _legal, _step in greedy_positions(game, players, 1, 1)]
    picks = [found[len(found) * (i + 1) // (positions + 1)] for i in range(positions)]
    done = spent = 0.0
    for index, (state, seat) in enumerate(picks):
        bot = make()
        start = time.process_time()
        bot.choose(state, seat, random.Random(index), ai.Budget(iterations=iterations))
        spent += time.process_time() - start
        done += bot.stats.iterations
    return done / spent


def estimate(seeds: int | None, table=FULL_TABLE, rate: dict[str, float] | None = None,
             ledgers: Path = LEDGERS, levels: list[str] | None = None,
             as_built: bool = False) -> list[tuple[str, int, int, float]]:
    """Games and CPU hours of each game's ladder per (game, players): the iterations each line-up's seats make in
    a game (`level_iterations`) over this machine's rate (`rate[game]`, iterations a CPU second; `calibrate`).
    `levels`: these neighbouring levels instead of the game's ladder (`as_built`: their own searches)."""
    out = []
    for game, players in table:
        speed = (rate or {}).get(game) or calibrate(game, players)
        deals, total, games = deals_for(players, seeds), 0.0, 0
        for lower, upper in itertools.pairwise(levels or ai.ladder(game)):
            for lineup in lineups(lower, upper, players):
                games += deals
                total += deals * sum(level_iterations(game, players, level, ledgers, as_built)
                                     for level in lineup) / speed
        out.append((game, players, games, total / 3600))
    return out


def _caps(game: str, names: list[str], as_built: bool = False, simulations: int = 0,
          iterations: int | None = None) -> dict[str, int | None]:
    """Each level's iteration cap a decision: OpenSpiel's `simulations`; a searching level's free-core cap, or
    `iterations` when given (a non-searching level has none)."""
    caps = {name: simulations if name == OPENSPIEL else free_core_iterations(name, game, as_built) for name in names}
    return {name: iterations if iterations is not None and cap is not None and name != OPENSPIEL else cap
            for name, cap in caps.items()}


def play_pair(pool: ProcessPoolExecutor, game: str, players: int, lower: str, upper: str, deals: int, seed: int,
              ledger: str | None, as_built: bool = False, simulations: int = 0,
              iterations: int | None = None) -> list[MatchResult]:
    """Every deal of one pair once per line-up; games already in the ledger are read, not played. `as_built`: each
    level plays its own search even where the game offers it as another (the caps in a ledger line tell which).
    `simulations`: OpenSpiel's bot's, when seated; `iterations`: every searching level's cap instead of its
    free-core one."""
    jobs = [(game, lineup, game_seed(seed, s), as_built, simulations, iterations) for s in range(deals)
            for lineup in lineups(lower, upper, players)]
    keys = [{"ladder": game, "lineup": lineup, "deal": deal_seed,
             "caps": _caps(game, lineup, as_built, simulations, iterations), "code": _code(game, lineup)}
            for game, lineup, deal_seed, *_ in jobs]
    done = {i: r for i, key in enumerate(keys) for r in read_ledger(ledger, key).values()} if ledger else {}
    todo = [i for i in range(len(jobs)) if i not in done]
    for i, result in zip(todo, pool.map(_play, [jobs[i] for i in todo]), strict=True):
        done[i] = result
        if ledger:
            append_ledger(ledger, keys[i], 0, result)
    return [done[i] for i in range(len(jobs))]


def recorded_pair(ledger: str, game: str, players: int, lower: str, upper: str, deals: int, seed: int,
                  as_built: bool = False, simulations: int = 0, iterations: int | None = None
                  ) -> tuple[list[MatchResult], int]:
    """The games of one pair a ledger holds, for a report of a run that has not finished or ran at another
    commit; plays nothing. Per deal and line-up the line played at the pair's current iteration caps and code is
    taken first, then one at the current caps by other code, then any other (the latest line of the best kind,
    never merely the first line found). Returns the games and how many of them were not played at the current
    caps and code."""
    wanted = {(tuple(lineup), game_seed(seed, s)) for s in range(deals) for lineup in lineups(lower, upper, players)}
    caps = _caps(game, [lower, upper], as_built, simulations, iterations)
    codes: dict[tuple, str] = {}  # line-up -> the current code key (OpenSpiel's line-ups hash more files)
    found: dict[tuple, tuple[int, MatchResult]] = {}
    with open(ledger, encoding="utf-8") as handle:
        for line in handle:
            try:
                entry = json.loads(line)
                key = entry["key"]
                ident = (tuple(key["lineup"]), key["deal"])
                result = MatchResult(**entry["result"])
            except (ValueError, KeyError, TypeError):
                continue  # a line cut short by a killed run
            if key.get("ladder") != game or ident not in wanted:
                continue
            same_caps = all(key.get("caps", {}).get(level) == caps[level] for level in (lower, upper))
            if ident[0] not in codes:
                codes[ident[0]] = _code(game, list(ident[0]))
            rank = 2 * same_caps + (same_caps and key.get("code") == codes[ident[0]])
            if ident not in found or rank >= found[ident][0]:
                found[ident] = (rank, result)
    return [found[k][1] for k in sorted(found)], sum(found[k][0] < 3 for k in found)


def main(argv: list[str] | None = None) -> list[PairResult]:
    background.yield_cpu_to_others()  # started niced with setsid, it yields to other sessions too
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="opensky")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--levels", default=None, help="neighbouring levels, weakest first (default: the game's "
                        "distinct strengths, ai.levels.ladder)")
    parser.add_argument("--seeds", type=int, default=None, help="deals per pair (games = seeds x line-ups; "
                        f"default: enough for {MIN_GAMES_A_PAIR} games a pair)")
    parser.add_argument("--ledger", default=None, metavar="FILE.jsonl", help="record games; resume from it")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--estimate", action="store_true", help="print the full table's CPU hours and stop")
    parser.add_argument("--tables", default=None, help="with --estimate: game:players,... (default: the full table)")
    parser.add_argument("--report", action="store_true", help="only report the --ledger's games (plays nothing)")
    parser.add_argument("--as-built", action="store_true", help="every level plays its own search, even where the "
                        "game offers it as another level (its profile's same_as): to measure "
                        "a level before offering it")
    parser.add_argument("--openspiel-simulations", type=int, default=100, metavar="N", help=f"{OPENSPIEL} (a level "
                        "name for --levels): OpenSpiel's ISMCTS through the adapter, N simulations a decision")
    parser.add_argument("--iterations", type=int, default=None, metavar="N", help="every searching level of the "
                        "platform at N iterations a decision instead of its free-core cap (to compare with "
                        f"{OPENSPIEL} at equal simulations or equal CPU)")
    args = parser.parse_args(argv)
    if args.estimate and args.levels and OPENSPIEL in args.levels.split(","):
        parser.error(f"--estimate prices the platform's levels only, not {OPENSPIEL}")
    if args.report and not args.ledger:
        parser.error("--report needs --ledger")
    names = args.levels.split(",") if args.levels else ai.ladder(args.game)
    if args.estimate:
        table = ([(g, int(p)) for g, p in (t.split(":") for t in args.tables.split(","))] if args.tables
                 else FULL_TABLE)
        total = 0.0
        chosen = args.levels.split(",") if args.levels else None
        for game, players, games, hours in estimate(args.seeds, table, levels=chosen, as_built=args.as_built):
            count = len(chosen or ai.ladder(game))
            print(f"{game:<11}{players}p  {count} levels  {games:>5} games  {hours:6.2f} CPU hours")
            total += hours
        deals = f"{args.seeds} deals" if args.seeds else f"at least {MIN_GAMES_A_PAIR} games"
        print(f"total {total:.2f} CPU hours on this machine at {deals} a pair (iterations a seat from the ladder "
              f"ledgers, this machine's iterations a CPU second measured now)")
        return []
    same = [level for level in names if played_as(level, args.game) != level]
    if same and not args.as_built:
        print(f"note: in {args.game} {', '.join(same)} plays as {', '.join(played_as(s, args.game) for s in same)}")
    results: list[PairResult] = []
    every: list[MatchResult] = []
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for lower, upper in itertools.pairwise(names):
            deals = deals_for(args.players, args.seeds)
            if args.report:
                played, stale = recorded_pair(args.ledger, args.game, args.players, lower, upper, deals, args.seed,
                                              args.as_built, args.openspiel_simulations, args.iterations)
                if stale:
                    print(f"note: {stale} of {len(played)} {upper} vs {lower} games were played at other iteration "
                          "caps or by other code than the current")
            else:
                played = play_pair(pool, args.game, args.players, lower, upper, deals, args.seed, args.ledger,
                                   args.as_built, args.openspiel_simulations, args.iterations)
            if not played:
                print(f"{args.game} {args.players}p  {upper:>11} vs {lower:<11} no games in the ledger")
                continue
            every += played
            upper_seats = sum(r.levels.count(upper) for r in played)
            pair = PairResult(lower, upper, len(played), sum(credit(r, upper) for r in played), upper_seats,
                              sum(len(r.levels) for r in played))
            results.append(pair)
            share, fair, low, high = pair.share()
            verdict = "separated" if low > fair or high < fair else "NOT separated"
            think = sum(sum(r.think_seconds) for r in played)
            searched = "" if not any(sum(r.iterations) for r in played) else (
                f"  iterations a decision {upper} {per_decision(played, upper):.0f}, "
                f"{lower} {per_decision(played, lower):.0f}")
            print(f"{args.game} {args.players}p  {upper:>11} vs {lower:<11} {pair.games:>4} games  {upper} "
                  f"{share:6.1%} [{low:.1%}, {high:.1%}] (fair {fair:.0%})  {verdict}  "
                  f"think {think:.0f} s{searched}", flush=True)
    if args.ledger and os.path.exists(args.ledger):  # the levels' other meetings in the ledger count too
        neighbours = set(itertools.pairwise(names))
        for lower, upper in itertools.combinations(names, 2):
            if (lower, upper) not in neighbours:
                every += recorded_pair(args.ledger, args.game, args.players, lower, upper,
                                       deals_for(args.players, args.seeds), args.seed, args.as_built,
                                       args.openspiel_simulations)[0]
    names = [name for name in names if any(name in r.levels for r in every)]
    if names:
        anchor = "greedy" if "greedy" in names else names[0]
        ratings = bradley_terry(every, anchor)
        print(f"Bradley-Terry Elo ({anchor} = 0; 95% interval; every game of these levels in the ledger): "
              + ", ".join(f"{name} {ratings[name].elo:+.0f} [{ratings[name].low:+.0f}, {ratings[name].high:+.0f}]"
                          for name in names))
    return results


if __name__ == "__main__":
    main()
