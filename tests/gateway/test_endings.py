"""Clocks and endings over REST: time controls on creation and tickets, `seats`, resign, abort, a new seat token,
and what they mean for ratings (resigned or abandoned players rank last; an aborted game settles nothing).

The gateway tests' service has no worker: its zombie is the default decision (TOY-5), so resigned seats play on.
"""

from __future__ import annotations

import time

import httpx
import pytest

from services.accounts.keys import Keys, bucket_of
from services.accounts.ratings import DEFAULT
from tests.gateway.conftest import ServiceInstance
from tests.gateway.helpers import api_key, auth, create, read_sse
from tests.gateway.test_basics import assert_error
from tests.gateway.test_matchmaking import matched_pair, new_player, poll, run_matcher, ticket
from tests.services.test_forfeits import lowest_card_winners

TOY = "toybids"
REALTIME = {"kind": "realtime", "seconds_per_decision": 20, "reserve_seconds": 90}


def _tokens(body: dict) -> dict[int, str]:
    return {s["seat"]: s["token"] for s in body["seats"] if s["token"]}


def _bid(http: httpx.Client, game_id: str, token: str) -> int:
    legal = http.get(f"/v1/games/{game_id}/actions", headers=auth(token)).json()
    r = http.post(f"/v1/games/{game_id}/actions", headers=auth(token),
                  json={"action": legal["actions"][0], "expected_version": legal["version"]})
    assert r.status_code == 200, r.text
    return r.json()["version"]


def _game_keys(rdb, service: ServiceInstance) -> set[str]:
    return set(rdb.scan_iter(match=f"{service.settings.key_prefix}*", count=1000))


def test_a_created_game_shows_its_time_control_and_who_holds_each_seat(http: httpx.Client) -> None:
    owner = http.post("/v1/players", json={"name": "owner"}).json()
    body = create(http, TOY, 3, seed=1, key=owner["api_key"], bots={"2": "random"}, time_control=REALTIME)
    game = http.get(f"/v1/games/{body['game_id']}").json()
    assert game["time_control"] == {"kind": "realtime", "seconds_per_decision": 20.0, "reserve_seconds": 90.0}
    assert game["turn_seconds"] == 20 and game["reserves"] == {"0": 90_000, "1": 90_000, "2": 90_000}
    assert game["seats"] == [
        {"seat": 0, "player_id": owner["player_id"], "kind": "human", "status": "active", "bot_level": None},
        {"seat": 1, "player_id": owner["player_id"], "kind": "human", "status": "active", "bot_level": None},
        {"seat": 2, "player_id": None, "kind": "bot", "status": "active", "bot_level": "random"},
    ]
    corr = create(http, TOY, 2, seed=2, time_control={"kind": "correspondence", "days_per_decision": 2})
    shown = http.get(f"/v1/games/{corr['game_id']}").json()
    assert shown["time_control"] == {"kind": "correspondence", "days_per_decision": 2}
    assert shown["turn_seconds"] == 172_800 and shown["reserves"] == {}
    short = http.get(f"/v1/games/{create(http, TOY, 2, seed=3, turn_seconds=15)['game_id']}").json()
    assert short["time_control"] == {"kind": "realtime", "seconds_per_decision": 15.0, "reserve_seconds": 0.0}
    assert http.get(f"/v1/games/{create(http, TOY, 2, seed=4)['game_id']}").json()["time_control"] is None


@pytest.mark.parametrize("extra", [
    {"turn_seconds": 5, "time_control": REALTIME},
    {"time_control": {"kind": "blitz", "seconds_per_decision": 5}},
    {"time_control": {"kind": "realtime", "seconds_per_decision": 0}},
    {"time_control": {"kind": "realtime", "seconds_per_decision": "5"}},
    {"time_control": {"kind": "realtime", "seconds_per_decision": 5, "reserve_seconds": -1}},
    {"time_control": {"kind": "realtime", "seconds_per_decision": 5, "days_per_decision": 1}},
    {"time_control": {"kind": "correspondence", "days_per_decision": 1.5}},
    {"time_control": {"kind": "correspondence", "days_per_decision": 31}},
    {"time_control": {"kind": "correspondence"}},
])
def test_a_bad_time_control_is_422_and_creates_nothing(http: httpx.Client, rdb, service, extra) -> None:
    keys = _game_keys(rdb, service)
    payload = {"game": TOY, "players": 2, "seed": 5, **extra}
    assert_error(http.post("/v1/games", json=payload, headers=auth(api_key(http))), 422)
    assert _game_keys(rdb, service) == keys


