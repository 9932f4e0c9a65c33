"""Time controls: realtime (seconds per decision + a per-seat reserve) and correspondence (days per decision).

The sweeper is off where timing matters: the tests sweep by hand, so every expiry happens exactly when they say.
"""

from __future__ import annotations

import json
import time

import grpc
import pytest

from services.gamestate.keys import Keys
from tests.services.helpers import expect_error

C = grpc.StatusCode
REALTIME = {"kind": "realtime", "seconds_per_decision": 5.0, "reserve_seconds": 10.0}


def _log(rdb, prefix: str, game_id: str) -> list[dict]:
    return [json.loads(e) for e in rdb.lrange(Keys(prefix).log(game_id), 0, -1)]


def test_a_realtime_control_is_kept_shown_and_gives_each_seat_its_decision_time_plus_reserve(client):
    before = time.time() * 1000
    game = client.create_game("toybids", 2, seed=1, time_control=REALTIME)
    after = time.time() * 1000
    view = client.get_game(game.game_id)
    assert view.time_control == REALTIME and view.turn_seconds == 5.0
    assert view.reserves == {0: 10_000, 1: 10_000}
    for due in view.deadlines.values():  # both bid at once (TOY-2): 5 s + the 10 s reserve each
        assert before + 15_000 <= due <= after + 15_000


def test_turn_seconds_is_a_realtime_control_without_reserve(client):
    game = client.create_game("toybids", 2, seed=2, turn_seconds=30)
    view = client.get_game(game.game_id)
    assert view.time_control == {"kind": "realtime", "seconds_per_decision": 30.0, "reserve_seconds": 0.0}
    assert view.reserves == {}
    assert client.get_game(client.create_game("toybids", 2, seed=3).game_id).time_control is None


def test_a_correspondence_control_gives_days_per_decision(client):
    before = time.time() * 1000
    game = client.create_game("toybids", 2, seed=4, time_control={"kind": "correspondence", "days_per_decision": 3})
    view = client.get_game(game.game_id)
    assert view.time_control == {"kind": "correspondence", "days_per_decision": 3}
    assert view.turn_seconds == 3 * 86_400 and view.reserves == {}
    assert all(before + 3 * 86_400_000 <= due <= before + 3 * 86_400_000 + 5_000 for due in view.deadlines.values())


def test_the_reserve_pays_only_for_the_time_beyond_the_decision(make_instance, make_client):
    client = make_client(make_instance(sweeper=False))
    control = {"kind": "realtime", "seconds_per_decision": 0.2, "reserve_seconds": 2.0}
    game = client.create_game("toybids", 2, seed=5, options={"rounds": 3}, time_control=control)
    start = client.get_game(game.game_id)
    started = start.deadlines[0] - 2200  # when seat 0's first decision began
    hand0 = client.get_game(game.game_id, game.token(0)).view["hand"]
    hand1 = client.get_game(game.game_id, game.token(1)).view["hand"]
    client.submit(game.game_id, game.token(1), {"type": "bid", "card": hand1[0]}, 0)  # fast: reserve untouched
    time.sleep(0.6)
    moved = time.time() * 1000
    client.submit(game.game_id, game.token(0), {"type": "bid", "card": hand0[0]}, 1)  # 0.4 s and more beyond
    done = time.time() * 1000
    view = client.get_game(game.game_id)
    assert view.reserves[1] == 2000
    spent = 2000 - view.reserves[0]
    assert moved - started - 200 - 2 <= spent <= done - started - 200 + 2
    # the next round's decisions started together: each gets 0.2 s plus what is left of its reserve
    assert view.deadlines[0] - view.reserves[0] == view.deadlines[1] - view.reserves[1]


def test_the_clock_fires_once_decision_time_and_reserve_are_both_used_up(make_instance, make_client, rdb, prefix):
    inst = make_instance(sweeper=False, abandon_after_timeouts=0)
    client = make_client(inst)
    control = {"kind": "realtime", "seconds_per_decision": 0.1, "reserve_seconds": 1.0}
    game = client.create_game("toybids", 2, seed=6, options={"rounds": 3}, time_control=control)
    hand0 = client.get_game(game.game_id, game.token(0)).view["hand"]
    client.submit(game.game_id, game.token(0), {"type": "bid", "card": hand0[0]}, 0)
    after_bid = client.get_game(game.game_id)
    due, kept = after_bid.deadlines[1], after_bid.reserves[0]
    # seat 0 answered inside its decision time and reserve (a slow machine can take more than the 0.1 s)
    assert 0 < kept <= 1000
    time.sleep(0.3)  # past the 0.1 s per decision, well inside seat 1's reserve
    assert inst.run(inst.running.service.clock.sweep_once()) == 0
    while time.time() * 1000 <= due:
        time.sleep(0.02)
    assert inst.run(inst.running.service.clock.sweep_once()) == 1
    entry = _log(rdb, prefix, game.game_id)[-1]
    assert entry["kind"] == "timeout" and entry["seat"] == 1 and entry["at_ms"] >= due
    view = client.get_game(game.game_id)
    assert view.reserves == {0: kept, 1: 0}  # seat 1's reserve is gone for the rest of the game; seat 0's kept
    assert view.deadlines[0] - kept == view.deadlines[1]  # the next round: 0.1 s for seat 1, 0.1 s + kept for seat 0


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"turn_seconds": 5, "time_control": REALTIME}, "not both"),
        ({"time_control": {"kind": "blitz"}}, "kind"),
        ({"time_control": {"kind": "realtime", "seconds_per_decision": 0}}, "seconds_per_decision"),
        ({"time_control": {"kind": "realtime", "seconds_per_decision": 1, "reserve_seconds": -1}}, "reserve_seconds"),
        ({"time_control": {"kind": "realtime", "seconds_per_decision": 1, "reserve_seconds": 90_000}}, "reserve"),
        ({"time_control": {"kind": "realtime", "seconds_per_decision": 90_000}}, "seconds_per_decision"),
        ({"time_control": {"kind": "correspondence", "days_per_decision": 0}}, "days_per_decision"),
        ({"time_control": {"kind": "correspondence", "days_per_decision": 31}}, "days_per_decision"),
        ({"time_control": {"kind": "realtime", "seconds_per_decision": 1, "days_per_decision": 2}}, "takes no"),
        ({"time_control": {"kind": "correspondence", "days_per_decision": 2, "reserve_seconds": 5}}, "takes no"),
    ],
)
def test_bad_time_controls_are_refused_and_create_nothing(client, rdb, prefix, kwargs, words):
    keys = set(rdb.scan_iter(match=f"{prefix}*"))
    err = expect_error(C.INVALID_ARGUMENT, client.create_game, "toybids", 2, seed=7, **kwargs)
    assert words in err.message
    assert set(rdb.scan_iter(match=f"{prefix}*")) == keys
