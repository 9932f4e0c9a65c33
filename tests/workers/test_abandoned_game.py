"""End to end over REST: a matched, rated 2-player game whose human leaves (never submits) still finishes and
settles its ratings. Real Redis, the real game-state service (its sweeper runs the turn clock), a real Celery
worker, the REST gateway, the matchmaker's pass and the outcomes consumer.

The path: timeouts (the default decision each time, after the seat's reserve ran out) -> after
ABANDON_AFTER_TIMEOUTS (3) in a row the seat is abandoned and, with only one seat left, the game finishes in that
same commit (services/common/standings.py): every seat sees `seat_abandoned` and `game_forfeited`, nobody plays on, the
player who stayed wins and the one who left ranks last.
"""

from __future__ import annotations

import time
from types import SimpleNamespace

import httpx

from services.accounts.ratings import DEFAULT
from services.workers.move import Mover
from tests.gateway.conftest import Gateway, gateway_settings
from tests.gateway.helpers import auth, read_sse
from tests.gateway.test_matchmaking import new_player, poll, run_matcher, ticket
from tests.redis_required import test_redis as run_redis

GAME = "opensky"
#: short decisions keep the test fast; the staying player's reserve absorbs a slow moment of a busy machine
CONTROL = {"kind": "realtime", "seconds_per_decision": 0.3, "reserve_seconds": 5.0}


def _play_until_over(c: httpx.Client, game_id: str, token: str, timeout_s: float = 180.0) -> dict:
    """The staying player: the first legal action whenever its seat must decide, until the game ends."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        game = c.get(f"/v1/games/{game_id}").json()
        if game["status"] != "active":
            return game
        legal = c.get(f"/v1/games/{game_id}/actions", headers=auth(token)).json()
        if legal["actions"]:
            c.post(f"/v1/games/{game_id}/actions", headers=auth(token),
                   json={"action": legal["actions"][0], "expected_version": legal["version"]})  # 409 if it moved on
        else:
            time.sleep(0.02)
    raise AssertionError(f"game {game_id} did not finish in {timeout_s} s")


def test_a_matched_game_whose_human_leaves_finishes_through_the_zombie_and_settles(
    make_instance, start_worker, redis_url, settings
) -> None:
    inst = make_instance(zombie_bot_level="greedy", abandon_after_timeouts=3)
    worker = start_worker(inst.admin_target)
    # with the outcomes consumer of the service's outbox, which settles the game nobody but the clock ended
    gw = Gateway(gateway_settings(redis_url, SimpleNamespace(addr=inst.admin_target)), outbox=settings.key_prefix)
    try:
        with gw.client() as c:
            (stays_id, stays_key), (leaves_id, leaves_key) = new_player(c, "stays"), new_player(c, "leaves")
            t_stays = ticket(c, stays_key, GAME, 2, time_control=CONTROL)
            t_leaves = ticket(c, leaves_key, GAME, 2, time_control=CONTROL)
            [game_id] = run_matcher(gw.settings)
            stays, leaves = poll(c, stays_key, t_stays), poll(c, leaves_key, t_leaves)
            quitter = leaves["seat"]  # its player never submits anything
            start = c.get(f"/v1/games/{game_id}").json()
            assert start["time_control"] == CONTROL and {s["kind"] for s in start["seats"]} == {"human"}

            final = _play_until_over(c, game_id, stays["token"])

            assert (final["status"], final["winners"]) == ("finished", [stays["seat"]])
            assert final["seats"][quitter] == {"seat": quitter, "player_id": leaves_id, "kind": "human",
                                               "status": "abandoned", "bot_level": None}
            assert final["seats"][stays["seat"]] == {"seat": stays["seat"], "player_id": stays_id, "kind": "human",
                                                     "status": "active", "bot_level": None}
            quitter_entries = [e for e in c.get(f"/v1/games/{game_id}/log").json()["actions"]
                               if e["seat"] == quitter]
            assert [e["kind"] for e in quitter_entries] == ["timeout"] * 3  # the third one ended the game
            assert f"bot move {game_id} seat {quitter}" not in worker.text(), "nobody plays on"

            events = read_sse(c, f"/v1/games/{game_id}/events", headers=auth(stays["token"]))  # ends by itself
            said = [e.json() for e in events if e.event == "message"
                    and e.json()["type"] in ("seat_abandoned", "game_forfeited")]
            third_timeout = quitter_entries[2]["v"]
            assert said == [{"type": "seat_abandoned", "seat": quitter, "bot": None, "reason": "timeouts",
                             "timeouts": 3, "version": third_timeout},
                            {"type": "game_forfeited", "seat": stays["seat"], "reason": "abandoned",
                             "version": third_timeout}]
            assert final["version"] == third_timeout

            def rated() -> dict[str, dict]:
                return {pid: c.get(f"/v1/players/{pid}").json()["ratings"].get(GAME, {})
                        for pid in (stays_id, leaves_id)}

            deadline = time.monotonic() + 20
            while any(r.get("games") != 1 for r in rated().values()):  # the outcomes consumer settles it
                assert time.monotonic() < deadline, rated()
                time.sleep(0.05)
            ratings = rated()
    finally:
        gw.stop()
    assert ratings[stays_id]["games"] == ratings[leaves_id]["games"] == 1
    assert ratings[stays_id]["mu"] > DEFAULT.mu > ratings[leaves_id]["mu"], "the player who left ranks last"


def test_a_bot_task_of_an_aborted_game_exits_without_submitting(make_instance, make_client, settings) -> None:
    """An aborted game's state is not over, so the worker must read the game's status (a task queued before the
    abort would otherwise think and submit, to be refused)."""
    inst = make_instance(dispatch_bots=False)
    client = make_client(inst)
    created = client.create_game(GAME, 2, seed=3, bots={0: "random"})
    assert client.get_game(created.game_id).to_act == [0]
    version = client.abort(created.game_id, created.token(1))
    sync = run_redis(settings.redis_url, decode_responses=True)
    try:
        mover = Mover(sync, settings.key_prefix, client.admin(settings.service_secret))
        assert mover.play(created.game_id, 0, version).outcome == "finished"
    finally:
        sync.close()
    assert client.get_game(created.game_id).version == version
