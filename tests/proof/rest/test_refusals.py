"""Oversized bodies on every POST endpoint are refused with 413 and a flood of concurrent requests is cut
to the budget with 429, never a 5xx, and refused requests change nothing."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx

from tests.gateway.helpers import auth, create
from tests.rate_windows import HOUR, fresh_window


def test_oversized_bodies_are_413_on_every_post_endpoint(http: httpx.Client) -> None:
    limit = 64 * 1024
    game = create(http, "toybids", 2, seed=81)
    gid, token = game["game_id"], game["seats"][0]["token"]
    pad = "z" * (limit + 1)
    for path in ("/v1/games", "/v1/players", "/v1/matchmaking/tickets", f"/v1/games/{gid}/actions"):
        r = http.post(path, content=pad.encode(), headers={**auth(token), "content-type": "application/json"})
        assert r.status_code == 413 and r.json()["error"]["code"] == "payload_too_large", (path, r.text)
    assert http.get(f"/v1/games/{gid}").json()["version"] == 0


def test_a_flood_is_cut_to_the_budget_with_429(make_gateway) -> None:
    # every request counts against the address's ceiling, anonymous or not
    gw = make_gateway(rate_limit_ip=0, rate_limit_token=0, rate_limit_ip_ceiling=40, rate_limit_window_s=HOUR)
    fresh_window()  # the 40 are counted in one window: a boundary inside the flood would refill the budget
    with gw.client() as setup:
        game = create(setup, "toybids", 2, seed=82)  # spends 2 of the 40 (a player, then its game)
    gid, token = game["game_id"], game["seats"][0]["token"]
    body = {"action": {"type": "bid", "card": "card-000000"}, "expected_version": 0}

    with gw.client() as c:  # one pooled client for all threads (a new httpx client per request is slow)

        def hit(i: int) -> int:
            if i % 2:
                return c.get(f"/v1/games/{gid}").status_code
            return c.post(f"/v1/games/{gid}/actions", json=body, headers=auth(token)).status_code

        with ThreadPoolExecutor(16) as pool:
            codes = list(pool.map(hit, range(100)))
    assert not [c for c in codes if c >= 500]
    assert codes.count(429) == 100 - 38, sorted(set(codes))
    assert set(codes) <= {200, 422, 429}
    with gw.client() as c:
        assert c.get("/healthz").status_code == 200


def _codes_from(gw, forwarded_for: list[str]) -> list[int]:
    with gw.client() as c:
        return [c.get("/v1/catalog", headers={"X-Forwarded-For": ip}).status_code for ip in forwarded_for]


def test_per_ip_limits_use_x_forwarded_for_only_from_trusted_proxies(make_gateway) -> None:
    """Behind a trusted proxy each client has its own budget; without one, a client naming other addresses in
    X-Forwarded-For still spends its own (the peer's) budget."""
    fresh_window()  # the answers below are counted in one window
    trusting = make_gateway(rate_limit_ip=2, rate_limit_token=0, rate_limit_window_s=HOUR,
                            trusted_proxies="127.0.0.1")
    assert _codes_from(trusting, ["10.0.0.1", "10.0.0.1", "10.0.0.1", "10.0.0.2", "10.0.0.2"]) == [
        200, 200, 429, 200, 200]
    untrusting = make_gateway(rate_limit_ip=2, rate_limit_token=0, rate_limit_window_s=HOUR)
    assert _codes_from(untrusting, ["10.0.0.1", "10.0.0.2", "10.0.0.3"]) == [200, 200, 429]
