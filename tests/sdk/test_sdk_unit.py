"""The SDK's own logic against scripted answers (httpx.MockTransport): retries and their waits, one
Idempotency-Key per submission, typed errors, and streams resumed with Last-Event-ID without duplicates."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable

import httpx
import pytest
from skyboard_client import (
    AsyncClient,
    Client,
    IllegalAction,
    QuotaExceeded,
    RateLimited,
    RetryPolicy,
    StaleVersion,
    Unauthenticated,
    Unavailable,
)


def error(status: int, code: str, headers: dict[str, str] | None = None, **extra) -> httpx.Response:
    return httpx.Response(status, json={"error": {"code": code, "message": code, "rule": None, **extra}},
                          headers=headers or {})


SUBMITTED = {"version": 4, "events": [], "status": "active", "to_act": [1], "replayed": False}


@pytest.fixture
def waits(monkeypatch) -> list[float]:
    """Every sleep the SDK makes in this thread, recorded instead of slept. `time.sleep` is patched for the whole
    process, so other threads of the test session (services' background loops) keep sleeping for real."""
    made: list[float] = []
    real, here = time.sleep, threading.current_thread()

    def sleep(seconds: float) -> None:
        if threading.current_thread() is here:
            made.append(seconds)
        else:
            real(seconds)

    monkeypatch.setattr("skyboard_client.client.time.sleep", sleep)
    return made


def client(handler: Callable[[httpx.Request], httpx.Response], **kw) -> Client:
    return Client("http://sky.test", api_key="sbk_x", transport=httpx.MockTransport(handler), **kw)


def test_a_submission_is_retried_after_retry_after_with_the_same_idempotency_key(waits) -> None:
    seen: list[httpx.Request] = []
    answers = [error(503, "unavailable", {"Retry-After": "2"}), error(429, "rate_limited", {"Retry-After": "1"}),
               httpx.Response(200, json=SUBMITTED)]

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return answers[len(seen) - 1]

    with client(handler) as sky:
        done = sky.submit("g1", "tok", {"type": "pass"}, 3)
    assert done.version == 4 and not done.replayed
    keys = {r.headers["Idempotency-Key"] for r in seen}
    assert len(seen) == 3 and len(keys) == 1 and keys.pop().startswith("sdk-")
    assert all(r.headers["Authorization"] == "Bearer tok" for r in seen)
    assert json.loads(seen[0].content) == {"action": {"type": "pass"}, "expected_version": 3}
    assert 2 <= waits[0] < 2.2 and 1 <= waits[1] < 1.2, "never earlier than Retry-After says"
    with client(handler) as sky:  # another submission gets another key
        seen.clear()
        answers[:] = [httpx.Response(200, json=SUBMITTED)]
        sky.submit("g1", "tok", {"type": "pass"}, 3)
    assert seen[0].headers["Idempotency-Key"] not in keys


def test_quota_exceeded_is_never_retried_and_rate_limits_give_up_after_the_policy(waits) -> None:
    calls = []

    def quota(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return error(429, "quota_exceeded", {"Retry-After": "1"})

    with client(quota) as sky, pytest.raises(QuotaExceeded):
        sky.create_game("opensky", 2)
    assert len(calls) == 1 and waits == []

    def limited(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return error(429, "rate_limited", {"Retry-After": "0.5"})

    calls.clear()
    with client(limited, retry=RetryPolicy(attempts=3)) as sky, pytest.raises(RateLimited) as info:
        sky.me()
    assert len(calls) == 3 and len(waits) == 2 and info.value.retry_after == 0.5
    calls.clear()
    with client(limited, retry=RetryPolicy(max_wait=0.1)) as sky, pytest.raises(RateLimited):
        sky.me()  # a wait longer than max_wait is not made
    assert len(calls) == 1


def test_503_without_retry_after_backs_off_exponentially_then_raises(waits) -> None:
    with client(lambda r: error(503, "unavailable"), retry=RetryPolicy(attempts=4, backoff=0.5)) as sky, \
            pytest.raises(Unavailable):
        sky.catalog()
    assert len(waits) == 3 and waits[0] < waits[1] < waits[2]


def test_connection_failures_are_retried_only_where_safe(waits) -> None:
    calls: list[str] = []

    def flaky(request: httpx.Request) -> httpx.Response:
        calls.append(request.url.path)
        if len(calls) == 1:
            raise httpx.ConnectError("refused", request=request)
        return httpx.Response(201 if request.method == "POST" else 200, json={"player_id": "p", "api_key": "k",
                                                                               "games": []})

    with client(flaky) as sky:
        assert sky.my_games().games == []  # a read: retried
        calls.clear()
        with pytest.raises(httpx.ConnectError):
            sky.create_player("x")  # a creation: never sent twice


def test_errors_are_typed_from_the_error_body(waits) -> None:
    answers = {
        "/v1/games/g/actions": error(409, "stale_version", current_version=7),
        "/v1/games/g/resign": error(422, "illegal_action", rule="OS-10.1"),
        "/v1/players/me": error(401, "unauthenticated"),
    }
    with client(lambda r: answers[r.url.path]) as sky:
        with pytest.raises(StaleVersion) as stale:
            sky.submit("g", "t", {"type": "pass"}, 3)
        assert stale.value.current_version == 7 and stale.value.status == 409
        with pytest.raises(IllegalAction) as illegal:
            sky.resign("g", "t")
        assert illegal.value.rule == "OS-10.1"
        with pytest.raises(Unauthenticated):
            sky.me()


def sse(*events: tuple[str, str | None, dict]) -> bytes:
    return "".join(f"event: {e}\n" + (f"id: {i}\n" if i else "") + f"data: {json.dumps(d)}\n\n"
                   for e, i, d in events).encode()


def msg(v: int, n: int) -> tuple[str, str, dict]:
    return ("message", str(v), {"type": f"e{n}", "version": v})


def state(v: int, kind: str = "state", status: str = "active") -> tuple[str, str, dict]:
    return (kind, str(v), {"version": v, "kind": "action", "actor": 0, "status": status, "to_act": [0],
                           "scores": None, "winners": None})


def game_stream_handler(seen: list[dict]) -> Callable[[httpx.Request], httpx.Response]:
    """First connection: version 1 whole, then half of version 2 and a dropped connection; the second resumes
    after version 1 and sends all of version 2 again, then the end."""

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(dict(request.headers))
        if len(seen) == 1:
            body = sse(msg(1, 1), msg(1, 2), state(1), msg(2, 3))
        else:
            body = sse(msg(2, 3), msg(2, 4), state(2), state(2, "end", "finished"))
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})

    return handler


def test_a_game_stream_resumes_after_the_last_whole_version_without_duplicates(waits) -> None:
    seen: list[dict] = []
    with client(game_stream_handler(seen)) as sky:
        got = [(e.event, e.type, e.version) for e in sky.events("g", "tok")]
    assert got == [("message", "e1", 1), ("message", "e2", 1), ("state", "state", 1), ("message", "e3", 2),
                   ("message", "e4", 2), ("state", "state", 2), ("end", "end", 2)]
    assert "last-event-id" not in seen[0] and seen[1]["last-event-id"] == "1"
    assert seen[1]["authorization"] == "Bearer tok"


def test_the_account_stream_resumes_after_the_last_id_and_raises_once_the_key_stops_working(waits) -> None:
    seen: list[dict] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(dict(request.headers))
        if len(seen) == 1:
            body = sse(("your_turn", "5-0", {"game_id": "g", "seat": 0, "version": 3, "deadline": None}))
        else:
            body = sse(("game_end", "6-0", {"game_id": "g", "seat": 0, "scores": [1], "winners": [0]}),
                       ("error", None, {"error": {"code": "unauthenticated", "message": "gone", "rule": None}}))
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})

    got = []
    with client(handler) as sky, pytest.raises(Unauthenticated):
        for event in sky.account_events(last_event_id="4-0"):
            got.append((event.type, event.id, event.game_id))
    assert got == [("your_turn", "5-0", "g"), ("game_end", "6-0", "g")]
    assert seen[0]["last-event-id"] == "4-0" and seen[1]["last-event-id"] == "5-0"


