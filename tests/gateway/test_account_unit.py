"""docs/decisions/accounts.md, "The account is the unit": the account's API key acts for every seat it holds, every game
with a seat of the account is on its stream and in its games at once, the stream starts now and announces ongoing games,
a finished game's stream ends with a terminal event, a decline reason is kept, and the rate limit says when its
window really refills. Real HTTP, Redis and game-state service (tests/gateway/conftest.py)."""

from __future__ import annotations

import json
import math
import time

import httpx
import pytest
import redis

from services.accounts.keys import Keys
from tests.gateway.helpers import Sse, auth, read_sse
from tests.gateway.test_accounts import new_account
from tests.gateway.test_basics import assert_error
from tests.gateway.test_challenges import challenge, events
from tests.gateway.test_matchmaking import poll, run_matcher, ticket
from tests.rate_windows import fresh_window


@pytest.fixture
def gw(make_gateway):
    return make_gateway(challenge_ttl_s=60)


def create(c: httpx.Client, key: str, players: int = 2, **extra) -> dict:
    r = c.post("/v1/games", headers=auth(key), json={"game": "toybids", "players": players, "seed": 3, **extra})
    assert r.status_code == 201, r.text
    return r.json()


def bid(c: httpx.Client, game_id: str, key: str, seat: int | None = None) -> httpx.Response:
    """One legal bid of the API key's seat (`?seat=N` where it holds several)."""
    q = f"?seat={seat}" if seat is not None else ""
    legal = c.get(f"/v1/games/{game_id}/actions{q}", headers=auth(key))
    assert legal.status_code == 200, legal.text
    body = legal.json()
    return c.post(f"/v1/games/{game_id}/actions{q}", headers=auth(key),
                  json={"action": body["actions"][0], "expected_version": body["version"]})


def play_out(c: httpx.Client, game_id: str, key: str, seats: list[int]) -> dict:
    """Every seat bids (TOY-2) through the API key until the game ends; the last answer."""
    while True:
        for seat in seats:
            r = bid(c, game_id, key, seat)
            assert r.status_code == 200, r.text
            if r.json()["status"] != "active":
                return r.json()


def test_the_api_key_plays_every_seat_route_of_a_hot_seat_game(gw) -> None:
    """A game made with POST /v1/games is the account's; its key reads, plays, rotates and aborts, choosing
    the seat with ?seat=N where it holds several (hot-seat, asked for), and a clear 4xx where it is ambiguous."""
    with gw.client() as c:
        _pid, key = new_account(c, "hot")
        made = create(c, key, account_seats=[0, 1])
        gid = made["game_id"]
        assert_error(c.get(f"/v1/games/{gid}/actions", headers=auth(key)), 422, "seat_ambiguous")
        assert_error(c.post(f"/v1/games/{gid}/resign", headers=auth(key)), 422, "seat_ambiguous")
        assert_error(c.get(f"/v1/games/{gid}/actions?seat=5", headers=auth(key)), 403, "not_seated")
        view = c.get(f"/v1/games/{gid}?seat=1", headers=auth(key)).json()
        assert view["seat"] == 1 and view["seats"][1]["player_id"] == _pid
        assert bid(c, gid, key, 0).status_code == 200  # the hot path (plain GET/POST with ?seat=N)
        # rotating with the key hands out a new token for delegation; the key keeps acting for the seat
        r = c.post(f"/v1/games/{gid}/token?seat=1", headers=auth(key))
        assert r.status_code == 201, r.text
        new = r.json()["token"]
        assert_error(c.get(f"/v1/games/{gid}/actions", headers=auth(made["seats"][1]["token"])), 401)
        assert c.get(f"/v1/games/{gid}/actions", headers=auth(new)).json()["seat"] == 1
        assert c.get(f"/v1/games/{gid}/actions?seat=1", headers=auth(key)).json()["seat"] == 1
        # a delegate rotating with the seat token makes the seat its own: the key no longer acts for it
        newer = c.post(f"/v1/games/{gid}/token", headers=auth(new)).json()["token"]
        assert c.get(f"/v1/games/{gid}/actions", headers=auth(newer)).json()["seat"] == 1
        assert_error(c.get(f"/v1/games/{gid}/actions?seat=1", headers=auth(key)), 403, "not_seated")
        r = c.post(f"/v1/games/{gid}/abort", headers=auth(key))  # its one seat left, inferred
        assert r.status_code == 200, r.text
        assert c.get(f"/v1/games/{gid}").json()["status"] == "aborted"


