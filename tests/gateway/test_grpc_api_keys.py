"""docs/decisions/accounts.md, "The account is the unit", on the public gRPC port: the account's API key (or bot key),
sent as `authorization: Bearer <key>` call metadata, acts for every seat the account holds on every seat call of
GameService, the seat inferred or named by the `seat` metadata; refusals mirror REST's codes; a token rotated over
gRPC with the account's key keeps the seat the account's, with the seat token alone it does not; the per-caller
limits key on the account, and a bot account's play (key or seat token, REST or gRPC) counts against the bot
budget.

Real gRPC (the game-state service's public listener, its accounts in the gateway's Redis prefix and the run's
PostgreSQL), real HTTP (the gateway, where the accounts and games are made), real Redis."""

from __future__ import annotations

import json
from collections.abc import Iterator

import grpc
import httpx
import pytest
import redis

from services.accounts.keys import Keys
from services.gamestate.pb import pb2, pb2_grpc
from tests.gateway.account_stack import Stack, http_fixture, md, stack_fixture
from tests.gateway.helpers import auth
from tests.gateway.test_accounts import new_account
from tests.rate_windows import HOUR, fresh_window
from tests.redis_required import CLUSTER, redis_db
from tests.redis_required import test_redis as redis_client

__all__ = ["http_fixture", "stack_fixture"]  # the shared account stack's fixtures: `stack`, `http`

C = grpc.StatusCode


def refused(call, request, metadata, code: grpc.StatusCode, reason: str | None = None) -> dict:
    """The details of a refusal (which changed nothing), checked against `code` and `reason`."""
    with pytest.raises(grpc.RpcError) as caught:
        call(request, metadata=metadata, timeout=10)
    assert caught.value.code() == code, caught.value.details()
    details = json.loads(caught.value.details())
    if reason is not None:
        assert details["reason"] == reason, details
    assert details["message"]
    return details


def create(c: httpx.Client, key: str, **extra) -> dict:
    r = c.post("/v1/games", headers=auth(key), json={"game": "toybids", "players": 2, "seed": 5, **extra})
    assert r.status_code == 201, r.text
    return r.json()


def bid(stub: pb2_grpc.GameServiceStub, game_id: str, metadata, token: str = "") -> pb2.SubmitActionResponse:
    """One legal bid of the caller's seat over gRPC."""
    legal = stub.ListLegalActions(pb2.ListLegalActionsRequest(game_id=game_id, token=token), metadata=metadata,
                                  timeout=10)
    return stub.SubmitAction(pb2.SubmitActionRequest(game_id=game_id, token=token, action_json=legal.actions_json[0],
                                                     expected_version=legal.version), metadata=metadata, timeout=10)


def test_the_api_key_plays_every_seat_call_over_grpc_choosing_its_hot_seat(stack: Stack, http: httpx.Client):
    """GetGame, ListLegalActions, SubmitAction, WatchGame, RotateToken and Abort with the account's key in the
    metadata, the seat named by `seat` metadata where the account holds both (hot-seat); clear statuses where the
    seat is ambiguous, not held or malformed."""
    s = stack.stub
    pid, key = new_account(http, "grpc-hot")
    made = create(http, key, account_seats=[0, 1])  # hot-seat, asked for
    gid = made["game_id"]
    legal = pb2.ListLegalActionsRequest(game_id=gid)
    refused(s.ListLegalActions, legal, md(key), C.INVALID_ARGUMENT, "seat_ambiguous")
    refused(s.Resign, pb2.ResignRequest(game_id=gid), md(key), C.INVALID_ARGUMENT, "seat_ambiguous")
    refused(s.ListLegalActions, legal, md(key, 5), C.PERMISSION_DENIED, "not_seated")
    refused(s.ListLegalActions, legal, md(key, "one"), C.INVALID_ARGUMENT)
    assert s.ListLegalActions(legal, metadata=md(key, 1), timeout=10).seat == 1
    view = s.GetGame(pb2.GetGameRequest(game_id=gid), metadata=md(key, 0), timeout=10)
    assert view.HasField("seat") and view.seat == 0 and view.owner == pid
    assert bid(s, gid, md(key, 0)).version == 1  # seat 1 has not decided yet: the game may still be aborted
    # the key watches its own seat: the seat's own view of the events (no seat token anywhere)
    stream = s.WatchGame(pb2.WatchGameRequest(game_id=gid, after_version=0), metadata=md(key, 1), timeout=10)
    first = next(stream)
    stream.cancel()
    assert first.version == 1 and first.actor == 0
    # a rotation with the key hands out a new token (to delegate the seat); the old one stops, the key goes on
    rotated = s.RotateToken(pb2.RotateTokenRequest(game_id=gid), metadata=md(key, 1), timeout=10)
    assert rotated.seat == 1 and rotated.token != made["seats"][1]["token"]
    refused(s.ListLegalActions, pb2.ListLegalActionsRequest(game_id=gid, token=made["seats"][1]["token"]), (),
            C.UNAUTHENTICATED)
    assert s.ListLegalActions(pb2.ListLegalActionsRequest(game_id=gid, token=rotated.token), timeout=10).seat == 1
    assert s.ListLegalActions(legal, metadata=md(key, 1), timeout=10).seat == 1
    assert s.Abort(pb2.AbortRequest(game_id=gid), metadata=md(key, 1), timeout=10).version == 2
    assert http.get(f"/v1/games/{gid}").json()["status"] == "aborted"


