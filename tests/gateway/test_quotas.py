"""Bounds an attacker met nowhere (docs/decisions/abuse-bounds.md, "Keys, accounts and quotas"): a minimum time per
decision on every REST surface that takes a time control, and account creation bounded per address."""

from __future__ import annotations

import pytest

from services.gateway.settings import GatewaySettings
from tests.gateway.helpers import api_key, auth
from tests.gateway.test_basics import assert_error
from tests.rate_windows import fresh_window

FAST = [
    {"time_control": {"kind": "realtime", "seconds_per_decision": 0.001, "reserve_seconds": 0}},
    {"time_control": {"kind": "realtime", "seconds_per_decision": 4.9, "reserve_seconds": 60}},
    {"turn_seconds": 0.001},
]


def test_the_default_minimum_per_decision_is_documented_and_five_seconds():
    assert GatewaySettings.model_fields["min_seconds_per_decision"].default == 5.0


@pytest.mark.parametrize("clock", FAST)
def test_a_game_with_a_clock_below_the_minimum_is_refused(make_gateway, clock):
    gw = make_gateway(min_seconds_per_decision=5.0)
    with gw.client() as c:
        r = c.post("/v1/games", headers=auth(api_key(c)), json={"game": "toybids", "players": 2, **clock})
        assert_error(r, 422, "clock_too_fast")
        ok = c.post("/v1/games", headers=auth(api_key(c)), json={
            "game": "toybids", "players": 2, "time_control": {"kind": "realtime", "seconds_per_decision": 5}})
        assert ok.status_code == 201, ok.text


@pytest.mark.parametrize("clock", FAST[:2])
def test_tickets_and_challenges_below_the_minimum_are_refused(make_gateway, clock):
    gw = make_gateway(min_seconds_per_decision=5.0)
    with gw.client() as c:
        key = api_key(c)
        r = c.post("/v1/matchmaking/tickets", headers=auth(key), json={"game": "toybids", "players": 2, **clock})
        assert_error(r, 422, "clock_too_fast")
        to = c.post("/v1/players", json={"name": "to"}).json()["player_id"]
        r = c.post("/v1/challenges", headers=auth(key), json={"to": to, "game": "toybids", **clock})
        assert_error(r, 422, "clock_too_fast")


def test_the_matchmaking_default_below_the_minimum_does_not_start(make_gateway):
    with pytest.raises(ValueError, match="min_seconds_per_decision"):
        GatewaySettings(min_seconds_per_decision=10, mm_seconds_per_decision=5)


def test_account_creation_is_bounded_per_address(make_gateway):
    gw = make_gateway(accounts_per_address=3, accounts_window_s=3600)
    fresh_window(3600)  # the four sign-ups in one window (tests/rate_windows.py)
    with gw.client() as c:
        for i in range(3):
            assert c.post("/v1/players", json={"name": f"n{i}"}).status_code == 201
        r = c.post("/v1/players", json={"name": "one too many"})
        body = assert_error(r, 429, "too_many_accounts")
        assert "3" in body["message"] and int(r.headers["Retry-After"]) > 0
    other = make_gateway(accounts_per_address=3, accounts_window_s=3600)  # another run's prefix: its own count
    with other.client() as c:
        assert c.post("/v1/players", json={"name": "elsewhere"}).status_code == 201


def test_sign_ups_from_one_address_have_a_burst_tier_and_a_daily_tier(make_gateway):
    """A classroom behind one address signs up together (the burst tier), and the daily tier still stops mass
    creation: the sign-up beyond either is 429 too_many_accounts, with the wait until that tier's window ends."""
    burst = make_gateway(accounts_per_address=2, accounts_window_s=3600, accounts_per_address_daily=100)
    daily = make_gateway(accounts_per_address=100, accounts_window_s=3600, accounts_per_address_daily=2)
    for gw, window_s in ((burst, 3600), (daily, 86_400)):
        fresh_window(window_s)  # the three sign-ups in one window of the tier that refuses
        with gw.client() as c:
            assert [c.post("/v1/players", json={"name": f"n{i}"}).status_code for i in range(2)] == [201, 201]
            r = c.post("/v1/players", json={"name": "one too many"})
            body = assert_error(r, 429, "too_many_accounts")
            assert 0 < int(r.headers["Retry-After"]) <= window_s, r.headers["Retry-After"]
            assert f"per {window_s} s" in body["message"]


def test_the_defaults_let_a_class_sign_up_at_once_and_bound_a_day_below_the_old_hourly_cap():
    """30 sign-ups within 10 minutes (a class), 100 a day: fewer a day than the 20 an hour (480) before."""
    fields = GatewaySettings.model_fields
    assert (fields["accounts_per_address"].default, fields["accounts_window_s"].default) == (30, 600)
    assert fields["accounts_per_address_daily"].default == 100


def test_a_refused_sign_up_spends_no_tier_and_waits_for_the_full_tiers_window(redis_url):
    """A refusal counts in no tier (a burst refused does not eat the day's allowance), and Retry-After is when the
    full tier's fixed window ends. The windows move with an injected clock; Redis is the real one."""
    import asyncio

    from services.accounts.keys import Keys
    from services.common.redis_clients import async_redis
    from services.gateway.domain.address_quota import AddressQuota, Tier
    from services.gateway.http.errors import ApiError
    from tests.gateway.conftest import CLUSTER, new_prefix

    now = [600.0 * 1000 + 100]  # 100 s into a 600 s window

    async def run() -> list[object]:
        redis = async_redis(redis_url, cluster=CLUSTER)
        quota = AddressQuota(redis, Keys(new_prefix()), "accounts", [Tier(1, 600), Tier(2, 86_400)],
                             clock=lambda: now[0])
        seen: list[object] = []

        async def take() -> None:
            try:
                await quota.take("10.0.0.1")
                seen.append("ok")
            except ApiError as exc:
                seen.append(int(exc.headers["Retry-After"]))

        await take()
        for _ in range(3):
            await take()  # the burst tier is full: refused, and the day's count stays 1
        now[0] += 600  # the next burst window
        await take()
        now[0] += 600
        await take()  # the day's 2 are spent now
        await redis.aclose()
        return seen

    seen = asyncio.run(run())
    assert seen[:4] == ["ok", 500, 500, 500]
    assert seen[4] == "ok", "the refusals did not spend the daily tier"
    day_left = 86_400 - (600.0 * 1000 + 100 + 1200) % 86_400
    assert seen[5] == int(day_left), seen
