"""Deleting an account (`DELETE /v1/players/me`) is a revocation of every key it has: every stream those keys
opened ends (the account stream, a game's SSE stream, gRPC WatchGame) with nothing written after the deletion
reaching it, its seats in active games are resigned, its queued tickets and pending challenges end, its name is
replaced while its finished games stay, and the name is free.

Real HTTP, real gRPC (the game-state service's public port knows the gateway's accounts), real Redis and
PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import time

import asyncpg
import grpc
import httpx
import pytest

from services.accounts.keys import Keys
from services.gamestate.pb import pb2
from tests.archive_db import shared_pg_url
from tests.gateway.account_stack import Stack, http_fixture, md, stack_fixture
from tests.gateway.helpers import auth
from tests.gateway.test_accounts import new_account
from tests.gateway.test_key_streams import GrpcReader
from tests.gateway.test_token_streams import SseReader

__all__ = ["http_fixture", "stack_fixture"]  # the shared account stack's fixtures: `stack`, `http`

#: a safety net only: each stream is expected to end within 2 s of the deletion (the times are printed)
ENDS_WITHIN_S = 15.0


def delete(c: httpx.Client, key: str, name: str) -> httpx.Response:
    return c.request("DELETE", "/v1/players/me", headers=auth(key), json={"confirm_name": name})


def game(c: httpx.Client, key: str, players: int) -> tuple[str, dict[int, str]]:
    r = c.post("/v1/games", headers=auth(key), json={"game": "toybids", "players": players, "seed": 11,
                                                    "account_seats": [0]})
    assert r.status_code == 201, r.text
    return r.json()["game_id"], {s["seat"]: s["token"] for s in r.json()["seats"] if s["token"]}


def sql_keys(player_id: str) -> int:
    """How many API-key hashes SQL holds for the player."""

    async def count() -> int:
        conn = await asyncpg.connect(shared_pg_url().replace("postgresql+asyncpg://", "postgresql://"), timeout=5)
        try:
            return await conn.fetchval("SELECT count(*) FROM api_keys WHERE player_id = $1", player_id)
        finally:
            await conn.close()

    return asyncio.run(count())


def test_deleting_an_account_ends_its_streams_resigns_its_seats_and_frees_its_name(stack: Stack,
                                                                                   http: httpx.Client) -> None:
    pid, key = new_account(http, "Leaving Player")
    on, on_tokens = game(http, key, 3)  # goes on after seat 0 resigns
    ends, _ends_tokens = game(http, key, 2)  # ends when seat 0 resigns
    over, over_tokens = game(http, key, 2)  # ended before the deletion: a finished game of the account's
    assert http.post(f"/v1/games/{over}/resign", headers=auth(over_tokens[1])).status_code == 200
    account = SseReader(stack.gateway, "/v1/players/me/events", auth(key))
    sse = SseReader(stack.gateway, f"/v1/games/{on}/events", auth(key))
    watch = GrpcReader(stack.stub, pb2.WatchGameRequest(game_id=ends), md(key))
    try:
        r = delete(http, key, "Leaving Player")
        deleted_at = time.monotonic()
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["player_id"] == pid
        assert sorted((s["game_id"], s["seat"]) for s in body["resigned"]) == sorted([(on, 0), (ends, 0)])
        for reader in (account, sse, watch):
            assert reader.join(ENDS_WITHIN_S), "a stream of the deleted account's key is still open"
        # each ended as a revoked key's stream ends, before anything written by or after the deletion
        assert sse.events[-1][0] == "error" and json.loads(sse.events[-1][1])["error"]["code"] == "unauthenticated"
        assert all(json.loads(d)["version"] == 0 for n, d in sse.events if n == "message"), sse.events
        assert watch.code == grpc.StatusCode.UNAUTHENTICATED, (watch.code, watch.details)
        assert all(e.version == 0 for e in watch.entries if e.kind != "heartbeat"), watch.entries
        assert account.events[-1][0] == "error", account.events
        assert not any(n == "game_end" for n, _d in account.events), "the resignation's end reached the stream"
        assert {json.loads(d)["game_id"] for n, d in account.events if n == "game_start"} == {on, ends}
        for reader in (account, sse, watch):
            assert reader.closed_at is not None
        print(f"ended after the deletion: account stream {account.closed_at - deleted_at:.2f} s, SSE "
              f"{sse.closed_at - deleted_at:.2f} s, WatchGame {watch.closed_at - deleted_at:.2f} s")
    finally:
        watch.cancel()
        for reader in (account, sse, watch):
            reader.join(10)
    # the key is gone everywhere, and so is a second deletion
    assert http.get("/v1/players/me", headers=auth(key)).status_code == 401
    assert delete(http, key, "Leaving Player").status_code == 401
    assert http.get(f"/v1/games/{on}/actions", headers=auth(key)).status_code == 401
    with pytest.raises(grpc.RpcError) as refused:
        stack.stub.GetGame(pb2.GetGameRequest(game_id=on), metadata=md(key), timeout=10)
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert sql_keys(pid) == 0, "the account's key hashes are deleted"
    # its seats in active games are resigned; the others play on
    still = http.get(f"/v1/games/{on}").json()
    assert still["status"] == "active" and still["seats"][0]["status"] == "resigned", still
    assert http.get(f"/v1/games/{on}/actions", headers=auth(on_tokens[1])).status_code == 200
    ended = http.get(f"/v1/games/{ends}").json()
    assert ended["status"] == "finished" and ended["seats"][0]["status"] == "resigned", ended
    assert ended["winners"] == [1], ended
    # its name is replaced where it is shown, its finished game stays in its history, and the name is free
    profile = http.get(f"/v1/players/{pid}")
    assert profile.status_code == 200 and profile.json()["name"] == "deleted player", profile.text
    history = http.get(f"/v1/players/{pid}/games").json()
    assert over in {g["game_id"] for g in history["games"]}, history
    again, again_key = new_account(http, "Leaving Player")
    assert again != pid
    assert http.get("/v1/players/me", headers=auth(again_key)).json()["name"] == "Leaving Player"
    # nothing of the account's seat tokens is kept in Redis
    kept = stack.service._run(stack.service.running.redis.hgetall(
        Keys(stack.gateway.settings.key_prefix).account_games(pid)))
    assert all(not json.loads(v).get("keys") for v in kept.values()), kept


def test_a_deletion_needs_the_current_key_and_the_accounts_name(stack: Stack, http: httpx.Client) -> None:
    fullwidth = "".join(chr(ord(ch) + 0xFEE0) for ch in "Careful")  # stored NFKC-normalised: "Careful"
    pid, key = new_account(http, fullwidth)
    r = delete(http, key, "someone else")
    assert (r.status_code, r.json()["error"]["code"]) == (422, "invalid_request"), r.text
    assert http.request("DELETE", "/v1/players/me", headers=auth(key)).status_code == 422, "no body, no deletion"
    assert http.get("/v1/players/me", headers=auth(key)).json()["name"] == "Careful", "nothing was deleted"
    new = http.post("/v1/players/me/keys", headers=auth(key)).json()["api_key"]
    r = delete(http, key, "Careful")  # a key in its grace cannot delete the account
    assert (r.status_code, r.json()["error"]["code"]) == (403, "key_retired"), r.text
    r = delete(http, new, fullwidth)
    assert r.status_code == 200, r.text
    for gone in (key, new):  # every key of the account, the one in its grace too
        assert http.get("/v1/players/me", headers=auth(gone)).status_code == 401
    assert http.get(f"/v1/players/{pid}").json()["name"] == "deleted player"


def test_a_deletion_ends_the_accounts_pending_challenges_and_queued_tickets(stack: Stack,
                                                                             http: httpx.Client) -> None:
    pid, key = new_account(http, "going")
    friend, friend_key = new_account(http, "staying")
    sent = http.post("/v1/challenges", headers=auth(key), json={"to": friend, "game": "toybids"})
    received = http.post("/v1/challenges", headers=auth(friend_key), json={"to": pid, "game": "toybids"})
    ticket = http.post("/v1/matchmaking/tickets", headers=auth(key), json={"game": "toybids", "players": 2})
    for made in (sent, received, ticket):
        assert made.status_code == 201, made.text
    r = delete(http, key, "going")
    assert r.status_code == 200, r.text
    assert (r.json()["challenges_closed"], r.json()["tickets_cancelled"]) == (2, 1), r.json()
    statuses = {ch["challenge_id"]: ch["status"]
                for ch in http.get("/v1/challenges", headers=auth(friend_key)).json()["challenges"]}
    assert statuses[sent.json()["challenge_id"]] == "cancelled", statuses
    assert statuses[received.json()["challenge_id"]] == "declined", statuses
    status = stack.service._run(stack.service.running.redis.hget(
        Keys(stack.gateway.settings.key_prefix).ticket(ticket.json()["ticket_id"]), "status"))
    assert (status.decode() if isinstance(status, bytes) else status) == "cancelled"