def test_one_held_seat_is_inferred_and_refusals_mirror_rest(stack: Stack, http: httpx.Client, rdb: redis.Redis):
    """The account's one seat is inferred; another account's key is PERMISSION_DENIED `not_seated` on seat
    calls and reads as a spectator; an unknown or revoked key is UNAUTHENTICATED (as strict as REST: revocation
    honoured); a seat whose token the platform does not keep is FAILED_PRECONDITION `no_seat_credential`; resign
    works with the key alone."""
    s = stack.stub
    pid, key = new_account(http, "grpc-one")
    _other_id, other = new_account(http, "grpc-other")
    gid = create(http, key, account_seats=[1])["game_id"]
    legal = pb2.ListLegalActionsRequest(game_id=gid)
    assert s.ListLegalActions(legal, metadata=md(key), timeout=10).seat == 1
    refused(s.ListLegalActions, legal, md(key, 0), C.PERMISSION_DENIED, "not_seated")
    refused(s.ListLegalActions, legal, md(other), C.PERMISSION_DENIED, "not_seated")
    refused(s.Abort, pb2.AbortRequest(game_id=gid), md(other), C.PERMISSION_DENIED, "not_seated")
    assert not s.GetGame(pb2.GetGameRequest(game_id=gid), metadata=md(other), timeout=10).HasField("seat")
    refused(s.ListLegalActions, legal, md("sbk_made-up-key-000000000000000000000000000"), C.UNAUTHENTICATED,
            "unauthenticated")
    # revocation: the old key, in its grace after a rotation, stops once the current key revokes the others
    new = http.post("/v1/players/me/keys", headers=auth(key)).json()["api_key"]
    assert s.ListLegalActions(legal, metadata=md(key), timeout=10).seat == 1
    assert http.post("/v1/players/me/keys/revoke-others", headers=auth(new)).status_code == 200
    refused(s.ListLegalActions, legal, md(key), C.UNAUTHENTICATED, "unauthenticated")
    assert s.ListLegalActions(legal, metadata=md(new), timeout=10).seat == 1
    # the account's entry without a kept token (a game seated while no service secret was set)
    games = Keys(stack.gateway.settings.key_prefix).account_games(pid)
    entry = json.loads(rdb.hget(games, gid))
    rdb.hset(games, gid, json.dumps({**entry, "keys": {}}))
    refused(s.ListLegalActions, legal, md(new), C.FAILED_PRECONDITION, "no_seat_credential")
    rdb.hset(games, gid, json.dumps(entry))
    assert s.Resign(pb2.ResignRequest(game_id=gid), metadata=md(new), timeout=10).version >= 1
    assert http.get(f"/v1/games/{gid}").json()["seats"][1]["status"] == "resigned"
    # the resigned seat's token is revoked: the key reads as a spectator (as on REST) and acts no more
    assert not s.GetGame(pb2.GetGameRequest(game_id=gid), metadata=md(new), timeout=10).HasField("seat")
    refused(s.ListLegalActions, legal, md(new), C.UNAUTHENTICATED)


