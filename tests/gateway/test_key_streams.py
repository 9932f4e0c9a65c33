"""A revoked API key's open streams end: a game stream opened with an account's API key, over REST (SSE
`GET /v1/games/{id}/events`) and over the public gRPC port (`WatchGame`), ends (an `error` event / UNAUTHENTICATED)
once the key stops working or the account stops holding the seat, whichever way: a rotation with no grace, a
rotation whose grace ran out, `revoke-others`, a rotation of the seat's token. And nothing the seat may know that
is written after the revocation reaches it (the stream is not merely closed some time later).

Real gRPC, real HTTP, real Redis and PostgreSQL: the game-state service's public port knows the accounts of the
gateways (one key prefix, several gateways that differ in their rotation grace only)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator

import grpc
import httpx
import pytest
import redis

from services.gamestate.pb import pb2
from tests.gateway.account_stack import Stack, md
from tests.gateway.conftest import Gateway, gateway_settings
from tests.gateway.helpers import auth
from tests.gateway.test_accounts import new_account
from tests.gateway.test_token_streams import SseReader

#: the grace of the gateway whose rotations leave the old key working for a while, then not
GRACE_S = 2
#: a safety net only: the stream is expected to end within 2 s of the revocation
ENDS_WITHIN_S = 15.0


class Stacks:
    """One service and gateway (a day's grace), plus gateways on the same accounts whose rotations stop the old key
    at once (grace 0) or after GRACE_S."""

    def __init__(self, redis_url: str) -> None:
        self.stack = Stack(redis_url)
        prefix = self.stack.gateway.settings.key_prefix
        self.at_once = Gateway(gateway_settings(redis_url, self.stack.service, key_prefix=prefix,
                                                api_key_grace_s=0))
        self.soon = Gateway(gateway_settings(redis_url, self.stack.service, key_prefix=prefix,
                                             api_key_grace_s=GRACE_S))

    def close(self) -> None:
        self.at_once.stop()
        self.soon.stop()
        self.stack.close()


@pytest.fixture(scope="module")
def stacks(redis_url: str, rdb: redis.Redis) -> Iterator[Stacks]:
    s = Stacks(redis_url)
    yield s
    s.close()


@pytest.fixture
def http(stacks: Stacks) -> Iterator[httpx.Client]:
    with stacks.stack.gateway.client() as c:
        yield c


class GrpcReader:
    """Reads one WatchGame stream in a daemon thread: its entries, how it ended (a status code) and when."""

    def __init__(self, stub, request: pb2.WatchGameRequest, metadata) -> None:
        self.entries: list[pb2.WatchEvent] = []
        self.code: grpc.StatusCode | None = None
        self.details = ""
        self.closed_at: float | None = None
        self._opened = threading.Event()
        self._call = stub.WatchGame(request, metadata=metadata, timeout=60)
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        assert self._opened.wait(10), "the stream sent nothing"

    def _run(self) -> None:
        try:
            for entry in self._call:
                self.entries.append(entry)
                self._opened.set()
            self.code = grpc.StatusCode.OK
        except grpc.RpcError as exc:
            self.code, self.details = exc.code(), exc.details() or ""
        finally:
            self.closed_at = time.monotonic()
            self._opened.set()

    def join(self, timeout: float) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def cancel(self) -> None:
        self._call.cancel()


def _wait_refused(c: httpx.Client, key: str) -> None:
    """Until a unary call with `key` is refused (its grace ran out): the moment the key is revoked."""
    deadline = time.monotonic() + 30
    while c.get("/v1/players/me", headers=auth(key)).status_code != 401:
        assert time.monotonic() < deadline, "the retired key still works long after its grace"
        time.sleep(0.2)


def _revoke(stacks: Stacks, how: str, key: str, game_id: str, seat_token: str) -> str:
    """Revoke the stream's credential `how`; answers seat 0's token from now on."""
    if how == "rotation":  # no grace: the old key stops at once
        with stacks.at_once.client() as c:
            r = c.post("/v1/players/me/keys", headers=auth(key))
            assert r.status_code == 201, r.text
            assert c.get("/v1/players/me", headers=auth(key)).status_code == 401
    elif how == "grace":  # the old key works on for GRACE_S, then stops
        with stacks.soon.client() as c:
            r = c.post("/v1/players/me/keys", headers=auth(key))
            assert r.status_code == 201, r.text
            _wait_refused(c, key)
    elif how == "revoke_others":
        with stacks.stack.gateway.client() as c:
            current = c.post("/v1/players/me/keys", headers=auth(key)).json()["api_key"]
            assert c.get("/v1/players/me", headers=auth(key)).status_code == 200, "in its grace"
            assert c.post("/v1/players/me/keys/revoke-others", headers=auth(current)).json() == {"revoked": 1}
            assert c.get("/v1/players/me", headers=auth(key)).status_code == 401
    else:  # the seat's token is rotated (by whoever has it: a guest)
        with stacks.stack.gateway.client() as c:
            r = c.post(f"/v1/games/{game_id}/token", headers=auth(seat_token))
            assert r.status_code == 201, r.text
            return r.json()["token"]
    return seat_token


def _seat_bids(c: httpx.Client, game_id: str, token: str) -> int:
    """Seat 0 bids with its token: a version whose `you_bid` only seat 0 may see. Answers that version."""
    legal = c.get(f"/v1/games/{game_id}/actions", headers=auth(token)).json()
    r = c.post(f"/v1/games/{game_id}/actions", headers=auth(token),
               json={"action": legal["actions"][0], "expected_version": legal["version"]})
    assert r.status_code == 200, r.text
    assert any(e["type"] == "you_bid" for e in r.json()["events"]), "the bid carries the seat's secret"
    return r.json()["version"]


HOW = ["rotation", "grace", "revoke_others", "seat_token"]


@pytest.mark.parametrize("how", HOW)
def test_a_revoked_keys_sse_game_stream_ends_before_any_later_secret(stacks: Stacks, http: httpx.Client,
                                                                     how: str) -> None:
    _pid, key = new_account(http, f"sse-{how}")
    made = http.post("/v1/games", headers=auth(key), json={"game": "toybids", "players": 2, "seed": 7,
                                                           "account_seats": [0]}).json()
    gid, tokens = made["game_id"], {s["seat"]: s["token"] for s in made["seats"]}
    reader = SseReader(stacks.stack.gateway, f"/v1/games/{gid}/events", auth(key))
    try:
        tokens[0] = _revoke(stacks, how, key, gid, tokens[0])
        revoked_at = time.monotonic()
        _seat_bids(http, gid, tokens[0])  # written after the revocation: must not reach the stream
        assert reader.join(ENDS_WITHIN_S), "the stream of a revoked credential is still open"
        assert reader.closed_at is not None
        name, data = reader.events[-1]
        assert name == "error", reader.events
        assert json.loads(data)["error"]["code"] == "unauthenticated", data
        messages = [json.loads(d) for n, d in reader.events if n == "message"]
        assert not any(m["type"] == "you_bid" for m in messages), "a secret reached the revoked stream"
        assert all(m["version"] == 0 for m in messages), messages
        print(f"{how}: the SSE stream ended {reader.closed_at - revoked_at:.2f} s after the revocation")
    finally:
        http.post(f"/v1/games/{gid}/abort", headers=auth(tokens[1]))  # ends the stream whatever happened
        reader.join(10)


@pytest.mark.parametrize("how", HOW)
def test_a_revoked_keys_grpc_watch_ends_before_any_later_secret(stacks: Stacks, http: httpx.Client,
                                                                how: str) -> None:
    _pid, key = new_account(http, f"grpc-{how}")
    made = http.post("/v1/games", headers=auth(key), json={"game": "toybids", "players": 2, "seed": 7,
                                                           "account_seats": [0]}).json()
    gid, tokens = made["game_id"], {s["seat"]: s["token"] for s in made["seats"]}
    reader = GrpcReader(stacks.stack.stub, pb2.WatchGameRequest(game_id=gid), md(key))
    try:
        tokens[0] = _revoke(stacks, how, key, gid, tokens[0])
        revoked_at = time.monotonic()
        _seat_bids(http, gid, tokens[0])
        assert reader.join(ENDS_WITHIN_S), "the watch of a revoked credential is still open"
        assert reader.code == grpc.StatusCode.UNAUTHENTICATED, (reader.code, reader.details)
        assert reader.closed_at is not None
        events = [json.loads(e) for entry in reader.entries for e in entry.events_json]
        assert not any(e["type"] == "you_bid" for e in events), "a secret reached the revoked watch"
        assert all(entry.version == 0 for entry in reader.entries if entry.kind != "heartbeat"), reader.entries
        print(f"{how}: the watch ended {reader.closed_at - revoked_at:.2f} s after the revocation")
    finally:
        http.post(f"/v1/games/{gid}/abort", headers=auth(tokens[1]))
        reader.cancel()
        reader.join(10)


def test_a_revoked_keys_spectator_stream_ends_too(stacks: Stacks, http: httpx.Client) -> None:
    """A key whose account holds no seat reads a game as a spectator: that stream is the key's too, and ends with
    it (REST and gRPC)."""
    _pid, key = new_account(http, "spectator")
    _other, owner = new_account(http, "owner")
    made = http.post("/v1/games", headers=auth(owner), json={"game": "toybids", "players": 2, "seed": 7}).json()
    gid = made["game_id"]
    sse = SseReader(stacks.stack.gateway, f"/v1/games/{gid}/events", auth(key))
    watch = GrpcReader(stacks.stack.stub, pb2.WatchGameRequest(game_id=gid), md(key))
    try:
        _revoke(stacks, "revoke_others", key, gid, "")
        assert sse.join(ENDS_WITHIN_S) and watch.join(ENDS_WITHIN_S), "a revoked key's spectator stream is open"
        assert sse.events[-1][0] == "error" and watch.code == grpc.StatusCode.UNAUTHENTICATED
    finally:
        http.post(f"/v1/games/{gid}/abort", headers=auth(made["seats"][1]["token"]))
        watch.cancel()
        sse.join(10)
        watch.join(10)


@pytest.mark.parametrize("how", ["grace", "revoke_others"])
def test_an_idle_revoked_keys_streams_end_with_nothing_written(stacks: Stacks, http: httpx.Client,
                                                                how: str) -> None:
    """Nothing happens in the game after the revocation: the streams end all the same (the key is checked while
    they wait, not only when something is to be sent)."""
    _pid, key = new_account(http, f"idle-{how}")
    made = http.post("/v1/games", headers=auth(key), json={"game": "toybids", "players": 2, "seed": 7,
                                                           "account_seats": [0]}).json()
    gid = made["game_id"]
    sse = SseReader(stacks.stack.gateway, f"/v1/games/{gid}/events", auth(key))
    watch = GrpcReader(stacks.stack.stub, pb2.WatchGameRequest(game_id=gid), md(key))
    try:
        _revoke(stacks, how, key, gid, "")
        revoked_at = time.monotonic()
        assert sse.join(ENDS_WITHIN_S) and watch.join(ENDS_WITHIN_S), "an idle revoked stream is still open"
        assert sse.events[-1][0] == "error" and watch.code == grpc.StatusCode.UNAUTHENTICATED
        assert http.get(f"/v1/games/{gid}").json()["version"] == 0, "nothing was written meanwhile"
        assert sse.closed_at is not None and watch.closed_at is not None
        print(f"idle {how}: SSE ended {sse.closed_at - revoked_at:.2f} s, the watch "
              f"{watch.closed_at - revoked_at:.2f} s after the revocation")
    finally:
        http.post(f"/v1/games/{gid}/abort", headers=auth(made["seats"][1]["token"]))
        watch.cancel()
        sse.join(10)
        watch.join(10)
