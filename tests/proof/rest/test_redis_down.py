"""The gateway's own Redis (API-key cache, tickets, limits) going away is a clean, retryable 503 with the uniform
error body (regression: an unhandled redis ConnectionError was a 500, e.g. in settling a finished game)."""

from __future__ import annotations

from services.dev.launch import RedisServer, free_port
from tests.gateway.conftest import Gateway, gateway_settings


def test_gateway_redis_down_is_503_then_recovers(service) -> None:
    server = RedisServer(free_port(), "everysec")
    server.start()
    gw = Gateway(gateway_settings(server.url, service, rate_limit_ip=0, rate_limit_token=0))
    try:
        with gw.client() as c:
            key = c.post("/v1/players", json={"name": "ann"}).json()["api_key"]  # players are in SQL
            me = {"Authorization": f"Bearer {key}"}
            server.kill()
            r = c.get("/v1/players/me", headers=me)  # the API-key lookup reads its Redis cache first
            assert r.status_code == 503, r.text
            assert r.json()["error"]["code"] == "unavailable" and r.headers["Retry-After"] == "1"
            server.start()
            assert c.get("/v1/players/me", headers=me).status_code == 200
            assert c.post("/v1/players", json={"name": "cid"}).status_code == 201
    finally:
        gw.stop()
        server.close()
