"""Fault soak (`make soak`): games finish correctly while processes are SIGKILLed and Redis restarts.

    python -m bench.soak [--games 100] [--kills 9] [--rated-pairs 12] [--outcomes-kills 3] [--redis-games 8]
                         [--fsync always] [--json out.json]

Part 1 runs a game-state service, a bot worker and a gateway as real processes and
plays `--games` games of all three games (bot seats mixed with random human seats
driven through REST) while a killer SIGKILLs one of those processes at random
moments and restarts it. Human submissions carry an Idempotency-Key per (game,
seat, version) and are retried with it on a dropped connection or a 503, so a
retry can never apply twice. At the end every game must be finished, the engine
replay of its logged actions must reproduce the stored final digest, the versions
of the log must be 1..N with each acknowledged submission at its acknowledged
version, and clients must have seen nothing but retries and clean errors.

Beside them, `--rated-pairs` pairs of accounts each play one rated game (a challenge accepted, OpenSky or Blue Skies
for 2, every seat played over REST with the accounts' API keys), and the outcomes consumer (services/outcomes/) is
SIGKILLed `--outcomes-kills` times mid-batch: at a moment it holds outbox entries read but not acknowledged (XPENDING
names it), then restarted; another consumer claims what it left. After play, once the consumer group has done every
entry, every rated game must be settled exactly once (one `settled_games` row, one rated game in each player's
rating) and every `game_end` delivered once per account (one entry of that game on each account's stream).

Part 2 runs a separate redis-server (own port and temp dir, append-only file,
`--fsync` policy) under a fresh service and gateway, SIGKILLs that Redis in the
middle of play and restarts it on the same files: every acknowledged action must
still be in the log. That holds only under `always` (the default); under `everysec` Redis may reply
before it writes the append-only file (the write waits, up to 2 s, for a running background fsync), so
a kill can lose the last acknowledged actions. The shared Redis on 6379 is never touched.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import redis

import engine
from bench.stack import REDIS_URL, Stack, workers_available
from services.accounts.keys import Keys as AccountKeys
from services.dev.launch import RedisServer, free_port
from services.gamestate.keys import BUCKETS
from services.gamestate.keys import Keys as GameKeys

GAMES = ("opensky", "aeroplanes", "blueskies")
RETRY_STATUS = {502, 503, 504}  # 502 is only retried to finish the game; it is reported as unclean
CLEAN_ERRORS = {409, 503}  # stale version (a bot acted first), service briefly unavailable


@dataclass
class Tally:
    """What the clients saw, and every acknowledged submission: (game, version) -> (seat, action)."""

    retries: Counter = field(default_factory=Counter)
    errors: Counter = field(default_factory=Counter)
    acked: dict[tuple[str, int], tuple[int, Any]] = field(default_factory=dict)
    replayed: int = 0


class Player:
    """Plays the human seats of games through REST with retries that are safe to repeat."""

    def __init__(self, http: httpx.AsyncClient, tally: Tally, deadline: float):
        self.http = http
        self.tally = tally
        self.deadline = deadline

    async def request(self, method: str, url: str, **kwargs) -> httpx.Response:
        """One call, retried on a dropped connection or a 5xx until the deadline (GETs and keyed POSTs only)."""
        delay = 0.05
        while True:
            try:
                r = await self.http.request(method, url, **kwargs)
                if r.status_code not in RETRY_STATUS:
                    return r
                self.tally.retries[f"{r.status_code}"] += 1
                self.tally.errors[f"{method} {r.status_code}"] += 1
            except httpx.TransportError as exc:
                self.tally.retries[type(exc).__name__] += 1
            if time.monotonic() > self.deadline:
                raise TimeoutError(f"{method} {url} still failing at the deadline")
            await asyncio.sleep(delay)
            delay = min(delay * 2, 1.0)

    async def play(self, gid: str, tokens: dict[int, str], rng: random.Random) -> None:
        while time.monotonic() < self.deadline:
            g = (await self.request("GET", f"/v1/games/{gid}")).json()
            if g["status"] == "finished":
                return
            mine = [s for s in g["to_act"] if s in tokens]
            if not mine:
                await asyncio.sleep(0.05)  # a bot's turn
                continue
            seat = rng.choice(mine)
            headers = {"Authorization": f"Bearer {tokens[seat]}"}
            r = await self.request("GET", f"/v1/games/{gid}/actions", headers=headers)
            legal = r.json()
            if r.status_code != 200 or not legal["actions"]:
                self.tally.errors[f"GET actions {r.status_code}"] += int(r.status_code != 200)
                continue
            action = rng.choice(legal["actions"])
            version = legal["version"]
            key = f"{gid}:{seat}:{version}"
            r = await self.request("POST", f"/v1/games/{gid}/actions", json={"action": action,
                                   "expected_version": version}, headers={**headers, "Idempotency-Key": key})
            if r.status_code == 200:
                answer = r.json()
                assert answer["version"] == version + 1, (gid, answer["version"], version)
                self.tally.acked[(gid, answer["version"])] = (seat, action)
            else:
                self.tally.errors[f"POST {r.status_code}"] += 1
        raise TimeoutError(f"game {gid} did not finish before the deadline")


def _setup(rng: random.Random, i: int, bots_ok: bool) -> dict[str, Any]:
    """A random table: one of the three games, a legal player count, some seats bots (when a worker runs)."""
    name = GAMES[i % len(GAMES)]
    game = engine.get(name)
    players = rng.randint(game.min_players, min(game.max_players, 4))
    bots = {str(s): "random" for s in range(players) if bots_ok and rng.random() < 0.4}
    if len(bots) == players:
        bots.pop(str(rng.randrange(players)))
    return {"game": name, "players": players, "seed": rng.randrange(2**31), "bots": bots}


async def create_game(player: Player, body: dict[str, Any]) -> dict[str, Any]:
    """Create, retrying on failure (creation has no idempotency key: a lost answer leaves an orphan game)."""
    r = await player.request("POST", "/v1/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


async def play_games(stack: Stack, n: int, seed: int, deadline: float, tally: Tally,
                     concurrency: int, rated_pairs: int = 0) -> tuple[list[str], list[RatedGame]]:
    """`n` games of anonymous seats and `rated_pairs` rated games between accounts, all played out: their ids."""
    rng = random.Random(seed)
    setups = [_setup(rng, i, stack.workers > 0) for i in range(n)]
    ids: list[str] = []
    rated: list[RatedGame] = []
    sem = asyncio.Semaphore(concurrency)
    async with httpx.AsyncClient(base_url=stack.gateway_url, timeout=15) as http:
        player = Player(http, tally, deadline)

        async def one(i: int) -> None:
            async with sem:
                created = await create_game(player, setups[i])
                ids.append(created["game_id"])
                tokens = {s["seat"]: s["token"] for s in created["seats"] if s["token"]}
                await player.play(created["game_id"], tokens, random.Random(seed * 7919 + i))

        async def pair(i: int) -> None:
            async with sem:
                rated.append(await play_rated(player, i, seed))
                ids.append(rated[-1].game_id)

        await asyncio.gather(*(one(i) for i in range(n)), *(pair(i) for i in range(rated_pairs)))
    return ids, rated


@dataclass(frozen=True)
class RatedGame:
    game_id: str
    game: str
    players: tuple[str, str]  # the account ids of its two seats


async def _account(player: Player, name: str) -> tuple[str, str]:
    """A new account: (player id, API key). Its creation has no idempotency key: a retry after a lost answer makes a
    second account, which simply plays nothing."""
    r = await player.request("POST", "/v1/players", json={"name": name})
    assert r.status_code == 201, r.text
    return r.json()["player_id"], r.json()["api_key"]


async def play_rated(player: Player, i: int, seed: int) -> RatedGame:
    """One rated 2-player game between two new accounts (a challenge accepted), played out over REST with their keys."""
    rng = random.Random(seed * 7907 + i)
    a, b = await _account(player, f"soak-a{i}"), await _account(player, f"soak-b{i}")
    game = ("opensky", "blueskies")[i % 2]
    game_id = None
    while game_id is None:
        r = await player.request("POST", "/v1/challenges", json={"to": b[0], "game": game, "rated": True},
                                 headers={"Authorization": f"Bearer {a[1]}"})
        assert r.status_code == 201, r.text
        cid = r.json()["challenge_id"]
        r = await player.request("POST", f"/v1/challenges/{cid}/accept", headers={"Authorization": f"Bearer {b[1]}"})
        if r.status_code != 200:  # an accept whose answer was lost to a kill and was retried: the challenge says
            r = await player.request("GET", f"/v1/challenges/{cid}", headers={"Authorization": f"Bearer {b[1]}"})
        game_id = r.json().get("game_id")
    seats = (await player.request("GET", f"/v1/games/{game_id}")).json()["seats"]
    keys = {s["seat"]: (a[1] if s["player_id"] == a[0] else b[1]) for s in seats}
    await player.play(game_id, keys, rng)
    return RatedGame(game_id, game, (a[0], b[0]))


def _live_consumer_pending(client: redis.Redis, stack: Stack) -> int:
    """Outbox entries the running consumer process has read and not acknowledged yet (it is mid-batch)."""
    proc = stack.procs["outcomes"].popen
    if proc is None:
        return 0
    keys = GameKeys(stack.prefix)
    with client.pipeline(transaction=False) as pipe:
        for b in range(BUCKETS):
            pipe.xpending(keys.changes(b), stack.outcomes_group)
        replies = pipe.execute(raise_on_error=False)
    mine = f"-{proc.pid}-"
    return sum(int(c["pending"]) for r in replies if isinstance(r, dict)
               for c in r.get("consumers") or [] if mine in (c["name"].decode() if isinstance(c["name"], bytes)
                                                              else c["name"]))


def consumer_killer(stack: Stack, kills: int, stop: threading.Event, record: list[dict[str, Any]],
                    start_s: float) -> None:
    """SIGKILL the outcomes consumer `kills` times, each at a moment it holds entries read and not acknowledged
    (waiting up to 30 s for one; the record says how many it held), restarting it after a pause."""
    client = redis.Redis.from_url(stack.redis_url)
    start = time.monotonic()
    try:
        for i in range(kills):
            if stop.wait(start_s if i == 0 else 1.0):
                return
            pending, deadline = 0, time.monotonic() + 30
            while not stop.is_set() and time.monotonic() < deadline:
                pending = _live_consumer_pending(client, stack)
                if pending:
                    break
                time.sleep(0.002)
            if stop.is_set():
                return
            stack.procs["outcomes"].kill()
            time.sleep(0.3)
            stack.procs["outcomes"].start()
            record.append({"at_s": round(time.monotonic() - start, 2), "pending_at_kill": pending})
    finally:
        client.close()


def _group_behind(client: redis.Redis, stack: Stack) -> int:
    """Outbox entries the consumer group has not done: unread plus read and not acknowledged."""
    keys = GameKeys(stack.prefix)
    with client.pipeline(transaction=False) as pipe:
        for b in range(BUCKETS):
            pipe.xinfo_groups(keys.changes(b))
        replies = pipe.execute(raise_on_error=False)
    behind = 0
    for groups in replies:
        for g in groups if isinstance(groups, list) else []:
            if g["name"] in (stack.outcomes_group, stack.outcomes_group.encode()):
                behind += int(g.get("lag") or 0) + int(g["pending"])
    return behind


def verify_outcomes(stack: Stack, rated: list[RatedGame], patience_s: float = 120.0) -> dict[str, Any]:
    """Once the consumer group is done: each rated game settled exactly once, each `game_end` delivered once per
    account."""
    client = redis.Redis.from_url(stack.redis_url)
    accounts = AccountKeys(f"{stack.prefix}gw:")
    deadline = time.monotonic() + patience_s
    try:
        while _group_behind(client, stack) and time.monotonic() < deadline:
            time.sleep(0.2)
        behind = _group_behind(client, stack)
        ends: dict[tuple[str, str], int] = {}
        for g in rated:
            for pid in g.players:
                ends[(g.game_id, pid)] = sum(
                    1 for _id, f in client.xrange(accounts.account_events(pid))
                    if f.get(b"type") == b"game_end" and json.loads(f[b"data"])["game_id"] == g.game_id)
    finally:
        client.close()
    db = sqlite3.connect(stack.log_dir / "skyboard.db")
    try:
        rows = {g.game_id: db.execute("SELECT outcome FROM settled_games WHERE game_id = ?", (g.game_id,)).fetchall()
                for g in rated}
    finally:
        db.close()
    problems = [f"the consumer group is {behind} entries behind after {patience_s:.0f} s"] if behind else []
    with httpx.Client(base_url=stack.gateway_url, timeout=30) as http:
        for g in rated:
            if rows[g.game_id] != [("settled",)]:
                problems.append(f"{g.game_id}: settled rows {rows[g.game_id]}, not one")
            for pid in g.players:
                if ends[(g.game_id, pid)] != 1:
                    problems.append(f"{g.game_id}: {ends[(g.game_id, pid)]} game_end on {pid}'s stream, not one")
                games = http.get(f"/v1/players/{pid}").json()["ratings"].get(g.game, {}).get("games", 0)
                if games != 1:
                    problems.append(f"{g.game_id}: {pid}'s {g.game} rating counts {games} games, not one")
    return {"rated_games": len(rated), "game_end_delivered": sum(ends.values()), "problems": problems}


def _get_log_retrying(client: Any, game_id: str, patience_s: float = 30.0) -> Any:
    """Read a game's log, retrying UNAVAILABLE as any client told "retry" must: right after a Redis restart the
    service's pooled connections are stale and Redis may still be loading its append-only file."""
    import grpc

    from services.gamestate.client import GameServiceError

    deadline = time.monotonic() + patience_s
    while True:
        try:
            return client.get_log(game_id)
        except GameServiceError as exc:
            if exc.code != grpc.StatusCode.UNAVAILABLE or time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def verify(stack: Stack, ids: list[str], tally: Tally) -> dict[str, Any]:
    """Every game finished; replay reproduces the digest; each acknowledged action is logged at its version."""
    from services.gamestate.client_sync import GameClient

    problems: list[str] = []
    actions = 0
    with GameClient(stack.grpc_addr, timeout=30) as client:
        for gid in ids:
            log = _get_log_retrying(client, gid)
            game = engine.get(log.game)
            state = game.new(log.players, log.seed, log.options)
            versions = [e["v"] for e in log.entries]
            if versions != list(range(1, log.version + 1)):
                problems.append(f"{gid}: log versions are not 1..{log.version}")
            for entry in log.entries:
                state.apply(entry["seat"], game.action_from_json(entry["action"]))
                acked = tally.acked.get((gid, entry["v"]))
                if acked is not None and (acked[0], acked[1]) != (entry["seat"], entry["action"]):
                    problems.append(f"{gid}: acknowledged action at v{entry['v']} differs from the log")
            actions += len(log.entries)
            if not state.is_over() or state.digest() != log.final_digest:
                problems.append(f"{gid}: replay does not reproduce the stored digest")
            logged = {(gid, e["v"]) for e in log.entries}
            lost = [k for k in tally.acked if k[0] == gid and k not in logged]
            if lost:
                problems.append(f"{gid}: acknowledged versions missing from the log: {lost}")
    return {"games": len(ids), "actions": actions, "acked_human_actions": len(tally.acked), "problems": problems}


