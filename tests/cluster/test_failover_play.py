"""The Redis Cluster proof (docs/decisions/redis-cluster.md): a primary of the cluster is SIGKILLed while games are
being played over gRPC; every game finishes, replays to its digest, and no action the service acknowledged is lost
(REDIS_WAIT_REPLICAS=1: a commit is acknowledged only once a replica holds it, so the replica promoted in the dead
primary's place has it).

Scripted clients play random legal actions, each with an idempotency key, and retry a call that failed during the
failover with the same key (a retried action that had been applied answers its first outcome)."""

from __future__ import annotations

import asyncio
import os
import random
import secrets
import time
import uuid
from collections.abc import Iterator

import grpc
import pytest

import engine
from services.common.settings import Settings
from services.dev.local_cluster import LocalCluster
from services.gamestate.client import AsyncGameClient, GameServiceError
from services.gamestate.keys import Keys
from services.gamestate.replay import replay_entries
from services.gamestate.server import start

pytestmark = pytest.mark.slow  # a cluster of six redis-servers and a failover: `make test-cluster` runs it

GAME, GAMES, KILL_AFTER = "blueskies", 8, 40
RETRYABLE = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.INTERNAL, grpc.StatusCode.DEADLINE_EXCEEDED}


@pytest.fixture
def cluster() -> Iterator[LocalCluster]:
    with LocalCluster() as running:
        running.wait_healthy()
        yield running


async def _retrying(call, deadline: float):
    """`call()` until it answers something other than a failover error (UNAVAILABLE while Redis has no primary for a
    slot, INTERNAL or a deadline for a command cut off by the kill)."""
    while True:
        try:
            return await call()
        except GameServiceError as exc:
            if exc.code not in RETRYABLE or time.monotonic() > deadline:
                raise
        except grpc.aio.AioRpcError as exc:
            if exc.code() not in RETRYABLE or time.monotonic() > deadline:
                raise
        await asyncio.sleep(0.2)


async def _play(client: AsyncGameClient, seed: int, acked: dict[str, dict[int, dict]], progress: list[int]) -> str:
    """One random game to its end; every acknowledged action recorded by the version it created."""
    rng = random.Random(seed)
    deadline = time.monotonic() + 240
    created = await _retrying(lambda: client.create_game(GAME, 2, seed=seed), deadline)
    gid = created.game_id
    acked[gid] = {}
    while True:
        view = await _retrying(lambda: client.get_game(gid), deadline)
        if view.status != "active":
            return gid
        seat = view.to_act[rng.randrange(len(view.to_act))]
        token = created.token(seat)
        legal = await _retrying(lambda t=token: client.legal_actions(gid, t), deadline)
        if legal.version != view.version:
            continue
        action = rng.choice(legal.actions)
        key = uuid.uuid4().hex
        try:
            done = await _retrying(
                lambda t=token, a=action, v=view.version, k=key: client.submit(gid, t, a, v, idempotency_key=k),
                deadline)
        except GameServiceError as exc:
            if exc.reason == "stale_version":
                continue  # not applied: another try reads the game again
            raise
        acked[gid][done.version] = {"seat": seat, "action": action}
        progress[0] += 1


async def _scenario(cluster: LocalCluster) -> tuple[dict[str, dict[int, dict]], list, int]:
    settings = Settings(
        redis_url=cluster.url, redis_cluster=True, redis_wait_replicas=1, redis_wait_timeout_ms=2000,
        grpc_addr="127.0.0.1:0", admin_grpc_addr="127.0.0.1:0", metrics_port=0,
        key_prefix=f"sbfail:{uuid.uuid4().hex[:8]}:", dispatch_bots=False, service_secret=secrets.token_urlsafe(32),
        # a cluster needs the broker apart (no bot is dispatched here: nothing is sent to it)
        celery_broker_url=os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0"),
        allow_anonymous_create=True, rate_limit_ip=0, rate_limit_token=0, rate_limit_ip_ceiling=0,
        stream_limit_address=0, stream_limit_credential=0, health_check_s=0.2)
    running = await start(settings, sweeper=False)
    client = AsyncGameClient(f"127.0.0.1:{running.port}")
    acked: dict[str, dict[int, dict]] = {}
    progress = [0]
    try:
        games = asyncio.gather(*(_play(client, 500 + i, acked, progress) for i in range(GAMES)))
        while progress[0] < KILL_AFTER:
            await asyncio.sleep(0.05)
        # the primary that holds the most of these games' buckets
        keys = Keys(settings.key_prefix)
        primaries = [running.redis.get_node_from_key(keys.meta(gid)).port for gid in acked]
        victim = max(set(primaries), key=primaries.count)
        killed_at = progress[0]
        cluster.kill(victim)
        ids = await asyncio.wait_for(games, 300)
        logs = [await _retrying(lambda g=gid: client.get_log(g), time.monotonic() + 30) for gid in ids]
        return acked, list(zip(ids, logs)), killed_at
    finally:
        await client.close()
        await running.stop(1.0)


def test_games_survive_a_primary_killed_mid_play_with_no_acknowledged_action_lost(cluster: LocalCluster) -> None:
    acked, logs, killed_at = asyncio.run(_scenario(cluster))
    total = sum(len(a) for a in acked.values())
    assert total > killed_at, "play went on after the kill"
    game = engine.get(GAME)
    for gid, log in logs:
        assert log.status == "finished", gid
        entries = log.entries
        for version, act in acked[gid].items():  # every acknowledged action is the log entry of its version
            entry = entries[version - 1]
            assert (entry["seat"], entry["action"]) == (act["seat"], act["action"]), (gid, version)
        state = replay_entries(game.new(log.players, log.seed, log.options), game, entries)
        assert state.is_over() and state.digest() == log.final_digest, gid
