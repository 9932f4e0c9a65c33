"""A seat handed to someone else is theirs alone. A game's creator holds one human seat unless it asks for more
(`account_seats`, hot-seat); a seat's token rotated with that token (a guest making the seat its own) drops every
account that held the seat: the creator's key can no longer read the seat's hand, act for it or rotate the guest
out, and its open stream of that seat ends before the guest's next secret. A rotation made with the account's key
keeps the seat the account's.

Real gRPC (the public port, which knows the gateway's accounts), real HTTP, real Redis and PostgreSQL."""

from __future__ import annotations

import json

import grpc
import httpx
import pytest

from services.gamestate.pb import pb2
from tests.gateway.account_stack import Stack, http_fixture, md, stack_fixture
from tests.gateway.helpers import auth
from tests.gateway.test_accounts import new_account
from tests.gateway.test_basics import assert_error
from tests.gateway.test_grpc_api_keys import refused
from tests.gateway.test_key_streams import ENDS_WITHIN_S, GrpcReader
from tests.gateway.test_token_streams import SseReader

__all__ = ["http_fixture", "stack_fixture"]  # the shared account stack's fixtures: `stack`, `http`

C = grpc.StatusCode


def create(c: httpx.Client, key: str, players: int = 2, **extra) -> tuple[str, dict[int, str]]:
    r = c.post("/v1/games", headers=auth(key), json={"game": "toybids", "players": players, "seed": 9, **extra})
    assert r.status_code == 201, r.text
    return r.json()["game_id"], {s["seat"]: s["token"] for s in r.json()["seats"] if s["token"]}


def my_seats(c: httpx.Client, key: str, game_id: str) -> list[int] | None:
    """The seats `GET /v1/players/me/games` lists for the game (None: not listed)."""
    games = c.get("/v1/players/me/games", headers=auth(key)).json()["games"]
    return next((g["seats"] for g in games if g["game_id"] == game_id), None)


def test_the_creator_holds_one_seat_unless_it_asks_for_more(stack: Stack, http: httpx.Client) -> None:
    """By default the creating account holds the first human seat only: the others' tokens are for guests, and the
    creator's key reads and acts for none of them (REST and gRPC)."""
    _pid, key = new_account(http, "creator")
    gid, tokens = create(http, key, players=3, bots={"0": "random"})
    assert my_seats(http, key, gid) == [1]
    assert http.get(f"/v1/games/{gid}", headers=auth(key)).json()["seat"] == 1  # the key's one seat, inferred
    assert_error(http.get(f"/v1/games/{gid}?seat=2", headers=auth(key)), 403, "not_seated")
    assert_error(http.get(f"/v1/games/{gid}/actions?seat=2", headers=auth(key)), 403, "not_seated")
    assert_error(http.post(f"/v1/games/{gid}/token?seat=2", headers=auth(key)), 403, "not_seated")
    assert_error(http.get(f"/v1/games/{gid}/events?seat=2", headers=auth(key)), 403, "not_seated")
    refused(stack.stub.ListLegalActions, pb2.ListLegalActionsRequest(game_id=gid), md(key, 2), C.PERMISSION_DENIED,
            "not_seated")
    guest = http.get(f"/v1/games/{gid}", headers=auth(tokens[2])).json()
    assert guest["seat"] == 2 and guest["view"]["hand"], "the guest's token plays the seat"


def test_hot_seat_asked_explicitly_holds_every_human_seat(stack: Stack, http: httpx.Client) -> None:
    _pid, key = new_account(http, "hot-seat")
    gid, _tokens = create(http, key, players=3, bots={"1": "random"}, account_seats=[0, 2])
    assert my_seats(http, key, gid) == [0, 2]
    assert_error(http.get(f"/v1/games/{gid}/actions", headers=auth(key)), 422, "seat_ambiguous")
    for seat in (0, 2):
        assert http.get(f"/v1/games/{gid}/actions?seat={seat}", headers=auth(key)).json()["seat"] == seat
        assert stack.stub.ListLegalActions(pb2.ListLegalActionsRequest(game_id=gid), metadata=md(key, seat),
                                           timeout=10).seat == seat
    # a rotation made with the key keeps the seat the account's (a fresh token to hand out, the key goes on)
    r = http.post(f"/v1/games/{gid}/token?seat=2", headers=auth(key))
    assert r.status_code == 201, r.text
    assert http.get(f"/v1/games/{gid}/actions?seat=2", headers=auth(key)).json()["seat"] == 2
    assert my_seats(http, key, gid) == [0, 2]


