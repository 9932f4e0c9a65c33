"""Paired games of the policy level against a ladder level, on deals never used for training.

Why paired: the ladder's method (`research.lab.ladder`): every deal is played once with each seating (the model first,
then the opponent first), so both meet the same cards from the same seats; the share of the win credit gets a 95%
Wilson interval. The opponent is a ladder level's own search (as built, even where the game offers it as another
level) held to its free-core iteration cap (`ai.levels.CappedBot`); `mcts-normal:greedy-prior` is that level's
search without its game's own settings (`ai.levels.split_level`: Blue Skies' `mcts-normal` before 3 December).
Deals are `research.lab.tournament.game_seed(seed, i)`, all below 2**31; training deals start at 10**10
(`research.train.label.TRAIN_DEAL_BASE`).

The evaluation ledger (JSONL, one line a game, resumable: a rerun plays only the games missing) keys each game by
model file digest, opponent and its cap, line-up, deal and code fingerprint, and records the model seat's CPU
seconds per decision (`thread_time`), from which the p50/p99 figures come.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from ai.ismcts import mean_and_error
from ai.levels import CappedBot
from ai.policy.bot import PolicyBot
from ai.policy.model import file_digest
from research.lab.ladder import credit, lineups
from research.lab.match import MatchResult, play_match
from research.lab.tournament import code_fingerprint, game_seed, wilson

MODEL = "learned-policy"
TRAIN_SOURCES = ("features.py", "model.py", "bot.py")


def train_code() -> str:
    """sha256 of the sources that make the policy level's moves (ai/policy/features.py, model.py, bot.py)."""
    digest = hashlib.sha256()
    here = Path(__file__).resolve().parents[2] / "ai" / "policy"
    for name in TRAIN_SOURCES:
        digest.update((here / name).read_bytes())
    return digest.hexdigest()[:16]


def _loose(key: dict) -> str:
    """A ledger key without its code fingerprints: the same model, opponent, cap, line-up and deal."""
    return json.dumps({k: v for k, v in key.items() if k not in ("code", "train_code")}, sort_keys=True)


def solo_lineups(player: str, rest: str, players: int) -> list[list[str]]:
    """`player` in one seat and `rest` in every other, once from each seat: the issue's many-player target shape
    (one model against three greedy bots at a 4-player table, fair share 1/4), unlike the ladder's alternating
    line-ups (`research.lab.ladder.lineups`), where the model holds half the seats."""
    return [[player if seat == k else rest for seat in range(players)] for k in range(players)]


def opponent_cap(opponent: str, game: str) -> int | None:
    """The opponent's iteration cap in `game`, part of every ledger key (None: it does not search); ValueError for
    an unknown level or search kind."""
    budget = CappedBot(opponent, game, as_built=True).budget
    return budget.iterations if budget else None


def _pair_key(key: dict) -> str:
    """A ledger key without the model and code: the same game for another model (opponent, cap, line-up, deal)."""
    return json.dumps({k: v for k, v in key.items() if k not in ("model", "code", "train_code")}, sort_keys=True)


def _margin(result: MatchResult) -> float:
    """The model's first seat's score over the best other seat's."""
    mine = result.scores[result.levels.index(MODEL)]
    return mine - max(s for k, s in enumerate(result.scores) if result.levels[k] != MODEL)


def paired_difference(keys: list[dict], results: list[MatchResult], baseline: str) -> dict:
    """This model's win credit and margin minus another model's in the same games (same opponent, cap, line-up and
    deal, from that model's evaluation ledger `baseline`), with standard errors: a paired comparison of two models
    needs far fewer games than two separate intervals do."""
    theirs: dict[str, MatchResult] = {}
    with open(baseline, encoding="utf-8") as handle:
        for line in handle:
            try:
                entry = json.loads(line)
                theirs.setdefault(_pair_key(entry["key"]), MatchResult(**entry["result"]))
            except (ValueError, KeyError, TypeError):
                continue  # a line cut short by a killed run
    pairs = [(mine, theirs[_pair_key(k)]) for k, mine in zip(keys, results, strict=True) if _pair_key(k) in theirs]
    if not pairs:
        raise SystemExit(f"no game of {baseline} is one of these")
    win, win_se = mean_and_error([credit(a, MODEL) - credit(b, MODEL) for a, b in pairs])
    margin, margin_se = mean_and_error([_margin(a) - _margin(b) for a, b in pairs])
    return {"baseline": baseline, "games": len(pairs), "credit_difference": win, "credit_difference_se": win_se,
            "margin_difference": margin, "margin_difference_se": margin_se}


