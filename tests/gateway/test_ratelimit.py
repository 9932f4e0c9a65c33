"""Per-IP and per-token rate limits over a real uvicorn socket: 429 with Retry-After, shared via Redis.

Windows are an hour long, and each test starts with at least a minute of its window left (the windows are aligned
to the clock: a boundary inside a test would refill the buckets it counts)."""

from __future__ import annotations

import pytest

from tests.gateway.helpers import auth, create
from tests.gateway.test_basics import assert_error
from tests.rate_windows import HOUR, fresh_window


@pytest.fixture(autouse=True)
def _one_window() -> None:
    fresh_window(HOUR)


def test_per_ip_limit_answers_429_with_retry_after(make_gateway) -> None:
    gw = make_gateway(rate_limit_ip=5, rate_limit_token=0, rate_limit_window_s=HOUR)
    with gw.client() as c:
        for _ in range(5):
            assert c.get("/v1/catalog").status_code == 200
        r = c.get("/v1/catalog")
        assert_error(r, 429, "rate_limited")
        assert 1 <= int(r.headers["Retry-After"]) <= 3600
        assert c.get("/healthz").status_code == 200, "health checks are never limited"
        assert 'skyboard_gateway_rate_limited_total 1.0' in gw.metrics()


def test_per_token_limit_is_per_token_and_changes_nothing(make_gateway) -> None:
    gw = make_gateway(rate_limit_ip=0, rate_limit_token=3, rate_limit_window_s=HOUR)
    with gw.client() as c:
        created = create(c, "toybids", 2, seed=4)
        t0, t1 = (s["token"] for s in created["seats"])
        gid = created["game_id"]
        first = c.get(f"/v1/games/{gid}", headers=auth(t0)).json()
        c.get(f"/v1/games/{gid}/actions", headers=auth(t0))
        c.get(f"/v1/games/{gid}/actions", headers=auth(t0))
        body = {"action": {"type": "bid", "card": first["view"]["hand"][0]}, "expected_version": first["version"]}
        r = c.post(f"/v1/games/{gid}/actions", json=body, headers=auth(t0))
        assert_error(r, 429, "rate_limited")
        assert int(r.headers["Retry-After"]) >= 1
        assert c.get(f"/v1/games/{gid}", headers=auth(t1)).json()["version"] == first["version"], "nothing applied"
        assert c.get(f"/v1/games/{gid}").status_code == 200, "spectators are limited by IP only"


def test_limits_are_shared_by_gateways_on_one_redis(make_gateway) -> None:
    a = make_gateway(rate_limit_ip=4, rate_limit_token=0, rate_limit_window_s=HOUR)
    b = make_gateway(rate_limit_ip=4, rate_limit_token=0, rate_limit_window_s=HOUR, key_prefix=a.settings.key_prefix)
    with a.client() as ca, b.client() as cb:
        assert [ca.get("/v1/catalog").status_code, cb.get("/v1/catalog").status_code,
                ca.get("/v1/catalog").status_code, cb.get("/v1/catalog").status_code] == [200] * 4
        assert_error(cb.get("/v1/catalog"), 429)


def test_every_response_reports_its_budget_and_a_429_says_when_to_retry(make_gateway) -> None:
    """IETF RateLimit headers on every answer (successes and errors), so a client can pace itself."""
    gw = make_gateway(rate_limit_ip=3, rate_limit_token=0, rate_limit_ip_ceiling=0, rate_limit_window_s=HOUR)
    with gw.client() as c:
        answers = [c.get("/v1/catalog"), c.get("/v1/games/nope"), c.get("/v1/catalog"), c.get("/v1/catalog")]
    assert [r.status_code for r in answers] == [200, 404, 200, 429]
    assert [int(r.headers["RateLimit-Remaining"]) for r in answers] == [2, 1, 0, 0]
    for r in answers:
        assert int(r.headers["RateLimit-Limit"]) == 3 and 1 <= int(r.headers["RateLimit-Reset"]) <= 3600
    assert int(answers[-1].headers["Retry-After"]) == int(answers[-1].headers["RateLimit-Reset"])
    assert "3 requests per 3600 s" in answers[-1].json()["error"]["message"]


def test_each_credential_has_its_own_budget_behind_one_address(make_gateway) -> None:
    """Clients behind one address (an office, a NAT) do not share a budget: a credential's requests count
    against that credential; anonymous ones against the address."""
    gw = make_gateway(rate_limit_ip=50, rate_limit_token=4, rate_limit_ip_ceiling=0, rate_limit_window_s=HOUR)
    with gw.client() as c:
        keys = [c.post("/v1/players", json={"name": f"p{i}"}).json()["api_key"] for i in range(2)]
        for key in keys:
            codes = [c.get("/v1/catalog", headers=auth(key)).status_code
                     for _ in range(5)]
            assert codes == [200, 200, 200, 200, 429], codes
        anonymous = c.get("/v1/catalog")
        assert anonymous.status_code == 200 and int(anonymous.headers["RateLimit-Limit"]) == 50


def test_the_address_ceiling_bounds_minted_credentials(make_gateway) -> None:
    gw = make_gateway(rate_limit_ip=100, rate_limit_token=100, rate_limit_ip_ceiling=6, rate_limit_window_s=HOUR)
    with gw.client() as c:
        codes = [c.get("/v1/catalog", headers=auth(f"sbk_made-up-{i}")).status_code for i in range(8)]
    assert codes[:6] == [200] * 6 and codes[6:] == [429, 429]


def test_made_up_api_keys_share_the_addresss_anonymous_bucket(make_gateway) -> None:
    """A fresh `Bearer sbk_...` per request got a fresh per-credential bucket each: no limit but the ceiling."""
    gw = make_gateway(rate_limit_ip=4, rate_limit_token=50, rate_limit_bot_token=50, rate_limit_ip_ceiling=0,
                      rate_limit_window_s=HOUR)
    with gw.client() as c:
        real = c.post("/v1/players", json={"name": "real"}).json()["api_key"]  # 1 of the address's 4
        c.get("/v1/catalog")
        for i in range(2):
            r = c.get("/v1/catalog", headers=auth(f"sbk_{'made-up'}{i:040d}"))
            assert r.status_code == 200 and r.headers["RateLimit-Limit"] == "4", r.headers
        for prefix in ("sbk_", "sbk_bot_"):
            assert_error(c.get("/v1/catalog", headers=auth(f"{prefix}{'z' * 43}")), 429, "rate_limited")
        assert_error(c.get("/v1/catalog"), 429, "rate_limited")
        ok = c.get("/v1/catalog", headers=auth(real))
        assert ok.status_code == 200 and ok.headers["RateLimit-Limit"] == "50", "a working key keeps its own bucket"
