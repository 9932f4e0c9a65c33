"""Bounds an attacker met nowhere (issue #34, "Keys, accounts and quotas"): a minimum time per decision on
every REST surface that takes a time control, and account creation bounded per address."""

from __future__ import annotations

import pytest

from services.gateway.settings import GatewaySettings
from tests.gateway.helpers import api_key, auth
from tests.gateway.test_basics import assert_error

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
    with gw.client() as c:
        for i in range(3):
            assert c.post("/v1/players", json={"name": f"n{i}"}).status_code == 201
        r = c.post("/v1/players", json={"name": "one too many"})
        body = assert_error(r, 429, "too_many_accounts")
        assert "3" in body["message"] and int(r.headers["Retry-After"]) > 0
    other = make_gateway(accounts_per_address=3, accounts_window_s=3600)  # another run's prefix: its own count
    with other.client() as c:
        assert c.post("/v1/players", json={"name": "elsewhere"}).status_code == 201