@pytest.mark.parametrize("over", ["rest", "grpc"])
def test_a_guest_rotating_its_seat_token_takes_the_seat_from_the_creator(stack: Stack, http: httpx.Client,
                                                                         over: str) -> None:
    """Hot-seat, then seat 1 handed to a guest: the guest rotates its token (over REST, or over gRPC with the token
    alone) and the seat is the guest's alone: the creator's key neither reads its hand nor acts for it nor rotates
    the guest out, its open stream of seat 1 ends before the guest's next secret, and the guest's new token works."""
    _pid, key = new_account(http, f"owner-{over}")
    gid, tokens = create(http, key, account_seats=[0, 1])
    sse = SseReader(stack.gateway, f"/v1/games/{gid}/events?seat=1", auth(key))
    watch = GrpcReader(stack.stub, pb2.WatchGameRequest(game_id=gid), md(key, 1))
    try:
        if over == "rest":
            r = http.post(f"/v1/games/{gid}/token", headers=auth(tokens[1]))
            assert r.status_code == 201, r.text
            tokens[1] = r.json()["token"]
        else:
            rotated = stack.stub.RotateToken(pb2.RotateTokenRequest(game_id=gid, token=tokens[1]), timeout=10)
            assert rotated.seat == 1
            tokens[1] = rotated.token
        # the owner's key: seat 1 is no longer the account's, on every route
        assert my_seats(http, key, gid) == [0]
        assert_error(http.get(f"/v1/games/{gid}?seat=1", headers=auth(key)), 403, "not_seated")
        assert_error(http.get(f"/v1/games/{gid}/actions?seat=1", headers=auth(key)), 403, "not_seated")
        assert_error(http.post(f"/v1/games/{gid}/token?seat=1", headers=auth(key)), 403, "not_seated")
        assert_error(http.get(f"/v1/games/{gid}/events?seat=1", headers=auth(key)), 403, "not_seated")
        refused(stack.stub.GetGame, pb2.GetGameRequest(game_id=gid), md(key, 1), C.PERMISSION_DENIED, "not_seated")
        refused(stack.stub.RotateToken, pb2.RotateTokenRequest(game_id=gid), md(key, 1), C.PERMISSION_DENIED,
                "not_seated")
        # the key still plays its own seat, inferred now that it holds one
        assert http.get(f"/v1/games/{gid}/actions", headers=auth(key)).json()["seat"] == 0
        # the guest's new token is the seat's, and its secret does not reach the owner's old streams
        legal = http.get(f"/v1/games/{gid}/actions", headers=auth(tokens[1])).json()
        assert legal["seat"] == 1
        r = http.post(f"/v1/games/{gid}/actions", headers=auth(tokens[1]),
                      json={"action": legal["actions"][0], "expected_version": legal["version"]})
        assert r.status_code == 200, r.text
        assert sse.join(ENDS_WITHIN_S) and watch.join(ENDS_WITHIN_S), "the owner's stream of seat 1 is open"
        assert sse.events[-1][0] == "error" and watch.code == C.UNAUTHENTICATED
        sent = [json.loads(d) for n, d in sse.events if n == "message"]
        sent += [json.loads(e) for entry in watch.entries for e in entry.events_json]
        assert not any(e["type"] == "you_bid" for e in sent), "the guest's secret reached the owner"
    finally:
        http.post(f"/v1/games/{gid}/abort", headers=auth(tokens[1]))
        watch.cancel()
        sse.join(10)
        watch.join(10)
