"""A full game of every registered game, played through REST alone with random legal actions for every seat.

Seat isolation on the real engines: at every version, what each token (and a spectator) reads through
GET /v1/games/{id} and the SSE stream is exactly the engine's `view(seat)` and redacted events, replayed
here from the published log; the conformance suite proves those redactions hide the other seats' secrets.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict

import httpx
import pytest

import engine
from engine import redact_events
from tests.gateway.helpers import auth, create, read_sse
from tests.titles import longest_title_slow


def _play_recording(http: httpx.Client, game_id: str, tokens: dict[int, str], rng: random.Random):
    """Random legal play; returns {version: {seat|None: view}} as read through REST before each move."""
    views: dict[int, dict] = {}
    while True:
        seen = {}
        for seat in [None, *tokens]:
            g = http.get(f"/v1/games/{game_id}", headers=auth(tokens[seat]) if seat is not None else {}).json()
            assert g["seat"] == seat
            seen[seat] = g
        version = seen[None]["version"]
        assert all(g["version"] == version for g in seen.values())
        views[version] = {seat: g["view"] for seat, g in seen.items()}
        if seen[None]["status"] == "finished":
            return views
        seat = rng.choice(seen[None]["to_act"])
        legal = http.get(f"/v1/games/{game_id}/actions", headers=auth(tokens[seat])).json()
        r = http.post(f"/v1/games/{game_id}/actions", headers=auth(tokens[seat]),
                      json={"action": rng.choice(legal["actions"]), "expected_version": legal["version"]})
        assert r.status_code == 200, r.text


# the longest title (Aeroplanes, ~20 s under load) in make test-slow; the other titles keep the path in make test (make
# test's ten-minute budget)
@pytest.mark.parametrize("name", longest_title_slow(engine.games()))
def test_full_game_through_rest_with_seat_isolation(http: httpx.Client, gateway, name: str) -> None:
    catalog = {g["name"]: g for g in http.get("/v1/catalog").json()["games"]}
    assert name in catalog
    players = catalog[name]["min_players"]
    created = create(http, name, players, seed=2026)
    gid = created["game_id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    assert sorted(tokens) == list(range(players)) and all(tokens.values())

    views = _play_recording(http, gid, tokens, random.Random(name))

    final = http.get(f"/v1/games/{gid}", headers=auth(tokens[0])).json()
    assert final["status"] == "finished" and final["to_act"] == []
    assert final["winners"] and set(final["winners"]) <= set(range(players))
    assert http.get(f"/v1/games/{gid}/actions", headers=auth(tokens[0])).json()["actions"] == []
    log = http.get(f"/v1/games/{gid}/log").json()
    assert log["seed"] == 2026 and log["winners"] == final["winners"] and log["scores"] == final["scores"]

    streams = {}
    with gateway.client() as c:
        for seat in [None, *tokens]:
            events = read_sse(c, f"/v1/games/{gid}/events", auth(tokens[seat]) if seat is not None else {})
            per_version = defaultdict(list)
            for e in events:
                if e.event == "message":
                    data = e.json()
                    assert data.pop("version") == int(e.id)
                    per_version[int(e.id)].append(data)
            assert events[-1].event == "end"
            streams[seat] = per_version

    # replay the published log with the engine and compare every seat's picture at every version
    game = engine.get(name)
    state = game.new(players, log["seed"], log["options"])
    version = min(views)
    for seat in [None, *tokens]:
        assert views[version][seat] == json.loads(json.dumps(state.view(seat)))
    for entry in log["actions"]:
        events = state.apply(entry["seat"], game.action_from_json(entry["action"]))
        version = entry["v"]
        for seat in [None, *tokens]:
            assert views[version][seat] == json.loads(json.dumps(state.view(seat))), (seat, version)
            redacted = json.loads(json.dumps(redact_events(events, seat)))
            assert streams[seat].get(version, []) == redacted, (seat, version)
    assert state.is_over() and state.winners() == final["winners"]