def killer(stack: Stack, roles: list[str], kills: int, span: float, seed: int, stop: threading.Event,
           record: list[dict[str, Any]], start_s: float = 1.0) -> None:
    """SIGKILL `kills` processes at random moments between `start_s` and `span` seconds, restarting each after
    a pause."""
    rng = random.Random(seed)
    moments = sorted(rng.uniform(start_s, max(start_s, span)) for _ in range(kills))
    start = time.monotonic()
    for i, at in enumerate(moments):
        if stop.wait(max(0.0, start + at - time.monotonic())):
            return
        role = roles[i % len(roles)] if i < len(roles) else rng.choice(roles)
        proc = stack.procs[role]
        proc.kill()
        down = rng.uniform(0.1, 1.0)
        time.sleep(down)
        t0 = time.monotonic()
        proc.start()
        record.append({"role": role, "at_s": round(time.monotonic() - start, 2), "down_s": round(down, 2),
                       "restart_s": round(time.monotonic() - t0, 2)})


def fault_soak(args: argparse.Namespace) -> dict[str, Any]:
    """Part 1: games under SIGKILLs of the service, a worker and the gateway."""
    use_workers = workers_available()
    tally = Tally()
    kills: list[dict[str, Any]] = []
    consumer_kills: list[dict[str, Any]] = []
    stop = threading.Event()
    # a killed consumer's entries are claimed by the next one after 1 s (30 s in a deployment)
    with Stack(redis_url=args.redis_url, dispatch_bots=use_workers, workers=1 if use_workers else 0,
               outcomes_env={"GATEWAY_OUTCOMES_CLAIM_IDLE_S": "1"}) as stack:
        roles = ["service", "gateway"] + (["worker0"] if use_workers else [])
        threads = [threading.Thread(target=killer, args=(stack, roles, args.kills, args.kill_span, args.seed, stop,
                                                         kills, args.kill_from), daemon=True),
                   threading.Thread(target=consumer_killer, args=(stack, args.outcomes_kills, stop, consumer_kills,
                                                                  args.kill_from), daemon=True)]
        start = time.monotonic()
        for thread in threads:
            thread.start()
        try:
            ids, rated = asyncio.run(play_games(stack, args.games, args.seed, time.monotonic() + args.timeout, tally,
                                                args.concurrency, args.rated_pairs))
        finally:
            stop.set()
            for thread in threads:
                thread.join(60)
        elapsed = time.monotonic() - start
        for proc in stack.procs.values():  # the last kill may have restarted a process after the games ended
            if proc.popen is None or proc.popen.poll() is not None:
                proc.start()
        result = verify(stack, ids, tally)
        outcomes = verify_outcomes(stack, rated)
        result["problems"] += outcomes.pop("problems")
        result |= outcomes | {"consumer_kills": consumer_kills}
        result["log_dir"] = str(stack.log_dir)
    unclean = {k: v for k, v in tally.errors.items() if int(k.split()[-1]) not in CLEAN_ERRORS}
    result |= {"seconds": round(elapsed, 1), "kills": kills, "kills_by_role": dict(Counter(k["role"] for k in kills)),
               "retries": dict(tally.retries), "errors": dict(tally.errors), "unclean_errors": unclean,
               "bots": "random level, played by a Celery worker" if use_workers else "no worker in this tree"}
    return result