def test_resign_over_rest_hands_the_seat_over_and_says_so_to_every_seat(http: httpx.Client) -> None:
    body = create(http, TOY, 2, seed=6)
    gid, tokens = body["game_id"], _tokens(body)
    assert_error(http.post(f"/v1/games/{gid}/resign"), 401)
    assert_error(http.post(f"/v1/games/{gid}/resign", headers=auth("sbt_nope")), 401)
    r = http.post(f"/v1/games/{gid}/resign", headers=auth(tokens[0]))
    assert r.status_code == 200 and r.json() == {"version": 1}
    game = http.get(f"/v1/games/{gid}").json()
    assert game["seats"][0]["status"] == "resigned" and game["seats"][0]["kind"] == "human"
    # two players: the resignation ends the game at once and the opponent wins (services/common/standings.py)
    assert (game["version"], game["status"], game["winners"], game["to_act"]) == (1, "finished", [1], [])
    assert_error(http.get(f"/v1/games/{gid}", headers=auth(tokens[0])), 401)  # the token is revoked
    assert http.get(f"/v1/games/{gid}/actions", headers=auth(tokens[1])).json()["actions"] == []
    events = read_sse(http, f"/v1/games/{gid}/events", headers=auth(tokens[1]))
    assert [e.json() for e in events if e.event == "message"][1] == {
        "type": "seat_resigned", "seat": 0, "bot": None, "version": 1}
    assert events[-1].event == "end" and events[-1].json()["winners"] == [1]
    log = http.get(f"/v1/games/{gid}/log").json()
    assert (log["status"], log["winners"]) == ("finished", [1])


def test_a_resigned_player_never_wins_a_game_played_out(http: httpx.Client) -> None:
    """Three players: the resigned seat is played to the end by the zombie and ranks last; whatever it scores it
    is never among the winners, in the game view, the stream's end or the log."""
    seed = next(s for s in range(1, 500) if lowest_card_winners(3, s, rounds=3) == [2])
    body = create(http, TOY, 3, seed=seed, options={"rounds": 3})
    gid, tokens = body["game_id"], _tokens(body)
    assert http.post(f"/v1/games/{gid}/resign", headers=auth(tokens[2])).status_code == 200
    while http.get(f"/v1/games/{gid}").json()["status"] == "active":
        for seat in (0, 1):
            if seat in http.get(f"/v1/games/{gid}").json()["to_act"]:
                _bid(http, gid, tokens[seat])
    game = http.get(f"/v1/games/{gid}").json()
    assert game["scores"][2] > max(game["scores"][:2])  # every seat bid its lowest card: seat 2 outscored both
    assert game["winners"] and 2 not in game["winners"]
    assert read_sse(http, f"/v1/games/{gid}/events")[-1].json()["winners"] == game["winners"]
    assert http.get(f"/v1/games/{gid}/log").json()["winners"] == game["winners"]


def test_an_aborted_game_shows_no_scores_and_no_winners(http: httpx.Client) -> None:
    body = create(http, TOY, 2, seed=10)
    gid, tokens = body["game_id"], _tokens(body)
    assert http.post(f"/v1/games/{gid}/abort", headers=auth(tokens[0])).status_code == 200
    game = http.get(f"/v1/games/{gid}").json()
    assert (game["status"], game["scores"], game["winners"]) == ("aborted", None, None)
    end = read_sse(http, f"/v1/games/{gid}/events")[-1].json()
    assert (end["status"], end["scores"], end["winners"]) == ("aborted", None, None)
    log = http.get(f"/v1/games/{gid}/log").json()
    assert (log["status"], log["scores"], log["winners"]) == ("aborted", None, None)


def test_abort_over_rest_ends_the_game_and_its_streams(http: httpx.Client) -> None:
    body = create(http, TOY, 2, seed=7)
    gid, tokens = body["game_id"], _tokens(body)
    assert_error(http.post(f"/v1/games/{gid}/abort"), 401)
    r = http.post(f"/v1/games/{gid}/abort", headers=auth(tokens[1]))
    assert r.status_code == 200 and r.json() == {"version": 1}
    game = http.get(f"/v1/games/{gid}").json()
    assert (game["status"], game["to_act"], game["winners"], game["deadlines"]) == ("aborted", [], None, {})
    events = read_sse(http, f"/v1/games/{gid}/events")  # ends by itself
    assert events[-1].event == "end" and events[-1].json()["status"] == "aborted"
    assert {"type": "game_aborted", "seat": 1, "reason": "requested", "version": 1} in [
        e.json() for e in events if e.event == "message"]
    assert_error(http.post(f"/v1/games/{gid}/abort", headers=auth(tokens[0])), 409, "game_over")
    assert_error(http.post(f"/v1/games/{gid}/resign", headers=auth(tokens[0])), 409, "game_over")
    assert http.get(f"/v1/games/{gid}/log").json()["actions"][0]["kind"] == "abort"


def test_abort_is_409_once_every_human_seat_has_decided(http: httpx.Client) -> None:
    body = create(http, TOY, 2, seed=8)
    gid, tokens = body["game_id"], _tokens(body)
    _bid(http, gid, tokens[0])
    _bid(http, gid, tokens[1])
    err = assert_error(http.post(f"/v1/games/{gid}/abort", headers=auth(tokens[0])), 409, "abort_not_allowed")
    assert "first decision" in err["message"]
    assert http.get(f"/v1/games/{gid}").json()["version"] == 2


