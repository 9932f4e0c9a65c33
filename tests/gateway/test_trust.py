"""Trust at the REST gateway: game creation needs a player's API key (its owner) and meets that player's quotas,
bot credentials are refused outright, and anonymous creation exists only behind its development setting."""

from __future__ import annotations

import hashlib
import hmac

import httpx

from tests.gateway.helpers import api_key, auth
from tests.gateway.test_basics import assert_error

TOY = "toybids"


def test_creating_a_game_needs_an_api_key(http: httpx.Client) -> None:
    body = {"game": TOY, "players": 2}
    err = assert_error(http.post("/v1/games", json=body), 401)
    assert "API key" in err["message"]
    assert_error(http.post("/v1/games", json=body, headers=auth("sbk_not-a-key")), 401)
    created = http.post("/v1/games", json=body, headers=auth(api_key(http))).json()
    seat_token = created["seats"][0]["token"]
    assert_error(http.post("/v1/games", json=body, headers=auth(seat_token)), 401)  # a seat token is no API key


def test_a_players_active_games_are_bounded(http: httpx.Client, service) -> None:
    key = api_key(http)
    limit = service.settings.quota_active_games
    for _ in range(limit):
        assert http.post("/v1/games", json={"game": TOY, "players": 2}, headers=auth(key)).status_code == 201
    err = assert_error(http.post("/v1/games", json={"game": TOY, "players": 2}, headers=auth(key)), 429,
                       "quota_exceeded")
    assert f"{limit} active games" in err["message"]
    assert http.post("/v1/games", json={"game": TOY, "players": 2}, headers=auth(api_key(http))).status_code == 201


def test_a_forged_bot_seat_credential_is_refused_like_any_unknown_token(http: httpx.Client) -> None:
    """Bot seats take no token (the platform's workers play them): one signed with the development secret is an
    unknown token to every game call, and changes nothing."""
    created = http.post("/v1/games", json={"game": TOY, "players": 2, "bots": {"1": "random"}},
                        headers=auth(api_key(http))).json()
    gid = created["game_id"]
    mac = hmac.new(b"skyboard-dev-bot-secret-change-me", f"{gid}:1".encode(), hashlib.sha256).hexdigest()
    forged = f"sbb_{gid}:1:{mac}"
    for method, path, body in (("GET", f"/v1/games/{gid}", None), ("GET", f"/v1/games/{gid}/actions", None),
                               ("POST", f"/v1/games/{gid}/actions", {"action": {"type": "bid", "card": 1},
                                                                      "expected_version": 0})):
        r = http.request(method, path, json=body, headers=auth(forged))
        assert_error(r, 401, "unauthenticated")
    assert http.get(f"/v1/games/{gid}").json()["version"] == 0, "nothing changed"


def test_anonymous_creation_only_where_development_allows_it(make_gateway) -> None:
    dev = make_gateway(allow_anonymous_create=True)
    with dev.client() as c:
        r = c.post("/v1/games", json={"game": TOY, "players": 2})
        assert r.status_code == 201, r.text
