"""Players, API keys and ratings in SQL (the run's PostgreSQL database): they survive a Redis flush, a rotated
key's grace is honoured through the Redis lookup cache, and the former Redis records import once."""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import time
import uuid

import redis
from sqlalchemy import select

from services.accounts.keys import token_hash
from services.accounts.repository import AccountRepository
from services.archive.db import make_engine
from services.archive.import_redis import import_redis
from services.archive.models import ApiKeyRow, RatingRow
from services.gateway.domain.api_keys import CACHE_MS
from services.redis_clients import async_redis
from tests.gateway.conftest import new_prefix
from tests.gateway.helpers import auth, play_random
from tests.gateway.test_matchmaking import new_player, poll, run_matcher, ticket


def _flush(rdb: redis.Redis, prefix: str) -> int:
    """FLUSHDB of one gateway: every key under its prefix (the run's other gateways share the Redis)."""
    keys = list(rdb.scan_iter(match=f"{prefix}*", count=1000))
    return rdb.delete(*keys) if keys else 0


def test_players_keys_and_ratings_survive_a_redis_flush(make_gateway, rdb) -> None:
    gw = make_gateway()
    prefix = gw.settings.key_prefix
    with gw.client() as c:
        (pa, ka), (pb, kb) = new_player(c, "ann"), new_player(c, "bob")
        ka2 = c.post("/v1/players/me/keys", headers=auth(ka)).json()["api_key"]  # ka in its grace period
        ta, tb = ticket(c, ka2, "toybids", 2), ticket(c, kb, "toybids", 2)
        run_matcher(gw.settings)
        ra, rb = poll(c, ka2, ta), poll(c, kb, tb)
        play_random(c, ra["game_id"], {ra["seat"]: ra["token"], rb["seat"]: rb["token"]}, random.Random(3))
        before = {pid: c.get(f"/v1/players/{pid}").json() for pid in (pa, pb)}
        assert all(p["ratings"]["toybids"]["games"] == 1 for p in before.values())
        board = [e for e in c.get("/v1/leaderboard/toybids", params={"limit": 500}).json()["entries"]
                 if e["player_id"] in (pa, pb)]
        assert rdb.exists(f"{prefix}akc:{token_hash(ka2)}")  # the lookup cache was filled

        assert _flush(rdb, prefix) > 0
        for key, pid in ((ka, pa), (ka2, pa), (kb, pb)):  # current and in-grace keys alike
            me = c.get("/v1/players/me", headers=auth(key))
            assert me.status_code == 200, me.text
            assert me.json()["player_id"] == pid and me.json()["ratings"] == before[pid]["ratings"]
        assert {pid: c.get(f"/v1/players/{pid}").json() for pid in (pa, pb)} == before
        after = [e for e in c.get("/v1/leaderboard/toybids", params={"limit": 500}).json()["entries"]
                 if e["player_id"] in (pa, pb)]
        assert after == board and {e["name"] for e in after} == {"ann", "bob"}
        # the finished game seen again after the flush rates nothing again
        c.get(f"/v1/games/{ra['game_id']}")
        assert c.get(f"/v1/players/{pa}").json() == before[pa]
        assert c.get("/v1/players/me", headers=auth("sbk_" + "x" * 43)).status_code == 401


