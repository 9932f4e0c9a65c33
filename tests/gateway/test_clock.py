"""The turn clock over REST: create with `turn_seconds`, read `deadlines`, expiry applies the default (TOY-5)."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.gateway.conftest import ServiceInstance
from tests.gateway.helpers import api_key, auth, create
from tests.gateway.test_basics import assert_error

TOY = "toybids"


def _game_keys(rdb, service: ServiceInstance) -> set[str]:
    return set(rdb.scan_iter(match=f"{service.settings.key_prefix}*", count=1000))


def test_create_with_a_clock_shows_the_deadline_of_each_seat_to_act(http: httpx.Client) -> None:
    before_ms = time.time() * 1000
    body = create(http, TOY, 2, seed=21, turn_seconds=30)
    game = http.get(f"/v1/games/{body['game_id']}").json()
    after_ms = time.time() * 1000
    assert game["turn_seconds"] == 30 and game["to_act"] == [0, 1]
    assert set(game["deadlines"]) == {"0", "1"}  # TOY-2: both seats bid at once, both clocks run
    for due in game["deadlines"].values():
        assert before_ms + 30_000 - 1000 <= due <= after_ms + 30_000 + 1000


def test_no_clock_means_null_turn_seconds_and_no_deadlines(http: httpx.Client) -> None:
    body = create(http, TOY, 2, seed=22)
    game = http.get(f"/v1/games/{body['game_id']}").json()
    assert game["turn_seconds"] is None and game["deadlines"] == {}


def test_TOY_5_an_expired_clock_plays_the_lowest_card_for_the_late_seat(
    http: httpx.Client, service: ServiceInstance
) -> None:
    body = create(http, TOY, 2, seed=23, turn_seconds=0.2)
    gid = body["game_id"]
    tokens = {s["seat"]: s["token"] for s in body["seats"]}
    hand = http.get(f"/v1/games/{gid}", headers=auth(tokens[1])).json()["view"]["hand"]
    first = http.get(f"/v1/games/{gid}", headers=auth(tokens[0])).json()
    r = http.post(f"/v1/games/{gid}/actions", headers=auth(tokens[0]),
                  json={"action": {"type": "bid", "card": first["view"]["hand"][-1]}, "expected_version": 0})
    assert r.status_code == 200, r.text
    assert set(http.get(f"/v1/games/{gid}").json()["deadlines"]) == {"1"}  # seat 0 answered; seat 1's clock runs on
    time.sleep(0.3)
    assert service.sweep() >= 1
    after = http.get(f"/v1/games/{gid}", headers=auth(tokens[1])).json()
    assert after["version"] == 2
    lowest = min(hand, key=lambda card: int(card.split("-")[1]))
    assert sorted(after["view"]["hand"] + [lowest]) == sorted(hand)


@pytest.mark.parametrize("turn_seconds", [0, -1, 86_401, "30", True, [5]])
def test_bad_turn_seconds_is_422_and_creates_nothing(http: httpx.Client, rdb, service, turn_seconds) -> None:
    payload = {"game": TOY, "players": 2, "seed": 24, "turn_seconds": turn_seconds}
    keys = _game_keys(rdb, service)
    assert_error(http.post("/v1/games", json=payload, headers=auth(api_key(http))), 422)
    assert _game_keys(rdb, service) == keys
