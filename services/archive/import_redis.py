"""`python -m services.archive import-redis`: copy the gateway's former Redis records into SQL, once.

Before players, keys and ratings moved to SQL (migration 0002) the gateway kept them in Redis under its key
prefix (GATEWAY_KEY_PREFIX, `sbgw:`): `player:<id>` hashes (name, kind, created_ms), `apikey:<sha256>` ->
player id (a rotated key in its grace period with a TTL), `rating:<id>` hashes (game -> JSON mu/sigma/games)
and `rated_done:<game id>` flags of settled rated games. This copies them (keys whose grace is over, and
keys and ratings of unknown players, are skipped) and inserts only what SQL lacks, so it can run again
(before the rollout, and once more after the old gateways stopped) without changing what is there. It reads
Redis only; remove the old keys yourself once satisfied.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import AsyncIterator

from redis.asyncio import Redis

from services.accounts.repository import AccountRepository, PlayerRecord, Skill

_ID = re.compile(r"^[0-9a-f]{32}$")
_HASH = re.compile(r"^[0-9a-f]{64}$")
#: Redis records per SQL transaction
BATCH = 1000


def _text(value: bytes | str | None) -> str:
    return value.decode() if isinstance(value, bytes) else (value or "")


async def _scan(redis: Redis, pattern: str) -> AsyncIterator[str]:
    async for key in redis.scan_iter(match=pattern, count=1000):
        yield _text(key)


async def import_redis(redis: Redis, prefix: str, repo: AccountRepository) -> dict[str, int]:
    """Copy players, key hashes, ratings and settled-game flags under `prefix`; answers rows inserted per table
    and records read (`read_*`)."""
    now = int(time.time() * 1000)
    totals = {"players": 0, "api_keys": 0, "ratings": 0, "settled_games": 0, "read_players": 0, "read_api_keys": 0,
              "read_ratings": 0, "read_settled_games": 0}

    def add(counts: dict[str, int]) -> None:
        for k, v in counts.items():
            totals[k] += v

    players: list[PlayerRecord] = []
    async for key in _scan(redis, f"{prefix}player:*"):
        pid = key[len(prefix) + len("player:"):]
        if not _ID.match(pid):
            continue
        raw = {_text(k): _text(v) for k, v in (await redis.hgetall(key)).items()}
        if "name" not in raw:
            continue
        kind = raw.get("kind") if raw.get("kind") in ("human", "bot") else "human"
        players.append(PlayerRecord(pid, raw["name"], kind, int(raw.get("created_ms") or 0)))
        if len(players) >= BATCH:
            add(await repo.import_records(players, [], [], [], now))
            totals["read_players"] += len(players)
            players = []
    add(await repo.import_records(players, [], [], [], now))
    totals["read_players"] += len(players)

    keys: list[tuple[str, str, int, int | None]] = []
    async for key in _scan(redis, f"{prefix}apikey:*"):
        key_hash = key[len(prefix) + len("apikey:"):]
        pid, ttl = _text(await redis.get(key)), await redis.pttl(key)
        if not _HASH.match(key_hash) or not _ID.match(pid) or ttl == -2:
            continue
        keys.append((key_hash, pid, now, now + ttl if ttl > 0 else None))
        if len(keys) >= BATCH:
            add(await repo.import_records([], keys, [], [], now))
            totals["read_api_keys"] += len(keys)
            keys = []
    add(await repo.import_records([], keys, [], [], now))
    totals["read_api_keys"] += len(keys)

    ratings: list[tuple[str, str, Skill]] = []
    async for key in _scan(redis, f"{prefix}rating:*"):
        pid = key[len(prefix) + len("rating:"):]
        if not _ID.match(pid):
            continue
        for game, raw in (await redis.hgetall(key)).items():
            obj = json.loads(raw)
            ratings.append((pid, _text(game), (float(obj["mu"]), float(obj["sigma"]), int(obj.get("games", 0)))))
        if len(ratings) >= BATCH:
            add(await repo.import_records([], [], ratings, [], now))
            totals["read_ratings"] += len(ratings)
            ratings = []
    add(await repo.import_records([], [], ratings, [], now))
    totals["read_ratings"] += len(ratings)

    settled: list[tuple[str, str]] = []
    async for key in _scan(redis, f"{prefix}rated_done:*"):
        game_id = key[len(prefix) + len("rated_done:"):]
        settled.append((game_id, _text(await redis.hget(f"{prefix}rated:{game_id}", "game"))))
        if len(settled) >= BATCH:
            add(await repo.import_records([], [], [], settled, now))
            totals["read_settled_games"] += len(settled)
            settled = []
    add(await repo.import_records([], [], [], settled, now))
    totals["read_settled_games"] += len(settled)
    return totals
