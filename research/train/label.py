"""The labelling job: play teacher self-play games on training deals and record, at every decision with a choice,
each legal action's afterstate features and the teacher's root visits, then the game's outcome.

Plan `bs2-distill` (the first round, learned-bots.md "Distillation"): Blue Skies, 2 players, both seats
`mcts-normal` held to its free-core iteration cap (`ai.levels.CappedBot`, 5,300 iterations, no time limit, so the
labels do not depend on the machine's load); the game goes on by the teacher's choice.

Deal split: training deals are `TRAIN_DEAL_BASE + game_index` (10,000,000,000 and up). Every evaluation deal of
the ladder and of `research.train.evaluate` comes from `research.lab.tournament.game_seed`, which is below 2**31, so
no training deal is ever an evaluation deal.

Plan `os2-rule-plus` (plan A, `research.train.rollouts`): OpenSky, 2 players, greedy self-play with 15% random moves on
deals `TRAIN_DEAL_BASE + 1,000,000,000 + game_index`; every 4th decision with a choice (bids aside) labelled by
paired greedy playouts under common random numbers over the rule's top 6 candidates and 2 random others.

Plan `ap3-distill`: the same as `bs2-distill` for Aeroplanes, 3 players, the greedy-prior `mcts-normal` at its
free-core cap (5,200 iterations) in every seat (the level before Aeroplanes' `mcts-normal` became the guided search).

Plan `os4-rule-plus`: plan A at the 4-player table (the same deals, four players).

Plan `bs2-exit` (expert iteration, round 1): Blue Skies, 2 players, both seats the search Blue Skies' `mcts-normal`
plays (the game's `ai.games` profile) with bs2-r3's policy as the root's prior (a plan's `prior`, the level's prior when
round 1 ran) at 2,000 iterations by default, on deals
`TRAIN_DEAL_BASE + 2,000,000,000 + game_index` (none of `bs2-distill`'s): labels from the guided search's own
results, a stronger teacher than the greedy-prior search the bs2 models learned from (it took 60.0% of 200 paired
games against that search at 5,300 iterations).

Plan `bs2-exit2` (round 2): the same search with round 1's model (`bs2-r5`) as the root's prior, on deals
`TRAIN_DEAL_BASE + 2,100,000,000 + game_index`.

Plan `ap3-exit` (expert iteration for Aeroplanes, round 1): 3 players, every seat the search Aeroplanes'
`mcts-normal` plays (ap3-r3's policy as the root's prior, pinned here) at 2,000 iterations, on deals
`TRAIN_DEAL_BASE + 2,200,000,000 + game_index`: that search at half these iterations took 44.3% of 96 paired games
against two of `ap3-distill`'s teacher (fair 33.3%), at about a fifth of its CPU a decision, so it is the stronger
teacher and labels several times as many positions an hour.

A plan names its teacher's search (`ai.levels.SEARCH_KINDS`): `as-played` is the level as the game plays it
(the game profile's `search` where it has one); `greedy-prior` is `SEARCH[teacher]` alone, the search
`bs2-distill` labelled with before Blue Skies' `mcts-normal` became the guided one (5,300 iterations, its free-core
cap).

Shards: `--shard K/N` labels game indices K, K+N, K+2N, ... only, into a run directory of its own, so that N
processes label one plan on N cores without sharing a ledger (`fit` takes every shard's ledger).

Jobs queue: `--then PLAN:OUT:POSITIONS` (repeatable) runs the next plan in the same process once one is done.

Resumable (`research.train.ledger`): killed and started again with the same command it plays the first game not done.
Pause and resume a running job with `kill -STOP $(cat <out>/pid)` / `kill -CONT $(cat <out>/pid)`.
"""

from __future__ import annotations

import dataclasses
import os
import platform
import random
import signal
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import engine
from ai.bot import Budget
from ai.ismcts import ISMCTSBot
from ai.levels import CappedBot
from ai.outcome import terminal_rewards
from ai.policy.features import action_features, feature_names, feature_version
from research.lab import background
from research.lab.tournament import code_fingerprint
from research.train.ledger import Ledger, write_json_atomic

#: First training deal; evaluation deals (`research.lab.tournament.game_seed`) are all below 2**31.
TRAIN_DEAL_BASE = 10_000_000_000

