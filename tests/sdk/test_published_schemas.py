"""Every answer and every stream event of whole games validates against the schemas the gateway publishes.

A seeded random game of every title is played through REST alone; each JSON answer is validated against its
operation's schema for that status, and every Server-Sent Event of the spectator's stream, of each seat's
stream and of both players' account streams against the schema `/openapi.json` names for it (`x-sse-events`).
OpenSky and Blue Skies start from a rated challenge (so the account streams carry challenges, game starts, turns
and the end); Aeroplanes, for three, from `POST /v1/games`.
"""

from __future__ import annotations

import json
import random
import threading
from typing import Any

import httpx
import jsonschema
import pytest
from httpx_sse import connect_sse

GAMES = {"opensky": 2, "blueskies": 2, "aeroplanes": 3}


class Checker:
    """Validates answers and stream events against the live gateway's /openapi.json."""

    def __init__(self, http: httpx.Client):
        self.doc = http.get("/openapi.json").json()
        self.http = http
        self.checked: dict[str, int] = {}
        self.lock = threading.Lock()

    def validate(self, schema: dict[str, Any], value: Any, where: str) -> None:
        try:
            jsonschema.Draft202012Validator({**schema, "components": self.doc["components"]}).validate(value)
        except jsonschema.ValidationError as exc:
            raise AssertionError(f"{where}: {exc.message}\n{json.dumps(value)[:600]}") from None
        with self.lock:
            self.checked[where] = self.checked.get(where, 0) + 1

    def call(self, method: str, template: str, expect: int, token: str | None = None, **kw) -> Any:
        """Send the request, check the status, validate the JSON answer against the documented schema."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        r = self.http.request(method, template.format(**kw.pop("path", {})), headers=headers, **kw)
        assert r.status_code == expect, (method, template, r.status_code, r.text)
        spec = self.doc["paths"][template][method.lower()]["responses"][str(r.status_code)]
        self.validate(spec["content"]["application/json"]["schema"], r.json(), f"{method} {template} {expect}")
        return r.json()

    def follow(self, url: str, template: str, token: str, out: list, until: str | None = None) -> None:
        """Read a stream (to its end, or to the first `until` event) validating every event's data."""
        events = self.doc["paths"][template]["get"]["x-sse-events"]
        with httpx.Client(base_url=str(self.http.base_url), timeout=60) as client, connect_sse(
                client, "GET", url, headers={"Authorization": f"Bearer {token}"} if token else {}) as source:
            for sse in source.iter_sse():
                if not sse.data:
                    continue  # a keep-alive comment (httpx-sse reports it with the last id)
                data = json.loads(sse.data)
                assert sse.event in events, f"{template}: undocumented event {sse.event!r}"
                self.validate(events[sse.event], data, f"{template} {sse.event}")
                out.append((sse.event, data))
                if sse.event == until or sse.event == "end":
                    return


def start(checker: Checker, name: str, players: int, seed: int) -> tuple[str, dict[int, str], list[str]]:
    """A game and its seat tokens (a rated challenge for two, else POST /v1/games) and the players' API keys."""
    keys = [checker.call("POST", "/v1/players", 201, json={"name": f"schema-{i}", "kind": "bot"})
            for i in range(2)]
    if players != 2:
        created = checker.call("POST", "/v1/games", 201, keys[0]["api_key"],
                               json={"game": name, "players": players, "seed": seed})
        return created["game_id"], {s["seat"]: s["token"] for s in created["seats"]}, []
    ch = checker.call("POST", "/v1/challenges", 201, keys[0]["api_key"],
                      json={"to": keys[1]["player_id"], "game": name, "rated": True})
    checker.call("GET", "/v1/challenges", 200, keys[1]["api_key"])
    checker.call("GET", "/v1/challenges/{challenge_id}", 200, keys[0]["api_key"],
                 path={"challenge_id": ch["challenge_id"]})
    accepted = checker.call("POST", "/v1/challenges/{challenge_id}/accept", 200, keys[1]["api_key"],
                            path={"challenge_id": ch["challenge_id"]})
    start_events: list = []
    checker.follow("/v1/players/me/events", "/v1/players/me/events", keys[0]["api_key"], start_events,
                   until="game_start")
    token = next(d["token"] for e, d in start_events if e == "game_start")
    tokens = {accepted["seat"]: accepted["token"], 1 - accepted["seat"]: token}
    return accepted["game_id"], tokens, [k["api_key"] for k in keys]


@pytest.mark.slow  # every message of three whole games, about 30 s: `make test-slow` (in CI)
@pytest.mark.parametrize("name", sorted(GAMES))
def test_whole_games_validate_against_the_published_schemas(sdk_gateway, name: str) -> None:
    players = GAMES[name]
    with httpx.Client(base_url=sdk_gateway.url, timeout=30) as http:
        checker = Checker(http)
        game_id, tokens, keys = start(checker, name, players, seed=11)
        streams: dict[str, list] = {}
        url = f"/v1/games/{game_id}/events"
        readers = [("spectator", url, "/v1/games/{game_id}/events", None),
                   *((f"seat{s}", url, "/v1/games/{game_id}/events", t) for s, t in tokens.items())]
        threads = []
        for label, stream_url, template, token in readers:
            streams[label] = []
            threads.append(threading.Thread(target=checker.follow, args=(stream_url, template, token, streams[label])))
        for t in threads:
            t.start()
        rng = random.Random(11)
        path = {"game_id": game_id}
        game = checker.call("GET", "/v1/games/{game_id}", 200, path=path)
        to_act, status = game["to_act"], game["status"]
        moves = 0
        while status == "active":
            seat = rng.choice(to_act)
            legal = checker.call("GET", "/v1/games/{game_id}/actions", 200, tokens[seat], path=path)
            body = {"action": rng.choice(legal["actions"]), "expected_version": legal["version"]}
            done = checker.call("POST", "/v1/games/{game_id}/actions", 200, tokens[seat], path=path, json=body)
            to_act, status = done["to_act"], done["status"]
            moves += 1
            if moves % 25 == 1:
                checker.call("GET", "/v1/games/{game_id}", 200, tokens[seat], path=path)
        for t in threads:
            t.join(60)
        final = checker.call("GET", "/v1/games/{game_id}", 200, path=path)
        assert final["status"] == "finished"
        checker.call("GET", "/v1/games/{game_id}/log", 200, path=path)
        stale = {"action": body["action"], "expected_version": 0}
        checker.call("POST", "/v1/games/{game_id}/actions", 409, tokens[0], path=path, json=stale)
        for label, events in streams.items():
            assert events and events[-1][0] == "end", label
            assert sum(1 for e, _d in events if e == "state") == final["version"] + 1, label
        for key in keys:  # both account streams, from their start to the game's end
            account: list = []
            checker.follow("/v1/players/me/events?replay=true", "/v1/players/me/events", key, account,
                           until="game_end")
            assert {e for e, _d in account} >= {"challenge", "game_start", "your_turn", "game_end"}
            checker.call("GET", "/v1/players/me", 200, key)
            checker.call("GET", "/v1/players/me/games", 200, key)
    assert checker.checked["/v1/games/{game_id}/events message"] >= moves