def test_rotation_grace_is_honoured_through_the_cache(make_gateway, rdb) -> None:
    gw = make_gateway(api_key_grace_s=2)
    cache = f"{gw.settings.key_prefix}akc:"
    with gw.client() as c:
        pid, old = new_player(c, "rot")
        assert c.get("/v1/players/me", headers=auth(old)).status_code == 200
        assert 0 < rdb.pttl(cache + token_hash(old)) <= CACHE_MS
        new = c.post("/v1/players/me/keys", headers=auth(old)).json()["api_key"]
        # the rotation rewrote the old key's cache entry: TTL within its 2 s grace, not the cache's 30 s
        assert 0 < rdb.pttl(cache + token_hash(old)) <= 2000
        assert c.get("/v1/players/me", headers=auth(old)).json()["player_id"] == pid
        rdb.delete(cache + token_hash(old))  # a fill from SQL is bounded by expires_ms as well
        assert c.get("/v1/players/me", headers=auth(old)).status_code == 200
        assert 0 < rdb.pttl(cache + token_hash(old)) <= 2000
        time.sleep(2.2)
        assert c.get("/v1/players/me", headers=auth(old)).status_code == 401
        assert c.get("/v1/players/me", headers=auth(new)).json()["player_id"] == pid
        newer = c.post("/v1/players/me/keys", headers=auth(new)).json()["api_key"]
        assert c.get("/v1/players/me", headers=auth(new)).status_code == 200  # in grace now
        assert c.get("/v1/players/me", headers=auth(newer)).status_code == 200

    gw0 = make_gateway(api_key_grace_s=0)
    with gw0.client() as c:
        _pid, old = new_player(c, "rot0")
        assert c.get("/v1/players/me", headers=auth(old)).status_code == 200  # cached for 30 s...
        new = c.post("/v1/players/me/keys", headers=auth(old)).json()["api_key"]
        assert c.get("/v1/players/me", headers=auth(old)).status_code == 401  # ...yet refused at once
        assert c.get("/v1/players/me", headers=auth(new)).status_code == 200
        _flush(rdb, gw0.settings.key_prefix)
        assert c.get("/v1/players/me", headers=auth(old)).status_code == 401


def test_sql_keeps_only_key_hashes(make_gateway) -> None:
    gw = make_gateway()
    with gw.client() as c:
        pid, key = new_player(c, "hashes")
        new = c.post("/v1/players/me/keys", headers=auth(key)).json()["api_key"]

    async def rows() -> list[tuple[str, int | None]]:
        engine = make_engine(gw.settings.archive_url)
        try:
            async with engine.connect() as conn:
                q = select(ApiKeyRow.key_hash, ApiKeyRow.expires_ms).where(ApiKeyRow.player_id == pid)
                return [tuple(r) for r in (await conn.execute(q)).all()]
        finally:
            await engine.dispose()

    got = dict(asyncio.run(rows()))
    assert set(got) == {token_hash(key), token_hash(new)}
    assert got[token_hash(new)] is None and got[token_hash(key)] > time.time() * 1000


def _legacy(rdb: redis.Redis, prefix: str) -> dict:
    """The Redis records a gateway wrote before accounts moved to SQL."""
    ann, bot, ghost = uuid.uuid4().hex, uuid.uuid4().hex, uuid.uuid4().hex
    keys = {"ann": "sbk_" + uuid.uuid4().hex, "ann_old": "sbk_" + uuid.uuid4().hex,
            "bot": "sbk_bot_" + uuid.uuid4().hex, "ghost": "sbk_" + uuid.uuid4().hex}
    rdb.hset(f"{prefix}player:{ann}", mapping={"name": "ann", "created_ms": 1000, "kind": "human",
                                                 "key_hash": token_hash(keys["ann"])})
    rdb.hset(f"{prefix}player:{bot}", mapping={"name": "robo", "created_ms": 2000, "kind": "bot",
                                                 "key_hash": token_hash(keys["bot"])})
    rdb.set(f"{prefix}apikey:{token_hash(keys['ann'])}", ann)
    rdb.set(f"{prefix}apikey:{token_hash(keys['ann_old'])}", ann, px=600_000)  # in its grace period
    rdb.set(f"{prefix}apikey:{token_hash(keys['bot'])}", bot)
    rdb.set(f"{prefix}apikey:{token_hash(keys['ghost'])}", ghost)  # no player record: skipped
    rdb.hset(f"{prefix}rating:{ann}", "toybids", json.dumps({"mu": 31.5, "sigma": 6.0, "games": 4}))
    rdb.hset(f"{prefix}rating:{bot}", "toybids", json.dumps({"mu": 20.0, "sigma": 7.0, "games": 2}))
    game_id = uuid.uuid4().hex
    rdb.hset(f"{prefix}rated:{game_id}", mapping={"game": "toybids", "0": f"player:{ann}", "1": f"player:{bot}"})
    rdb.set(f"{prefix}rated_done:{game_id}", "1")
    return {"ann": ann, "bot": bot, "keys": keys, "game_id": game_id}