def test_one_held_seat_is_inferred_and_other_accounts_hold_none(gw) -> None:
    """With `account_seats` the account holds only those; its key infers its one seat; another account's key
    is refused on seat routes (403 `not_seated`) and reads as a spectator."""
    with gw.client() as c:
        _a, key = new_account(c, "owner")
        _b, other = new_account(c, "other")
        made = create(c, key, account_seats=[1])
        gid = made["game_id"]
        assert c.get(f"/v1/games/{gid}/actions", headers=auth(key)).json()["seat"] == 1
        assert c.get(f"/v1/games/{gid}", headers=auth(key)).json()["seat"] == 1
        assert_error(c.get(f"/v1/games/{gid}/actions?seat=0", headers=auth(key)), 403, "not_seated")
        assert_error(c.get(f"/v1/games/{gid}/actions", headers=auth(other)), 403, "not_seated")
        assert_error(c.post(f"/v1/games/{gid}/abort", headers=auth(other)), 403, "not_seated")
        assert c.get(f"/v1/games/{gid}", headers=auth(other)).json()["seat"] is None
        assert c.get(f"/v1/games/{gid}/actions", headers=auth(made["seats"][0]["token"])).json()["seat"] == 0
        assert_error(c.post("/v1/games", headers=auth(key), json={"game": "toybids", "players": 2,
                                                                   "account_seats": [2]}), 422)
        r = c.post(f"/v1/games/{gid}/resign", headers=auth(key))
        assert r.status_code == 200, r.text
        assert c.get(f"/v1/games/{gid}").json()["seats"][1]["status"] == "resigned"
        # the resigned seat's token is revoked: the key reads as a spectator instead of failing
        after = c.get(f"/v1/games/{gid}", headers=auth(key))
        assert after.status_code == 200 and after.json()["seat"] is None, after.text
        assert_error(c.get(f"/v1/games/{gid}/actions", headers=auth(key)), 401)


def test_kept_seat_tokens_are_sealed_at_rest(gw, rdb: redis.Redis) -> None:
    """SECURITY.md: the seat credential the platform keeps for the account is never in clear in Redis."""
    with gw.client() as c:
        pid, key = new_account(c, "sealed")
        made = create(c, key, account_seats=[0, 1])
    raw = rdb.hget(Keys(gw.settings.key_prefix).account_games(pid), made["game_id"])
    assert raw is not None
    for seat in made["seats"]:
        assert seat["token"] not in raw
    assert set(json.loads(raw)["keys"]) == {"0", "1"}


def test_a_created_game_is_listed_and_announced_at_once_and_its_end_too(gw) -> None:
    """Read your writes: a created game is in GET /v1/players/me/games and on the account stream at once;
    once it ends it is listed as finished at once (the listing reads the game live) and `game_end` follows on the
    stream (the outcomes consumer's, within the wait)."""
    with gw.client() as c:
        _pid, key = new_account(c, "ryw")
        made = create(c, key, options={"rounds": 2}, account_seats=[0, 1])
        gid = made["game_id"]
        [listed] = c.get("/v1/players/me/games", headers=auth(key)).json()["games"]
        assert (listed["game_id"], listed["seats"], listed["status"], listed["my_turn"]) == (gid, [0, 1], "active",
                                                                                            True)
        got = events(c, key, lambda es: sum(e.event == "game_start" for e in es) >= 2, timeout=5)
        assert {(e.json()["game_id"], e.json()["seat"]) for e in got if e.event == "game_start"} == {(gid, 0),
                                                                                                   (gid, 1)}
        last = got[-1].id
        final = play_out(c, gid, key, [0, 1])
        assert final["status"] == "finished"
        [listed] = c.get("/v1/players/me/games", headers=auth(key)).json()["games"]
        assert listed["status"] == "finished" and listed["scores"] is not None and not listed["my_turn"]
        ended = events(c, key, lambda es: sum(e.event == "game_end" for e in es) >= 2, last_id=last, timeout=5)
        assert {e.json()["seat"] for e in ended if e.event == "game_end"} == {0, 1}