def test_the_async_client_retries_and_resumes_alike(monkeypatch) -> None:
    waits: list[float] = []

    real, here = asyncio.sleep, threading.current_thread()

    async def no_sleep(s: float) -> None:  # only this test's loop: other threads' loops keep sleeping for real
        if threading.current_thread() is here:
            waits.append(s)
        else:
            await real(s)

    monkeypatch.setattr("skyboard_client.aio.asyncio.sleep", no_sleep)
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if len(seen) == 1:
            return error(503, "unavailable", {"Retry-After": "3"})
        return httpx.Response(200, json=SUBMITTED)

    stream_seen: list[dict] = []

    async def go() -> list:
        async with AsyncClient("http://sky.test", transport=httpx.MockTransport(handler)) as sky:
            await sky.submit("g", "t", {"type": "pass"}, 3)
        async with AsyncClient("http://sky.test", transport=httpx.MockTransport(game_stream_handler(stream_seen))
                               ) as sky:
            return [e.type async for e in sky.events("g")]

    got = asyncio.run(go())
    assert seen[0].headers["Idempotency-Key"] == seen[1].headers["Idempotency-Key"] and 3 <= waits[0] < 3.2
    assert got == ["e1", "e2", "state", "e3", "e4", "state", "end"] and stream_seen[1]["last-event-id"] == "1"


@pytest.mark.parametrize("code", ["too_many_accounts", "too_many_challenges"])
def test_a_429_bound_other_than_the_rate_limit_is_raised_at_once(waits, code: str) -> None:
    """Account creation per address and pending challenges are bounds, not rate limits: retrying soon never helps."""
    calls = []

    def bounded(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return error(429, code)

    with client(bounded) as sky, pytest.raises(QuotaExceeded) as info:
        sky.me()
    assert len(calls) == 1 and waits == [] and info.value.code == code
