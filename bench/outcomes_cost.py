"""What follows a move, tree against tree in one run: Redis commands per action cycle, Redis commands per second
while nobody moves, and the delay from a game's last commit to its `game_end` on each account's stream.

    git worktree add /tmp/outcomes-before dff8e26^     # the tree before the outbox (its proto generated there)
    python -m bench.outcomes_cost --tree before=/tmp/outcomes-before --tree after=. --rounds 3

Why: before the outbox, what follows a game's end ran in the gateway (settle on reads, a follower with a lease and
a spectator watch per followed game, scanning every second) and in the matchmaker (a settle poll every 10 s); after
it, the commit appends to its bucket's outbox and one consumer group reads the 64 streams. Both trees run the same
processes from their own source (bench.stack: the game-state service, the gateway, the matchmaker and, where the tree
has one, the outcomes consumer) on one private redis-server, whose INFO commandstats counts every command of every
process (INFO, PING and other upkeep excluded: bench.cluster_cost.UPKEEP).

Load: `--pairs` pairs of accounts, each pair a closed loop (as fast as answers come, the load bench's `max` level):
a rated challenge accepted (OpenSky or Blue Skies, 2 players), then the cycle of an action, over REST with the
accounts' API keys (read the game, read the acting seat's legal actions, submit one), until the game ends or has
had `--moves` actions, when the challenger resigns (which ends a 2-player game: a rated result to settle), and again.
An action is one accepted submission; challenges, accepts and resignations are counted in its share. Trees alternate
round after round; medians over the rounds. The delay of a game's end: from its last commit (the meta's
`updated_ms`, the commit's own clock) to the id of its `game_end` entry on each seated account's stream (Redis's
clock, the same machine), for every game ended in the timed windows, pooled over the rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import redis

from bench.cluster_cost import _sample, _start_standalone
from bench.stack import Stack
from services.accounts.keys import Keys as AccountKeys
from services.gamestate.keys import Keys as GameKeys

TITLES = ("opensky", "blueskies")


@dataclass
class Account:
    player_id: str
    key: str


@dataclass
class Window:
    """What the clients did in one timed window."""

    actions: int = 0
    ended: list[tuple[str, str, str]] = field(default_factory=list)  # (game id, challenger id, opponent id)
    errors: dict[str, int] = field(default_factory=dict)

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


def _auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


async def _get(http: httpx.AsyncClient, url: str, out: Window, key: str | None = None) -> dict | None:
    """The JSON of a GET, or None (counted in the window's errors) when it is refused or fails."""
    try:
        r = await http.get(url, headers=_auth(key) if key else {})
    except httpx.HTTPError as exc:
        out.error(type(exc).__name__)
        return None
    if r.status_code != 200:
        out.error(f"GET {r.status_code}")
        return None
    return r.json()


async def _pair(http: httpx.AsyncClient, a: Account, b: Account, rng: random.Random, stop_at: float, moves: int,
                out: Window) -> None:
    """Rated games between `a` and `b` back to back until `stop_at`, each ended by play or by a's resignation."""
    while time.monotonic() < stop_at:
        r = await http.post("/v1/challenges", headers=_auth(a.key),
                            json={"to": b.player_id, "game": rng.choice(TITLES), "rated": True})
        if r.status_code != 201:
            out.error(f"challenge {r.status_code}")
            await asyncio.sleep(0.1)
            continue
        r = await http.post(f"/v1/challenges/{r.json()['challenge_id']}/accept", headers=_auth(b.key))
        if r.status_code != 200:
            out.error(f"accept {r.status_code}")
            continue
        game_id = r.json()["game_id"]
        g = None
        while g is None and time.monotonic() < stop_at:
            g = await _get(http, f"/v1/games/{game_id}", out)
        if g is None:
            return
        key_of = {s["seat"]: (a.key if s["player_id"] == a.player_id else b.key) for s in g["seats"]}
        played = 0
        while time.monotonic() < stop_at:
            g = await _get(http, f"/v1/games/{game_id}", out)
            if g is None:
                continue
            if g["status"] != "active":
                out.ended.append((game_id, a.player_id, b.player_id))
                break
            if played >= moves:
                r = await http.post(f"/v1/games/{game_id}/resign", headers=_auth(a.key))
                if r.status_code == 200:
                    out.ended.append((game_id, a.player_id, b.player_id))
                    break
                out.error(f"resign {r.status_code}")
                continue
            key = key_of[rng.choice(g["to_act"])]
            legal = await _get(http, f"/v1/games/{game_id}/actions", out, key)
            if legal is None or legal.get("version") != g["version"] or not legal.get("actions"):
                continue
            r = await http.post(f"/v1/games/{game_id}/actions", headers=_auth(key),
                                json={"action": rng.choice(legal["actions"]), "expected_version": g["version"]})
            if r.status_code == 200:
                out.actions += 1
                played += 1
            elif r.status_code != 409:
                out.error(f"action {r.status_code}")


async def _play(url: str, pairs: list[tuple[Account, Account]], seconds: float, moves: int, seed: int) -> Window:
    out = Window()
    stop_at = time.monotonic() + seconds
    limits = httpx.Limits(max_connections=2 * len(pairs), max_keepalive_connections=2 * len(pairs))
    async with httpx.AsyncClient(base_url=url, timeout=30, limits=limits) as http:
        await asyncio.gather(*(_pair(http, a, b, random.Random(seed * 1009 + i), stop_at, moves, out)
                               for i, (a, b) in enumerate(pairs)))
    return out


def _accounts(url: str, n: int) -> list[Account]:
    with httpx.Client(base_url=url, timeout=30) as c:
        made = []
        for i in range(n):
            r = c.post("/v1/players", json={"name": f"bench{i}"})
            r.raise_for_status()
            made.append(Account(r.json()["player_id"], r.json()["api_key"]))
        return made


def _end_delays(client: redis.Redis, stack: Stack, ended: list[tuple[str, str, str]]) -> tuple[list[float], int]:
    """Seconds from each ended game's last commit to its `game_end` on each seated account's stream; and how many
    (game, account) pairs have none."""
    games = GameKeys(stack.prefix)
    accounts = AccountKeys(f"{stack.prefix}gw:")
    delays: list[float] = []
    missing = 0
    for game_id, *players in ended:
        updated = client.hget(games.meta(game_id), "updated_ms")
        for pid in players:
            found = [entry_id for entry_id, f in client.xrange(accounts.account_events(pid))
                     if f.get(b"type") == b"game_end" and json.loads(f[b"data"])["game_id"] == game_id]
            if updated is None or len(found) != 1:
                missing += 1
                continue
            delays.append((int(found[0].split(b"-")[0]) - int(updated)) / 1000)
    return delays, missing


def _commands(before: Any, after: Any) -> dict[str, int]:
    return {k: v[0] - before.by_command.get(k, (0, 0))[0] for k, v in after.by_command.items()
            if v[0] - before.by_command.get(k, (0, 0))[0] > 0}


def one_round(name: str, root: Path, port: int, args: argparse.Namespace, seed: int) -> dict[str, Any]:
    """One tree's stack on the private Redis: warm-up, an idle window, a timed window, the ends' delays."""
    consumer = (root / "services" / "outcomes").is_dir()
    url = f"redis://127.0.0.1:{port}/0"
    with Stack(redis_url=url, root=root, outcomes=consumer, matchmaker=True, exporter=False,
               prefix=f"sbout:{uuid.uuid4().hex[:8]}:") as stack:
        accounts = _accounts(stack.gateway_url, 2 * args.pairs)
        pairs = list(zip(accounts[::2], accounts[1::2], strict=True))
        asyncio.run(_play(stack.gateway_url, pairs, args.warmup, args.moves, seed))
        time.sleep(1.0)  # what the warm-up left to do, done
        quiet = _sample(port)
        time.sleep(args.idle)
        still = _sample(port)
        before = _sample(port)
        t0 = time.monotonic()
        window = asyncio.run(_play(stack.gateway_url, pairs, args.seconds, args.moves, seed + 1))
        elapsed = time.monotonic() - t0
        after = _sample(port)
        time.sleep(args.grace)  # every effect of the window's last ends done (a consumer or a poll behind)
        client = redis.Redis(port=port)
        try:
            delays, missing = _end_delays(client, stack, window.ended)
        finally:
            client.close()
        log_dir = str(stack.log_dir)
    return {"tree": name, "consumer": consumer, "actions": window.actions, "seconds": round(elapsed, 2),
            "actions_s": window.actions / elapsed, "commands": after.calls - before.calls,
            "per_action": (after.calls - before.calls) / max(window.actions, 1),
            "idle_commands_s": (still.calls - quiet.calls) / args.idle, "ended": len(window.ended),
            "delays": delays, "missing_game_end": missing, "errors": window.errors,
            "by_command": _commands(before, after), "log_dir": log_dir}


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _net(r: dict[str, Any]) -> float:
    """Commands per action less what the processes spend with nobody moving (their polls), over the same window."""
    return (r["commands"] - r["idle_commands_s"] * r["seconds"]) / max(r["actions"], 1)


def report(rounds: list[dict[str, Any]], args: argparse.Namespace, load: tuple[str, str]) -> str:
    names = list(dict.fromkeys(r["tree"] for r in rounds))
    lines = [f"{args.rounds} rounds x {args.seconds:.0f} s per tree, {args.pairs} pairs in a closed loop, games "
             f"resigned after {args.moves} actions; load before {load[0]}, after {load[1]}",
             "| figure | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    by = {n: [r for r in rounds if r["tree"] == n] for n in names}

    def row(label: str, fn) -> None:
        lines.append(f"| {label} | " + " | ".join(fn(by[n]) for n in names) + " |")

    row("actions/s (median)", lambda rs: f"{statistics.median(r['actions_s'] for r in rs):.0f}")
    row("Redis commands per action (median)", lambda rs: f"{statistics.median(r['per_action'] for r in rs):.1f}")
    row("the same, net of the idle rate over the window (median)",
        lambda rs: f"{statistics.median(_net(r) for r in rs):.1f}")
    row("Redis commands per second, nobody moving (median)",
        lambda rs: f"{statistics.median(r['idle_commands_s'] for r in rs):.0f}")
    row("games ended in the windows", lambda rs: str(sum(r["ended"] for r in rs)))
    row("commit -> game_end on the account stream, p50 (ms)",
        lambda rs: f"{_pct([d for r in rs for d in r['delays']], 0.5) * 1000:.0f}")
    row("the same, p99 (ms)", lambda rs: f"{_pct([d for r in rs for d in r['delays']], 0.99) * 1000:.0f}")
    row("(game, account) without exactly one game_end", lambda rs: str(sum(r["missing_game_end"] for r in rs)))
    for n in names:
        actions = sum(r["actions"] for r in by[n]) or 1
        totals: dict[str, int] = {}
        for r in by[n]:
            for k, v in r["by_command"].items():
                totals[k] = totals.get(k, 0) + v
        top = sorted(totals.items(), key=lambda kv: -kv[1])[:10]
        lines.append(f"{n} per action: " + ", ".join(f"{k} {v / actions:.2f}" for k, v in top))
        lines.append(f"{n} rounds: " + "; ".join(f"{r['actions_s']:.0f}/s {r['per_action']:.1f} cmd "
                                                 f"idle {r['idle_commands_s']:.0f}/s errors {r['errors']}"
                                                 for r in by[n]))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tree", action="append", required=True, help="name=path of a source tree (two or more)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=float, default=20.0, help="timed window per tree and round")
    p.add_argument("--warmup", type=float, default=4.0)
    p.add_argument("--idle", type=float, default=4.0, help="window with nobody moving (polling costs)")
    p.add_argument("--grace", type=float, default=3.0, help="wait after a window before reading the ends")
    p.add_argument("--pairs", type=int, default=12, help="pairs of accounts playing at once")
    p.add_argument("--moves", type=int, default=20, help="actions before the challenger resigns a game")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", help="write every round here")
    args = p.parse_args(argv)
    trees = [(t.split("=", 1)[0], Path(t.split("=", 1)[1]).resolve()) for t in args.tree]
    load0 = " ".join(f"{x:.1f}" for x in os.getloadavg())
    procs, ports, directory = _start_standalone(replica=False)
    rounds: list[dict[str, Any]] = []
    try:
        for i in range(args.rounds):
            order = trees if i % 2 == 0 else trees[::-1]
            for name, root in order:
                result = one_round(name, root, ports[0], args, args.seed + i)
                print(f"round {i + 1} {name}: {result['actions_s']:.0f} actions/s, {result['per_action']:.1f} "
                      f"commands per action, idle {result['idle_commands_s']:.0f}/s, {result['ended']} ends, "
                      f"{result['missing_game_end']} missing, errors {result['errors']}", flush=True)
                rounds.append(result)
    finally:
        for proc in procs:
            proc.kill()
            proc.wait(10)
        shutil.rmtree(directory, ignore_errors=True)
    load1 = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(report(rounds, args, (load0, load1)))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(rounds, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
