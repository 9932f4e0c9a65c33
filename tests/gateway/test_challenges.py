"""Challenges and the account stream: a challenge accepted becomes a game; both players' account streams see
`game_start`, each `your_turn` of their own seat and `game_end`; nothing about one seat reaches the other
account; the challenger's seat token is delivered once. Real HTTP, Redis and game-state service."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.gateway.helpers import Sse, auth, parse_sse, read_sse
from tests.gateway.test_accounts import new_account
from tests.gateway.test_basics import assert_error


@pytest.fixture
def gw(make_gateway):
    return make_gateway(challenge_ttl_s=60)


def events(c: httpx.Client, key: str, until, last_id: str | None = None, timeout: float = 20) -> list[Sse]:
    """The account stream's events (from `last_id`, else the kept history: `replay=true`) until `until(events)`
    holds."""
    headers = auth(key) | ({"Last-Event-ID": last_id} if last_id else {})
    deadline = time.monotonic() + timeout

    def lines(r: httpx.Response) -> Iterator[str]:
        for line in r.iter_lines():
            yield line
            assert time.monotonic() < deadline, f"the account stream did not say it within {timeout} s"

    url = "/v1/players/me/events" + ("" if last_id else "?replay=true")
    with c.stream("GET", url, headers=headers, timeout=timeout) as r:
        assert r.status_code == 200, r.read()
        return parse_sse(lines(r), until)


def challenge(c: httpx.Client, key: str, to: str, **extra) -> dict:
    r = c.post("/v1/challenges", headers=auth(key), json={"to": to, "game": "toybids", **extra})
    assert r.status_code == 201, r.text
    assert set(r.json()) == {"challenge_id", "status", "expires_at"} and r.json()["status"] == "pending"
    return r.json()


def test_a_challenge_is_listed_both_ways_and_declined_or_cancelled_once(gw) -> None:
    with gw.client() as c:
        a_id, a = new_account(c, "a")
        b_id, b = new_account(c, "b")
        _x, x = new_account(c, "x")
        one = challenge(c, a, b_id, options={"rounds": 2})["challenge_id"]
        two = challenge(c, a, b_id, time_control={"kind": "correspondence", "days_per_decision": 3})["challenge_id"]
        mine = {ch["challenge_id"]: ch for ch in c.get("/v1/challenges", headers=auth(a)).json()["challenges"]}
        theirs = {ch["challenge_id"]: ch for ch in c.get("/v1/challenges", headers=auth(b)).json()["challenges"]}
        assert set(mine) == set(theirs) == {one, two}
        assert mine[one]["direction"] == "outgoing" and theirs[one]["direction"] == "incoming"
        assert mine[two]["time_control"] == {"kind": "correspondence", "days_per_decision": 3}
        assert mine[one]["options"] == {"rounds": 2} and mine[one]["challenger"] == a_id
        assert_error(c.get(f"/v1/challenges/{one}", headers=auth(x)), 404)
        assert_error(c.post(f"/v1/challenges/{one}/accept", headers=auth(a)), 403)
        assert_error(c.delete(f"/v1/challenges/{one}", headers=auth(b)), 403)
        assert c.post(f"/v1/challenges/{one}/decline", headers=auth(b)).json()["status"] == "declined"
        assert_error(c.post(f"/v1/challenges/{one}/accept", headers=auth(b)), 409, "challenge_declined")
        assert c.delete(f"/v1/challenges/{two}", headers=auth(a)).json()["status"] == "cancelled"
        assert_error(c.delete(f"/v1/challenges/{two}", headers=auth(a)), 409, "challenge_cancelled")
        got = events(c, b, lambda es: sum(e.event == "challenge_closed" for e in es) == 2)
        assert [e.event for e in got] == ["challenge", "challenge", "challenge_closed", "challenge_closed"]
        assert got[0].json()["challenge"]["challenge_id"] == one
        assert {(e.json()["challenge_id"], e.json()["status"]) for e in got[2:]} == {
            (one, "declined"), (two, "cancelled")}


def test_bad_challenges_are_refused_with_the_error_body(gw) -> None:
    with gw.client() as c:
        a_id, a = new_account(c, "a")
        b_id, _b = new_account(c, "b")
        post = lambda body: c.post("/v1/challenges", headers=auth(a), json=body)  # noqa: E731
        assert_error(post({"to": a_id, "game": "toybids"}), 422)
        assert_error(post({"to": "f" * 32, "game": "toybids"}), 404)
        assert_error(post({"to": b_id, "game": "nope"}), 422, "unknown_game")
        assert_error(post({"to": b_id, "game": "toybids", "players": 9}), 422)
        assert_error(post({"to": b_id, "game": "toybids", "time_control": {"kind": "realtime"}}), 422)
        assert_error(post({"to": b_id, "game": "toybids", "time_control": {"kind": "blitz"}}), 422)
        assert_error(c.post("/v1/challenges", json={"to": b_id, "game": "toybids"}), 401)


def test_a_pending_challenge_expires_and_both_players_hear_it(make_gateway) -> None:
    gw = make_gateway(challenge_ttl_s=1)
    with gw.client() as c:
        _a_id, a = new_account(c, "a")
        b_id, b = new_account(c, "b")
        cid = challenge(c, a, b_id)["challenge_id"]
        for key in (a, b):
            got = events(c, key, lambda es: any(e.event == "challenge_closed" for e in es))
            assert got[-1].json() == {"challenge_id": cid, "status": "expired", "reason": None}
        assert_error(c.post(f"/v1/challenges/{cid}/accept", headers=auth(b)), 409, "challenge_expired")
        assert c.get(f"/v1/challenges/{cid}", headers=auth(a)).json()["status"] == "expired"


def _play(c: httpx.Client, game_id: str, tokens: dict[int, str], rng: random.Random) -> None:
    while True:
        game = c.get(f"/v1/games/{game_id}").json()
        if game["status"] == "finished":
            return
        seat = rng.choice(game["to_act"])
        legal = c.get(f"/v1/games/{game_id}/actions", headers=auth(tokens[seat])).json()
        r = c.post(f"/v1/games/{game_id}/actions", headers=auth(tokens[seat]),
                   json={"action": rng.choice(legal["actions"]), "expected_version": legal["version"]})
        assert r.status_code == 200, r.text


def test_an_accepted_rated_challenge_plays_through_both_account_streams(gw) -> None:
    with gw.client() as c:
        a_id, a = new_account(c, "challenger")
        b_id, b = new_account(c, "accepter", "bot")
        cid = challenge(c, a, b_id, rated=True, options={"rounds": 2},
                        time_control={"kind": "realtime", "seconds_per_decision": 600, "reserve_seconds": 0})[
            "challenge_id"]
        r = c.post(f"/v1/challenges/{cid}/accept", headers=auth(b))
        assert r.status_code == 200, r.text
        accepted = r.json()
        game_id, b_seat = accepted["game_id"], accepted["seat"]
        assert_error(c.post(f"/v1/challenges/{cid}/accept", headers=auth(b)), 409, "challenge_accepted")
        game = c.get(f"/v1/games/{game_id}").json()
        assert game["players"] == 2 and game["turn_seconds"] == 600
        # the challenger's token arrives once, on its account stream
        starts = events(c, a, lambda es: any(e.event == "game_start" for e in es))
        start = next(e for e in starts if e.event == "game_start").json()
        a_seat, a_token = start["seat"], start["token"]
        assert start["game_id"] == game_id and a_seat == 1 - b_seat and a_token and start["token_delivered"]
        again = events(c, a, lambda es: any(e.event == "game_start" for e in es))
        assert next(e for e in again if e.event == "game_start").json()["token"] is None
        b_start = events(c, b, lambda es: any(e.event == "game_start" for e in es))
        assert next(e for e in b_start if e.event == "game_start").json()["token"] is None
        # my games: both see it, with it being their turn (toybids: everyone bids at once)
        mine = c.get("/v1/players/me/games", headers=auth(a)).json()["games"]
        assert [(g["game_id"], g["seat"], g["my_turn"]) for g in mine] == [(game_id, a_seat, True)]
        assert mine[0]["deadline"] is not None
        _play(c, game_id, {a_seat: a_token, b_seat: accepted["token"]}, random.Random(5))
        log = c.get(f"/v1/games/{game_id}/log").json()
        streams = {}
        for key, seat in ((a, a_seat), (b, b_seat)):
            got = events(c, key, lambda es: any(e.event == "game_end" for e in es))
            streams[seat] = got
            turns = [e.json() for e in got if e.event == "your_turn"]
            assert turns and all(t["game_id"] == game_id and t["seat"] == seat for t in turns)
            assert len({t["version"] for t in turns}) == len(turns) == 2  # one per round (2 rounds)
            end = [e.json() for e in got if e.event == "game_end"]
            assert end == [{"game_id": game_id, "seat": seat, "status": "finished", "scores": log["scores"],
                            "winners": log["winners"]}]
        for seat, got in streams.items():  # no event about the other seat, no other token
            other_token = accepted["token"] if seat == a_seat else a_token
            assert all(other_token not in e.data for e in got)
            assert all(e.json().get("seat", seat) == seat for e in got if e.event in ("your_turn", "game_end"))
        mine = c.get("/v1/players/me/games", headers=auth(a)).json()["games"]  # ended games listed as ended
        assert [(g["game_id"], g["status"], g["my_turn"]) for g in mine] == [(game_id, "finished", False)]
        for pid in (a_id, b_id):  # rated: both ratings settled
            assert c.get(f"/v1/players/{pid}").json()["ratings"]["toybids"]["games"] == 1
        board = c.get("/v1/leaderboard/toybids", params={"limit": 500}).json()["entries"]  # the run shares SQL
        assert {e["player_id"]: e["kind"] for e in board if e["player_id"] in (a_id, b_id)} == {
            a_id: "human", b_id: "bot"}


def test_the_stream_resumes_after_last_event_id(gw) -> None:
    with gw.client() as c:
        _a_id, a = new_account(c, "a")
        b_id, b = new_account(c, "b")
        first = challenge(c, a, b_id)["challenge_id"]
        got = events(c, b, lambda es: len(es) >= 1)
        second = challenge(c, a, b_id)["challenge_id"]
        more = events(c, b, lambda es: len(es) >= 1, last_id=got[0].id)
        assert got[0].json()["challenge"]["challenge_id"] == first
        assert [e.json()["challenge"]["challenge_id"] for e in more] == [second]
        assert_error(c.get("/v1/players/me/events", headers=auth(b) | {"Last-Event-ID": "nope"}), 422)


def test_a_stream_ends_once_its_api_key_stops_working(make_gateway) -> None:
    gw = make_gateway(api_key_grace_s=0)
    with gw.client() as c:
        _pid, key = new_account(c, "k")
        result: list = []

        def read() -> None:
            with gw.client() as c2:
                result.extend(read_sse(c2, "/v1/players/me/events", auth(key)))

        t = threading.Thread(target=read)
        t.start()
        time.sleep(0.5)
        c.post("/v1/players/me/keys", headers=auth(key))
        t.join(15)
        assert not t.is_alive() and result[-1].event == "error"
        assert result[-1].json()["error"]["code"] == "unauthenticated"


def test_a_matched_ticket_reaches_the_account_stream_and_my_games(gw) -> None:
    from tests.gateway.test_matchmaking import poll, run_matcher, ticket

    with gw.client() as c:
        _a_id, a = new_account(c, "a")
        _b_id, b = new_account(c, "b")
        ta, tb = ticket(c, a, "toybids", 2), ticket(c, b, "toybids", 2)
        [game_id] = run_matcher(gw.settings)
        for key, tid in ((a, ta), (b, tb)):
            seat = poll(c, key, tid)["seat"]
            # both: the matchmaker tells game_start and the outcomes consumer your_turn, in either order
            # (docs/streams.md)
            got = events(c, key, lambda es: {"your_turn", "game_start"} <= {e.event for e in es})
            start = next(e.json() for e in got if e.event == "game_start")
            assert start["game_id"] == game_id and start["seat"] == seat and start["token"] is None
            turn = next(e.json() for e in got if e.event == "your_turn")
            assert {k: v for k, v in turn.items() if k != "deadline"} == {"game_id": game_id, "seat": seat,
                                                                          "version": 0}
            assert turn["deadline"] > time.time() * 1000, "matched games have a clock (the matchmaking default)"
            mine = c.get("/v1/players/me/games", headers=auth(key)).json()["games"]
            assert [(g["game_id"], g["seat"], g["my_turn"]) for g in mine] == [(game_id, seat, True)]


def test_my_games_list_the_games_i_play_newest_first_each_saying_whether_it_is_my_turn(gw) -> None:
    """Pages follow the account's record (stable under a cursor), not whose turn it is: `my_turn` says that."""
    with gw.client() as c:
        _a_id, a = new_account(c, "a")
        b_id, b = new_account(c, "b")
        played = []
        for _ in range(2):
            cid = challenge(c, a, b_id)["challenge_id"]
            played.append(c.post(f"/v1/challenges/{cid}/accept", headers=auth(b)).json())
        first = played[0]  # b decides in its older game: only the newer one waits for b now
        legal = c.get(f"/v1/games/{first['game_id']}/actions", headers=auth(first["token"])).json()
        r = c.post(f"/v1/games/{first['game_id']}/actions", headers=auth(first["token"]),
                   json={"action": legal["actions"][0], "expected_version": legal["version"]})
        assert r.status_code == 200, r.text
        mine = c.get("/v1/players/me/games", headers=auth(b)).json()["games"]
        assert [(g["game_id"], g["my_turn"]) for g in mine] == [(played[1]["game_id"], True),
                                                                (first["game_id"], False)]