PLANS = {
    "bs2-distill": {"game": "blueskies", "players": 2, "teacher": "mcts-normal", "search": "greedy-prior"},
    # expert iteration: the guided search (bs2-r3's prior) teaches the next model, on deals of its own
    "bs2-exit": {"game": "blueskies", "players": 2, "teacher": "mcts-normal", "search": "as-played",
                 "prior": "bs2-r3.npz", "iterations": 2000, "deal_offset": 2_000_000_000},
    # round 2: the same search with round 1's model (bs2-r5) as its prior, on deals of its own
    "bs2-exit2": {"game": "blueskies", "players": 2, "teacher": "mcts-normal", "search": "as-played",
                  "prior": "bs2-r5.npz", "iterations": 2000, "deal_offset": 2_100_000_000},
    # the same distillation for Aeroplanes at its smallest table: mcts-normal (5,200 iterations) teaches
    # (the greedy-prior search: the level until Aeroplanes' mcts-normal became the guided one, which ap3-r3 guides)
    "ap3-distill": {"game": "aeroplanes", "players": 3, "teacher": "mcts-normal", "search": "greedy-prior"},
    # expert iteration for Aeroplanes: the guided search (ap3-r3's prior, pinned) teaches, on deals of its own
    "ap3-exit": {"game": "aeroplanes", "players": 3, "teacher": "mcts-normal", "search": "as-played",
                 "prior": "ap3-r3.npz", "iterations": 2000, "deal_offset": 2_200_000_000},
    # plan A (research.train.rollouts): paired greedy playouts, successive halving over the rule's top 6 + 2 random
    "os2-rule-plus": {"game": "opensky", "players": 2, "teacher": "paired greedy playouts"},
    # the same at the 4-player table (the 2-player model took 24.6% of 400 games against three greedy, fair 25%)
    "os4-rule-plus": {"game": "opensky", "players": 4, "teacher": "paired greedy playouts"},
}


def _round(row: list[float]) -> list[float]:
    return [round(x, 4) for x in row]


def teacher_bot(plan: str, iterations: int | None = None) -> CappedBot:
    """A fresh teacher of `plan` held to its iteration cap (`iterations`, else the plan's, else the teacher
    level's free-core cap), recording its root."""
    spec = PLANS[plan]
    # its own search, whatever it plays as; `greedy-prior`: without the game's own settings (ai.levels.split_level)
    bot = CappedBot(f"{spec['teacher']}:{spec.get('search', 'as-played')}", spec["game"], as_built=True)
    if spec.get("prior"):  # another model as the root's prior than the game's search names
        config = bot.bot.by_game.get(spec["game"], bot.bot.base_config)
        bot.bot = ISMCTSBot(spec["teacher"], bot.bot.base_config,
                            {spec["game"]: dataclasses.replace(config, policy_prior=spec["prior"])})
    cap = iterations or spec.get("iterations")
    if cap is not None:
        bot.budget = Budget(iterations=cap)
    bot.bot.record_root = True
    return bot


def play_labelled_game(plan: str, game_index: int, code: str, run: str, iterations: int | None = None
                       ) -> tuple[list[dict], dict]:
    """One teacher self-play game on training deal `TRAIN_DEAL_BASE + deal_offset + game_index`: its position
    records and its game record (see `research.train.ledger`). Deterministic from the deal (the teachers search to an
    iteration cap). `iterations`: another cap than the plan's (tests use a small one)."""
    spec = PLANS[plan]
    game, players, teacher = spec["game"], spec["players"], spec["teacher"]
    deal = TRAIN_DEAL_BASE + spec.get("deal_offset", 0) + game_index
    state = engine.get(game).new(players, deal)
    bots = [teacher_bot(plan, iterations) for _ in range(players)]
    master = random.Random(deal * 7919 + 17)
    rngs = [random.Random(master.getrandbits(64)) for _ in range(players)]
    positions: list[dict] = []
    actions: list[list] = []
    step = 0
    start = time.process_time()
    while not state.is_over():
        for seat in state.to_act():
            legal = state.legal_actions(seat)
            if not legal:
                continue
            if len(legal) == 1:
                action = legal[0]
            else:
                features = action_features(state, seat, legal)
                action = bots[seat].choose(state, seat, rngs[seat])
                root = bots[seat].bot.last_root
                edges = root.edges.get(seat, {}) if root is not None else {}
                visits = [int(edges[a][0]) if a in edges else 0 for a in legal]
                values = [round(edges[a][1] / edges[a][0], 4) if a in edges and edges[a][0] else None for a in legal]
                positions.append({
                    "kind": "position", "run": run, "plan": plan, "game": game, "players": [teacher] * players,
                    "deal": deal, "game_index": game_index, "index": step, "seat": seat,
                    "legal": [a.to_json() for a in legal], "features": [_round(r) for r in features],
                    "feature_version": feature_version(game), "visits": visits, "values": values,
                    "iterations": bots[seat].stats.iterations, "chosen": legal.index(action), "code": code,
                })
            actions.append([seat, action.to_json()])
            state.apply(seat, action)
            step += 1
    credit = terminal_rewards(state, 1.0)
    outcome = {"scores": state.scores(), "winners": state.winners(), "credit": credit}
    for record in positions:
        record["outcome"] = outcome
    record_game = {"run": run, "plan": plan, "deal": deal, "game_index": game_index, "actions": actions,
                   "scores": state.scores(), "winners": state.winners(), "positions": len(positions),
                   "cpu_seconds": round(time.process_time() - start, 2), "code": code}
    return positions, record_game


