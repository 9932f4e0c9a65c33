"""The outbox consumer (services/outcomes/): a game ended with no gateway looking at it (the turn clock, the
inactivity sweep) is settled and announced by the consumer alone, and a consumer killed mid-batch (SIGKILL) loses
and doubles nothing: every rated game settled exactly once, every `game_end` delivered once per account.

Each test runs its own consumers beside a gateway that has none, so that what reaches the account streams and the
ratings comes from them. Real Redis, gRPC, HTTP and PostgreSQL."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid

import httpx
import pytest
import redis

from services.accounts.keys import Keys as AccountKeys
from services.accounts.keys import bucket_of
from services.accounts.ratings import Ratings
from services.accounts.repository import AccountRepository
from services.archive.db import make_engine
from services.common.redis_clients import async_redis
from services.gamestate.keys import Keys as GameKeys
from services.gamestate.keys import bucket_of as game_bucket
from services.outcomes.consumer import Outcomes
from tests.gateway.consumer import OutcomesThread
from tests.gateway.helpers import auth
from tests.gateway.test_challenges import challenge, events, new_account
from tests.redis_required import CLUSTER

#: a clock short enough that one sweep times every seat out
CLOCK = {"kind": "realtime", "seconds_per_decision": 0.05, "reserve_seconds": 0}


@pytest.fixture
def gw(make_gateway):
    return make_gateway(outcomes=False, challenge_ttl_s=60)


def _clocked_pair(c: httpx.Client, tag: str) -> tuple[str, tuple[str, str], tuple[str, str]]:
    """A rated two-round toybids game between two new accounts, on a clock: (game id, (id, key) of each)."""
    a = new_account(c, f"{tag}-a")
    b = new_account(c, f"{tag}-b")
    cid = challenge(c, a[1], b[0], rated=True, options={"rounds": 2}, time_control=CLOCK)["challenge_id"]
    r = c.post(f"/v1/challenges/{cid}/accept", headers=auth(b[1]))
    assert r.status_code == 200, r.text
    return r.json()["game_id"], a, b


def _clock_out(service, rdb, game_ids: list[str]) -> None:
    """Both rounds of these clocked games played by the turn clock (both seats' default bids, TOY-5); the session's
    other clocked games may be swept too, so what is checked is that these ended."""
    for _round in range(2):
        time.sleep(0.1)  # past every deadline
        assert service.sweep() >= 2 * len(game_ids)
    keys = GameKeys(service.settings.key_prefix)
    assert [rdb.hget(keys.meta(g), "status") for g in game_ids] == ["finished"] * len(game_ids)


def _ended(c: httpx.Client, key: str, game_id: str, timeout: float = 20) -> list[dict]:
    got = events(c, key, lambda es: any(e.event == "game_end" and e.json()["game_id"] == game_id for e in es),
                 timeout=timeout)
    return [e.json() for e in got if e.event == "game_end" and e.json()["game_id"] == game_id]


def _rated_games(c: httpx.Client, player_id: str) -> int:
    return c.get(f"/v1/players/{player_id}").json()["ratings"].get("toybids", {}).get("games", 0)


def _wait(cond, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "not within the wait"
        time.sleep(0.05)


def _consumer(gw, service, **kw) -> OutcomesThread:
    return OutcomesThread(gw.settings, service.settings.key_prefix, **kw)


def test_a_game_the_turn_clock_ends_is_settled_and_announced_by_the_consumer_alone(gw, service, rdb) -> None:
    consumer = _consumer(gw, service)
    try:
        with gw.client() as c:
            game_id, (a_id, a), (b_id, b) = _clocked_pair(c, "clock")
            _clock_out(service, rdb, [game_id])
            started = time.monotonic()
            for key in (a, b):
                ends = _ended(c, key, game_id)
                assert len(ends) == 1 and ends[0]["status"] == "finished"
            _wait(lambda: _rated_games(c, a_id) == 1 and _rated_games(c, b_id) == 1)
            print(f"settled and announced {time.monotonic() - started:.3f} s after the sweep")
            mine = c.get("/v1/players/me/games", headers=auth(a)).json()["games"]
            assert [(g["game_id"], g["status"]) for g in mine] == [(game_id, "finished")]
    finally:
        consumer.stop()


def test_a_game_the_inactivity_sweep_aborts_is_announced_and_its_rating_dropped(gw, service, rdb) -> None:
    consumer = _consumer(gw, service)
    try:
        with gw.client() as c:
            a = new_account(c, "idle-a")
            b = new_account(c, "idle-b")
            cid = challenge(c, a[1], b[0], rated=True, options={"rounds": 2})["challenge_id"]
            game_id = c.post(f"/v1/challenges/{cid}/accept", headers=auth(b[1])).json()["game_id"]
            svc = service.running.service
            # as if nobody had moved since 1970: the game's last commit time and its place in the inactivity index
            rdb.hset(GameKeys(service.settings.key_prefix).meta(game_id), "updated_ms", 1)
            svc.store._metas.pop(game_id, None)
            service._run(svc.store.touch(game_id, 1))
            assert service._run(svc.endings.sweep_inactive()) >= 1
            for key in (a[1], b[1]):
                ends = _ended(c, key, game_id)
                assert [(e["status"], e["scores"], e["winners"]) for e in ends] == [("aborted", None, None)]
            pending = AccountKeys(gw.settings.key_prefix).rated_pending(bucket_of(game_id))
            _wait(lambda: not rdb.sismember(pending, game_id))  # dropped: an aborted game settles nothing
            assert _rated_games(c, a[0]) == _rated_games(c, b[0]) == 0
    finally:
        consumer.stop()


def test_a_consumer_killed_mid_batch_loses_and_doubles_nothing(gw, service, rdb) -> None:
    keys = GameKeys(service.settings.key_prefix)
    for b in range(64):  # the group starts here: what the session committed before is not this test's
        try:
            rdb.xgroup_create(keys.changes(b), gw.settings.key_prefix, id="$", mkstream=True)
        except redis.ResponseError as exc:
            assert "BUSYGROUP" in str(exc)
    with gw.client() as c:
        games = [_clocked_pair(c, f"kill{i}") for i in range(6)]
        _clock_out(service, rdb, [g[0] for g in games])  # every game ends by the clock, with no consumer running yet
        s = gw.settings
        env = {**os.environ, "GATEWAY_REDIS_URL": s.redis_url, "GATEWAY_KEY_PREFIX": s.key_prefix,
               "GATEWAY_GAMESTATE_KEY_PREFIX": service.settings.key_prefix, "GATEWAY_ARCHIVE_URL": s.archive_url,
               "GATEWAY_OUTCOMES_GROUP": s.key_prefix, "GATEWAY_OUTCOMES_BATCH": "1",
               "GATEWAY_OUTCOMES_METRICS_PORT": "0", "GATEWAY_REDIS_CLUSTER": "true" if CLUSTER else "false"}
        proc = subprocess.Popen([sys.executable, "-m", "services.outcomes"], env=env)
        try:
            ended = {g[0] for g in games}

            def some_done() -> bool:  # the subprocess is at work: some entries read, some of them perhaps done
                for b in range(64):
                    try:
                        groups = rdb.xinfo_groups(keys.changes(b))
                    except redis.ResponseError:
                        continue
                    if any(g["name"] == s.key_prefix and g["entries-read"] for g in groups):
                        return True
                return False

            _wait(some_done, 60)
        finally:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)
        consumer = _consumer(gw, service, claim_idle_ms=0)  # takes over what the dead one read and left pending
        try:
            _wait(lambda: consumer.lag()[0] == 0, 60)
            for game_id, (a_id, a), (b_id, b) in games:
                assert game_id in ended
                for key in (a, b):
                    assert len(_ended(c, key, game_id)) == 1  # once per account, not twice
                assert _rated_games(c, a_id) == _rated_games(c, b_id) == 1  # settled exactly once
        finally:
            consumer.stop()


def test_a_consumer_whose_streams_were_deleted_makes_its_group_again(gw, service, rdb) -> None:
    """The outbox streams deleted under a running consumer (a flush, a test run's clean-up): the consumer, answered
    NOGROUP, makes its group again (before or after a commit makes the stream again without it) and does what is
    committed after, instead of failing every read until it is restarted."""
    keys = GameKeys(service.settings.key_prefix)
    consumer = _consumer(gw, service)
    try:
        with gw.client() as c:
            streams = [keys.changes(b) for b in range(64)]
            for stream in streams:  # one key per command: the buckets are in different slots on a cluster
                rdb.delete(stream)
            game_id, (a_id, a), (b_id, b) = _clocked_pair(c, "nogroup")
            stream = keys.changes(game_bucket(game_id))
            _clock_out(service, rdb, [game_id])
            for key in (a, b):
                assert [e["status"] for e in _ended(c, key, game_id)] == ["finished"]
            _wait(lambda: _rated_games(c, a_id) == 1 and _rated_games(c, b_id) == 1)
            assert gw.settings.key_prefix in [g["name"] for g in rdb.xinfo_groups(stream)]
            _wait(lambda: consumer.lag() == (0, 0.0))  # the lag is measured again, over every bucket
    finally:
        consumer.stop()


def test_the_lag_is_counted_where_redis_cannot_tell_it(gw) -> None:
    """A group made at `$` on a stream that already holds entries, or one trimmed past the group's position, has a
    lag Redis cannot tell (XINFO GROUPS answers nil on Redis 7.0): its unread entries are counted all the same, so
    a stalled group never reads as 0 behind (the alert on the oldest entry's age would stay silent)."""
    settings = gw.settings
    games_keys = GameKeys(f"lagscan-{uuid.uuid4().hex[:8]}:")
    streams = [games_keys.changes(b) for b in range(64)]

    async def go() -> tuple[object, tuple[int, float]]:
        redis = async_redis(settings.redis_url, cluster=CLUSTER)
        engine = make_engine(settings.archive_url or "", pool_size=1)
        keys = AccountKeys(settings.key_prefix)
        consumer = Outcomes(redis, games_keys, redis, keys, Ratings(redis, keys, AccountRepository(engine)),
                            group="lagscan", start_id="$")
        try:
            for i in range(5):                                     # a stream with history when the group is made
                await redis.xadd(streams[5], {"before": str(i)})
            await consumer.ensure_group()
            for i in range(3):
                await redis.xadd(streams[5], {"after": str(i)})
            await asyncio.sleep(0.02)
            told = next(g for g in await redis.xinfo_groups(streams[5]) if g["name"] in ("lagscan", b"lagscan"))
            return told.get("lag"), await consumer.measure_lag()
        finally:
            for stream in streams:                                 # one key per command: slots differ on a cluster
                await redis.delete(stream)
            await redis.aclose()
            await engine.dispose()

    told, (behind, age) = asyncio.run(go())
    assert behind == 3, f"Redis told {told!r}"
    assert age >= 0.02
