"""The contract's plumbing over real HTTP: uniform error bodies, size limits, players, ops endpoints."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx

from tests.gateway.helpers import api_key, auth, create


def assert_error(response: httpx.Response, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    stale = body["error"].get("code") == "stale_version"
    expected = {"code", "message", "rule"} | ({"current_version"} if stale else set())
    assert set(body) == {"error"} and set(body["error"]) == expected, body
    if "current_version" in expected:
        assert isinstance(body["error"]["current_version"], int), body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    if code is not None:
        assert body["error"]["code"] == code, body
    return body["error"]


def test_unknown_route_and_method_use_the_error_body(http: httpx.Client) -> None:
    assert_error(http.get("/v1/nothing-here"), 404, "not_found")
    assert_error(http.put("/v1/catalog"), 405, "method_not_allowed")


def test_a_405_lists_every_method_its_path_takes(http: httpx.Client) -> None:
    """Not the first matching route's methods alone, nor the static files' `GET, HEAD` (once mounted at `/`)."""
    game = create(http, "toybids", 2)["game_id"]
    for method, path, allow in [
        ("PUT", "/v1/games", "GET, POST"), ("DELETE", "/v1/games", "GET, POST"), ("OPTIONS", "/v1/players", "POST"),
        ("PUT", f"/v1/games/{game}/actions", "GET, POST"), ("DELETE", "/v1/catalog", "GET"),
        ("POST", "/v1/matchmaking/tickets/" + "0" * 32, "GET, DELETE"), ("PUT", "/index.html", "GET, HEAD"),
    ]:
        r = http.request(method, path)
        assert_error(r, 405, "method_not_allowed")
        assert r.headers["allow"] == allow, (method, path, r.headers.get("allow"))
    assert http.get("/").status_code == 200 and "Skyboard" in http.get("/").text, "static files still served"


def test_the_openapi_documents_what_a_422_means_and_the_answers_agree(http: httpx.Client) -> None:
    """Unknown names and the JSON limits are 422 on every operation with a JSON body, as documented."""
    spec = http.get("/openapi.json").json()
    bodies = [(path, method, op) for path, ops in spec["paths"].items() for method, op in ops.items()
              if "application/json" in op.get("requestBody", {}).get("content", {})]
    assert len(bodies) >= 4
    for path, method, op in bodies:
        doc = op["responses"]["422"]["description"]
        assert "32 levels" in doc and "2**64-1" in doc and "surrogate" in doc and "NaN" in doc, (method, path)
        assert "a game, option or bot level" in doc, (method, path)
    assert "nested at most 32 levels" in spec["info"]["description"]
    key = auth(api_key(http))
    assert_error(http.post("/v1/games", json={"game": "no-such-game", "players": 2}, headers=key), 422,
                 "unknown_game")  # docs/errors.md's code for a title the catalog does not have
    deep = '{"game": "toybids", "players": 2, "options": ' + "[" * 33 + "]" * 33 + "}"
    err = assert_error(http.post("/v1/games", content=deep, headers={"content-type": "application/json"}), 422)
    assert "deeper than 32 levels" in err["message"]


def test_validation_errors_are_422_with_the_error_body(http: httpx.Client) -> None:
    err = assert_error(http.post("/v1/players", json={"nom": "x"}), 422, "invalid_request")
    assert "name" in err["message"]
    assert_error(http.post("/v1/players", content=b"{not json", headers={"content-type": "application/json"}), 422)
    assert_error(http.post("/v1/games", json={"game": "toybids", "players": "two"}), 422)


def test_bodies_over_the_limit_are_413(http: httpx.Client, gateway) -> None:
    big = {"name": "x" * (gateway.settings.max_body_bytes + 10)}
    assert_error(http.post("/v1/players", json=big), 413, "payload_too_large")

    def chunks():  # no Content-Length: the limit counts the stream
        for _ in range(gateway.settings.max_body_bytes // 1000 + 2):
            yield b" " * 1000

    assert_error(http.post("/v1/players", content=chunks(), headers={"content-type": "application/json"}), 413)


def test_players_get_an_api_key_and_a_public_profile(http: httpx.Client, rdb, gateway) -> None:
    r = http.post("/v1/players", json={"name": "Ada"})
    assert r.status_code == 201
    created = r.json()
    profile = http.get(f"/v1/players/{created['player_id']}").json()
    assert profile == {"player_id": created["player_id"], "name": "Ada", "ratings": {}, "kind": "human"}
    readers = {"string": rdb.get, "hash": rdb.hgetall, "stream": rdb.xrange, "set": rdb.smembers,
               "zset": lambda k: rdb.zrange(k, 0, -1), "list": lambda k: rdb.lrange(k, 0, -1)}
    # every kind of key: games created with an API key also put events on account streams (docs/decisions/accounts.md)
    stored = {k: readers.get(rdb.type(k), lambda _k: None)(k)
              for k in rdb.scan_iter(match=f"{gateway.settings.key_prefix}*")}
    assert created["api_key"] not in repr(stored), "api keys are stored hashed"
    assert_error(http.get("/v1/players/0123456789abcdef0123456789abcdef"), 404)
    assert_error(http.get("/v1/players/not-an-id"), 404)
    assert_error(http.post("/v1/players", json={"name": "   "}), 422)


def test_catalog_lists_registered_games(http: httpx.Client) -> None:
    body = http.get("/v1/catalog").json()
    names = [g["name"] for g in body["games"]]
    assert "toybids" in names
    for g in body["games"]:
        assert set(g) >= {"name", "title", "min_players", "max_players", "options"}
    assert "random" in body["bot_levels"]
    details = body["bot_level_details"]
    assert [d["name"] for d in details] == body["bot_levels"]
    assert all(d["description"] and set(d["games"]) == set(names) for d in details)


def test_health_readiness_and_metrics(http: httpx.Client, gateway, make_gateway, service) -> None:
    assert http.get("/healthz").json()["status"] == "ok"
    ready = http.get("/readyz")
    assert ready.status_code == 200 and ready.json()["checks"] == {"redis": True, "sql": True, "gamestate": True}
    http.get("/v1/catalog")
    assert http.get("/metrics").status_code == 404, "operational metrics stay off the public API port"
    text = gateway.metrics()
    assert 'skyboard_gateway_request_seconds_count{method="GET",route="/v1/catalog"}' in text
    broken = make_gateway(gamestate_addr="127.0.0.1:1", gamestate_timeout_s=1.0)
    with broken.client() as c:
        err = assert_error(c.get("/readyz"), 503, "not_ready")
        assert "gamestate" in err["message"]
        assert_error(c.get("/v1/catalog"), 503, "unavailable")


def _readiness_checks(gw) -> float:
    """How many times the gateway has probed its backends for /readyz (its Prometheus counter)."""
    for line in gw.metrics().splitlines():
        if line.startswith("skyboard_gateway_readiness_checks_total "):
            return float(line.split()[1])
    raise AssertionError("the gateway exports no skyboard_gateway_readiness_checks_total")


def test_readiness_is_one_shared_check_not_three_backend_calls_per_request(make_gateway) -> None:
    """/readyz is never rate-limited, and each call used to make three backend round trips (Redis, SQL, the
    game-state service): a flood of it reached every backend unchecked. The backends are now probed once and the
    answer shared, by callers arriving together and for GATEWAY_READY_CACHE_S after: an hour here, so the bound
    does not depend on how fast this machine is. With no cache each call probes: the counter counts probes."""
    gw = make_gateway(ready_cache_s=3600)
    with gw.client() as c:
        answers = [c.get("/readyz") for _ in range(25)]
    with ThreadPoolExecutor(8) as pool:
        answers += list(pool.map(lambda _: httpx.get(f"{gw.url}/readyz", timeout=20), range(25)))
    for r in answers:
        assert r.status_code == 200 and r.json()["checks"] == {"redis": True, "sql": True, "gamestate": True}, r.text
    assert _readiness_checks(gw) == 1, "50 readiness calls within the cache's life probed the backends again"
    uncached = make_gateway(ready_cache_s=0)
    with uncached.client() as c:
        assert all(c.get("/readyz").status_code == 200 for _ in range(3))
    assert _readiness_checks(uncached) == 3


def test_cors_is_configurable(make_gateway) -> None:
    gw = make_gateway(cors_origins=["https://client.example"])
    with gw.client() as c:
        preflight = {"Origin": "https://client.example", "Access-Control-Request-Method": "GET"}
        r = c.options("/v1/catalog", headers=preflight)
        assert r.headers.get("access-control-allow-origin") == "https://client.example"
        r = c.get("/healthz", headers={"Origin": "https://evil.example"})
        assert "access-control-allow-origin" not in r.headers


def test_openapi_and_docs_are_served(http: httpx.Client) -> None:
    spec = http.get("/openapi.json").json()
    for path in ("/v1/catalog", "/v1/games", "/v1/games/{game_id}", "/v1/games/{game_id}/actions",
                 "/v1/games/{game_id}/events", "/v1/games/{game_id}/log", "/v1/players", "/v1/players/{player_id}",
                 "/v1/matchmaking/tickets", "/v1/matchmaking/tickets/{ticket_id}", "/v1/leaderboard/{game}",
                 "/healthz", "/readyz"):
        assert path in spec["paths"], path
    assert http.get("/docs").status_code == 200
