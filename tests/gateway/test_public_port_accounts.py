"""What the public gRPC port and REST show and bound alike for accounts and spectators: an account's API keys share
one bound on open WatchGame streams (as they share one rate-limit bucket), a spectator never gets the digest of the
full hidden state, and a bot account's seat shows as a bot's.

Real gRPC (the game-state service's public listener, which knows the gateway's accounts), real HTTP, real Redis and
PostgreSQL (tests/gateway/test_grpc_api_keys.py's Stack)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import grpc
import httpx
import pytest
import redis

from services.gamestate.pb import pb2
from tests.gateway.account_stack import Stack, http_fixture, md
from tests.gateway.conftest import Gateway, gateway_settings
from tests.gateway.helpers import auth
from tests.gateway.test_accounts import new_account
from tests.gateway.test_grpc_api_keys import create

__all__ = ["http_fixture"]  # the shared account stack's `http`, over this module's own `stack`

C = grpc.StatusCode


@pytest.fixture(scope="module")
def stack(redis_url: str, rdb: redis.Redis) -> Iterator[Stack]:
    s = Stack(redis_url, stream_limit_credential=2, stream_limit_address=0)
    yield s
    s.close()


def _watch(stack: Stack, streams: contextlib.ExitStack, game_id: str, metadata, token: str = "") -> C:
    """Open a WatchGame stream and leave it open (until `streams` closes): OK once its first update came, else the
    status it was refused with."""
    call = stack.stub.WatchGame(pb2.WatchGameRequest(game_id=game_id, token=token), metadata=metadata, timeout=30)
    streams.callback(call.cancel)
    try:
        next(call)
    except grpc.RpcError as exc:
        return exc.code()
    return C.OK


def test_an_accounts_keys_share_one_bound_on_watch_streams(stack: Stack, http: httpx.Client):
    """Every API key of one account counts against one stream bound on the public port, as on REST: a rotated key
    used to buy a fresh 2 (here) per key and seat. The seat token keeps a bound of its own."""
    _pid, first = new_account(http, "grpc-streams")
    second = http.post("/v1/players/me/keys", headers=auth(first)).json()["api_key"]
    made = create(http, second, account_seats=[0, 1])
    gid, token = made["game_id"], made["seats"][0]["token"]
    with contextlib.ExitStack() as streams:
        assert _watch(stack, streams, gid, md(first, 0)) == C.OK
        assert _watch(stack, streams, gid, md(second, 1)) == C.OK
        assert _watch(stack, streams, gid, md(first, 0)) == C.RESOURCE_EXHAUSTED
        assert _watch(stack, streams, gid, md(second, 0)) == C.RESOURCE_EXHAUSTED
        assert [_watch(stack, streams, gid, (), token) for _ in range(3)] == [C.OK, C.OK, C.RESOURCE_EXHAUSTED]


def test_a_spectator_never_gets_the_digest_of_the_hidden_state(stack: Stack, http: httpx.Client):
    """`digest` hashes the full state, hidden cards included: a spectator's GetGame carried it over gRPC (REST
    never shows it). Omitted for spectators on both, with or without an API key, while the game is active; a seat's
    own view keeps it."""
    _pid, key = new_account(http, "digest")
    _other, stranger = new_account(http, "stranger")
    made = create(http, key, account_seats=[0, 1])
    gid = made["game_id"]
    get = pb2.GetGameRequest(game_id=gid)
    for metadata in ((), md(stranger)):  # anonymous; an account holding no seat reads as a spectator
        view = stack.stub.GetGame(get, metadata=metadata, timeout=10)
        assert not view.HasField("seat") and view.digest == "", "a spectator's view carries the hidden state's hash"
    seated = stack.stub.GetGame(get, metadata=md(key, 0), timeout=10)
    assert seated.seat == 0 and len(seated.digest) == 64
    by_token = stack.stub.GetGame(pb2.GetGameRequest(game_id=gid, token=made["seats"][1]["token"]), timeout=10)
    assert by_token.digest == seated.digest
    for headers in ({}, auth(stranger), auth(made["seats"][0]["token"])):
        body = http.get(f"/v1/games/{gid}", headers=headers).json()
        assert "digest" not in body and "final_digest" not in body, body
    # once the game has ended its log is public, final digest included: the spectator's view then says it too
    assert http.post(f"/v1/games/{gid}/abort?seat=0", headers=auth(key)).status_code == 200
    ended = stack.stub.GetGame(get, timeout=10)
    assert ended.status == "aborted" and ended.digest == seated.digest
    assert stack.stub.GetLog(pb2.GetLogRequest(game_id=gid), timeout=10).final_digest == ended.digest


def test_a_bot_accounts_seat_shows_as_a_bot_on_rest_and_grpc(stack: Stack, http: httpx.Client):
    """A bot account's seat showed `kind: "human"`. `kind` says who plays a seat: `bot` for a program, the
    platform's (with `bot_level`) or a bot account's (with its `player_id`); `human` for a person's account."""
    bot_id, bot_key = new_account(http, "seat-bot", "bot")
    human_id, human_key = new_account(http, "seat-human")
    cases = {
        create(http, bot_key, account_seats=[0, 1])["game_id"]: [("bot", bot_id, None), ("bot", bot_id, None)],
        create(http, human_key, account_seats=[0], bots={"1": "random"})["game_id"]:
            [("human", human_id, None), ("bot", None, "random")],
    }
    for gid, expected in cases.items():
        rest = http.get(f"/v1/games/{gid}").json()["seats"]
        assert [(s["kind"], s["player_id"], s["bot_level"]) for s in rest] == expected, rest
        view = stack.stub.GetGame(pb2.GetGameRequest(game_id=gid), timeout=10)
        assert [(s.kind, s.bot_level or None) for s in view.seats] == [(k, lvl) for k, _p, lvl in expected], view
    listed = {g.game_id: g for g in stack.stub.ListGames(pb2.ListGamesRequest(status="active", limit=500),
                                                         timeout=10).games}
    for gid, expected in cases.items():  # a listing's seats say the same
        assert [s.kind for s in listed[gid].seats] == [k for k, _p, _lvl in expected], listed[gid].seats


def test_a_game_reads_while_the_accounts_database_is_down(stack: Stack, http: httpx.Client, redis_url: str):
    """Which seats are bot accounts' comes from the accounts' SQL: a game read must not fail while it is down
    (a spectator's read never needed it)."""
    _bot_id, bot_key = new_account(http, "sql-down-bot", "bot")
    gid = create(http, bot_key, account_seats=[0, 1])["game_id"]
    blind = Gateway(gateway_settings(redis_url, stack.service, key_prefix=stack.gateway.settings.key_prefix,
                                     archive_url="postgresql+asyncpg://postgres@127.0.0.1:1/none", migrate=False))
    try:
        with blind.client() as c:
            r = c.get(f"/v1/games/{gid}")
        assert r.status_code == 200 and len(r.json()["seats"]) == 2, r.text
    finally:
        blind.stop()
