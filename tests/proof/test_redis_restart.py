"""Redis killed and restarted under a running game-state service: calls during the outage fail with a clean,
retryable UNAVAILABLE (regression: they were INTERNAL, which the gateway shows as 502), and with append-only
persistence every acknowledged action is still there afterwards, its keyed retry replaying it."""

from __future__ import annotations

import asyncio
import time

import grpc
import pytest
import redis

from services.common.redis_clients import async_redis, sync_redis
from tests.services.helpers import expect_error


def test_redis_outage_is_unavailable_and_acknowledged_actions_survive(make_instance, make_client, private_redis):
    client = make_client(make_instance(redis_url=private_redis.url, dispatch_bots=False, cache_size=0))
    game = client.create_game("toybids", 2, seed=11, options={"rounds": 3})
    sent = []
    for seat in (0, 1):
        action = client.legal_actions(game.game_id, game.token(seat)).actions[0]
        client.submit(game.game_id, game.token(seat), action, seat, idempotency_key=f"k{seat}")
        sent.append(action)
    before = client.get_game(game.game_id)
    assert before.version == 2
    private_redis.kill()
    expect_error(grpc.StatusCode.UNAVAILABLE, client.get_game, game.game_id)
    expect_error(grpc.StatusCode.UNAVAILABLE, client.create_game, "toybids", 2)
    private_redis.start()
    after = client.get_game(game.game_id)
    assert (after.version, after.digest) == (before.version, before.digest), "acknowledged actions survived"
    replay = client.submit(game.game_id, game.token(1), sent[1], 1, idempotency_key="k1")
    assert replay.replayed and replay.version == 2
    assert client.get_game(game.game_id).version == 2, "the retry applied nothing twice"


def test_pooled_clients_reconnect_after_a_restart_and_fail_fast_while_it_is_down(private_redis):
    """The platform's clients come back after a restart with every pooled connection dead, and their resend
    policy does not hide an outage: a command while Redis is down still fails within two seconds. (The
    stale-connection race itself is caught by the test above, which failed 8 times in 25 without it.)"""
    async def scenario() -> tuple[list[str], float]:
        client = async_redis(private_redis.url, decode_responses=True)
        try:
            await asyncio.gather(*(client.set(f"k{i}", i) for i in range(8)))  # eight pooled connections
            assert len(client.connection_pool._available_connections) >= 2, "the pool holds several connections"
            private_redis.kill()
            started = time.monotonic()
            with pytest.raises(redis.ConnectionError):
                await client.get("k0")
            outage_s = time.monotonic() - started
            private_redis.start()
            return [await client.get(f"k{i % 8}") for i in range(16)], outage_s
        finally:
            await client.aclose()

    values, outage_s = asyncio.run(scenario())
    assert values == [str(i % 8) for i in range(16)], "append-only Redis kept the keys; no command failed"
    assert outage_s < 2.0, f"a command during the outage failed after {outage_s:.2f} s, not quickly"
    blocking = sync_redis(private_redis.url, decode_responses=True)
    try:
        assert blocking.get("k3") == "3"
        private_redis.kill()
        private_redis.start()
        assert blocking.get("k3") == "3", "the blocking client reconnects too"
    finally:
        blocking.close()
