"""Bot tournaments: many seeded games in parallel processes, with a summary table.

    python -m research.lab.tournament --game opensky --players 2 --bots mcts-normal,greedy --games 200 --seed 1

`--bots` lists one level per seat; if it names fewer levels than players, the
last one fills the remaining seats (`--players 4 --bots mcts-normal,greedy` is
mcts-normal against three greedy bots). Seats are rotated fairly: game g shifts
the line-up by g places, so each level plays each seat equally often (exactly
so when --games is a multiple of --players). Game g is seeded from
(--seed, g), so a run is reproducible whatever the number of workers.

The table gives, per level: win credit (a shared victory of k seats credits
1/k to each), the win rate with its 95% Wilson interval, the fair share
(seats of that level / players), the mean final score and the mean think time
per decision.

`--ledger FILE.jsonl` makes a long tournament resumable: every finished game is
appended as one JSON line, and a rerun of the same command skips the games
already there. Each line carries the tournament's settings and a fingerprint
of the source of `ai/`, `engine/` and the game loop, and only lines whose settings and
fingerprint match the current run count, so games played by other code are
never mixed into a result. The fingerprint leaves out the other games' engine
packages and heuristic modules, so work on one game does not void another's.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import math
import multiprocessing
import os
import sys
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import engine
from ai.bot import Budget
from ai.games import profile
from ai.levels import levels as known_levels
from research.lab.match import MatchResult, play_match


def wilson(successes: float, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval for a proportion (successes may be fractional, for shared wins)."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    # at p = 0 (p = 1) the lower (upper) bound is exactly 0 (1); rounding must not put it past p
    low = 0.0 if p <= 0 else max(0.0, centre - half)
    high = 1.0 if p >= 1 else min(1.0, centre + half)
    return low, high


@dataclass(frozen=True, slots=True)
class Job:
    game: str
    lineup: tuple[str, ...]
    index: int
    seed: int
    options: dict
    budget: Budget | None


def game_seed(seed: int, index: int) -> int:
    return (seed * 1_000_003 + index) % 2**31


def seating(lineup: Sequence[str], index: int) -> list[str]:
    """Levels by seat for game `index`: the line-up rotated by `index` places."""
    n = len(lineup)
    return [lineup[(seat + index) % n] for seat in range(n)]


#: Sources under ai/ and engine/ that decide no game's moves: what is published about the levels (the ladders'
#: figures and their fitted output; the fit itself is a research tool, `research.lab.ladder_fit`) and the OpenSpiel
#: and PettingZoo adapters (which drive the engines for other libraries; no level plays through them).
NOT_PLAY = {"ai/level_figures.py", "ai/ladders.json", "engine/adapters"}
#: The research harness that decides a recorded game besides the bots and the engine: the game loop (it seeds each
#: seat's bot) and the tournaments' deals and seating. It lives here, not in `ai/`, because no bot worker runs it
#: (a worker plays one seat of a game the game-state service deals); the rest of `research/` plays no move.
HARNESS = ("research/lab/match.py", "research/lab/tournament.py")
MODELS = "ai/policy/models"
#: The bot profiles, one module a game (`ai.games`).
PROFILES = "ai/games"


def played_models(game: str) -> set[str]:
    """The model files (in `ai/policy/models`) some level plays `game` with: the `fast` level's and the priors and
    leaf values of the game's own search settings."""
    entry = profile(game)
    names = {entry.fast_model.file} if entry.fast_model else set()
    for config in entry.search.values():
        names |= {name for name in (config.policy_prior, config.value_model) if name}
    return names


