"""The per-instance metadata cache: exact at the version Redis holds, never hiding another instance's
move, and never serving a revoked or rotated seat token."""

from __future__ import annotations

import random

import grpc

from services.gamestate.store import Meta
from tests.services.helpers import expect_error

C = grpc.StatusCode


def _fresh(rdb, prefix, game_id) -> Meta:
    return Meta.from_hash(game_id, rdb.hgetall(f"{prefix}game:{{{game_id}}}:meta"))


def test_cached_metadata_equals_the_parsed_hash_after_every_commit(make_instance, make_client, rdb, prefix):
    inst = make_instance()
    client = make_client(inst)
    store = inst.running.service.store
    rng = random.Random(3)
    game = client.create_game("toybids", 3, seed=11, options={"rounds": 3}, turn_seconds=60)
    view = client.get_game(game.game_id)
    while view.status != "finished":
        seat = rng.choice(view.to_act)
        action = rng.choice(client.legal_actions(game.game_id, game.token(seat)).actions)
        client.submit(game.game_id, game.token(seat), action, view.version)
        cached = inst.run(store.meta(game.game_id))
        assert cached == _fresh(rdb, prefix, game.game_id)
        assert store._metas[game.game_id].version == cached.version  # served from the cache, not re-read
        view = client.get_game(game.game_id)


def test_a_move_through_another_instance_is_seen_at_once(make_instance, make_client):
    a, b = make_client(make_instance()), make_client(make_instance())
    game = a.create_game("toybids", 2, seed=12)
    assert a.get_game(game.game_id).version == 0  # a caches version 0
    hand = b.get_game(game.game_id, game.token(0)).view["hand"]
    b.submit(game.game_id, game.token(0), {"type": "bid", "card": hand[0]}, 0)
    assert a.get_game(game.game_id).version == 1
    err = expect_error(C.ABORTED, a.submit, game.game_id, game.token(0), {"type": "bid", "card": hand[1]}, 0)
    assert "version" in err.message


def test_a_token_rotated_through_another_instance_is_refused_at_once(make_instance, make_client):
    a, b = make_client(make_instance()), make_client(make_instance())
    game = a.create_game("toybids", 2, seed=13)
    old = game.token(0)
    assert a.get_game(game.game_id, old).seat == 0  # a caches the metadata at version 0
    new = b.rotate_token(game.game_id, old)
    expect_error(C.UNAUTHENTICATED, a.get_game, game.game_id, old)
    expect_error(C.UNAUTHENTICATED, a.legal_actions, game.game_id, old)
    assert a.get_game(game.game_id, new).seat == 0


def test_a_deleted_game_is_not_found_even_when_cached(make_instance, make_client, rdb, prefix):
    inst = make_instance()
    client = make_client(inst)
    game = client.create_game("toybids", 2, seed=14)
    assert client.get_game(game.game_id).version == 0
    rdb.delete(f"{prefix}game:{{{game.game_id}}}:meta")
    expect_error(C.NOT_FOUND, client.get_game, game.game_id)
