"""The gateway's own Redis (players, ratings, tickets) going away is a clean, retryable 503 with the uniform
error body (regression: an unhandled redis ConnectionError was a 500, e.g. in settling a finished game)."""

from __future__ import annotations

from bench.soak import RedisServer
from bench.stack import free_port
from tests.gateway.conftest import Gateway, gateway_settings


def test_gateway_redis_down_is_503_then_recovers(service) -> None:
    server = RedisServer(free_port(), "everysec")
    server.start()
    gw = Gateway(gateway_settings(server.url, service, rate_limit_ip=0, rate_limit_token=0))
    try:
        with gw.client() as c:
            assert c.post("/v1/players", json={"name": "ann"}).status_code == 201
            server.kill()
            r = c.post("/v1/players", json={"name": "bob"})
            assert r.status_code == 503, r.text
            assert r.json()["error"]["code"] == "unavailable" and r.headers["Retry-After"] == "1"
            server.start()
            assert c.post("/v1/players", json={"name": "cid"}).status_code == 201
    finally:
        gw.stop()
        server.close()
