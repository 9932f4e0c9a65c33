"""Bots under load: N concurrent human-against-bot games on one worker core, with and without the degradation policy
and with and without follow-ups first.

    python -m bench.bot_load [--games 200] [--level mcts-normal] [--mix opensky:2,blueskies:2,aeroplanes:3]
                             [--think 8] [--warmup 40] [--seconds 120] [--threshold 3] [--phases off,on]
                             [--follow-ups on|off|off,on|on,off|both] [--json out.json]

For each phase (`off`: BOT_DEGRADE_AFTER_S=0, then `on`: BOT_DEGRADE_AFTER_S=--threshold), and within it for each
`--follow-ups` setting in order (`both` = `off,on`: BOT_FOLLOW_UPS_FIRST=false, then true; default `on`, the
production default), a fresh platform runs on loopback (bench.stack: a game-state service and ONE Celery worker
process, `-P solo`, so one core at most) and `--games` scripted humans each play seat 0 of a game whose other
seats are `--level` bots (game i of the mix, seed i; the same games and the same human choices and think times in
every phase). A human watches its game (WatchGame), and when it must act thinks for a log-normal time (median
`--think` s, sigma 0.6, at most 30 s) and submits a random legal action; a finished game is replaced by the next
seed.

After `--warmup` s the measured window of `--seconds` s begins. Reported per phase:
- **queue wait** of every bot decision the worker started in the window: from the decision becoming pending
  (the game's last commit) to the worker starting on it, read from the worker's log line
  (`waited X s, thought Y s, budget xZ, priority P`), p50 / p95 / p99 / max, and p50 / p99 per tier (the
  Celery priority it was queued at: 0 follow-ups, 3 first decisions; services/common/bot_policy.py);
- the worker's think time and budget scale (the policy's factor, 1 = none);
- **human wait**: from a human's accepted submission to the human's next turn (every bot seat's decisions in
  between, queue included), as the human sees it on its WatchGame stream, mean / p50 / p90 / p99 / max (the
  samples are in the JSON);
- decisions served, the worker process's CPU seconds per decision (user + system, overhead included) and its
  busy share of one core, human actions, the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import re
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from bench.load import proc_cpu_s
from bench.stack import Stack

LINE = re.compile(r"bot move \S+ seat \d+ version \d+: (\w+) \S+ \(waited ([\d.]+) s, thought ([\d.]+) s, "
                  r"budget x([\d.]+)(?:, priority (\S+))?\)")


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


@dataclass
class Window:
    start: float = 0.0
    stop: float = 0.0
    human_waits: list[float] = field(default_factory=list)
    human_actions: int = 0
    games_finished: int = 0
    errors: int = 0

    def inside(self, t: float) -> bool:
        return self.start <= t < self.stop


@dataclass
class Seen:
    version: int
    to_act: list[int]
    status: str
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def update(self, version: int, to_act: list[int], status: str) -> None:
        if version > self.version or (status == "finished" and self.status != "finished"):
            self.version, self.to_act, self.status = version, list(to_act), status
            self.changed.set()


async def human(slot: int, client, args, mix: list[tuple[str, int]], window: Window, stop_at: float) -> None:
    """Seat 0 of game after game in slot `slot`: think, play a random legal action, wait for the bots."""
    from services.gamestate.client import GameServiceError

    rng = random.Random(f"human-{args.seed}-{slot}")
    await asyncio.sleep(rng.uniform(0, args.ramp))  # the players arrive over the ramp
    round_ = 0
    while time.monotonic() < stop_at:
        game, players = mix[slot % len(mix)]
        seed = args.seed * 1_000_000 + slot * 100 + round_
        round_ += 1
        bots = {s: args.level for s in range(1, players)}
        try:
            created = await client.create_game(game, players, seed=seed, bots=bots)
            first = await client.get_game(created.game_id)
        except GameServiceError:
            window.errors += 1
            await asyncio.sleep(1)
            continue
        token = created.token(0)
        seen = Seen(first.version, first.to_act, first.status)

        async def follow(game_id: str = created.game_id, seen: Seen = seen) -> None:
            try:
                async for update in client.watch(game_id, after_version=seen.version):
                    seen.update(update.version, update.to_act, update.status)
            except GameServiceError:
                pass
            seen.update(seen.version + 10**9, [], "finished")  # stream over: stop waiting on it

        follower = asyncio.create_task(follow())
        handed_over: float | None = None
        try:
            while seen.status == "active" and time.monotonic() < stop_at:
                if 0 not in seen.to_act:
                    seen.changed.clear()
                    try:
                        await asyncio.wait_for(seen.changed.wait(), timeout=max(0.01, stop_at - time.monotonic()))
                    except TimeoutError:
                        break
                    continue
                now = time.monotonic()
                if handed_over is not None and window.inside(now):
                    window.human_waits.append(now - handed_over)
                handed_over = None
                await asyncio.sleep(min(30.0, rng.lognormvariate(math.log(args.think), 0.6)))
                try:
                    legal = await client.legal_actions(created.game_id, token)
                    if not legal.actions:
                        seen.changed.clear()
                        await asyncio.wait_for(seen.changed.wait(), timeout=5)
                        continue
                    reply = await client.submit(created.game_id, token, rng.choice(legal.actions), legal.version)
                except (TimeoutError, GameServiceError):
                    window.errors += 1
                    await asyncio.sleep(0.2)
                    continue
                if window.inside(time.monotonic()):
                    window.human_actions += 1
                seen.update(reply.version, reply.to_act, reply.status)
                if reply.status == "active" and 0 not in reply.to_act:
                    handed_over = time.monotonic()
            if seen.status == "finished" and window.inside(time.monotonic()):
                window.games_finished += 1
        finally:
            follower.cancel()


def worker_lines(path: str, start: int, stop: int) -> list[tuple[str, float, float, float, str]]:
    """(outcome, waited s, thought s, budget scale, priority or "-") of every task the worker logged."""
    with open(path, "rb") as f:
        f.seek(start)
        text = f.read(max(0, stop - start)).decode(errors="replace")
    return [(m[1], float(m[2]), float(m[3]), float(m[4]), m[5] or "-") for m in LINE.finditer(text)]


async def phase(name: str, threshold: float, follow_ups: bool, args, mix) -> dict[str, Any]:
    from services.gamestate.client import AsyncGameClient

    env = {"BOT_DEGRADE_AFTER_S": str(threshold), "BOT_REDISPATCH_S": str(args.redispatch),
           "BOT_FOLLOW_UPS_FIRST": str(follow_ups).lower()}
    stack = Stack(dispatch_bots=True, workers=1, worker_concurrency=getattr(args, "concurrency", 0),
                  service_env=env, worker_env=env)
    with stack:
        log_path = str(stack.log_dir / "worker0.log")
        window = Window()
        load_before = os.getloadavg()[0]
        async with AsyncGameClient(stack.grpc_addr, timeout=60) as client:
            begin = time.monotonic()
            window.start = begin + args.warmup
            window.stop = window.start + args.seconds
            tasks = [asyncio.create_task(human(i, client, args, mix, window, window.stop)) for i in range(args.games)]
            worker_pid = stack.procs["worker0"].popen.pid
            await asyncio.sleep(args.warmup)
            offset_start = os.path.getsize(log_path)
            cpu_start = proc_cpu_s(worker_pid)
            await asyncio.sleep(args.seconds)
            offset_stop = os.path.getsize(log_path)
            worker_cpu = proc_cpu_s(worker_pid) - cpu_start
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        load_after = os.getloadavg()[0]
    lines = worker_lines(log_path, offset_start, offset_stop)
    decided = [line for line in lines if line[0] in ("submitted", "duplicate")]
    waits = [w for _, w, _, _, _ in decided]
    thinks = [t for _, _, t, _, _ in decided]
    # what a player waits for one bot decision: its queue wait and its thinking (the submission after it: milliseconds)
    decision_waits = [w + t for _, w, t, _, _ in decided]
    scales = [s for _, _, _, s, _ in decided]
    tiers = {tier: [w for _, w, _, _, p in decided if p == priority] for tier, priority in (("follow_up", "0"),
                                                                                           ("first", "3"))}
    row = {
        "phase": name, "threshold_s": threshold, "follow_ups_first": follow_ups, "games": args.games,
        "level": args.level,
        "decisions": len(decided), "stale_tasks": sum(1 for line in lines if line[0] == "stale"),
        "decisions_per_s": len(decided) / args.seconds,
        "worker_cpu_s": worker_cpu, "worker_busy": worker_cpu / args.seconds,
        "worker_cpu_per_decision_s": worker_cpu / len(decided) if decided else float("nan"),
        "queue_wait_p50_s": pct(waits, 0.5), "queue_wait_p95_s": pct(waits, 0.95),
        "queue_wait_p99_s": pct(waits, 0.99), "queue_wait_max_s": max(waits, default=float("nan")),
        **{f"{tier}_{key}": value for tier, tier_waits in tiers.items() for key, value in (
            ("decisions", len(tier_waits)), ("queue_wait_p50_s", pct(tier_waits, 0.5)),
            ("queue_wait_p99_s", pct(tier_waits, 0.99)))},
        "decision_wait_p50_s": pct(decision_waits, 0.5), "decision_wait_p95_s": pct(decision_waits, 0.95),
        "decision_wait_max_s": max(decision_waits, default=float("nan")),
        "think_mean_s": statistics.fmean(thinks) if thinks else float("nan"),
        "think_p95_s": pct(thinks, 0.95),
        "budget_scale_mean": statistics.fmean(scales) if scales else float("nan"),
        "shrunk_share": (sum(1 for s in scales if s < 1) / len(scales)) if scales else float("nan"),
        "human_actions": window.human_actions, "games_finished": window.games_finished,
        "human_waits": len(window.human_waits),
        "human_wait_mean_s": statistics.fmean(window.human_waits) if window.human_waits else float("nan"),
        "human_wait_p50_s": pct(window.human_waits, 0.5),
        "human_wait_p90_s": pct(window.human_waits, 0.9), "human_wait_p99_s": pct(window.human_waits, 0.99),
        "human_wait_max_s": max(window.human_waits, default=float("nan")), "errors": window.errors,
        "load_before": load_before, "load_after": load_after,
        "human_wait_samples_s": [round(w, 2) for w in window.human_waits],
    }
    label = f"{name} fu-{'on' if follow_ups else 'off'}"
    print(f"{label:<10} decisions {row['decisions']:>5} ({row['decisions_per_s']:.2f}/s)  queue wait p50 "
          f"{row['queue_wait_p50_s']:.2f} p95 {row['queue_wait_p95_s']:.2f} p99 {row['queue_wait_p99_s']:.2f} "
          f"max {row['queue_wait_max_s']:.2f} s (follow-ups {row['follow_up_decisions']}: p50 "
          f"{row['follow_up_queue_wait_p50_s']:.2f} p99 {row['follow_up_queue_wait_p99_s']:.2f}; first "
          f"{row['first_decisions']}: p50 {row['first_queue_wait_p50_s']:.2f} p99 "
          f"{row['first_queue_wait_p99_s']:.2f})  think {row['think_mean_s']:.3f} s  "
          f"scale {row['budget_scale_mean']:.2f} "
          f"(shrunk {row['shrunk_share']:.0%})  human wait ({row['human_waits']}) mean {row['human_wait_mean_s']:.2f} "
          f"p50 {row['human_wait_p50_s']:.2f} "
          f"p90 {row['human_wait_p90_s']:.2f} p99 {row['human_wait_p99_s']:.2f} max {row['human_wait_max_s']:.2f} s  "
          f"human actions {row['human_actions']}  worker CPU "
          f"{row['worker_cpu_per_decision_s']:.3f} s/decision ({row['worker_busy']:.0%} of a core)  "
          f"load {load_before:.1f}->"
          f"{load_after:.1f}", flush=True)
    return row


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--level", default="mcts-normal")
    parser.add_argument("--mix", default="opensky:2,blueskies:2,aeroplanes:3")
    parser.add_argument("--think", type=float, default=8.0, help="median human think time, seconds")
    parser.add_argument("--ramp", type=float, default=20.0, help="humans arrive over this many seconds")
    parser.add_argument("--warmup", type=float, default=40.0)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--threshold", type=float, default=3.0, help="BOT_DEGRADE_AFTER_S of the `on` phase")
    parser.add_argument("--redispatch", type=float, default=15.0, help="BOT_REDISPATCH_S (the production default)")
    parser.add_argument("--phases", default="off,on", help="degradation policy off (BOT_DEGRADE_AFTER_S=0) and/or on")
    parser.add_argument("--follow-ups", default="on",
                        help="BOT_FOLLOW_UPS_FIRST of each phase, in order: on, off, off,on (= both), on,off")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    mix = [(g, int(p)) for g, _, p in (s.partition(":") for s in args.mix.split(","))]
    print(f"{args.games} human-against-{args.level} games ({args.mix}), one worker process; think median "
          f"{args.think} s; warm-up {args.warmup} s, window {args.seconds} s; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    order = "off,on" if args.follow_ups == "both" else args.follow_ups
    follow_ups = [{"on": True, "off": False}[value] for value in order.split(",")]
    rows = []
    for name in args.phases.split(","):
        for first in follow_ups:
            rows.append(asyncio.run(phase(name, args.threshold if name == "on" else 0.0, first, args, mix)))
    print(f"load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"args": vars(args), "rows": rows}, out, indent=1)
    return rows


if __name__ == "__main__":
    main()
