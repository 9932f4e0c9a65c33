"""How games end early: abandonment after consecutive timeouts, the zombie bot, Abort, the inactivity sweep.

Timing-sensitive tests run an instance without its sweeper and sweep by hand, so each expiry happens when the
test says. The toy game has no bot a worker can run: where a zombie *level* matters the test checks the handed-over
seat and the queued bot task; elsewhere the fixture's zombie is the default decision (TOY-5, lowest card).
"""

from __future__ import annotations

import time
from itertools import islice

import grpc
import pytest

from services.common.bot_policy import human_lists
from services.gamestate.client_sync import GameClient
from services.gamestate.keys import Keys, bucket_of
from tests.services.helpers import expect_error

C = grpc.StatusCode


def _sweep(inst) -> int:
    return inst.run(inst.running.service.clock.sweep_once())


def _bid(client: GameClient, game, seat: int) -> int:
    """Seat `seat` bids its first card at the current version; the new version."""
    view = client.get_game(game.game_id, game.token(seat))
    return client.submit(game.game_id, game.token(seat), {"type": "bid", "card": view.view["hand"][0]},
                         view.version).version


def _expire(inst, client: GameClient, game_id: str, seat: int) -> None:
    """Wait for `seat`'s deadline, then sweep: its default decision is played by the clock."""
    due = client.get_game(game_id).deadlines[seat]
    while time.time() * 1000 <= due:
        time.sleep(0.01)
    assert _sweep(inst) == 1


def _clocked(make_instance, make_client, players: int = 2, **settings):
    inst = make_instance(sweeper=False, **settings)
    client = make_client(inst)
    game = client.create_game("toybids", players, seed=11, options={"rounds": 4}, turn_seconds=0.05)
    return inst, client, game


def test_three_timeouts_in_a_row_abandon_the_seat_to_the_zombie_bot(make_instance, make_client, rdb, settings, broker):
    inst, client, game = _clocked(make_instance, make_client, players=3, zombie_bot_level="greedy")
    for _round in range(3):  # seats 0 and 2 bid every round; seat 1 never does
        _bid(client, game, 0)
        _bid(client, game, 2)
        _expire(inst, client, game.game_id, 1)
    view = client.get_game(game.game_id)
    assert view.status == "active"  # two players are left: the abandoned seat is played out
    assert view.abandoned == [1] and view.resigned == [] and view.bots == {1: "greedy"}
    assert view.seats == [
        {"seat": 0, "kind": "human", "status": "active", "bot_level": None},
        {"seat": 1, "kind": "human", "status": "abandoned", "bot_level": "greedy"},
        {"seat": 2, "kind": "human", "status": "active", "bot_level": None},
    ]
    expect_error(C.UNAUTHENTICATED, client.get_game, game.game_id, game.token(1))  # its token is revoked
    assert broker.llen(human_lists(settings.bot_queue)[1]) == 1  # the zombie's first move: a first decision
    updates = list(islice(client.watch(game.game_id, game.token(0), after_version=0), 9))
    abandoned = [e for u in updates for e in u.events if e["type"] == "seat_abandoned"]
    assert abandoned == [{"type": "seat_abandoned", "seat": 1, "bot": "greedy", "reason": "timeouts", "timeouts": 3}]
    assert [u.kind for u in updates] == ["move", "move", "timeout"] * 3
    assert updates[-1].events[-1]["type"] == "seat_abandoned"  # with the third timeout, seen by every seat


def test_a_two_player_game_ends_when_a_seat_is_abandoned_and_the_other_wins(make_instance, make_client, rdb,
                                                                           settings, broker):
    """The platform's forfeit rule (services/common/standings.py): nobody is left to play against, so the game finishes
    at the third timeout, with the scores as they stood, and no zombie is queued."""
    inst, client, game = _clocked(make_instance, make_client, zombie_bot_level="greedy")
    for _round in range(3):
        _bid(client, game, 0)
        _expire(inst, client, game.game_id, 1)
    view = client.get_game(game.game_id)
    assert (view.status, view.winners, view.abandoned, view.to_act) == ("finished", [0], [1], [])
    assert view.deadlines == {}
    assert broker.llen(human_lists(settings.bot_queue)[1]) == 0
    expect_error(C.FAILED_PRECONDITION, _bid, client, game, 0)
    assert _sweep(inst) == 0  # no clock runs on a finished game
    last = list(client.watch(game.game_id, game.token(0), after_version=0))[-1]
    assert (last.kind, last.status, last.winners) == ("timeout", "finished", [0])