def teacher_search(plan: str, iterations: int | None = None) -> dict:
    """What the manifest says of the teacher's search: its settings in the plan's game and its iteration cap."""
    spec = PLANS[plan]
    bot = teacher_bot(plan, iterations)
    config = bot.bot.by_game.get(spec["game"], bot.bot.base_config)
    settings = {k: v for k, v in dataclasses.asdict(config).items() if k != "budget"}
    return {"search": spec.get("search", "as-played"), "iterations": bot.budget.iterations,
            **{k: sorted(v) if isinstance(v, frozenset) else v for k, v in settings.items()}}


def parse_shard(text: str | None) -> tuple[int, int]:
    """`K/N` (0 <= K < N) as (K, N); None as (0, 1), every game."""
    if not text:
        return 0, 1
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise SystemExit(f"--shard takes K/N, such as 0/2; got {text!r}") from None
    if not 0 <= k < n:
        raise SystemExit(f"--shard K/N needs 0 <= K < N; got {text!r}")
    return k, n


def run_job(plan: str, out: Path, positions: int, games: int | None = None, iterations: int | None = None,
            shard: tuple[int, int] = (0, 1)) -> int:
    """Label games of `plan` into `out/ledger.jsonl` until it holds `positions` positions (or `games` games).
    Writes `out/pid` while running, `out/manifest.json` after every game and a line a game to `out/progress.log`.
    `shard` (K, N): game indices K, K+N, K+2N, ... only."""
    if plan not in PLANS:
        raise SystemExit(f"unknown plan {plan!r}; known: {', '.join(PLANS)}")
    # SIGTERM ends the job like Ctrl-C: the game under way is dropped (it was never written), the log says so
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    background.yield_cpu_to_others()
    out.mkdir(parents=True, exist_ok=True)
    pid_file = out / "pid"
    pid_file.write_text(f"{os.getpid()}\n")
    spec = PLANS[plan]
    code = code_fingerprint(spec["game"])
    ledger = Ledger(out / "ledger.jsonl")
    rollouts = spec["teacher"] == "paired greedy playouts"
    teacher = None if rollouts else teacher_search(plan, iterations)
    manifest_path = out / "manifest.json"
    run = out.name
    started = time.time()
    labelled_here = 0
    cpu_here = 0.0
    log = open(out / "progress.log", "a", encoding="utf-8")  # noqa: SIM115 - kept open for the whole job
    log.write(f"{_now()} start pid {os.getpid()} plan {plan} code {code} games done {len(ledger.done)} "
              f"positions {ledger.positions}\n")
    log.flush()
    try:
        index, step = shard
        while ledger.positions < positions and (games is None or len(ledger.done) < games):
            if index in ledger.done:
                index += step
                continue
            if rollouts:
                from research.train.rollouts import OS_DEAL_OFFSET, play_rollout_labelled_game

                records, game_record = play_rollout_labelled_game(TRAIN_DEAL_BASE + OS_DEAL_OFFSET + index, index,
                                                                  code, run, spec["players"], plan=plan)
            else:
                records, game_record = play_labelled_game(plan, index, code, run, iterations)
            ledger.commit_game(records, game_record)
            labelled_here += len(records)
            cpu_here += game_record["cpu_seconds"]
            hours = (time.time() - started) / 3600
            write_json_atomic(manifest_path, {
                "run": run, "plan": plan, **spec, "teacher_iterations": teacher and teacher["iterations"],
                **({"teacher_search": teacher} if teacher else {}),
                **({"shard": f"{shard[0]}/{shard[1]}"} if shard != (0, 1) else {}),
                "deals": f"TRAIN_DEAL_BASE{' + OS_DEAL_OFFSET (1e9)' if rollouts else ''}"
                f"{' + ' + format(spec['deal_offset'], ',') if spec.get('deal_offset') else ''} + "
                f"game_index, TRAIN_DEAL_BASE = {TRAIN_DEAL_BASE} "
                "(evaluation deals, research.lab.tournament.game_seed, are all below 2**31)",
                "feature_version": feature_version(spec["game"]), "feature_names": feature_names(spec["game"]),
                "code": code, "games": len(ledger.done), "positions": ledger.positions, "updated": _now(),
                "command": " ".join(["python -m research.train label", *sys.argv[2:]]) if sys.argv[1:2] == ["label"]
                else " ".join(sys.argv), "machine": platform.node(),
            })
            log.write(f"{_now()} game {index} deal {game_record['deal']} positions {len(records)} "
                      f"cpu {game_record['cpu_seconds']:.0f} s  total games {len(ledger.done)} positions "
                      f"{ledger.positions}  this run {labelled_here / max(hours, 1e-9):.0f} positions/h wall, "
                      f"{cpu_here / max(labelled_here, 1):.2f} CPU s/position\n")
            log.flush()
            index += step
    finally:
        log.write(f"{_now()} stop pid {os.getpid()} positions {ledger.positions}\n")
        log.close()
        if pid_file.exists() and pid_file.read_text().strip() == str(os.getpid()):
            pid_file.unlink()
    return ledger.positions


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
