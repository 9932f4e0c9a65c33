"""/webclient/replay re-ran the whole game in the gateway's event loop for every anonymous request: now each
(game, version, step) of a finished game is replayed once, off the loop, and kept in a bounded LRU cache."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest

from tests.gateway.conftest import Gateway, ServiceInstance, gateway_settings
from tests.gateway.helpers import create, play_random


@pytest.fixture
def small_cache_gateway(redis_url: str, wc_service: ServiceInstance) -> Iterator[Gateway]:
    gw = Gateway(gateway_settings(redis_url, wc_service, replay_cache_size=2))
    yield gw
    gw.stop()


def _computed(gw: Gateway) -> float:
    found = re.search(r"^skyboard_gateway_replays_computed_total (\S+)$", gw.metrics(), re.M)
    assert found, "the gateway exports how many replays it computed"
    return float(found[1])


def test_a_finished_games_replay_step_is_computed_once_and_the_cache_is_bounded(small_cache_gateway: Gateway):
    gw = small_cache_gateway
    with gw.client() as http:
        created = create(http, "blueskies", 2, seed=5)
        gid = created["game_id"]
        play_random(http, gid, {s["seat"]: s["token"] for s in created["seats"]}, random.Random(5))
        before = _computed(gw)
        first = http.get(f"/webclient/replay/{gid}", params={"step": 7}).json()
        for _ in range(5):
            assert http.get(f"/webclient/replay/{gid}", params={"step": 7}).json() == first
        assert _computed(gw) == before + 1, "five more anonymous reads of one step replayed nothing"
        for step in (1, 2):  # two other steps fill the cache of 2 and push step 7 out
            http.get(f"/webclient/replay/{gid}", params={"step": step})
        assert _computed(gw) == before + 3
        assert http.get(f"/webclient/replay/{gid}", params={"step": 7}).json() == first
        assert _computed(gw) == before + 4, "the least recently used entry was evicted"
        assert http.get(f"/webclient/replay/{gid}", params={"step": 10**6}).status_code == 422