def test_import_redis_copies_players_keys_and_ratings_once(make_gateway, rdb, redis_url, archive_pg_url) -> None:
    prefix = new_prefix()
    legacy = _legacy(rdb, prefix)
    env = {**os.environ, "ARCHIVE_URL": archive_pg_url, "GATEWAY_REDIS_URL": redis_url, "GATEWAY_KEY_PREFIX": prefix}
    out = subprocess.run([sys.executable, "-m", "services.archive", "import-redis"], env=env, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    counts = json.loads(out.stdout.splitlines()[0])
    assert {k: counts[k] for k in ("players", "api_keys", "ratings", "settled_games")} == {
        "players": 2, "api_keys": 3, "ratings": 2, "settled_games": 1}

    async def again() -> tuple[dict, list]:
        engine = make_engine(archive_pg_url)
        client = async_redis(redis_url)
        try:
            counts = await import_redis(client, prefix, AccountRepository(engine))
            async with engine.connect() as conn:
                q = select(RatingRow.player_id, RatingRow.mu, RatingRow.ordinal, RatingRow.games).where(
                    RatingRow.player_id.in_([legacy["ann"], legacy["bot"]])).order_by(RatingRow.mu)
                return counts, [tuple(r) for r in (await conn.execute(q)).all()]
        finally:
            await client.aclose()
            await engine.dispose()

    counts, ratings = asyncio.run(again())
    assert {k: counts[k] for k in ("players", "api_keys", "ratings", "settled_games")} == dict.fromkeys(
        ("players", "api_keys", "ratings", "settled_games"), 0)  # idempotent: nothing new the second time
    assert counts["read_players"] == 2 and counts["read_api_keys"] == 4
    assert ratings == [(legacy["bot"], 20.0, -1.0, 2), (legacy["ann"], 31.5, 13.5, 4)]

    gw = make_gateway(key_prefix=prefix)  # the gateway on the imported prefix, its legacy records gone
    _flush(rdb, prefix)
    with gw.client() as c:
        keys = legacy["keys"]
        for name in ("ann", "ann_old", "bot"):
            assert c.get("/v1/players/me", headers=auth(keys[name])).status_code == 200, name
        assert c.get("/v1/players/me", headers=auth(keys["ghost"])).status_code == 401
        me = c.get("/v1/players/me", headers=auth(keys["bot"])).json()
        assert me["kind"] == "bot" and me["name"] == "robo" and me["created_ms"] == 2000
        assert me["ratings"]["toybids"]["games"] == 2
        ann = c.get(f"/v1/players/{legacy['ann']}").json()
        assert ann["ratings"]["toybids"] == {"mu": 31.5, "sigma": 6.0, "ordinal": 13.5, "games": 4}


def test_sql_unreachable_is_a_retryable_503(make_gateway) -> None:
    gw = make_gateway(archive_url="postgresql+asyncpg://postgres@127.0.0.1:1/none", migrate=False)
    with gw.client() as c:
        r = c.post("/v1/players", json={"name": "ann"})
        ready = c.get("/readyz")
    assert ready.status_code == 503 and "sql" in ready.json()["error"]["message"]
    assert r.status_code == 503, r.text
    assert r.json()["error"]["code"] == "unavailable" and r.headers["Retry-After"] == "1"


def test_a_gateway_on_a_fresh_sqlite_file_migrates_it_and_keeps_accounts(make_gateway, rdb, tmp_path) -> None:
    """The embedded default (`make run`): SQLite, migrated by the gateway at start; a Redis flush loses nothing."""
    gw = make_gateway(archive_url=f"sqlite+aiosqlite:///{tmp_path / 'skyboard.db'}")
    with gw.client() as c:
        pid, key = new_player(c, "lap")
        new = c.post("/v1/players/me/keys", headers=auth(key)).json()["api_key"]
        _flush(rdb, gw.settings.key_prefix)
        for k in (key, new):
            assert c.get("/v1/players/me", headers=auth(k)).json()["player_id"] == pid
        assert c.get(f"/v1/players/{pid}").json()["name"] == "lap"
        assert c.get("/readyz").json()["checks"]["sql"] is True