def _play(job: tuple) -> tuple[MatchResult, list[float]]:
    game, lineup, deal, model_path = job[:4]
    rule = job[4] if len(job) > 4 else None
    policy = PolicyBot(model_path, rule_params=rule)
    bots = [policy if level == MODEL else CappedBot(level, game, as_built=True) for level in lineup]
    return play_match(game, lineup, deal, bots=bots), policy.decision_cpu


def evaluate(model_path: str, opponent: str, game: str = "blueskies", players: int = 2, deals: int = 100,
             seed: int = 35, ledger: str | None = None, workers: int = 1, report: bool = False,
             solo: bool = False, rule: dict | None = None, baseline: str | None = None) -> dict:
    """Play (or read from `ledger`) every deal once per line-up; return the model's share and latency figures.
    `solo`: the model in one seat against `opponent` in all the others (`solo_lineups`), not alternating seats.
    `rule`: the `RuleParams` fields of the rule the model corrects (the game profile's `rule_params`; part of the key).
    `report`: play nothing, summarise the ledger's games of these deals, those played by other code included (a
    game at the current code is preferred; `other_code` counts the rest). `baseline`: another model's evaluation
    ledger; the report adds this model's paired difference to it in the games both played (`paired_difference`)."""
    digest = file_digest(model_path)
    cap = opponent_cap(opponent, game)
    seatings = solo_lineups(MODEL, opponent, players) if solo else lineups(opponent, MODEL, players)
    jobs = [(game, lineup, game_seed(seed, s), model_path, rule) for s in range(deals) for lineup in seatings]
    keys = [{"eval": game, "lineup": lineup, "deal": deal, "model": digest, "opponent": opponent,
             "cap": cap, "code": code_fingerprint(game),
             "train_code": train_code(), **({"rule": rule} if rule else {})}
            for game, lineup, deal, *_ in jobs]
    done: dict[int, tuple[MatchResult, list[float]]] = {}
    stale = 0
    if ledger and os.path.exists(ledger):
        wanted = {json.dumps(k, sort_keys=True): i for i, k in enumerate(keys)}
        loose = {_loose(k): i for i, k in enumerate(keys)}
        with open(ledger, encoding="utf-8") as handle:
            for line in handle:
                try:
                    entry = json.loads(line)
                    exact = wanted.get(json.dumps(entry["key"], sort_keys=True))
                    near = loose.get(_loose(entry["key"]))
                except (ValueError, KeyError, TypeError):
                    continue  # a line cut short by a killed run
                if exact is not None:
                    done[exact] = (MatchResult(**entry["result"]), entry["model_cpu"])
                elif report and near is not None and near not in done:  # same model and deal, other code
                    done[near] = (MatchResult(**entry["result"]), entry["model_cpu"])
                    stale += 1
    if report:
        found = sorted(done)
        jobs, keys = [jobs[i] for i in found], [keys[i] for i in found]
        done = {n: done[i] for n, i in enumerate(found)}
        if not jobs:
            raise SystemExit(f"no games of {model_path} against {opponent} in {ledger}")
    todo = [i for i in range(len(jobs)) if i not in done]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for i, (result, played_cpu) in zip(todo, pool.map(_play, [jobs[i] for i in todo]), strict=True):
            cpu = [round(c, 6) for c in played_cpu]  # as the ledger keeps them: a report reads the same from it
            done[i] = (result, cpu)
            if ledger:
                with open(ledger, "a", encoding="utf-8") as handle:
                    handle.write(json.dumps({"key": keys[i], "result": dataclasses.asdict(result),
                                             "model_cpu": cpu}) + "\n")
    results = [done[i][0] for i in range(len(jobs))]
    spent = np.array([c for i in range(len(jobs)) for c in done[i][1]])
    won = sum(credit(r, MODEL) for r in results)
    low, high = wilson(won, len(results))
    fair = sum(r.levels.count(MODEL) for r in results) / sum(len(r.levels) for r in results)
    margins = [_margin(r) for r in results]
    return {"game": game, "players": players, "opponent": opponent, "model": model_path, "model_sha256": digest,
            "games": len(results), "credit": won, "share": won / len(results), "wilson95": [low, high],
            "fair": fair, "separated": low > fair or high < fair, "mean_margin": float(np.mean(margins)),
            "decisions": int(spent.size), "cpu_p50_ms": float(np.percentile(spent, 50) * 1000) if spent.size else None,
            "cpu_p99_ms": float(np.percentile(spent, 99) * 1000) if spent.size else None,
            "cpu_max_ms": float(spent.max() * 1000) if spent.size else None, "deal_seed": seed, "deals": deals,
            "solo": solo, "rule": rule, "ledger": ledger, "other_code": stale,
            **({"versus_baseline": paired_difference(keys, results, baseline)} if baseline else {})}