def code_fingerprint(game: str) -> str:
    """sha256 over the Python and JSON sources that decide `game`'s outcomes in a ledger: the bots and engines (ai/
    and engine/) and the harness that plays them (`HARNESS`). Of ai/ and engine/ it leaves out the engine packages,
    heuristic modules and fitted models of the other games (so work on one game leaves another's ledger valid) and
    what plays no move (`NOT_PLAY`: the published figures, so writing a ladder's results does not void its ledger).
    The research tools (`research/`) are outside ai/ and count only for the harness. Of the learned models
    (`ai/policy/models`) only the files that play the game count: the `fast` level's and those its search levels
    name as prior or leaf value (the game's profile, `ai.games`). Of the profiles (`ai/games/`) only the game's own
    counts, and of it only what plays (`BotProfile.play_key`), not its measured figures."""
    root = Path(__file__).resolve().parents[2]
    others = [g for g in engine.games() if g != game]
    foreign = {f"engine/{g}" for g in others} | NOT_PLAY
    foreign |= {f"ai/heuristics/{g}.py" for g in others} | {f"ai/heuristics/fitted/{g}.json" for g in others}
    shipped = {f"{MODELS}/{name}" for name in played_models(game)}
    sources = [path for package in ("ai", "engine") for path in sorted((root / package).rglob("*"))]
    digest = hashlib.sha256()
    for path in [*sources, *(root / name for name in HARNESS)]:
        relative = path.relative_to(root).as_posix()
        if relative.startswith(MODELS + "/"):
            if relative not in shipped:
                continue
        elif path.suffix not in (".py", ".json") or "__pycache__" in path.parts:
            continue
        if any(relative == f or relative.startswith(f + "/") for f in foreign):
            continue
        content = path.read_bytes()
        if relative.startswith(PROFILES + "/") and relative != f"{PROFILES}/__init__.py":
            if relative != f"{PROFILES}/{game}.py":
                continue  # another game's profile
            content = profile(game).play_key().encode()
        digest.update(relative.encode())
        digest.update(b"\0")
        digest.update(content)
    return digest.hexdigest()[:16]


def ledger_key(game: str, lineup: Sequence[str], seed: int, options: dict, budget: Budget | None) -> dict:
    """The settings a ledger line must share with the run to count in it."""
    return {
        "game": game,
        "lineup": list(lineup),
        "seed": seed,
        "options": options,
        "budget": None if budget is None else dataclasses.asdict(budget),
        "code": code_fingerprint(game),
    }


def read_ledger(path: str, key: dict) -> dict[int, MatchResult]:
    """Finished games of this tournament already in the ledger, by game index."""
    done: dict[int, MatchResult] = {}
    if not os.path.exists(path):
        return done
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # a line cut short by a killed run
            if isinstance(entry, dict) and entry.get("key") == key:
                done[int(entry["index"])] = MatchResult(**entry["result"])
    return done


def append_ledger(path: str, key: dict, index: int, result: MatchResult) -> None:
    """One line per game; a line left unfinished by a killed run is closed first, never extended."""
    with open(path, "ab+") as raw:
        raw.seek(0, os.SEEK_END)
        if raw.tell():
            raw.seek(-1, os.SEEK_END)
            if raw.read(1) != b"\n":
                raw.write(b"\n")
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps({"key": key, "index": index, "result": dataclasses.asdict(result)}) + "\n")


def run_job(job: Job) -> MatchResult:
    return play_match(job.game, seating(job.lineup, job.index), game_seed(job.seed, job.index), job.options, job.budget)


def run_indexed_job(job: Job) -> tuple[int, MatchResult]:
    return job.index, run_job(job)


@dataclass(slots=True)
class Tally:
    """Per-level totals over a tournament."""

    seats_per_game: int = 0
    wins: float = 0.0
    score_sum: float = 0.0
    score_count: int = 0
    think: float = 0.0
    decisions: int = 0
    iterations: int = 0
    extra: dict = field(default_factory=dict)


def summarize(lineup: Sequence[str], results: Sequence[MatchResult]) -> dict[str, Tally]:
    tallies: dict[str, Tally] = {}
    for level in lineup:
        tallies.setdefault(level, Tally()).seats_per_game += 1
    for result in results:
        share = 1.0 / len(result.winners) if result.winners else 0.0
        for seat, level in enumerate(result.levels):
            t = tallies[level]
            if seat in result.winners:
                t.wins += share
            t.score_sum += result.scores[seat]
            t.score_count += 1
            t.think += result.think_seconds[seat]
            t.decisions += result.decisions[seat]
            t.iterations += result.iterations[seat]
    return tallies


def format_table(lineup: Sequence[str], tallies: dict[str, Tally], games: int) -> str:
    players = len(lineup)
    rows = [
        f"{'bot':<12} {'seats':>5} {'wins':>7} {'win rate':>8} {'95% CI':>15} {'fair':>5} "
        f"{'mean score':>10} {'s/decision':>10} {'iter/decision':>13}"
    ]
    for level, t in tallies.items():
        lo, hi = wilson(t.wins, games)
        rate = t.wins / games if games else 0.0
        mean_score = t.score_sum / t.score_count if t.score_count else 0.0
        per_decision = t.think / t.decisions if t.decisions else 0.0
        iters = t.iterations / t.decisions if t.decisions else 0.0
        rows.append(
            f"{level:<12} {t.seats_per_game:>5} {t.wins:>7.1f} {rate:>8.1%} {f'[{lo:.1%}, {hi:.1%}]':>15} "
            f"{t.seats_per_game / players:>5.0%} {mean_score:>10.1f} {per_decision:>10.4f} {iters:>13.0f}"
        )
    return "\n".join(rows)