def test_a_decision_of_its_own_restarts_the_count(make_instance, make_client):
    inst, client, game = _clocked(make_instance, make_client, abandon_after_timeouts=2)
    for seat_1_moves in (False, True, False):
        _bid(client, game, 0)
        if seat_1_moves:
            _bid(client, game, 1)
        else:
            _expire(inst, client, game.game_id, 1)
    assert client.get_game(game.game_id).abandoned == []  # a timeout, a move, a timeout
    _bid(client, game, 0)
    _expire(inst, client, game.game_id, 1)
    view = client.get_game(game.game_id)
    assert view.abandoned == [1] and view.bots == {}  # the fixture's zombie: the default decision (TOY-5)


def test_bot_seats_time_out_without_being_abandoned(make_instance, make_client):
    inst = make_instance(sweeper=False, dispatch_bots=False)
    client = make_client(inst)
    game = client.create_game("toybids", 2, seed=12, options={"rounds": 4}, bots={1: "random"}, turn_seconds=0.05)
    for _round in range(4):
        _bid(client, game, 0)
        _expire(inst, client, game.game_id, 1)
    view = client.get_game(game.game_id)
    assert view.status == "finished" and view.abandoned == [] and view.bots == {1: "random"}


def test_resigning_hands_the_seat_to_the_zombie_level(make_instance, make_client, rdb, settings, broker):
    client = make_client(make_instance(zombie_bot_level="greedy"))
    game = client.create_game("toybids", 3, seed=13)
    assert client.resign(game.game_id, game.token(0)) == 1
    view = client.get_game(game.game_id)
    assert view.status == "active"  # two players are left: the zombie plays the seat out
    assert view.resigned == [0] and view.bots == {0: "greedy"}
    assert view.seats[0] == {"seat": 0, "kind": "human", "status": "resigned", "bot_level": "greedy"}
    assert broker.llen(human_lists(settings.bot_queue)[1]) == 1  # after a human's resignation: a first decision
    assert next(iter(client.watch(game.game_id, after_version=0))).events == [
        {"type": "seat_resigned", "seat": 0, "bot": "greedy"}]


def test_a_rated_game_refuses_a_client_chosen_level_for_a_resigned_seat(make_instance, make_client, settings):
    client = make_client(make_instance(zombie_bot_level="greedy"))
    admin = client.admin(settings.service_secret)
    game = admin.create_game("toybids", 3, seed=14, rated=True)
    assert client.get_game(game.game_id).rated is True
    err = expect_error(C.INVALID_ARGUMENT, client.resign, game.game_id, game.token(1), "random")
    assert err.reason == "bot_level_not_allowed"
    assert client.get_game(game.game_id).version == 0
    client.resign(game.game_id, game.token(1))
    assert client.get_game(game.game_id).bots == {1: "greedy"}


def test_abort_before_the_first_decisions_ends_the_game_unrated(client, settings):
    game = client.create_game("toybids", 2, seed=15)
    stream = client.watch(game.game_id, game.token(1))
    assert next(stream).kind == "created"
    assert client.abort(game.game_id, game.token(0)) == 1
    rest = list(stream)  # the stream ends with the abort
    assert [(u.kind, u.status, u.actor) for u in rest] == [("abort", "aborted", 0)]
    assert rest[0].events == [{"type": "game_aborted", "seat": 0, "reason": "requested"}]
    view = client.get_game(game.game_id)
    assert (view.status, view.to_act, view.winners, view.deadlines) == ("aborted", [], [], {})
    assert [g.game_id for g in client.list_games("aborted")] == [game.game_id]
    assert game.game_id not in {g.game_id for g in client.list_games("active")}
    assert game.game_id not in {g.game_id for g in client.list_games("finished")}
    assert client.get_log(game.game_id).entries[0]["kind"] == "abort"
    hand = client.get_game(game.game_id, game.token(1)).view["hand"]
    for call in (lambda: client.submit(game.game_id, game.token(1), {"type": "bid", "card": hand[0]}, 1),
                 lambda: client.resign(game.game_id, game.token(1)),
                 lambda: client.abort(game.game_id, game.token(1))):
        assert expect_error(C.FAILED_PRECONDITION, call).reason == "game_over"
    assert client.get_game(game.game_id).version == 1


