"""Players, API keys and ratings in SQL (the run's PostgreSQL database): they survive a Redis flush, a rotated
key's grace is honoured through the Redis lookup cache, and the former Redis records import once."""

from __future__ import annotations

import asyncio
import random
import time

import redis
from sqlalchemy import select

from services.accounts.keys import token_hash
from services.archive.db import make_engine
from services.archive.models import ApiKeyRow
from services.gateway.domain.api_keys import CACHE_MS
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
        deadline = time.monotonic() + 20
        while True:  # the outcomes consumer settles the game
            before = {pid: c.get(f"/v1/players/{pid}").json() for pid in (pa, pb)}
            if all(p["ratings"].get("toybids", {}).get("games") == 1 for p in before.values()):
                break
            assert time.monotonic() < deadline, before
            time.sleep(0.05)
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