def plot(path: str, title: str, lineup: Sequence[str], tallies: dict[str, Tally], games: int) -> None:
    """Bar chart of win rates with their 95% intervals and each level's fair share."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(tallies)
    rates = [tallies[n].wins / games for n in names]
    cis = [wilson(tallies[n].wins, games) for n in names]
    lower = [max(0.0, r - lo) for r, (lo, _) in zip(rates, cis)]
    upper = [max(0.0, hi - r) for r, (_, hi) in zip(rates, cis)]
    fig, ax = plt.subplots(figsize=(1.8 + 1.6 * len(names), 4))
    ax.bar(names, rates, yerr=[lower, upper], capsize=8, color="#4c78a8")
    for i, n in enumerate(names):
        fair = tallies[n].seats_per_game / len(lineup)
        ax.hlines(fair, i - 0.4, i + 0.4, colors="#e45756", linestyles="dashed", label="fair share" if i == 0 else None)
    ax.set_ylim(0, 1)
    ax.set_ylabel("win rate (95% Wilson CI)")
    ax.set_title(textwrap.fill(title, 70), fontsize=8)
    ax.legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", required=True, choices=engine.games())
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--bots", required=True, help="comma-separated levels, one per seat (last one repeats)")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--budget", type=float, default=None, help="think seconds per decision for searching bots")
    parser.add_argument("--iterations", type=int, default=None, help="iteration cap per decision for searching bots")
    parser.add_argument("--options", default="{}", help="game options as a JSON object")
    parser.add_argument("--plot", default=None, metavar="FILE.png")
    parser.add_argument("--ledger", default=None, metavar="FILE.jsonl",
                        help="append finished games here and skip those already recorded (resumable runs)")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    game = engine.get(args.game)
    if not game.min_players <= args.players <= game.max_players:
        parser.error(f"{game.title} takes {game.min_players}-{game.max_players} players")
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    unknown = [b for b in bots if b not in known_levels()]
    if unknown or not bots:
        parser.error(f"unknown level(s) {unknown}; known: {', '.join(known_levels())}")
    if len(bots) > args.players:
        parser.error("more bots than players")
    args.lineup = tuple(bots + [bots[-1]] * (args.players - len(bots)))
    if args.games < 1 or args.workers < 1:
        parser.error("--games and --workers must be at least 1")
    try:
        args.options = json.loads(args.options)
        game.resolve_options(args.options)
    except ValueError as exc:
        parser.error(f"--options: {exc}")
    args.budget_obj = (
        Budget(seconds=args.budget, iterations=args.iterations) if args.budget or args.iterations else None
    )
    return args


def main(argv: list[str] | None = None) -> dict[str, Tally]:
    args = parse_args(argv)
    from tqdm import tqdm

    key = ledger_key(args.game, args.lineup, args.seed, args.options, args.budget_obj) if args.ledger else {}
    done = read_ledger(args.ledger, key) if args.ledger else {}
    results: list[MatchResult] = [done[i] for i in sorted(done) if i < args.games]
    jobs = [Job(args.game, args.lineup, i, args.seed, args.options, args.budget_obj)
            for i in range(args.games) if i not in done]
    progress = tqdm(total=args.games, initial=len(results), desc=f"{args.game} {'/'.join(args.lineup)}",
                    disable=args.no_progress, file=sys.stderr)

    def record(index: int, result: MatchResult) -> None:
        results.append(result)
        if args.ledger:
            append_ledger(args.ledger, key, index, result)
        progress.update()

    if args.workers == 1:
        for job in jobs:
            record(job.index, run_job(job))
    elif jobs:
        with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
            for index, result in pool.imap_unordered(run_indexed_job, jobs):
                record(index, result)
    progress.close()
    tallies = summarize(args.lineup, results)
    budget = "level defaults" if args.budget_obj is None else f"{args.budget_obj}"
    title = f"{args.game}, {args.players} players, {args.games} games, seed {args.seed}, budget: {budget}"
    print(title)
    print(format_table(args.lineup, tallies, args.games))
    if args.plot:
        plot(args.plot, title, args.lineup, tallies, args.games)
        print(f"plot written to {args.plot}")
    return tallies


if __name__ == "__main__":
    main()
