"""The web client's helper endpoints over real HTTP: static board data, replay steps of a finished game
matching an engine replay of its log, and clear errors that change nothing. Also the static files at `/`."""

from __future__ import annotations

import random

import httpx
import pytest

import engine
from tests.gateway.helpers import create, play_random


@pytest.fixture
def http(wc_gateway) -> httpx.Client:
    with wc_gateway.client() as client:
        yield client


def test_boards_serve_each_engines_data_files(http):
    for name in engine.games():
        r = http.get(f"/webclient/boards/{name}")
        assert r.status_code == 200
        assert r.json(), f"{name} has board data"
    assert "airports" in http.get("/webclient/boards/opensky").json()["europe"]
    r = http.get("/webclient/boards/nope")
    assert r.status_code == 404 and r.json()["error"]["code"]


def test_replay_steps_follow_the_log_and_refuse_bad_steps(http):
    created = create(http, "blueskies", 2, seed=3)
    gid = created["game_id"]
    r = http.get(f"/webclient/replay/{gid}")
    assert r.status_code == 403, "no replay of an active game (its log is not published)"
    play_random(http, gid, {s["seat"]: s["token"] for s in created["seats"]}, random.Random(3))
    log = http.get(f"/v1/games/{gid}/log").json()
    game = engine.get("blueskies")
    state = game.new(log["players"], log["seed"], log["options"])
    assert http.get(f"/webclient/replay/{gid}?step=0").json()["view"] == state.view(None)
    mid = len(log["actions"]) // 2
    for entry in log["actions"][:mid]:
        state.apply(entry["seat"], game.action_from_json(entry["action"]))
    step = http.get(f"/webclient/replay/{gid}", params={"step": mid}).json()
    assert step["view"] == state.view(None)
    assert step["action"] == log["actions"][mid - 1]["action"] and step["steps"] == len(log["actions"])
    last = http.get(f"/webclient/replay/{gid}", params={"step": len(log["actions"])}).json()
    assert last["to_act"] == [] and last["scores"] == log["scores"]
    for bad in (len(log["actions"]) + 1, -1, "x"):
        r = http.get(f"/webclient/replay/{gid}", params={"step": bad})
        assert r.status_code == 422 and r.json()["error"]["message"]
    assert http.get("/webclient/replay/no-such-game").status_code == 404


def test_static_client_is_served_at_the_root(http):
    r = http.get("/")
    assert r.status_code == 200 and "Skyboard lobby" in r.text
    assert http.get("/game.html").status_code == 200
    assert "text/javascript" in http.get("/js/game.js").headers["content-type"]
    assert http.get("/v1/catalog").status_code == 200, "the API routes come before the static mount"


def test_replay_steps_over_a_resignation(http, wc_service, bot_worker):
    """A resignation is a log entry without an action: the replay steps over it (it was a 500)."""
    import time

    from tests.gateway.helpers import auth

    created = create(http, "opensky", 2, seed=9)
    gid = created["game_id"]
    token = {s["seat"]: s["token"] for s in created["seats"]}[1]
    assert http.post(f"/v1/games/{gid}/resign", headers=auth({s["seat"]: s["token"] for s in created["seats"]}[0])
                     ).status_code == 200
    rng, deadline = random.Random(9), time.monotonic() + 120
    while (game := http.get(f"/v1/games/{gid}").json())["status"] == "active" and time.monotonic() < deadline:
        if 1 in game["to_act"]:  # seat 1 plays; the zombie bot plays seat 0 through the worker
            legal = http.get(f"/v1/games/{gid}/actions", headers=auth(token)).json()
            if legal["actions"]:
                http.post(f"/v1/games/{gid}/actions", headers=auth(token),
                          json={"action": rng.choice(legal["actions"]), "expected_version": legal["version"]})
                continue
        time.sleep(0.05)
    assert game["status"] == "finished"
    steps = http.get(f"/webclient/replay/{gid}").json()["steps"]
    for step in (1, steps // 2, steps):
        r = http.get(f"/webclient/replay/{gid}", params={"step": step})
        assert r.status_code == 200, r.text