def test_abort_is_allowed_until_every_human_seat_has_decided_once(make_instance, make_client):
    inst, client, game = _clocked(make_instance, make_client)
    _bid(client, game, 0)
    _expire(inst, client, game.game_id, 1)  # a clock default is not a decision of seat 1's own
    _bid(client, game, 1)
    version = client.get_game(game.game_id).version
    err = expect_error(C.FAILED_PRECONDITION, client.abort, game.game_id, game.token(0))
    assert err.reason == "abort_not_allowed" and "first decision" in err.message
    assert client.get_game(game.game_id).version == version
    other = client.create_game("toybids", 2, seed=16)
    _bid(client, other, 0)
    assert client.abort(other.game_id, other.token(0)) == 2  # seat 1 never decided: the mover may abort


def test_no_abort_after_a_resignation_and_bots_need_no_first_decision(client):
    game = client.create_game("toybids", 3, seed=17)
    client.resign(game.game_id, game.token(2))
    err = expect_error(C.FAILED_PRECONDITION, client.abort, game.game_id, game.token(0))
    assert err.reason == "abort_not_allowed" and "resign" in err.message
    solo = client.create_game("toybids", 2, seed=18, bots={1: "random"})
    _bid(client, solo, 0)
    assert expect_error(C.FAILED_PRECONDITION, client.abort, solo.game_id, solo.token(0)).reason == "abort_not_allowed"
    expect_error(C.UNAUTHENTICATED, client.abort, solo.game_id, "")


def test_an_aborted_game_no_longer_counts_against_its_owners_quota(make_instance, make_client, settings):
    client = make_client(make_instance(quota_active_games=1))
    admin = client.admin(settings.service_secret)
    game = admin.create_game("toybids", 2, seed=19, owner="owner1")
    expect_error(C.RESOURCE_EXHAUSTED, admin.create_game, "toybids", 2, seed=20, owner="owner1")
    client.abort(game.game_id, game.token(0))
    admin.create_game("toybids", 2, seed=21, owner="owner1")


IDLE_DAYS = 0.3 / 86_400  # 0.3 s


def test_an_idle_game_nobody_moved_in_is_aborted(make_instance, make_client):
    inst = make_instance(sweeper=False, inactive_game_days=IDLE_DAYS)
    client = make_client(inst)
    game = client.create_game("toybids", 2, seed=22)
    assert inst.run(inst.running.service.endings.sweep_inactive()) == 0  # not idle yet
    time.sleep(0.35)
    assert inst.run(inst.running.service.endings.sweep_inactive()) == 1
    view = client.get_game(game.game_id)
    assert view.status == "aborted"
    last = list(client.watch(game.game_id, after_version=0))[-1]
    assert (last.kind, last.actor, last.events) == ("abort", None, [
        {"type": "game_aborted", "seat": None, "reason": "inactive"}])
    assert inst.run(inst.running.service.endings.sweep_inactive()) == 0


def test_an_idle_game_abandons_the_human_seats_that_must_act(make_instance, make_client):
    inst = make_instance(sweeper=False, inactive_game_days=IDLE_DAYS, zombie_bot_level="greedy",
                         dispatch_bots=False)
    client = make_client(inst)
    game = client.create_game("toybids", 3, seed=23)
    _bid(client, game, 0)
    _bid(client, game, 1)  # seat 2 never bids
    time.sleep(0.35)
    assert inst.run(inst.running.service.endings.sweep_inactive()) == 1
    view = client.get_game(game.game_id)
    assert view.status == "active" and view.abandoned == [2] and view.bots == {2: "greedy"}
    last = next(iter(client.watch(game.game_id, game.token(0), after_version=2)))
    assert (last.kind, last.actor, last.events) == ("abandon", None, [
        {"type": "seat_abandoned", "seat": 2, "bot": "greedy", "reason": "inactive"}])
    expect_error(C.UNAUTHENTICATED, client.get_game, game.game_id, game.token(2))


def test_a_game_is_in_the_inactivity_index_from_its_creation_until_it_ends(make_instance, make_client, rdb, prefix):
    inst = make_instance(sweeper=False)
    client = make_client(inst)
    game = client.create_game("toybids", 2, seed=24)
    touched = Keys(prefix).touched(bucket_of(game.game_id))
    stamp = rdb.zscore(touched, game.game_id)
    assert stamp == int(rdb.hget(Keys(prefix).meta(game.game_id), "updated_ms"))
    client.abort(game.game_id, game.token(0))
    assert rdb.zscore(touched, game.game_id) is None


@pytest.mark.parametrize("level", ["", "greedy"])
def test_the_zombie_level_setting_must_be_a_bot_level_or_empty(make_instance, level):
    make_instance(zombie_bot_level=level)
    with pytest.raises(ValueError, match="ZOMBIE_BOT_LEVEL"):
        make_instance(zombie_bot_level="grandmaster")
