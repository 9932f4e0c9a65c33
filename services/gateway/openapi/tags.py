"""One tag per operation in /openapi.json: the resource its path names.

Why from the path: generators group a client's methods by tag (openapi-python-client makes a module per tag,
openapi-generator a class), and an untagged operation lands in "default"; two thirds of the operations had no tag
once. Deriving the tag from the path gives every operation one, a new route included, with no list to forget.
"""

from __future__ import annotations

from typing import Any

#: The tags in the order Swagger UI shows them, each with what its operations are about.
DESCRIPTIONS: dict[str, str] = {
    "catalog": "The games this platform serves, their options and the bot levels.",
    "games": "Games: create one, read it as a seat or a spectator, play, leave, follow its events, read its log.",
    "players": "Players: create an account (and its API key), read a player's ratings and archived games.",
    "accounts": "Your own account, with its API key: its keys, its games and its event stream.",
    "webhooks": "Your account's webhooks: HTTPS endpoints that receive its events, signed (Standard Webhooks); "
    "their delivery log and redelivery.",
    "matchmaking": "Rated matchmaking: queue a ticket, poll it until matched, cancel it.",
    "challenges": "Challenges from one player to another: send, read, accept, decline, cancel.",
    "leaderboard": "The best rated players of each game.",
    "tournaments": "Swiss tournaments at tables: create one, enter, withdraw, read its rounds and standings.",
    "health": "Liveness and readiness of the gateway, for load balancers and orchestrators.",
}

#: Paths whose resource is not their first segment after /v1 (the longest prefix that matches wins).
SPECIAL: dict[str, str] = {"/v1/players/me": "accounts", "/v1/players/me/webhooks": "webhooks",
                            "/healthz": "health", "/readyz": "health"}


def tag_of(path: str) -> str:
    """The resource of `path`: `/v1/games/{game_id}/actions` -> `games`."""
    for prefix in sorted(SPECIAL, key=len, reverse=True):
        if path == prefix or path.startswith(prefix + "/"):
            return SPECIAL[prefix]
    parts = [p for p in path.split("/") if p]
    return parts[1] if len(parts) > 1 and parts[0] == "v1" else parts[0]


def apply(doc: dict[str, Any]) -> None:
    """Tag every operation with its resource, and describe every tag used (in place)."""
    used: list[str] = []
    for path, item in doc["paths"].items():
        for op in item.values():
            op["tags"] = [tag_of(path)]
            used.append(op["tags"][0])
    order = [*DESCRIPTIONS, *sorted(set(used) - set(DESCRIPTIONS))]
    doc["tags"] = [{"name": t, "description": DESCRIPTIONS.get(t, f"The `{t}` operations.")}
                   for t in order if t in used]
