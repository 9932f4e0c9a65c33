"""The per-instance metadata cache: exact at the version Redis holds, never hiding another instance's
move, and never serving a revoked or rotated seat token."""

from __future__ import annotations

import random

import grpc

from services.gamestate.keys import Keys
from services.gamestate.records import Meta
from tests.services.helpers import expect_error

C = grpc.StatusCode


def _fresh(rdb, prefix, game_id) -> Meta:
    return Meta.from_hash(game_id, rdb.hgetall(Keys(prefix).meta(game_id)))


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
    rdb.delete(Keys(prefix).meta(game.game_id))
    expect_error(C.NOT_FOUND, client.get_game, game.game_id)


def _count_meta_reads(store) -> list[str]:
    """Record every metadata read of `store` (the fast submission path must not make one)."""
    reads: list[str] = []
    original = store.meta

    async def counting(game_id: str):
        reads.append(game_id)
        return await original(game_id)

    store.meta = counting
    return reads


def test_a_plain_submission_at_the_cached_version_reads_no_metadata(make_instance, make_client, rdb, prefix):
    inst = make_instance()
    client = make_client(inst)
    store = inst.running.service.store
    game = client.create_game("toybids", 2, seed=15)
    hand = client.get_game(game.game_id, game.token(0)).view["hand"]
    reads = _count_meta_reads(store)
    r = client.submit(game.game_id, game.token(0), {"type": "bid", "card": hand[0]}, 0)
    assert r.version == 1 and not r.replayed
    assert reads == []  # decided on the cache; the commit re-checked version and token atomically
    assert inst.run(store.meta(game.game_id)) == _fresh(rdb, prefix, game.game_id)
    # with an idempotency key, or at another version, the full path reads the metadata first
    hand = client.get_game(game.game_id, game.token(1)).view["hand"]
    reads.clear()
    client.submit(game.game_id, game.token(1), {"type": "bid", "card": hand[0]}, 1, idempotency_key="k1")
    assert reads == [game.game_id]


def test_a_token_rotated_elsewhere_is_refused_by_a_submission_on_the_cache(make_instance, make_client, rdb, prefix):
    a_inst = make_instance()
    a, b = make_client(a_inst), make_client(make_instance())
    game = a.create_game("toybids", 2, seed=16)
    old = game.token(0)
    hand = a.get_game(game.game_id, old).view["hand"]  # a caches version 0 and the old token's hash
    new = b.rotate_token(game.game_id, old)
    expect_error(C.UNAUTHENTICATED, a.submit, game.game_id, old, {"type": "bid", "card": hand[0]}, 0)
    assert _fresh(rdb, prefix, game.game_id).version == 0  # nothing applied
    assert a.submit(game.game_id, new, {"type": "bid", "card": hand[0]}, 0).version == 1


def test_a_move_elsewhere_makes_a_submission_on_the_outdated_cache_stale(make_instance, make_client, rdb, prefix):
    a, b = make_client(make_instance()), make_client(make_instance())
    game = a.create_game("toybids", 2, seed=17)
    hand0 = a.get_game(game.game_id, game.token(0)).view["hand"]  # a caches version 0
    hand1 = b.get_game(game.game_id, game.token(1)).view["hand"]
    b.submit(game.game_id, game.token(1), {"type": "bid", "card": hand1[0]}, 0)
    err = expect_error(C.ABORTED, a.submit, game.game_id, game.token(0), {"type": "bid", "card": hand0[0]}, 0)
    assert "version" in err.message
    # an illegal move on the cache is answered by the full path, with its rule
    again = {"type": "bid", "card": hand1[1]}
    err = expect_error(C.FAILED_PRECONDITION, a.submit, game.game_id, game.token(1), again, 1)
    assert err.rule
    assert _fresh(rdb, prefix, game.game_id).version == 1


def test_cached_reads_answer_legal_actions_without_reading_metadata(make_instance, make_client, rdb, prefix):
    """CACHED_READ_MS: after this instance's own commit (which read every seat's token hash) a seat's legal
    actions come from the cache, the same as a fresh read gives; by default every read asks Redis."""
    cached_inst, plain_inst = make_instance(cached_read_ms=60_000), make_instance()
    cached, plain = make_client(cached_inst), make_client(plain_inst)
    game = cached.create_game("toybids", 3, seed=18)
    hand = cached.get_game(game.game_id, game.token(0)).view["hand"]
    assert cached.submit(game.game_id, game.token(0), {"type": "bid", "card": hand[0]}, 0).version == 1
    reads = _count_meta_reads(cached_inst.running.service.store)
    plain_reads = _count_meta_reads(plain_inst.running.service.store)
    for seat in (1, 2):
        answer = cached.legal_actions(game.game_id, game.token(seat))
        assert answer == plain.legal_actions(game.game_id, game.token(seat))
        assert answer.version == 1 and answer.actions
    assert reads == []
    assert plain_reads == [game.game_id, game.game_id]
    assert cached_inst.run(cached_inst.running.service.store.meta(game.game_id)) == _fresh(rdb, prefix, game.game_id)


def test_cached_reads_refuse_a_token_rotated_on_the_same_instance_at_once(make_instance, make_client):
    a = make_client(make_instance(cached_read_ms=60_000))
    game = a.create_game("toybids", 2, seed=19)
    old = game.token(0)
    assert a.legal_actions(game.game_id, old).seat == 0
    new = a.rotate_token(game.game_id, old)
    expect_error(C.UNAUTHENTICATED, a.legal_actions, game.game_id, old)
    assert a.legal_actions(game.game_id, new).seat == 0


def test_cached_reads_may_answer_an_older_version_whose_move_the_commit_refuses(make_instance, make_client, rdb,
                                                                                prefix):
    """The documented price of CACHED_READ_MS: a move through another instance within the window is not seen by
    the cached read, and the compare-and-set refuses a move made from that answer (nothing is applied)."""
    a, b = make_client(make_instance(cached_read_ms=60_000)), make_client(make_instance())
    game = a.create_game("toybids", 2, seed=20)
    assert a.legal_actions(game.game_id, game.token(1)).version == 0
    hand = b.get_game(game.game_id, game.token(0)).view["hand"]
    b.submit(game.game_id, game.token(0), {"type": "bid", "card": hand[0]}, 0)
    seen = a.legal_actions(game.game_id, game.token(1))
    assert seen.version == 0
    err = expect_error(C.ABORTED, a.submit, game.game_id, game.token(1), seen.actions[0], seen.version)
    assert "version" in err.message
    assert _fresh(rdb, prefix, game.game_id).version == 1
    assert a.legal_actions(game.game_id, game.token(1)).version == 1  # the refused commit dropped the cache