def test_a_token_rotated_over_grpc_is_the_seat_of_whoever_rotated_it(stack: Stack, http: httpx.Client,
                                                                     rdb: redis.Redis):
    """A rotation on the public port made with the seat token and the account's key in the metadata keeps the seat
    the account's (its sealed copy replaced: the key acts on, over gRPC and REST); one made with the seat token
    alone (a guest making a delegated seat its own) takes the seat from the account: a seat handed to someone else
    is theirs alone."""
    s = stack.stub
    pid, key = new_account(http, "grpc-rot")
    made = create(http, key, account_seats=[0, 1])  # hot-seat, asked for
    gid, tokens = made["game_id"], {seat["seat"]: seat["token"] for seat in made["seats"]}
    games = Keys(stack.gateway.settings.key_prefix).account_games(pid)
    sealed_before = json.loads(rdb.hget(games, gid))["keys"]["0"]
    rotated = s.RotateToken(pb2.RotateTokenRequest(game_id=gid, token=tokens[0]), metadata=md(key), timeout=10)
    assert rotated.seat == 0
    sealed_after = json.loads(rdb.hget(games, gid))["keys"]["0"]
    assert sealed_after != sealed_before and rotated.token not in sealed_after
    assert s.ListLegalActions(pb2.ListLegalActionsRequest(game_id=gid), metadata=md(key, 0), timeout=10).seat == 0
    r = http.get(f"/v1/games/{gid}/actions?seat=0", headers=auth(key))
    assert r.status_code == 200 and r.json()["seat"] == 0, r.text
    # seat 1's token rotated with that token alone: the seat is no longer the account's
    guest = s.RotateToken(pb2.RotateTokenRequest(game_id=gid, token=tokens[1]), timeout=10)
    assert guest.seat == 1
    entry = json.loads(rdb.hget(games, gid))
    assert entry["seats"] == [0] and set(entry["keys"]) == {"0"}, entry
    refused(s.ListLegalActions, pb2.ListLegalActionsRequest(game_id=gid), md(key, 1), C.PERMISSION_DENIED,
            "not_seated")
    assert s.ListLegalActions(pb2.ListLegalActionsRequest(game_id=gid, token=guest.token), timeout=10).seat == 1
    assert bid(s, gid, md(key)).version == 1  # the key's one seat left, inferred


def _accounts_elsewhere(redis_url: str) -> str:
    """Another Redis for the gateway's accounts than the service's games: another database of the run's server (a
    cluster has only database 0, so there the same server under another name, which still makes the service open
    a client of its own)."""
    if CLUSTER:
        return redis_url.replace("127.0.0.1", "localhost", 1)
    return redis_db(14)


def test_the_service_verifies_keys_in_the_accounts_redis_it_is_given(redis_url: str, rdb: redis.Redis):
    """A gateway keeping its accounts in a Redis of its own (ACCOUNTS_REDIS_URL on the service): the public
    port verifies the account's key there, acts for its seat, and refuses a key that Redis does not know; the
    service's own Redis holds none of the accounts' keys."""
    accounts_url = _accounts_elsewhere(redis_url)
    assert accounts_url != redis_url
    stack = Stack(redis_url, accounts_redis_url=accounts_url)
    accounts = redis_client(accounts_url, decode_responses=True)
    prefix = stack.gateway.settings.key_prefix
    try:
        with stack.gateway.client() as http:
            pid, key = new_account(http, "grpc-elsewhere")
            gid = create(http, key, account_seats=[1])["game_id"]
        legal = pb2.ListLegalActionsRequest(game_id=gid)
        assert stack.stub.ListLegalActions(legal, metadata=md(key), timeout=10).seat == 1
        assert bid(stack.stub, gid, md(key)).version >= 1
        refused(stack.stub.ListLegalActions, legal, md("sbk_made-up-key-000000000000000000000000000"),
                C.UNAUTHENTICATED, "unauthenticated")
        assert accounts.exists(Keys(prefix).account_games(pid))
        if not CLUSTER:  # two databases: the accounts are in the one the service was told of, not in its own
            assert not rdb.exists(Keys(prefix).account_games(pid))
    finally:
        stack.close()
        if not CLUSTER:
            stale = list(accounts.scan_iter(match=f"{prefix}*", count=1000))
            if stale:
                accounts.delete(*stale)
        accounts.close()


@pytest.fixture
def limited(redis_url: str, rdb: redis.Redis) -> Iterator[Stack]:
    s = Stack(redis_url, rate_limit_ip=100, rate_limit_token=4, rate_limit_ip_ceiling=0, rate_limit_bot_token=9,
              rate_limit_window_s=HOUR)
    fresh_window()  # the test's calls count against one window: a boundary among them would refill the buckets
    yield s
    s.close()


def _calls_until_refused(stub, game_id: str, metadata, token: str = "", most: int = 20) -> tuple[int, str]:
    """How many GetGame calls are answered before RESOURCE_EXHAUSTED, and its message."""
    for n in range(most):
        try:
            stub.GetGame(pb2.GetGameRequest(game_id=game_id, token=token), metadata=metadata, timeout=10)
        except grpc.RpcError as exc:
            assert exc.code() == C.RESOURCE_EXHAUSTED, exc.details()
            return n, json.loads(exc.details())["message"]
    return most, ""


