"""Client-side helpers of the gateway tests: play through REST, read Server-Sent Events."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

import httpx


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def api_key(http: httpx.Client, name: str = "tester") -> str:
    """A new player's API key (what creating a game needs)."""
    r = http.post("/v1/players", json={"name": name})
    assert r.status_code == 201, r.text
    return r.json()["api_key"]


def create(http: httpx.Client, game: str, players: int, seed: int = 1, key: str | None = None, **extra) -> dict:
    """A game created by `key`'s player (a new player when None, so tests never meet each other's quotas)."""
    body = {"game": game, "players": players, "seed": seed, **extra}
    r = http.post("/v1/games", json=body, headers=auth(key or api_key(http)))
    assert r.status_code == 201, r.text
    return r.json()


def play_random(http: httpx.Client, game_id: str, tokens: dict[int, str], rng: random.Random,
                max_steps: int = 100_000) -> int:
    """Play random legal actions for every seat through REST alone until the game ends; returns the steps."""
    game = http.get(f"/v1/games/{game_id}").json()
    to_act = game["to_act"]
    steps = 0
    while game["status"] == "active":
        assert to_act, "an active game has someone to act"
        seat = rng.choice(to_act)
        legal = http.get(f"/v1/games/{game_id}/actions", headers=auth(tokens[seat])).json()
        assert legal["seat"] == seat and legal["actions"], legal
        action = rng.choice(legal["actions"])
        r = http.post(f"/v1/games/{game_id}/actions", headers=auth(tokens[seat]),
                      json={"action": action, "expected_version": legal["version"]})
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["version"] == legal["version"] + 1
        game["status"], to_act = body["status"], body["to_act"]
        steps += 1
        assert steps < max_steps, "the game did not end"
    return steps


@dataclass
class Sse:
    """One parsed Server-Sent Event (or a comment when `comment` is set)."""

    event: str = "message"
    data: str = ""
    id: str | None = None
    comment: str | None = None
    lines: list[str] = field(default_factory=list)

    def json(self):
        return json.loads(self.data)


def read_sse(client: httpx.Client, url: str, headers: dict[str, str] | None = None,
             stop_after: int | None = None, comments: bool = False) -> list[Sse]:
    """Read a stream until it closes (or `stop_after` events); comments are kept when asked."""
    out: list[Sse] = []
    current = Sse()
    data: list[str] = []
    with client.stream("GET", url, headers=headers or {}) as r:
        assert r.status_code == 200, r.read()
        assert r.headers["content-type"].startswith("text/event-stream")
        for line in r.iter_lines():
            if line.startswith(":"):
                if comments:
                    out.append(Sse(comment=line[1:].strip()))
                continue
            if line == "":
                if data or current.id is not None:
                    current.data = "\n".join(data)
                    out.append(current)
                    if stop_after is not None and sum(1 for e in out if e.comment is None) >= stop_after:
                        return out
                current, data = Sse(), []
                continue
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "data":
                data.append(value)
            elif name == "event":
                current.event = value
            elif name == "id":
                current.id = value
    return out
