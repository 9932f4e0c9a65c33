"""Seat tokens: revocable, rotatable, bound to one seat of one game; resigning a seat."""

from __future__ import annotations

import grpc
import pytest

from services.common.bot_policy import human_lists
from tests.services.helpers import expect_error

C = grpc.StatusCode


def test_a_seat_token_of_one_game_is_refused_by_another(client):
    g1 = client.create_game("toybids", 2, seed=61)
    g2 = client.create_game("toybids", 2, seed=62)
    hand = client.get_game(g1.game_id, g1.token(0)).view["hand"]
    foreign = g1.token(0)
    calls = [
        lambda: client.get_game(g2.game_id, foreign),
        lambda: client.legal_actions(g2.game_id, foreign),
        lambda: client.submit(g2.game_id, foreign, {"type": "bid", "card": hand[0]}, 0),
        lambda: next(iter(client.watch(g2.game_id, foreign))),
        lambda: client.resign(g2.game_id, foreign),
        lambda: client.rotate_token(g2.game_id, foreign),
    ]
    for call in calls:
        err = expect_error(C.PERMISSION_DENIED, call)
        assert "another game" in err.message
    assert client.get_game(g2.game_id).version == 0
    assert client.get_game(g1.game_id, foreign).seat == 0  # still fine in its own game


def test_a_token_speaks_only_for_its_own_seat(client):
    game = client.create_game("toybids", 2, seed=63)
    v0 = client.get_game(game.game_id, game.token(0))
    v1 = client.get_game(game.game_id, game.token(1))
    assert (v0.seat, v1.seat) == (0, 1) and v0.view["hand"] != v1.view["hand"]
    # seat 0 cannot play a card of seat 1 (the engine refuses it as not in its hand)
    err = expect_error(C.FAILED_PRECONDITION, client.submit, game.game_id, game.token(0),
                       {"type": "bid", "card": v1.view["hand"][0]}, 0)
    assert err.rule == "TOY-3"
    assert client.legal_actions(game.game_id, game.token(0)).seat == 0


def test_rotating_a_token_revokes_the_old_one(client):
    game = client.create_game("toybids", 2, seed=64)
    old = game.token(0)
    new = client.rotate_token(game.game_id, old)
    assert new != old and new.startswith("sbt_")
    expect_error(C.UNAUTHENTICATED, client.get_game, game.game_id, old)
    expect_error(C.UNAUTHENTICATED, client.rotate_token, game.game_id, old)
    assert client.get_game(game.game_id, new).seat == 0


def test_resigned_seat_is_played_by_the_default_decision_TOY_5(client):
    game = client.create_game("toybids", 3, seed=65)
    hands = {s: client.get_game(game.game_id, game.token(s)).view["hand"] for s in (1, 2)}
    version = client.resign(game.game_id, game.token(0))
    # the resignation is recorded (version 1) and seat 0's pending bid auto-played (version 2)
    view = client.get_game(game.game_id, game.token(1))
    assert version == 1 and view.version == 2 and view.resigned == [0] and view.to_act == [1, 2]
    expect_error(C.UNAUTHENTICATED, client.get_game, game.game_id, game.token(0))  # token revoked
    # seats 1 and 2 play on (two players are left: services/common/standings.py); seat 0 answers every round with its
    # lowest card
    while view.status != "finished":
        for seat in (1, 2):
            client.submit(game.game_id, game.token(seat), {"type": "bid", "card": hands[seat].pop()},
                          client.get_game(game.game_id).version)
        view = client.get_game(game.game_id, game.token(1))
    updates = list(client.watch(game.game_id))
    rounds = len(view.view["scores"]) and view.view["rounds"]
    assert [u.kind for u in updates] == ["created", "resign"] + ["auto", "move", "move"] * rounds
    assert all(u.actor == 0 for u in updates if u.kind == "auto")
    assert updates[1].events == [{"type": "seat_resigned", "seat": 0, "bot": None}]
    assert 0 not in view.winners
    log = client.get_log(game.game_id)
    assert log.entries[0]["action"] is None and log.final_digest == view.digest


def test_resigning_to_a_bot_queues_its_moves(client, rdb, settings, broker):
    game = client.create_game("toybids", 3, seed=66)
    client.resign(game.game_id, game.token(1), bot_level="greedy")
    view = client.get_game(game.game_id)
    assert view.bots == {1: "greedy"} and view.resigned == [1] and view.to_act == [0, 1, 2]
    assert broker.llen(human_lists(settings.bot_queue)[1]) == 1  # after a human's resignation: a first decision
    expect_error(C.FAILED_PRECONDITION, client.get_log, game.game_id)


@pytest.mark.parametrize("level", ["", "grandmaster"])
def test_resign_refusals_change_nothing(client, level):
    game = client.create_game("toybids", 2, seed=67)
    expect_error(C.UNAUTHENTICATED, client.resign, game.game_id, "")
    if level:
        expect_error(C.INVALID_ARGUMENT, client.resign, game.game_id, game.token(0), level)
    assert client.get_game(game.game_id).version == 0


def test_concurrent_resignations_on_two_instances_are_all_kept(make_instance, make_client):
    import threading

    a, b = make_client(make_instance()), make_client(make_instance())
    game = a.create_game("toybids", 3, seed=68, options={"rounds": 4})
    barrier = threading.Barrier(2)

    def resign(client, seat, level):
        barrier.wait()
        client.resign(game.game_id, game.token(seat), bot_level=level)

    threads = [threading.Thread(target=resign, args=(a, 1, "random")),
               threading.Thread(target=resign, args=(b, 2, "greedy"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    view = a.get_game(game.game_id)
    assert view.resigned == [1, 2]
    # the second resignation left one seat: the game finished there (services/common/standings.py), so only the first
    # resigner's seat was handed to its bot
    assert (view.status, view.winners) == ("finished", [0])
    assert view.bots in ({1: "random"}, {2: "greedy"})