def test_the_stream_starts_now_announcing_ongoing_games_history_is_opt_in(gw) -> None:
    """A new connection sends no history, first a `game_start` (ongoing) per active game; `replay=true` sends
    the kept history; `Last-Event-ID` resumes after it."""
    with gw.client() as c:
        _a, a = new_account(c, "a")
        b_id, b = new_account(c, "b")
        ch = challenge(c, a, b_id)["challenge_id"]
        accepted = c.post(f"/v1/challenges/{ch}/accept", headers=auth(b)).json()
        create(c, a, account_seats=[0])
        now = read_sse(c, "/v1/players/me/events", auth(a), stop_after=2)
        assert [e.event for e in now] == ["game_start", "game_start"], [(e.event, e.data) for e in now]
        first = now[0].json()
        assert first["ongoing"] is True and first["game_id"] == accepted["game_id"]
        assert first["token"], "the challenger's seat token, not yet delivered, is delivered by the announcement"
        again = read_sse(c, "/v1/players/me/events", auth(a), stop_after=1)[0].json()
        assert again["game_id"] == accepted["game_id"] and again["token"] is None, "delivered once"
        history = read_sse(c, "/v1/players/me/events?replay=true", auth(a), stop_after=3)
        assert [e.event for e in history] == ["challenge", "game_start", "challenge_closed"]
        assert history[1].json()["token"] is None and not any(e.json().get("ongoing") for e in history)
        resumed = events(c, a, lambda es: len(es) >= 1, last_id=history[0].id, timeout=5)
        assert resumed[0].id != history[0].id and not resumed[0].json().get("ongoing")


def test_each_announcement_has_its_own_id_and_resuming_from_one_loses_no_seat(gw) -> None:
    """A new connection's `game_start` announcements all carried the newest entry's id, so a client dropping repeated
    ids kept one seat of a hot-seat game. Each has an id of its own now; resuming from one (a connection dropped
    amid the announcements) announces the ongoing games again under the same ids, so a deduplicating client gets
    the seats it missed and nothing twice, then what happened since."""
    with gw.client() as c:
        _pid, key = new_account(c, "hot-ids")
        gid = create(c, key, players=3, account_seats=[0, 1, 2])["game_id"]
        now = read_sse(c, "/v1/players/me/events", auth(key), stop_after=3)
        assert [(e.event, e.json()["seat"]) for e in now] == [("game_start", 0), ("game_start", 1), ("game_start", 2)]
        ids = [e.id for e in now]
        assert all(ids) and len(set(ids)) == 3, ids
        again = events(c, key, lambda es: len(es) >= 3, last_id=ids[0], timeout=10)
        assert [(e.event, e.id, e.json()["seat"]) for e in again] == [(e.event, e.id, e.json()["seat"]) for e in now]
        assert c.post(f"/v1/games/{gid}/abort?seat=0", headers=auth(key)).status_code == 200
        ended = events(c, key, lambda es: sum(e.event == "game_end" for e in es) >= 3, last_id=ids[2], timeout=10)
        assert "game_start" not in {e.event for e in ended}, "the game is over: nothing to announce again"
        assert [e.json()["seat"] for e in ended if e.event == "game_end"] == [0, 1, 2]
        assert len({e.id for e in ended} | set(ids)) == len(ended) + 3
        for wrong in (f"{ids[0]}:x", f"{ids[0].split(':')[0]}:{gid}:one", f"1-0:{gid}/..:0"):
            assert_error(c.get("/v1/players/me/events", headers=auth(key) | {"Last-Event-ID": wrong}), 422)


def test_a_matched_game_is_played_with_the_api_key_alone(gw) -> None:
    """Matchmaking puts the match on the account stream; the API key plays it (no ticket token needed), and
    the ticket's token, still handed out once, is not the only way in."""
    with gw.client() as c:
        _a, a = new_account(c, "ma")
        _b, b = new_account(c, "mb")
        ticket(c, a, "toybids", 2)
        tb = ticket(c, b, "toybids", 2)
        [gid] = run_matcher(gw.settings)
        start = read_sse(c, "/v1/players/me/events", auth(a), stop_after=1)[0].json()
        assert start["game_id"] == gid and start["ongoing"]
        assert bid(c, gid, a).status_code == 200
        seat_b = poll(c, b, tb)["seat"]
        assert c.get(f"/v1/games/{gid}/actions", headers=auth(b)).json()["seat"] == seat_b


