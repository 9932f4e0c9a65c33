"""GET /v1/players/me/games is bounded: pages of `limit` games (20 by default, 100 at most) with the history's opaque
cursor, each page read from the game-state service in one call, whatever the number of games the account holds
(at the creation quota an account holds about 2,900 games a day: listing them all, each with a read of its own,
was one unbounded request)."""

from __future__ import annotations

import asyncio
import functools
import json
import time
from collections.abc import Iterator

import grpc
import httpx
import pytest

from services.accounts.keys import Keys as AccountKeys
from services.common.settings import Settings
from services.gamestate.client import AsyncGameClient, GameServiceError
from services.gamestate.service import Registry
from tests.gateway.conftest import Gateway, ServiceInstance, gateway_settings, new_prefix
from tests.gateway.helpers import auth
from tests.gateway.test_basics import assert_error
from tests.service_secret import SERVICE_SECRET
from tests.services import toygame


@pytest.fixture
def stack(redis_url: str) -> Iterator[tuple[Gateway, ServiceInstance]]:
    """A game-state service of its own (so its calls are this test's alone) and a gateway with its outcomes
    consumer (which lists ended games as ended; it reads only Redis, never the service)."""
    settings = Settings(
        redis_url=redis_url, grpc_addr="127.0.0.1:0", metrics_port=0, key_prefix=new_prefix(), dispatch_bots=False,
        service_secret=SERVICE_SECRET, watch_block_ms=200, shutdown_grace_s=0.5,
    )
    service = ServiceInstance(settings, Registry({toygame.GAME.name: toygame.GAME}))
    gw = Gateway(gateway_settings(redis_url, service), outbox=settings.key_prefix)
    yield gw, service
    gw.stop()
    service.stop()


def _counted(service: ServiceInstance, name: str) -> list[int]:
    """Count the calls of the service's method `name` (the real one still answers them)."""
    calls = [0]
    real = getattr(service.running.service, name)

    @functools.wraps(real)
    async def counting(*args, **kwargs):
        calls[0] += 1
        return await real(*args, **kwargs)

    setattr(service.running.service, name, counting)
    return calls


def _finish(http: httpx.Client, game: dict) -> None:
    """Both seats bid with their seat tokens (TOY-2) until the game ends."""
    tokens = [s["token"] for s in game["seats"]]
    while True:
        for token in tokens:
            legal = http.get(f"/v1/games/{game['game_id']}/actions", headers=auth(token)).json()
            if not legal["actions"]:
                continue
            r = http.post(f"/v1/games/{game['game_id']}/actions", headers=auth(token),
                          json={"action": legal["actions"][0], "expected_version": legal["version"]})
            assert r.status_code == 200, r.text
            if r.json()["status"] != "active":
                return


def _pages(http: httpx.Client, key: str, limit: int) -> list[list[dict]]:
    pages, cursor = [], None
    while True:
        r = http.get("/v1/players/me/games", headers=auth(key),
                     params={"limit": limit, **({"cursor": cursor} if cursor else {})})
        assert r.status_code == 200, r.text
        pages.append(r.json()["games"])
        cursor = r.json()["next_cursor"]
        if cursor is None:
            return pages


def _listed_as_ended(rdb, gw: Gateway, player_id: str, game_ids: list[str]) -> None:
    """Wait until the outcomes consumer has listed these games as ended among the account's games."""
    games = AccountKeys(gw.settings.key_prefix).account_games(player_id)
    deadline = time.monotonic() + 20
    while not all(json.loads(rdb.hget(games, g) or "{}").get("ended") for g in game_ids):
        assert time.monotonic() < deadline, "not listed as ended"
        time.sleep(0.05)


def test_my_games_come_in_pages_each_read_in_one_call(stack, rdb) -> None:
    gw, service = stack
    with gw.client() as http:
        player = http.post("/v1/players", json={"name": "pages"}).json()
        key = player["api_key"]
        made = []
        for seed in range(5):
            r = http.post("/v1/games", headers=auth(key), json={"game": "toybids", "players": 2, "seed": seed,
                                                                "account_seats": [0]})
            assert r.status_code == 201, r.text
            made.append(r.json())
        _finish(http, made[0])
        _finish(http, made[2])
        _listed_as_ended(rdb, gw, player["player_id"], [made[0]["game_id"], made[2]["game_id"]])
        reads, batches = _counted(service, "get_game"), _counted(service, "summaries")
        pages = _pages(http, key, limit=2)
        assert [len(p) for p in pages] == [2, 2, 1]
        assert (reads[0], batches[0]) == (0, 3), "one call to the game-state service per page, none per game"
        listed = [g for p in pages for g in p]
        ids = [m["game_id"] for m in made]
        # the games it plays first, newest first; then the ended ones, the last ended first
        assert [g["game_id"] for g in listed] == [ids[4], ids[3], ids[1], ids[2], ids[0]]
        assert [g["status"] for g in listed] == ["active"] * 3 + ["finished"] * 2
        assert all(g["my_turn"] and g["seats"] == [0] and g["scores"] is None for g in listed[:3])
        assert all(not g["my_turn"] and g["to_act"] == [] and len(g["scores"]) == 2 for g in listed[3:])
        alone = http.get("/v1/players/me/games", headers=auth(key)).json()
        assert [g["game_id"] for g in alone["games"]] == [g["game_id"] for g in listed]
        assert alone["next_cursor"] is None
        assert_error(http.get("/v1/players/me/games", headers=auth(key), params={"limit": 101}), 422)
        assert_error(http.get("/v1/players/me/games", headers=auth(key), params={"limit": 0}), 422)
        assert_error(http.get("/v1/players/me/games", headers=auth(key), params={"cursor": "%%%"}), 422,
                     "invalid_request")
        [limit] = [p for p in http.get("/openapi.json").json()["paths"]["/v1/players/me/games"]["get"]["parameters"]
                   if p["name"] == "limit"]
        assert (limit["schema"]["default"], limit["schema"]["maximum"]) == (20, 100)


def test_game_summaries_answer_the_known_games_of_a_page_in_one_call(stack) -> None:
    """GameAdmin GetGameSummaries: the known games among the ids, in their order, unknown ones left out; more than a
    page (100 ids) is refused, so one call stays bounded."""
    gw, service = stack
    with gw.client() as http:
        key = http.post("/v1/players", json={"name": "batch"}).json()["api_key"]
        ids = [http.post("/v1/games", headers=auth(key), json={"game": "toybids", "players": 2, "seed": seed,
                                                                "account_seats": [0]}).json()["game_id"]
               for seed in (1, 2)]

    async def ask(game_ids: list[str]) -> list:
        async with AsyncGameClient(service.addr) as client:
            return await client.admin(SERVICE_SECRET).game_summaries(game_ids)

    found = asyncio.run(ask([ids[1], "no_such_game", ids[0]]))
    assert [(s.game_id, s.status, s.to_act) for s in found] == [(ids[1], "active", [0, 1]), (ids[0], "active", [0, 1])]
    with pytest.raises(GameServiceError) as refused:
        asyncio.run(ask(["g"] * 101))
    assert refused.value.code == grpc.StatusCode.INVALID_ARGUMENT
