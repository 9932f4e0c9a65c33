"""Which credential each operation of /openapi.json takes, and the public spec's shape around it.

Why a table: the routes read `Authorization` themselves (a bearer that is an API key or a seat token), so
FastAPI cannot infer it; a generated client needs each operation's `security` to know what to send. Every
public operation must be listed (a test checks it); one that is not falls back to "any of them", which is
what the document said before the table. `[]` is an operation that needs no credential (the document has no
root-level `security`); `[{"SeatToken": []}, {"ApiKey": []}, {}]` one where a seat's credential is optional
(without it, a spectator's answer).
"""

from __future__ import annotations

import re
from typing import Any

API_KEY: list[dict[str, list[str]]] = [{"ApiKey": []}]
#: a seat route: the seat's token, or the API key of the account holding the seat (docs/decisions/accounts.md: it acts
#: for every seat the account holds, `?seat=N` choosing one of several)
SEAT: list[dict[str, list[str]]] = [{"SeatToken": []}, {"ApiKey": []}]
SEAT_OR_NONE: list[dict[str, list[str]]] = [{"SeatToken": []}, {"ApiKey": []}, {}]
NONE: list[dict[str, list[str]]] = []
ANY: list[dict[str, list[str]]] = [{"ApiKey": []}, {"SeatToken": []}, {}]

SECURITY: dict[tuple[str, str], list[dict[str, list[str]]]] = {
    ("get", "/v1/catalog"): NONE, ("post", "/v1/games"): API_KEY, ("get", "/v1/games"): NONE,
    ("get", "/v1/games/{game_id}"): SEAT_OR_NONE, ("get", "/v1/games/{game_id}/actions"): SEAT,
    ("post", "/v1/games/{game_id}/actions"): SEAT, ("post", "/v1/games/{game_id}/resign"): SEAT,
    ("post", "/v1/games/{game_id}/abort"): SEAT, ("post", "/v1/games/{game_id}/token"): SEAT,
    ("post", "/v1/games/{game_id}/take-back"): SEAT,
    ("get", "/v1/games/{game_id}/log"): NONE, ("get", "/v1/games/{game_id}/events"): SEAT_OR_NONE,
    ("post", "/v1/players"): NONE, ("get", "/v1/players/me"): API_KEY, ("delete", "/v1/players/me"): API_KEY,
    ("post", "/v1/players/me/keys"): API_KEY,
    ("post", "/v1/players/me/keys/revoke-others"): API_KEY, ("get", "/v1/players/me/games"): API_KEY,
    ("get", "/v1/players/me/events"): API_KEY,
    ("post", "/v1/players/me/webhooks"): API_KEY, ("get", "/v1/players/me/webhooks"): API_KEY,
    ("get", "/v1/players/me/webhooks/{webhook_id}"): API_KEY,
    ("delete", "/v1/players/me/webhooks/{webhook_id}"): API_KEY,
    ("post", "/v1/players/me/webhooks/{webhook_id}/rotate-secret"): API_KEY,
    ("post", "/v1/players/me/webhooks/{webhook_id}/enable"): API_KEY,
    ("get", "/v1/players/me/webhooks/{webhook_id}/deliveries"): API_KEY,
    ("post", "/v1/players/me/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver"): API_KEY,
    ("get", "/v1/players/{player_id}"): NONE,
    ("get", "/v1/players/{player_id}/games"): NONE, ("post", "/v1/matchmaking/tickets"): API_KEY,
    ("get", "/v1/matchmaking/tickets/{ticket_id}"): API_KEY, ("delete", "/v1/matchmaking/tickets/{ticket_id}"): API_KEY,
    ("get", "/v1/leaderboard/{game}"): NONE, ("post", "/v1/challenges"): API_KEY, ("get", "/v1/challenges"): API_KEY,
    ("get", "/v1/challenges/{challenge_id}"): API_KEY, ("delete", "/v1/challenges/{challenge_id}"): API_KEY,
    ("post", "/v1/challenges/{challenge_id}/accept"): API_KEY,
    ("post", "/v1/challenges/{challenge_id}/decline"): API_KEY,
    ("post", "/v1/tournaments"): API_KEY, ("get", "/v1/tournaments"): NONE,
    ("get", "/v1/tournaments/{tournament_id}"): NONE, ("get", "/v1/tournaments/{tournament_id}/standings"): NONE,
    ("post", "/v1/tournaments/{tournament_id}/join"): API_KEY,
    ("post", "/v1/tournaments/{tournament_id}/withdraw"): API_KEY,
    ("get", "/v1/tournaments/{tournament_id}/events"): NONE,
    ("get", "/healthz"): NONE, ("get", "/readyz"): NONE,
}

#: Where a generated client sends its calls: the gateway that served the document, or `make run`'s.
SERVERS = [{"url": "/", "description": "The gateway that serves this document"},
           {"url": "http://127.0.0.1:8000", "description": "`make run` on this machine"}]

#: Path prefixes of the web client's own helper routes: served, but not part of the public API.
INTERNAL_PREFIXES = ("/webclient/",)


def camel(name: str) -> str:
    """`get_game` -> `getGame`: an operationId read as a method name."""
    head, *rest = name.split("_")
    return head + "".join(p.capitalize() for p in rest)


def route_name(operation_id: str, method: str, path: str) -> str:
    """The route's function name inside FastAPI's default operationId (`<name><path with \\W as _>_<method>`)."""
    return operation_id.removesuffix(re.sub(r"\W", "_", path) + "_" + method)


def apply(doc: dict[str, Any]) -> None:
    """Drop the internal routes, then give each operation its `security` and an operationId from its route's
    function name (in place)."""
    for path in [p for p in doc["paths"] if p.startswith(INTERNAL_PREFIXES)]:
        del doc["paths"][path]
    doc["servers"] = SERVERS
    for path, item in doc["paths"].items():
        for method, op in item.items():
            op["security"] = SECURITY.get((method, path), ANY)
            if "operationId" in op:
                op["operationId"] = camel(route_name(op["operationId"], method, path))
