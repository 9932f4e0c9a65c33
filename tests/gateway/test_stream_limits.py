"""Open SSE streams are bounded per client address and per credential, game streams and account streams alike:
the next one is a 429 with the JSON error body, and a closed stream's place is free again within a second
(issue 34, "Streams and the public gRPC port")."""

from __future__ import annotations

import contextlib
import time

import httpx

from tests.gateway.helpers import api_key, auth, create


def _open(stack: contextlib.ExitStack, gw, path: str, headers: dict[str, str] | None = None) -> httpx.Response:
    """One stream opened and left open (until `stack` closes); its response (headers read, body not)."""
    client = stack.enter_context(gw.client(timeout=10))
    return stack.enter_context(client.stream("GET", path, headers=headers or {}))


def _refused(r: httpx.Response, bound: str) -> None:
    assert r.status_code == 429, r.status_code
    error = r.read() and r.json()["error"]
    assert error["code"] == "too_many_streams" and bound in error["message"], error


def test_streams_are_bounded_per_credential_and_per_address(make_gateway):
    gw = make_gateway(stream_limit_ip=4, stream_limit_token=2)
    with gw.client() as http:
        body = create(http, "toybids", 2, seed=85)
        key, other = api_key(http, "streamer"), api_key(http, "other")
    gid, token = body["game_id"], body["seats"][0]["token"]
    with contextlib.ExitStack() as streams:
        assert all(_open(streams, gw, f"/v1/games/{gid}/events", auth(token)).status_code == 200 for _ in range(2))
        _refused(_open(streams, gw, f"/v1/games/{gid}/events", auth(token)), "2 concurrent streams per credential")
        assert _open(streams, gw, "/v1/players/me/events", auth(key)).status_code == 200  # the address's 3rd
        assert _open(streams, gw, f"/v1/games/{gid}/events").status_code == 200  # and 4th, a spectator
        _refused(_open(streams, gw, f"/v1/games/{gid}/events"), "4 concurrent streams per address")
        _refused(_open(streams, gw, "/v1/players/me/events", auth(other)),
                 "4 concurrent streams per address")
    with contextlib.ExitStack() as streams:  # every one closed: their places are free again within a second
        closed_at = time.monotonic()
        while True:
            r = _open(streams, gw, "/v1/players/me/events", auth(key))
            if r.status_code == 200:
                break
            assert time.monotonic() - closed_at < 1.0, "a closed stream still held its place after 1 s"
            time.sleep(0.02)
        print(f"place free again {time.monotonic() - closed_at:.3f} s after closing")
        assert _open(streams, gw, "/v1/players/me/events", auth(key)).status_code == 200
        _refused(_open(streams, gw, "/v1/players/me/events", auth(key)), "2 concurrent streams per credential")
