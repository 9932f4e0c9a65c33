"""The ops exporter's gauges from a real Redis (own DB number and key prefix), keys laid out by the
services' own Keys classes: bot queue depth and age, games waiting on a bot, matchmaking queue, Redis up."""

from __future__ import annotations

import json
import uuid

import pytest
import redis

from services.accounts.keys import Keys as GatewayKeys
from services.common.settings import Settings
from services.gamestate.keys import Keys, bucket_of
from services.ops_exporter import OpsMetrics, Sampler
from tests.redis_required import redis_db, require_redis
from tests.run_id import RUN

REDIS_URL = redis_db(11)


@pytest.fixture
def rdb():
    require_redis(REDIS_URL, "the ops exporter tests")  # fails under CI=true, never skips there
    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
    tag = f"sbexp{RUN}{uuid.uuid4().hex[:8]}"
    yield client, tag
    keys = list(client.scan_iter(match=f"{tag}*", count=1000))
    if keys:
        client.delete(*keys)
    client.close()


def _value(metrics: OpsMetrics, name: str, **labels: str) -> float | None:
    return metrics.registry.get_sample_value(name, labels or None)


def _meta(game: str, to_act: list[int], bots: dict[int, str], updated_ms: int) -> dict[str, str]:
    return {"game": game, "status": "active", "to_act": json.dumps(to_act),
            "bots": json.dumps({str(k): v for k, v in bots.items()}), "updated_ms": str(updated_ms)}


def test_sampler_reads_queue_games_and_matchmaking(rdb):
    client, tag = rdb
    settings = Settings(redis_url=REDIS_URL, key_prefix=f"{tag}:", bot_queue=f"{tag}-bots")
    keys, gw = Keys(settings.key_prefix), GatewayKeys(f"{tag}gw:")
    now = 1_000_000.0
    # two active games: one waits 40 s on its bot seat 1, one on a human; one finished game is ignored
    client.hset(keys.meta("g1"), mapping=_meta("opensky", [1], {1: "random"}, int((now - 40) * 1000)))
    client.hset(keys.meta("g2"), mapping=_meta("opensky", [0], {1: "random"}, int((now - 90) * 1000)))
    client.hset(keys.meta("g3"), mapping={**_meta("blueskies", [], {}, 0), "status": "finished"})
    for gid, created in {"g1": 1, "g2": 2, "g3": 3}.items():
        client.zadd(keys.active(bucket_of(gid)), {gid: created})
    for task in ("t-old", "t-new"):  # kombu LPUSHes: the oldest message ends up last
        client.lpush(settings.bot_queue, json.dumps({"headers": {"id": task, "task": "skyboard.bot_move"}}))
    client.zadd(gw.queue("opensky:2"), {"a": (now - 12) * 1000, "b": (now - 3) * 1000})
    client.sadd(gw.buckets(), "opensky:2")

    metrics = OpsMetrics()
    sampler = Sampler(client, settings, metrics, scan_limit=100, gateway_prefix=f"{tag}gw:")
    sampler.sample(now)
    assert _value(metrics, "skyboard_redis_up") == 1
    assert _value(metrics, "skyboard_bot_queue_depth") == 2
    assert _value(metrics, "skyboard_bot_queue_oldest_seconds") == 0  # first seen just now
    assert _value(metrics, "skyboard_games_waiting_on_bot") == 1
    assert _value(metrics, "skyboard_bot_wait_oldest_seconds") == pytest.approx(40)
    assert _value(metrics, "skyboard_active_games_by_game", game="opensky") == 2
    assert _value(metrics, "skyboard_active_games_by_game", game="blueskies") is None
    assert _value(metrics, "skyboard_matchmaking_queued") == 2
    assert _value(metrics, "skyboard_matchmaking_oldest_seconds") == pytest.approx(12)

    sampler.sample(now + 7)  # the same task still heads the queue: it has waited 7 s
    assert _value(metrics, "skyboard_bot_queue_oldest_seconds") == pytest.approx(7)
    client.rpop(settings.bot_queue)  # a worker took it; the next one is new at the head
    for gid in ("g1", "g2"):
        client.zrem(keys.active(bucket_of(gid)), gid)
    sampler.sample(now + 8)
    assert _value(metrics, "skyboard_bot_queue_depth") == 1
    assert _value(metrics, "skyboard_bot_queue_oldest_seconds") == 0
    assert _value(metrics, "skyboard_games_waiting_on_bot") == 0
    assert _value(metrics, "skyboard_active_games_by_game", game="opensky") == 0


def test_redis_down_is_a_zero_not_a_crash():
    metrics = OpsMetrics()
    dead = redis.Redis(host="127.0.0.1", port=9, socket_connect_timeout=0.5)
    Sampler(dead, Settings(), metrics, scan_limit=10).sample()
    assert _value(metrics, "skyboard_redis_up") == 0