def test_public_port_limits_key_on_the_account_and_a_bots_play_on_the_bot_budget(limited: Stack):
    """API-key calls count against the account (two keys of one account share one budget); a bot account's
    key and the seat tokens it holds count against the bot budget (RATE_LIMIT_BOT_TOKEN), over gRPC and REST."""
    s = limited.stub
    with limited.gateway.client() as c:
        _pid, old = new_account(c, "lim-human")
        gid = create(c, old, account_seats=[0])["game_id"]
        new = c.post("/v1/players/me/keys", headers=auth(old)).json()["api_key"]  # old stays in its grace
        _bot, bot_key = new_account(c, "lim-bot", kind="bot")
        bot_game = create(c, bot_key, account_seats=[0])
        bot_token = bot_game["seats"][0]["token"]
        # REST: a bot account's seat token gets the bot budget (the gateway's here is 1000)
        r = c.get(f"/v1/games/{bot_game['game_id']}/actions", headers=auth(bot_token))
        assert r.status_code == 200 and int(r.headers["RateLimit-Limit"]) == 1000, r.headers
        # a token rotated with the bot's key is the bot's too (its holder is recorded with the sealed copy)
        r = c.post(f"/v1/games/{bot_game['game_id']}/token", headers=auth(bot_key))
        assert r.status_code == 201, r.text
        bot_token = r.json()["token"]
        r = c.get(f"/v1/games/{bot_game['game_id']}/actions", headers=auth(bot_token))
        assert r.status_code == 200 and int(r.headers["RateLimit-Limit"]) == 1000, r.headers
        human_token = create(c, new, account_seats=[1])["seats"][1]["token"]
        r = c.get(f"/v1/games/{gid}", headers=auth(human_token))
        assert int(r.headers["RateLimit-Limit"]) != 1000, "a human's seat token keeps the seat-token budget"
    answered, _ = _calls_until_refused(s, gid, md(old), most=2)
    assert answered == 2
    answered, message = _calls_until_refused(s, gid, md(new))
    assert answered == 2 and "4 calls per 3600 s for this account" in message, message
    # the bot: its key and its seat token share the bot account's 9
    answered, _ = _calls_until_refused(s, bot_game["game_id"], md(bot_key), most=5)
    assert answered == 5
    answered, message = _calls_until_refused(s, bot_game["game_id"], (), token=bot_token)
    assert answered == 4 and "9 calls per 3600 s for this bot account" in message, message


def test_every_write_of_a_resigned_seat_of_a_game_that_goes_on_is_game_over(stack: Stack, http: httpx.Client):
    """Three players: seat 0 resigns with the key and the game goes on. Its writes over gRPC, with the key or the
    seat's revoked token, are FAILED_PRECONDITION `game_over` (REST: 409), not UNAUTHENTICATED as if unknown; a
    read with the revoked token stays UNAUTHENTICATED, and the key reads as a spectator."""
    s = stack.stub
    _pid, key = new_account(http, "grpc-resigned")
    made = create(http, key, players=3, account_seats=[0])
    gid, token = made["game_id"], made["seats"][0]["token"]
    legal = s.ListLegalActions(pb2.ListLegalActionsRequest(game_id=gid), metadata=md(key), timeout=10)
    assert s.Resign(pb2.ResignRequest(game_id=gid), metadata=md(key), timeout=10).version >= 1
    assert http.get(f"/v1/games/{gid}").json()["status"] == "active"
    version = http.get(f"/v1/games/{gid}").json()["version"]
    for metadata, tok in ((md(key), ""), ((), token)):
        refused(s.SubmitAction, pb2.SubmitActionRequest(game_id=gid, token=tok, action_json=legal.actions_json[0],
                                                        expected_version=version),
                metadata, C.FAILED_PRECONDITION, "game_over")
        refused(s.Resign, pb2.ResignRequest(game_id=gid, token=tok), metadata, C.FAILED_PRECONDITION, "game_over")
        refused(s.Abort, pb2.AbortRequest(game_id=gid, token=tok), metadata, C.FAILED_PRECONDITION, "game_over")
    refused(s.ListLegalActions, pb2.ListLegalActionsRequest(game_id=gid, token=token), (), C.UNAUTHENTICATED)
    assert not s.GetGame(pb2.GetGameRequest(game_id=gid), metadata=md(key), timeout=10).HasField("seat")