def test_a_finished_games_stream_after_its_last_version_ends_at_once(gw) -> None:
    """Events after the last version of an ended game: the terminal `end` event, not an empty body."""
    with gw.client() as c:
        _pid, key = new_account(c, "end")
        made = create(c, key, options={"rounds": 2}, account_seats=[0, 1])
        final = play_out(c, made["game_id"], key, [0, 1])
        started = time.monotonic()
        got: list[Sse] = read_sse(c, f"/v1/games/{made['game_id']}/events?after={final['version']}")
        assert [e.event for e in got] == ["end"] and time.monotonic() - started < 5
        assert got[0].json()["status"] == "finished" and got[0].json()["version"] == final["version"]
        via_key = read_sse(c, f"/v1/games/{made['game_id']}/events?seat=0", auth(key)  # whole, as seat 0
                           | {"Last-Event-ID": str(final["version"])})
        assert [e.event for e in via_key] == ["end"]


def test_a_decline_reason_is_kept_and_delivered(gw) -> None:
    """The decline `reason` is in GET /v1/challenges/{id} and the `challenge_closed` event."""
    with gw.client() as c:
        _a, a = new_account(c, "da")
        b_id, b = new_account(c, "db")
        cid = challenge(c, a, b_id)["challenge_id"]
        r = c.post(f"/v1/challenges/{cid}/decline", headers=auth(b), json={"reason": "too_fast"})
        assert r.status_code == 200 and r.json()["reason"] == "too_fast", r.text
        assert c.get(f"/v1/challenges/{cid}", headers=auth(a)).json()["reason"] == "too_fast"
        got = events(c, a, lambda es: any(e.event == "challenge_closed" for e in es))
        closed = next(e.json() for e in got if e.event == "challenge_closed")
        assert closed == {"challenge_id": cid, "status": "declined", "reason": "too_fast"}
        other = challenge(c, a, b_id)["challenge_id"]
        assert_error(c.post(f"/v1/challenges/{other}/decline", headers=auth(b), json={"reason": "because"}), 422)
        assert c.post(f"/v1/challenges/{other}/decline", headers=auth(b)).json()["reason"] == "generic"


def test_rate_limit_reset_says_when_the_window_really_refills(make_gateway) -> None:
    """RateLimit-Reset / Retry-After count to the end of the fixed window the count belongs to (it used to
    count a whole window from the bucket's first request: "30 s to reset", refilled 5 s later)."""
    gw = make_gateway(rate_limit_token=3, rate_limit_window_s=10)
    with gw.client() as c:
        _pid, key = new_account(c, "rl")
        seen = []
        fresh_window(10, room_s=5)  # the five calls in one window: a boundary among them would refill the budget
        for _ in range(5):
            r = c.get("/v1/players/me", headers=auth(key))
            window_end = (math.floor(time.time() / 10) + 1) * 10
            seen.append((r.status_code, int(r.headers["RateLimit-Reset"]), window_end - time.time()))
        status, reset, left = seen[-1]
        assert status == 429
        assert abs(reset - left) <= 1.5, seen
        assert int(r.headers["Retry-After"]) == reset
        assert all(abs(reset - left) <= 1.5 for _s, reset, left in seen), seen


def test_a_bot_accounts_play_counts_against_the_bot_budget(make_gateway) -> None:
    """A bot account plays with its API key, so its moves count against the bot budget (not the seat
    tokens' 300 a minute)."""
    gw = make_gateway(rate_limit_token=5, rate_limit_bot_token=1000, rate_limit_window_s=60)
    with gw.client() as c:
        _pid, key = new_account(c, "fastbot", kind="bot")
        made = create(c, key, options={"rounds": 4}, account_seats=[0, 1])
        for _ in range(4):
            for seat in (0, 1):
                r = bid(c, made["game_id"], key, seat)
                assert r.status_code == 200, r.text
        assert int(r.headers["RateLimit-Limit"]) == 1000