def redis_restart_soak(args: argparse.Namespace) -> dict[str, Any]:
    """Part 2: SIGKILL the (private, append-only) Redis mid-play, restart it; no acknowledged action is lost."""
    port = args.redis_port or free_port()
    server = RedisServer(port, args.fsync)
    server.start()
    tally = Tally()
    restarts: list[dict[str, Any]] = []
    stop = threading.Event()

    def restart_redis() -> None:
        for at in (args.redis_kill_at, args.redis_kill_at * 2):
            if stop.wait(at if not restarts else args.redis_kill_at):
                return
            acked_before = len(tally.acked)
            server.kill()
            time.sleep(0.5)
            server.start()
            restarts.append({"acked_before_kill": acked_before})

    try:
        with Stack(redis_url=server.url, dispatch_bots=False) as stack:
            thread = threading.Thread(target=restart_redis, daemon=True)
            thread.start()
            try:
                ids, _rated = asyncio.run(play_games(stack, args.redis_games, args.seed + 1,
                                                     time.monotonic() + args.timeout, tally, args.redis_games))
            finally:
                stop.set()
                thread.join(30)
            result = verify(stack, ids, tally)
            result["log_dir"] = str(stack.log_dir)
    finally:
        server.close()
    unclean = {k: v for k, v in tally.errors.items() if int(k.split()[-1]) not in CLEAN_ERRORS}
    return result | {"fsync": args.fsync, "port": port, "redis_kills": restarts, "retries": dict(tally.retries),
                     "errors": dict(tally.errors), "unclean_errors": unclean}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--concurrency", type=int, default=25, help="games in play at once")
    p.add_argument("--kills", type=int, default=9, help="SIGKILLs, spread over service, worker and gateway")
    p.add_argument("--kill-span", type=float, default=60.0, help="kills happen within this many seconds")
    p.add_argument("--kill-from", type=float, default=1.0,
                   help="no kill before this many seconds (a short soak on a fast machine ends within seconds)")
    p.add_argument("--rated-pairs", type=int, default=12, help="rated games between two accounts, beside the games")
    p.add_argument("--outcomes-kills", type=int, default=3, help="SIGKILLs of the outcomes consumer mid-batch")
    p.add_argument("--timeout", type=float, default=900.0, help="every game must finish within this")
    p.add_argument("--redis-games", type=int, default=8, help="games of the Redis restart part (0 skips)")
    p.add_argument("--redis-kill-at", type=float, default=4.0, help="seconds between private Redis kills")
    p.add_argument("--redis-port", type=int, default=6390)
    p.add_argument("--fsync", default="always", choices=["always", "everysec", "no"])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--redis-url", default=REDIS_URL)
    p.add_argument("--json", help="write the report here")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    report: dict[str, Any] = {"faults": fault_soak(args)} if args.games else {}
    if "faults" in report:
        print(json.dumps(report["faults"], indent=1), flush=True)
    if args.redis_games:
        report["redis"] = redis_restart_soak(args)
        print(json.dumps(report["redis"], indent=1), flush=True)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(report, indent=1))
    bad = [part for part, r in report.items() if r["problems"] or r["unclean_errors"]]
    print("SOAK FAILED: " + ", ".join(bad) if bad else "soak passed", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