def test_a_new_seat_token_over_rest_revokes_the_old_one(http: httpx.Client) -> None:
    body = create(http, TOY, 2, seed=9)
    gid, old = body["game_id"], _tokens(body)[0]
    assert_error(http.post(f"/v1/games/{gid}/token"), 401)
    r = http.post(f"/v1/games/{gid}/token", headers=auth(old))
    assert r.status_code == 201 and set(r.json()) == {"token"}
    new = r.json()["token"]
    assert new != old and http.get(f"/v1/games/{gid}", headers=auth(new)).json()["seat"] == 0
    assert_error(http.get(f"/v1/games/{gid}", headers=auth(old)), 401)
    assert_error(http.post(f"/v1/games/{gid}/token", headers=auth(old)), 401)
    assert_error(http.post("/v1/games/nope/token", headers=auth(new)), 404)


def test_a_matched_game_gets_the_default_time_control_and_shows_its_players(make_gateway) -> None:
    gw = make_gateway(mm_seconds_per_decision=45, mm_reserve_seconds=120)
    with gw.client() as c:
        (pa, _ka, seat_a), (pb, _kb, seat_b) = matched_pair(c, gw.settings, game=TOY)
        game = c.get(f"/v1/games/{seat_a['game_id']}").json()
        assert game["time_control"] == {"kind": "realtime", "seconds_per_decision": 45.0, "reserve_seconds": 120.0}
        assert seat_a["time_control"] == game["time_control"]
        players = {s["seat"]: s["player_id"] for s in game["seats"]}
        assert players == {seat_a["seat"]: pa, seat_b["seat"]: pb}


def test_tickets_with_different_time_controls_never_meet(make_gateway) -> None:
    gw = make_gateway()
    fast = {"kind": "realtime", "seconds_per_decision": 10, "reserve_seconds": 0}
    slow = {"kind": "correspondence", "days_per_decision": 3}
    with gw.client() as c:
        players = [new_player(c, f"t{i}")[1] for i in range(4)]
        tickets = [ticket(c, players[0], TOY, 2, time_control=fast), ticket(c, players[1], TOY, 2, time_control=slow),
                   ticket(c, players[2], TOY, 2)]
        assert run_matcher(gw.settings) == []  # three controls (the default is the third): nobody to meet
        tickets.append(ticket(c, players[3], TOY, 2, time_control=slow))
        created = run_matcher(gw.settings)
        assert len(created) == 1
        matched = [poll(c, key, t) for key, t in zip(players, tickets)]
        assert [m["status"] for m in matched] == ["queued", "matched", "queued", "matched"]
        game = c.get(f"/v1/games/{created[0]}").json()
        assert game["time_control"] == slow
        assert_error(c.post("/v1/matchmaking/tickets", headers=auth(players[0]),
                            json={"game": TOY, "players": 2, "time_control": {"kind": "correspondence"}}), 422)


def _wait(cond, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "not within the wait"
        time.sleep(0.05)


def test_a_matched_game_whose_player_resigns_settles_with_that_player_last(make_gateway) -> None:
    gw = make_gateway()
    with gw.client() as c:
        (pa, _ka, a), (pb, _kb, b) = matched_pair(c, gw.settings, ("stays", "leaves"), TOY)
        gid = a["game_id"]
        _bid(c, gid, a["token"])
        assert c.post(f"/v1/games/{gid}/resign", headers=auth(b["token"])).status_code == 200
        assert c.get(f"/v1/games/{gid}").json()["winners"] == [a["seat"]]  # two players: it ends at once
        ratings = lambda pid: c.get(f"/v1/players/{pid}").json()["ratings"].get(TOY, {})  # noqa: E731
        _wait(lambda: ratings(pa).get("games") == ratings(pb).get("games") == 1)  # the outcomes consumer settles it
        stays, leaves = ratings(pa), ratings(pb)
    assert stays["games"] == leaves["games"] == 1
    assert stays["mu"] > DEFAULT.mu > leaves["mu"]


def test_an_aborted_matched_game_settles_nothing(make_gateway, rdb) -> None:
    gw = make_gateway()
    with gw.client() as c:
        (pa, _ka, a), (pb, _kb, _b) = matched_pair(c, gw.settings, ("x", "y"), TOY)
        assert c.post(f"/v1/games/{a['game_id']}/abort", headers=auth(a["token"])).status_code == 200
        pending = Keys(gw.settings.key_prefix).rated_pending(bucket_of(a["game_id"]))
        _wait(lambda: not rdb.sismember(pending, a["game_id"]))  # the outcomes consumer dropped it
        assert c.get(f"/v1/players/{pa}").json()["ratings"] == {}
        assert c.get(f"/v1/players/{pb}").json()["ratings"] == {}
        assert c.get(f"/v1/games/{a['game_id']}").json()["status"] == "aborted"
