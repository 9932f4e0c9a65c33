"""Two instances on one Redis: one game driven through both, CAS under contention, idempotency."""

from __future__ import annotations

import random
import threading
from concurrent.futures import ThreadPoolExecutor

import grpc

from services.gamestate.client import GameServiceError
from services.gamestate.keys import Keys
from tests.services.helpers import play_random


def _log(rdb, prefix, game_id):
    return rdb.lrange(Keys(prefix).log(game_id), 0, -1)


def test_two_instances_drive_the_same_game_to_the_same_digest(make_instance, make_client, rdb, prefix):
    a, b = make_client(make_instance()), make_client(make_instance())
    game = a.create_game("toybids", 3, seed=5, options={"rounds": 4})
    played = play_random([a, b], game, 3, random.Random(1))
    final_a, final_b = a.get_game(game.game_id), b.get_game(game.game_id)
    assert final_a.status == final_b.status == "finished"
    assert final_a.digest == final_b.digest and final_a.version == final_b.version == len(played.versions)
    assert len(_log(rdb, prefix, game.game_id)) == final_a.version
    log = a.get_log(game.game_id)
    assert log.final_digest == final_a.digest and log.winners == final_a.winners


def test_many_concurrent_conflicting_submissions_apply_exactly_one(make_instance, make_client, rdb, prefix):
    instances = [make_instance(), make_instance()]
    clients = [make_client(i) for i in instances for _ in range(4)]
    game = clients[0].create_game("toybids", 3, seed=8, options={"rounds": 4})
    hands = {s: clients[0].get_game(game.game_id, game.token(s)).view["hand"] for s in range(3)}
    attempts = [(s, card) for s in range(3) for card in hands[s]]  # 12 different legal bids at version 0
    attempts = attempts * 2  # and each twice: 24 racing submissions
    barrier = threading.Barrier(len(attempts))

    def submit(i: int):
        seat, card = attempts[i]
        client = clients[i % len(clients)]
        barrier.wait()
        try:
            return client.submit(game.game_id, game.token(seat), {"type": "bid", "card": card}, 0)
        except GameServiceError as exc:
            return exc

    with ThreadPoolExecutor(len(attempts)) as pool:
        results = list(pool.map(submit, range(len(attempts))))
    accepted = [r for r in results if not isinstance(r, GameServiceError)]
    refused = [r for r in results if isinstance(r, GameServiceError)]
    assert len(accepted) == 1 and accepted[0].version == 1
    assert all(r.code == grpc.StatusCode.ABORTED for r in refused), refused
    assert len(_log(rdb, prefix, game.game_id)) == 1
    assert clients[0].get_game(game.game_id).version == 1


def test_idempotent_resubmission_replays_the_first_outcome(make_instance, make_client, rdb, prefix):
    a, b = make_client(make_instance()), make_client(make_instance())
    game = a.create_game("toybids", 2, seed=9)
    token = game.token(0)
    hand = a.get_game(game.game_id, token).view["hand"]
    action = {"type": "bid", "card": hand[1]}
    first = a.submit(game.game_id, token, action, 0, idempotency_key="k-1")
    again = b.submit(game.game_id, token, action, 0, idempotency_key="k-1")
    assert not first.replayed and again.replayed
    assert (again.version, again.events, again.status, again.to_act) == (
        first.version, first.events, first.status, first.to_act,
    )
    assert len(_log(rdb, prefix, game.game_id)) == 1
    # the same key with another request is refused, and changes nothing
    err = None
    try:
        a.submit(game.game_id, token, {"type": "bid", "card": hand[2]}, 0, idempotency_key="k-1")
    except GameServiceError as exc:
        err = exc
    assert err is not None and err.code == grpc.StatusCode.INVALID_ARGUMENT and err.reason == "idempotency_mismatch"
    # keys are per seat: seat 1 may use the same key for its own action
    hand1 = a.get_game(game.game_id, game.token(1)).view["hand"]
    own = a.submit(game.game_id, game.token(1), {"type": "bid", "card": hand1[0]}, 1, idempotency_key="k-1")
    assert not own.replayed and own.version == 2
    assert len(_log(rdb, prefix, game.game_id)) == 2


def test_same_idempotency_key_racing_on_two_instances_is_applied_once(make_instance, make_client, rdb, prefix):
    instances = [make_instance(), make_instance()]
    clients = [make_client(i) for i in instances for _ in range(6)]
    game = clients[0].create_game("toybids", 2, seed=10)
    hand = clients[0].get_game(game.game_id, game.token(1)).view["hand"]
    action = {"type": "bid", "card": hand[0]}
    barrier = threading.Barrier(len(clients))

    def submit(client):
        barrier.wait()
        try:
            return client.submit(game.game_id, game.token(1), action, 0, idempotency_key="bot:1:0")
        except GameServiceError as exc:
            return exc

    with ThreadPoolExecutor(len(clients)) as pool:
        results = list(pool.map(submit, clients))
    assert not [r for r in results if isinstance(r, GameServiceError)], results
    assert sum(not r.replayed for r in results) == 1  # applied once; every other caller got the replay
    assert {(r.version, tuple(map(str, r.events))) for r in results} == {(1, tuple(map(str, results[0].events)))}
    assert len(_log(rdb, prefix, game.game_id)) == 1
    # a retry after the race replays the outcome
    assert clients[0].submit(game.game_id, game.token(1), action, 0, idempotency_key="bot:1:0").replayed
