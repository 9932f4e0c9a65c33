"""Redis killed and restarted under a running game-state service: calls during the outage fail with a clean,
retryable UNAVAILABLE (regression: they were INTERNAL, which the gateway shows as 502), and with append-only
persistence every acknowledged action is still there afterwards, its keyed retry replaying it."""

from __future__ import annotations

import grpc

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
