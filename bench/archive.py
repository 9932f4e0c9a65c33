"""The archive of finished games, measured: Redis memory per game before and after archival, archive throughput
into PostgreSQL, bytes per archived game by title, and the player-history query at a large archive.

    python -m bench.archive --games 10000 --history-rows 100000 \\
        --json bench/results/archive.json --plot bench/results/archive.png

Starts a private stack (`bench/stack.py`: a game-state service process and a gateway, every key under one
throw-away prefix) on an archive database of its own (created on --pg-server and dropped at the end, unless
--archive-url names one), then runs three phases:

1. backlog: --backlog games of all three titles are played to their end through the service with its
   archiver off (ARCHIVE_INTERVAL_S=0); the bytes their keys hold in Redis (MEMORY USAGE of every key under
   the prefix) give the Redis cost per finished game, by title. The backlog is then drained by the service's
   own `Archiver` class (ARCHIVE_BATCH games per transaction), timed: archived games per second, and the
   bytes left in Redis per game afterwards.
2. soak: the service is restarted with its archiver on (ARCHIVE_AFTER_S=0, ARCHIVE_INTERVAL_S=1) and --games
   more games are played; every --sample-s the Redis memory (whole server, and under the prefix) and the
   archive's row count are sampled (plotted with --plot). Row sizes by title are read from PostgreSQL.
3. history: synthetic rows (the logs and final states of real soak games, new ids, seats held by a pool of
   players of skewed activity) fill the archive up to --history-rows games; then `GET
   /v1/players/{id}/games` is timed through `ArchiveRepository.history` (first pages and cursor pages of
   random players) and through the gateway's REST route, against a `SELECT 1` baseline on the same pool.

Games are played with seeded random legal moves computed by a local replica of each game (seed + actions),
so each move costs the service one SubmitAction; each game's final digest is checked against the service's.
Needs Redis (REDIS_URL) and PostgreSQL. The machine's load average is recorded with every phase.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import os
import random
import statistics
import sys
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import redis.asyncio as aioredis
from sqlalchemy import text

import engine
from bench.stack import REDIS_URL, Stack
from services.archive.db import make_engine
from services.archive.migrate import upgrade
from services.archive.record import ArchivedGame
from services.archive.repository import ArchiveRepository
from services.gamestate.archiver import Archiver
from services.gamestate.buckets import per_bucket
from services.gamestate.client import AsyncGameClient
from services.gamestate.keys import Keys

PG_SERVER = os.environ.get("ARCHIVE_BENCH_PG", "postgresql://postgres@127.0.0.1:5432")
TITLES = tuple(engine.games())


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def say(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')} load {' '.join(f'{x:.2f}' for x in os.getloadavg())}] {msg}", flush=True)


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(len(s) * q))] if s else float("nan")


def ms(xs: list[float]) -> dict[str, float]:
    return {"n": len(xs), "p50_ms": round(pct(xs, 0.5) * 1000, 3), "p99_ms": round(pct(xs, 0.99) * 1000, 3),
            "max_ms": round(max(xs) * 1000, 3) if xs else float("nan")}


# ---------------------------------------------------------------------------------------------------------------
# playing games through the service


@dataclass
class Played:
    game_id: str
    title: str
    players: int
    moves: int


def pick(i: int, rng: random.Random, players_mode: str) -> tuple[str, int]:
    title = TITLES[i % len(TITLES)]
    g = engine.get(title)
    return title, g.min_players if players_mode == "min" else rng.randint(g.min_players, g.max_players)


async def play_one(client: AsyncGameClient, title: str, players: int, seed: int) -> Played:
    """One game to its end: random legal moves from a local replica, each one SubmitAction to the service."""
    game = engine.get(title)
    created = await client.create_game(title, players, seed=seed)
    state = game.new(players, seed)
    rng = random.Random(seed)
    version, moves = created.version, 0
    while not state.is_over():
        seat = rng.choice(state.to_act())
        action = rng.choice(state.legal_actions(seat))
        reply = await client.submit(created.game_id, created.token(seat), action.to_json(), version)
        state.apply(seat, action)
        version, moves = reply.version, moves + 1
    final = await client.get_game(created.game_id)
    if final.status != "finished" or final.digest != state.digest():
        raise RuntimeError(f"game {created.game_id} ({title}): the service's end differs from the local replay")
    return Played(created.game_id, title, players, moves)


async def play_many(target: str, n: int, first: int, seed: int, concurrency: int, players_mode: str,
                    done: list[Played]) -> float:
    """Play games first..first+n-1 with `concurrency` at once; appends to `done`; returns the seconds taken."""
    rng = random.Random(seed)
    plan = [pick(i, rng, players_mode) for i in range(first, first + n)]
    queue: asyncio.Queue[int] = asyncio.Queue()
    for i in range(n):
        queue.put_nowait(i)
    t0 = time.perf_counter()
    async with AsyncGameClient(target, timeout=30.0) as client:

        async def worker() -> None:
            while True:
                try:
                    i = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                title, players = plan[i]
                done.append(await play_one(client, title, players, seed * 1_000_000 + first + i))

        await asyncio.gather(*(worker() for _ in range(min(concurrency, n))))
    return time.perf_counter() - t0


# ---------------------------------------------------------------------------------------------------------------
# Redis memory


def is_outbox(key: str, prefix: str) -> bool:
    """The buckets' outbox streams: a shared log bounded by OUTBOX_MAXLEN, not a game's state, so the archive's
    clean-up is judged without them and their bytes are reported on their own (outbox_bytes)."""
    return key.startswith(f"{prefix}changes:")


async def prefix_bytes(r: aioredis.Redis, prefix: str, outbox: bool = False) -> dict[str, int]:
    """MEMORY USAGE (every element counted) of each key under `prefix`, the gateway's own keys excluded, and the
    outbox streams excluded unless `outbox` asks for those alone."""
    keys = [k async for k in r.scan_iter(match=f"{prefix}*", count=2000)
            if not k.startswith(f"{prefix}gw:") and is_outbox(k, prefix) == outbox]
    out: dict[str, int] = {}
    for i in range(0, len(keys), 500):
        part = keys[i:i + 500]
        async with r.pipeline(transaction=False) as pipe:
            for k in part:
                pipe.memory_usage(k, samples=0)
            sizes = await pipe.execute()
        out.update({k: int(s or 0) for k, s in zip(part, sizes)})
    return out


async def bytes_by_title(r: aioredis.Redis, prefix: str, titles: dict[str, str]) -> dict[str, Any]:
    """Redis bytes under the prefix split by the game each key belongs to (token-index keys by their value)."""
    sizes = await prefix_bytes(r, prefix)
    per_game: Counter[str] = Counter()
    shared = 0
    for key, size in sizes.items():
        gid = ""
        if "{" in key:
            gid = key[key.index("{") + 1:key.index("}")]
        elif key.startswith(f"{prefix}token:"):
            gid = ((await r.get(key)) or "").rsplit(":", 1)[0]
        if gid in titles:
            per_game[gid] += size
        else:
            shared += size  # indexes (active/finished zsets, clock, ...)
    by_title: dict[str, list[int]] = defaultdict(list)
    for gid, title in titles.items():
        by_title[title].append(per_game.get(gid, 0))
    return {
        "keys": len(sizes), "total_bytes": sum(sizes.values()), "shared_bytes": shared,
        "per_game_bytes": round(sum(sizes.values()) / max(1, len(titles)), 1),
        "by_title": {t: {"games": len(v), "mean_bytes": round(statistics.fmean(v), 1)}
                     for t, v in sorted(by_title.items())},
    }


async def used_memory(r: aioredis.Redis) -> int:
    return int((await r.info("memory"))["used_memory"])


# ---------------------------------------------------------------------------------------------------------------
# PostgreSQL


async def pg_admin(server: str, sql: str) -> None:
    conn = await asyncpg.connect(f"{server}/postgres", timeout=10)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


async def row_sizes(repo: ArchiveRepository) -> dict[str, Any]:
    """Stored bytes per archived game by title (pg_column_size: after TOAST, blobs included) and on disk."""
    async with repo.engine.connect() as conn:
        by_title = (await conn.execute(text(
            "SELECT game, count(*), avg(version), avg(pg_column_size(g.*)), avg(pg_column_size(log_z)), "
            "avg(pg_column_size(state_z)) FROM archived_games g GROUP BY game ORDER BY game"))).all()
        games = (await conn.execute(text("SELECT count(*) FROM archived_games"))).scalar_one()
        players = (await conn.execute(text("SELECT count(*) FROM archived_game_players"))).scalar_one()
        disk = {t: (await conn.execute(text(f"SELECT pg_total_relation_size('{t}')"))).scalar_one()
                for t in ("archived_games", "archived_game_players")}
    return {
        "games": games, "player_rows": players,
        "by_title": {g: {"games": n, "mean_moves": round(float(v), 1), "row_bytes": round(float(row)),
                         "log_z_bytes": round(float(lz)), "state_z_bytes": round(float(sz))}
                     for g, n, v, row, lz, sz in by_title},
        "disk_bytes": disk,
        "disk_bytes_per_game": round(sum(disk.values()) / max(1, games)),
    }


# ---------------------------------------------------------------------------------------------------------------
# phases


async def backlog_phase(args, stack: Stack, r: aioredis.Redis, repo: ArchiveRepository) -> dict[str, Any]:
    say(f"backlog: playing {args.backlog} games with the archiver off")
    done: list[Played] = []
    load0 = load()
    secs = await play_many(stack.grpc_addr, args.backlog, 0, args.seed, args.concurrency, args.players, done)
    moves = sum(p.moves for p in done)
    say(f"backlog: {len(done)} games, {moves} moves in {secs:.1f} s ({len(done) / secs:.1f} games/s, "
        f"{moves / secs:.0f} moves/s)")
    titles = {p.game_id: p.title for p in done}
    before = await bytes_by_title(r, stack.prefix, titles)
    say(f"backlog: Redis holds {before['per_game_bytes']:.0f} B per finished game under the prefix "
        f"({before['keys']} keys)")
    archiver = Archiver(r, Keys(stack.prefix), repo, engine.get, after_s=0, batch=args.batch)
    rows0 = await repo.count()
    passes, t0 = 0, time.perf_counter()
    while await archiver.archive_once():
        passes += 1
    drain = time.perf_counter() - t0
    archived = await repo.count() - rows0
    after = await bytes_by_title(r, stack.prefix, titles)
    say(f"backlog: archived {archived} games in {drain:.2f} s ({archived / drain:.0f} games/s, {passes} passes "
        f"of {args.batch}); {after['total_bytes']} B left under the prefix ({after['keys']} keys)")
    return {
        "games": len(done), "moves": moves, "play_s": round(secs, 2), "games_per_s_played": round(len(done) / secs, 2),
        "moves_per_s": round(moves / secs, 1), "mean_moves_by_title": {
            t: round(statistics.fmean([p.moves for p in done if p.title == t]), 1)
            for t in sorted(set(titles.values()))},
        "redis_before": before, "redis_after": after, "archived": archived, "drain_s": round(drain, 3),
        "archive_games_per_s": round(archived / drain, 1), "batch": args.batch, "load_start": load0, "load_end": load(),
    }


async def soak_phase(args, stack: Stack, r: aioredis.Redis, repo: ArchiveRepository) -> dict[str, Any]:
    service = stack.procs["service"]
    service.stop()
    service.env.update({"ARCHIVE_INTERVAL_S": "1", "ARCHIVE_AFTER_S": "0", "ARCHIVE_BATCH": str(args.batch)})
    service.start()
    say(f"soak: service restarted with its archiver on; playing {args.games} games")
    keys = Keys(stack.prefix)
    done: list[Played] = []
    samples: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    rows0 = await repo.count()
    stop = asyncio.Event()

    async def count(index: Callable[[int], str]) -> int:
        """Entries of a per-bucket index over every bucket (services/gamestate/keys.py)."""
        return sum(await per_bucket(r, lambda pipe, b: pipe.zcard(index(b))))

    async def sample() -> None:
        pb = await prefix_bytes(r, stack.prefix)
        samples.append({
            "t": round(time.perf_counter() - t0, 2), "finished": len(done), "archive_rows": await repo.count() - rows0,
            "redis_used": await used_memory(r), "prefix_bytes": sum(pb.values()), "prefix_keys": len(pb),
            "awaiting": await count(keys.finished), "active": await count(keys.active), "load1": load()[0],
        })

    async def sampler() -> None:
        last = time.perf_counter()
        while not stop.is_set():
            await sample()
            s = samples[-1]
            if time.perf_counter() - last >= 30:
                last = time.perf_counter()
                say(f"soak: t={s['t']:.0f}s finished {s['finished']} archived {s['archive_rows']} "
                    f"prefix {s['prefix_bytes'] / 1e6:.2f} MB used {s['redis_used'] / 1e6:.1f} MB")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), args.sample_s)

    load0 = load()
    task = asyncio.create_task(sampler())
    secs = await play_many(stack.grpc_addr, args.games, args.backlog, args.seed, args.concurrency, args.players, done)
    say(f"soak: {len(done)} games played in {secs:.0f} s ({len(done) / secs:.1f} games/s); waiting for the archive")
    deadline = time.perf_counter() + 120
    while time.perf_counter() < deadline and (await count(keys.finished) or await repo.count() - rows0 < len(done)):
        await asyncio.sleep(0.5)
    await asyncio.sleep(max(3 * args.sample_s, 2))  # a few flat samples after the last archival
    stop.set()
    await task
    await sample()
    end = samples[-1]
    peak = max(s["prefix_bytes"] for s in samples)
    say(f"soak: archive {end['archive_rows']} rows; prefix bytes peak {peak / 1e6:.2f} MB, end {end['prefix_bytes']} B "
        f"({end['prefix_keys']} keys); Redis used_memory {samples[0]['redis_used'] / 1e6:.1f} -> "
        f"{end['redis_used'] / 1e6:.1f} MB")
    sizes = await row_sizes(repo)
    for title, v in sizes["by_title"].items():
        say(f"soak: {title:<10} {v['games']:>6} games, {v['mean_moves']:.0f} moves, row {v['row_bytes']} B "
            f"(log {v['log_z_bytes']} B, state {v['state_z_bytes']} B)")
    say(f"soak: on disk (tables, indexes, TOAST) {sizes['disk_bytes_per_game']} B per archived game")
    return {
        "games": len(done), "moves": sum(p.moves for p in done), "play_s": round(secs, 1),
        "games_per_s_finished": round(len(done) / secs, 2), "archived": end["archive_rows"],
        "prefix_bytes_peak": peak, "prefix_bytes_end": end["prefix_bytes"], "prefix_keys_end": end["prefix_keys"],
        "prefix_bytes_per_game_end": round(end["prefix_bytes"] / max(1, len(done)), 3),
        "outbox_bytes_end": sum((await prefix_bytes(r, stack.prefix, outbox=True)).values()),
        "redis_used_start": samples[0]["redis_used"], "redis_used_end": end["redis_used"],
        "redis_used_max": max(s["redis_used"] for s in samples),
        "awaiting_max": max(s["awaiting"] for s in samples), "row_sizes": sizes,
        "load_start": load0, "load_end": load(), "samples": samples,
    }


def skewed_pool(n: int, rng: random.Random) -> tuple[list[str], list[float]]:
    """`n` player ids and weights of skewed activity (a few play a lot, most a little: weight ~ rank^-0.8)."""
    ids = [uuid.uuid4().hex for _ in range(n)]
    return ids, [1 / (i + 1) ** 0.8 for i in range(n)]


async def history_phase(args, stack: Stack, repo: ArchiveRepository) -> dict[str, Any]:
    rng = random.Random(args.seed + 1)
    existing = await repo.count()
    to_add = max(0, args.history_rows - existing)
    # real archived games as templates: their logs and final states give the rows realistic sizes
    templates: dict[str, list[ArchivedGame]] = defaultdict(list)
    for g in await repo.recent(limit=300):
        full = await repo.get(g.game_id)
        if full is not None:
            templates[full.game].append(full)
    if not templates:
        raise RuntimeError("no archived game to copy: run the soak first (--games > 0)")
    pool_size = max(50, round(to_add * 3 / args.games_per_player))
    pool, weights = skewed_pool(pool_size, rng)
    # players the gateway knows (the REST route answers 404 for an unknown id): spread over the activity ranks
    rest_ids: list[str] = []
    if args.rest_queries:
        async with httpx.AsyncClient(base_url=stack.gateway_url, timeout=30) as http:
            for i in range(args.rest_players):
                resp = await http.post("/v1/players", json={"name": f"bench{i}"})
                resp.raise_for_status()
                pid = resp.json()["player_id"]
                slot = i * pool_size // args.rest_players
                pool[slot] = pid
                rest_ids.append(pid)
    say(f"history: adding {to_add} synthetic games to {existing} archived ({pool_size} players)")
    now = int(time.time() * 1000)
    load0, t0, added = load(), time.perf_counter(), 0
    titles = sorted(templates)
    while added < to_add:
        batch = []
        for _ in range(min(1000, to_add - added)):
            tpl = rng.choice(templates[rng.choice(titles)])
            seated = rng.choices(pool, weights, k=tpl.players * 2)
            seats = list(dict.fromkeys(seated))[:tpl.players]  # distinct players (a rare short table: empty seats)
            finished = now - rng.randrange(90 * 86_400_000)
            # the template's game under a new id, players and times (dataclasses.replace: every other field of
            # the record, whatever it holds, is the template's)
            batch.append(dataclasses.replace(
                tpl, game_id=uuid.uuid4().hex, seed=rng.randrange(2**62), bots={}, owner="",
                seat_players=dict(enumerate(seats)), resigned=[], status="finished", rated=True, clock_ms=0,
                created_ms=finished - rng.randrange(600_000, 3_600_000), updated_ms=finished, archived_ms=now,
            ))
        await repo.put_many(batch)
        added += len(batch)
        if added % 20_000 == 0 or added == to_add:
            say(f"history: {added}/{to_add} inserted")
    fill_s = time.perf_counter() - t0
    async with repo.engine.begin() as conn:
        await conn.execute(text("ANALYZE archived_games"))
        await conn.execute(text("ANALYZE archived_game_players"))
        per_player = (await conn.execute(text(
            "SELECT percentile_disc(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY n), max(n), count(*) "
            "FROM (SELECT count(*) n FROM archived_game_players GROUP BY player_id) c"))).one()
    total = await repo.count()
    say(f"history: {total} archived games; games per player p50 {per_player[0][0]}, p99 {per_player[0][1]}, "
        f"max {per_player[1]} ({per_player[2]} players)")

    # timed reads, interleaved so that machine noise hits each kind alike
    async with repo.engine.connect() as conn:
        found = await conn.execute(text("SELECT DISTINCT player_id FROM archived_game_players"))
        players_with_games = list(found.scalars())
    rest_ids = [p for p in rest_ids if p in set(players_with_games)]
    first, nxt, base, filtered = [], [], [], []
    for i in range(args.queries):
        pid = rng.choice(players_with_games)
        t = time.perf_counter()
        async with repo.sessions() as s:
            await s.execute(text("SELECT 1"))
        base.append(time.perf_counter() - t)
        t = time.perf_counter()
        page = await repo.history(pid, limit=20)
        first.append(time.perf_counter() - t)
        if page.next_cursor:
            t = time.perf_counter()
            await repo.history(pid, cursor=page.next_cursor, limit=20)
            nxt.append(time.perf_counter() - t)
        if i % 4 == 0:
            t = time.perf_counter()
            await repo.history(pid, game=rng.choice(titles), limit=20)
            filtered.append(time.perf_counter() - t)
    rest, rest_next = [], []
    if rest_ids:
        async with httpx.AsyncClient(base_url=stack.gateway_url, timeout=30) as http:
            for _ in range(args.rest_queries):
                pid = rng.choice(rest_ids)
                t = time.perf_counter()
                resp = await http.get(f"/v1/players/{pid}/games", params={"limit": 20})
                rest.append(time.perf_counter() - t)
                resp.raise_for_status()
                cursor = resp.json()["next_cursor"]
                if cursor:
                    t = time.perf_counter()
                    resp = await http.get(f"/v1/players/{pid}/games", params={"limit": 20, "cursor": cursor})
                    resp.raise_for_status()
                    rest_next.append(time.perf_counter() - t)
    out = {
        "archived_games": total, "added": to_add, "fill_s": round(fill_s, 1),
        "fill_games_per_s": round(to_add / fill_s, 1) if fill_s else None, "players": pool_size,
        "games_per_player": {"p50": per_player[0][0], "p99": per_player[0][1], "max": per_player[1]},
        "select1_baseline": ms(base), "first_page": ms(first), "cursor_page": ms(nxt), "game_filter": ms(filtered),
        "rest_first_page": ms(rest), "rest_cursor_page": ms(rest_next), "rest_players": len(rest_ids),
        "row_sizes": await row_sizes(repo), "load_start": load0, "load_end": load(),
    }
    out["first_page_p50_vs_select1"] = round(out["first_page"]["p50_ms"] / out["select1_baseline"]["p50_ms"], 2)
    for name in ("select1_baseline", "first_page", "cursor_page", "game_filter", "rest_first_page", "rest_cursor_page"):
        v = out[name]
        say(f"history: {name:<16} n={v['n']:>5} p50 {v['p50_ms']:.2f} ms p99 {v['p99_ms']:.2f} ms")
    return out


# ---------------------------------------------------------------------------------------------------------------


def plot(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = result["soak"]["samples"]
    t = [x["t"] for x in s]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 6.5), sharex=True)
    top.plot(t, [x["prefix_bytes"] / 1e6 for x in s], label="Redis, this run's keys (MEMORY USAGE)")
    top.plot(t, [x["redis_used"] / 1e6 for x in s], alpha=0.7,
             label="Redis used_memory (whole shared server, other runs included)")
    top.set_ylabel("MB")
    top.set_ylim(bottom=0)
    top.legend(loc="upper left")
    title = f"Soak: {result['soak']['games']} games finished with the archiver on (ARCHIVE_AFTER_S=0)"
    if "backlog" in result:  # what the same games would hold in Redis without the archive
        per_game = result["backlog"]["redis_before"]["per_game_bytes"]
        title += (f"\nwithout archival they would hold ~{per_game * result['soak']['games'] / 1e6:,.0f} MB "
                  f"of this run's keys ({per_game / 1e3:.1f} kB per finished game)")
    top.set_title(title, fontsize=10)
    bottom.plot(t, [x["archive_rows"] for x in s], label="archived games (PostgreSQL rows)")
    bottom.plot(t, [x["finished"] for x in s], label="games finished", linestyle="--", alpha=0.7)
    bottom.set_ylabel("games")
    bottom.set_xlabel("seconds")
    bottom.legend(loc="upper left")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


async def run(args) -> dict[str, Any]:
    db = None
    url = args.archive_url
    if not url:
        db = f"skyboard_bench_{uuid.uuid4().hex[:8]}"
        await pg_admin(args.pg_server, f'CREATE DATABASE "{db}"')
        url = f"{args.pg_server.replace('postgresql://', 'postgresql+asyncpg://', 1)}/{db}"
    engine_ = make_engine(url)
    repo = ArchiveRepository(engine_)
    r = aioredis.Redis.from_url(args.redis_url, decode_responses=True)
    stack = Stack(redis_url=args.redis_url,
                  service_env={"ARCHIVE_URL": url, "ARCHIVE_INTERVAL_S": "0", "ARCHIVE_AFTER_S": "0"},
                  gateway_env={"GATEWAY_ARCHIVE_URL": url})
    result: dict[str, Any] = {
        "command": " ".join(["python -m bench.archive", *args.argv]),
        "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "cpus": os.cpu_count(), "load_start": load(),
        "archive": "postgresql" if "postgresql" in url else url.split(":")[0],
        "players_mode": args.players, "concurrency": args.concurrency, "database": db or "(--archive-url)",
    }
    try:
        await upgrade(engine_)
        say(f"stack: prefix {stack.prefix}, archive database {db or url}")
        stack.start()
        if args.backlog:
            result["backlog"] = await backlog_phase(args, stack, r, repo)
        if args.games:
            result["soak"] = await soak_phase(args, stack, r, repo)
            if "backlog" in result:
                # the in-run baseline of the throughput claim: how fast this machine finishes games
                result["archive_vs_finish_rate"] = round(
                    result["backlog"]["archive_games_per_s"] / result["soak"]["games_per_s_finished"], 1)
        if args.history_rows:
            result["history"] = await history_phase(args, stack, repo)
    finally:
        stack.stop()
        stack.cleanup()
        await r.aclose()
        await repo.close()
        if db and not args.keep_db:
            await pg_admin(args.pg_server, f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
    result["load_end"] = load()
    result["finished"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    return result


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=10_000, help="games played in the soak, archiver on (0 = skip)")
    p.add_argument("--backlog", type=int, default=1_000,
                   help="games played with the archiver off, then drained and timed (0 = skip)")
    p.add_argument("--history-rows", type=int, default=100_000,
                   help="archived games to reach before timing the history query (0 = skip)")
    p.add_argument("--queries", type=int, default=2_000, help="history queries through the repository")
    p.add_argument("--rest-queries", type=int, default=500, help="history queries through the REST route (0 = skip)")
    p.add_argument("--rest-players", type=int, default=50, help="players created through REST for those queries")
    p.add_argument("--games-per-player", type=float, default=30.0, help="mean archived games per synthetic player")
    p.add_argument("--concurrency", type=int, default=32, help="games played at once")
    p.add_argument("--players", choices=["min", "random"], default="random",
                   help="player count of each game: the title's minimum, or uniform in its range")
    p.add_argument("--batch", type=int, default=100, help="ARCHIVE_BATCH: games per archive transaction")
    p.add_argument("--sample-s", type=float, default=1.0, help="seconds between two soak samples")
    p.add_argument("--archive-url", default="", help="an existing archive database (default: a fresh PostgreSQL "
                   "database on --pg-server, dropped at the end)")
    p.add_argument("--pg-server", default=PG_SERVER, help="PostgreSQL server URL without a database "
                   "(default: ARCHIVE_BENCH_PG or %(default)s)")
    p.add_argument("--keep-db", action="store_true", help="do not drop the database this run created")
    p.add_argument("--redis-url", default=REDIS_URL)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", type=Path, help="write the result here (soak samples included)")
    p.add_argument("--plot", type=Path, help="write the soak plot (PNG) here")
    p.add_argument("--replot", type=Path, metavar="JSON", help="only draw --plot from the result of an earlier run")
    args = p.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    if args.replot and not args.plot:
        p.error("--replot needs --plot")
    if args.replot:
        return args
    if args.plot and not args.games:
        p.error("--plot needs the soak (--games > 0)")
    if args.history_rows and not (args.games or args.backlog):
        p.error("--history-rows copies real archived games: play some first (--games or --backlog)")
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    if args.replot:
        result = json.loads(args.replot.read_text())
        plot(result, args.plot)
        say(f"wrote {args.plot} from {args.replot}")
        return result
    result = asyncio.run(run(args))
    if args.plot:
        plot(result, args.plot)
        say(f"wrote {args.plot}")
    if args.json:
        out = json.loads(json.dumps(result))
        samples = out.get("soak", {}).get("samples", [])
        if len(samples) > 600:  # keep the file small: at most ~600 evenly spaced samples (the last one kept)
            step = -(-len(samples) // 600)
            out["soak"]["samples"] = samples[::step] + ([samples[-1]] if (len(samples) - 1) % step else [])
            out["soak"]["samples_thinned_every"] = step
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=1) + "\n")
        say(f"wrote {args.json}")
    return result


if __name__ == "__main__":
    main()
