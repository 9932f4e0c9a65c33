"""Games set up over the gateway's REST API for the browser tests (what a page then shows is the test's subject)."""

from __future__ import annotations

import httpx


def rest_game(http: httpx.Client, owner: str, body: dict) -> tuple[str, dict[int, dict[str, str]]]:
    """A game created by a new player named `owner` (POST /v1/games with `body`): its id and, per seat, the
    Authorization header of the seat's token."""
    key = http.post("/v1/players", json={"name": owner}).raise_for_status().json()["api_key"]
    created = http.post("/v1/games", headers={"Authorization": f"Bearer {key}"}, json=body).raise_for_status().json()
    return created["game_id"], {s["seat"]: {"Authorization": f"Bearer {s['token']}"} for s in created["seats"]}


def move(http: httpx.Client, game_id: str, tokens: dict[int, dict[str, str]], pick=lambda actions: actions[0]) -> dict:
    """One move of the first seat to act (`pick` chooses among its legal actions); the game as it was before it."""
    game = http.get(f"/v1/games/{game_id}").raise_for_status().json()
    seat = game["to_act"][0]
    actions = http.get(f"/v1/games/{game_id}/actions", headers=tokens[seat]).raise_for_status().json()["actions"]
    http.post(f"/v1/games/{game_id}/actions", headers=tokens[seat],
              json={"action": pick(actions), "expected_version": game["version"]}).raise_for_status()
    return game