def test_sampler_reads_the_sent_at_header_and_publishes_the_budget_scale(rdb):
    """The human-waiting list's age comes from the dispatcher's `sent_at` header; bot-only games' tasks (the
    priority-9 list) count in the depth but not in that age; the degradation scale follows the age."""
    from services.common.bot_policy import background_list

    client, tag = rdb
    settings = Settings(redis_url=REDIS_URL, key_prefix=f"{tag}:", bot_queue=f"{tag}-bots", bot_degrade_after_s=3)
    now = 2_000_000.0
    client.lpush(background_list(settings.bot_queue),
                 json.dumps({"headers": {"id": "bg", "task": "skyboard.bot_move", "sent_at": now - 60}}))
    metrics = OpsMetrics()
    sampler = Sampler(client, settings, metrics, scan_limit=100, gateway_prefix=f"{tag}gw:")
    sampler.sample(now)
    assert _value(metrics, "skyboard_bot_queue_depth") == 1
    assert _value(metrics, "skyboard_bot_queue_background_depth") == 1
    assert _value(metrics, "skyboard_bot_queue_background_oldest_seconds") == pytest.approx(60)
    assert _value(metrics, "skyboard_bot_queue_oldest_seconds") == 0  # no human waits
    assert _value(metrics, "skyboard_bot_budget_scale") == 1
    client.lpush(settings.bot_queue, json.dumps({"headers": {"id": "h", "task": "skyboard.bot_move",
                                                              "sent_at": now - 12}}))
    sampler.sample(now)
    assert _value(metrics, "skyboard_bot_queue_depth") == 2
    assert _value(metrics, "skyboard_bot_queue_oldest_seconds") == pytest.approx(12)  # exact on first sight
    assert _value(metrics, "skyboard_bot_budget_scale") == pytest.approx(0.25)  # 3 s threshold / 12 s


def test_the_queue_age_is_the_oldest_of_both_human_lists(rdb):
    """Human-waiting decisions are in two lists (follow-ups at priority 0, first decisions at 3): the depth counts
    both (and the bot-only list), the age is the older of their heads, with or without a `sent_at` header (a
    message without one is timed from when the exporter first saw it at the head of its own list)."""
    from services.common.bot_policy import background_list, human_lists

    client, tag = rdb
    settings = Settings(redis_url=REDIS_URL, key_prefix=f"{tag}:", bot_queue=f"{tag}-bots", bot_degrade_after_s=3)
    follow_ups, firsts = human_lists(settings.bot_queue)
    now = 3_000_000.0

    def task(task_id: str, sent: float | None = None) -> str:
        headers = {"id": task_id, "task": "skyboard.bot_move"} | ({} if sent is None else {"sent_at": sent})
        return json.dumps({"headers": headers})

    client.lpush(firsts, task("first-old", now - 9), task("first-new", now - 1))
    client.lpush(follow_ups, task("follow-up", now - 2))
    client.lpush(background_list(settings.bot_queue), task("bg", now - 60))
    metrics = OpsMetrics()
    sampler = Sampler(client, settings, metrics, scan_limit=100, gateway_prefix=f"{tag}gw:")
    sampler.sample(now)
    assert _value(metrics, "skyboard_bot_queue_depth") == 4
    assert _value(metrics, "skyboard_bot_queue_background_depth") == 1
    assert _value(metrics, "skyboard_bot_queue_oldest_seconds") == pytest.approx(9)  # the first decisions' head
    assert _value(metrics, "skyboard_bot_budget_scale") == pytest.approx(3 / 9)
    client.rpop(firsts)  # taken: the first list's head is 1 s old, the follow-ups' 2 s
    sampler.sample(now)
    assert _value(metrics, "skyboard_bot_queue_depth") == 3
    assert _value(metrics, "skyboard_bot_queue_oldest_seconds") == pytest.approx(2)

    client.delete(follow_ups, firsts)
    client.lpush(follow_ups, task("no-header-a"))  # no sent_at: timed from first sight, per list
    sampler.sample(now + 10)
    client.lpush(firsts, task("no-header-b"))
    sampler.sample(now + 14)
    assert _value(metrics, "skyboard_bot_queue_oldest_seconds") == pytest.approx(4)  # a, first seen at +10
    client.rpop(follow_ups)
    sampler.sample(now + 15)
    assert _value(metrics, "skyboard_bot_queue_oldest_seconds") == pytest.approx(1)  # b, first seen at +14


def test_the_bot_queue_is_read_on_the_broker_not_on_the_game_redis(rdb):
    """On a Redis Cluster the Celery broker is a Redis of its own (CELERY_BROKER_URL, docs/decisions/redis-cluster.md):
    the queue gauges read the broker; the games' and matchmaking gauges read the game Redis."""
    client, tag = rdb
    broker = redis.Redis.from_url(redis_db(12), socket_connect_timeout=2)
    settings = Settings(redis_url=REDIS_URL, key_prefix=f"{tag}:", bot_queue=f"{tag}-bots")
    try:
        for task in ("t1", "t2", "t3"):
            broker.lpush(settings.bot_queue, json.dumps({"headers": {"id": task, "task": "skyboard.bot_move"}}))
        client.lpush(settings.bot_queue, json.dumps({"headers": {"id": "stray", "task": "skyboard.bot_move"}}))
        metrics = OpsMetrics()
        Sampler(client, settings, metrics, scan_limit=100, gateway_prefix=f"{tag}gw:", broker=broker).sample()
        assert _value(metrics, "skyboard_bot_queue_depth") == 3
        assert _value(metrics, "skyboard_redis_up") == 1
    finally:
        broker.delete(settings.bot_queue)
        broker.close()
