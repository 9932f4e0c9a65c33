"""An example request (where there is a body) and an example answer for every operation of /openapi.json.

Kept apart from the routes so the examples read as one story (an account, a Blue Skies game, an OpenSky bid, a
matchmaking ticket, a challenge) and so `tests/sdk/test_openapi_examples.py` can validate each against the
schema it illustrates: an example that stops matching its schema fails the tests.
"""

from __future__ import annotations

from typing import Any

PLAYER = "3f6c2a9e8b7d4c1fa0e5d6b7c8a9f012"
OTHER = "9a8b7c6d5e4f40312a1b2c3d4e5f6a7b"
GAME = "Xy3kP0qLr8sT2uVw"
TOKEN = "sbt_q0D8n3VbXhT6kz1yLw9eRr2mPa5sJcU4oFtG7iYhN0E"
KEY = "sbk_bot_h3Jd9sKq2LmN8pRt5vWx7yZa1bCd4eFg6hIj0kLm"
TICKET = "5d0e8f7a6b9c4d3e2f1a0b9c8d7e6f5a"
CHALLENGE = "7e6f5a4b3c2d41e0f9a8b7c6d5e4f3a2"
REALTIME = {"kind": "realtime", "seconds_per_decision": 60.0, "reserve_seconds": 300.0}
MS = 1_767_225_600_000
DELIVERY = "msg_5f1c2a9e0b7d4c3a8e6f1b2d_1767225600000-0"
RATING = {"mu": 27.1, "sigma": 7.9, "ordinal": 3.4, "games": 3}
SEATS_OUT = [{"seat": 0, "player_id": PLAYER, "kind": "human", "status": "active", "bot_level": None},
             {"seat": 1, "player_id": None, "kind": "bot", "status": "active", "bot_level": "random"}]
CHALLENGE_OUT = {"challenge_id": CHALLENGE, "status": "pending", "challenger": PLAYER, "to": OTHER, "game": "opensky",
                 "players": 2, "options": {"map": "europe", "callsigns": "random"}, "time_control": None,
                 "rated": True, "created_ms": MS, "expires_at": MS + 86_400_000, "game_id": None,
                 "direction": "outgoing"}
TICKET_OUT = {"ticket_id": TICKET, "status": "matched", "game": "opensky", "players": 2, "game_id": GAME, "seat": 1,
              "token": TOKEN, "token_delivered": True, "time_control": REALTIME, "note": None}
TOURNAMENT = "0c1d2e3f4a5b46c7d8e9f0a1b2c3d4e5"
TOURNAMENT_OUT = {"tournament_id": TOURNAMENT, "kind": "swiss", "name": "Sunday Swiss", "game": "blueskies",
                  "organiser": PLAYER, "status": "running", "players": 4, "rounds": 5, "round": 2, "byes": "bots",
                  "points": [3, 2, 1, 0], "bye_points": 1.5, "options": {"first_player": "random"},
                  "time_control": REALTIME, "rated": True, "bots_allowed": True, "max_players": 64, "entrants": 30,
                  "created_ms": MS, "starts_at": MS + 3_600_000}
WEBHOOK_ID = "6c1f0e9d8a7b6c5d4e3f2a1b"
WEBHOOK = {"webhook_id": WEBHOOK_ID, "url": "https://bot.example.com/skyboard", "events": ["game_end", "your_turn"],
           "description": "my correspondence bot", "created_ms": MS, "enabled": True, "disabled": None}
BID = {"type": "bid", "fare": 300, "itinerary": ["AMS", "LHR"]}
GAME_EVENTS = (
    'id: 12\ndata: {"type": "bid_sealed", "seat": 0, "version": 12}\n\n'
    'event: state\nid: 12\ndata: {"version": 12, "kind": "action", "actor": 0, "status": "active", "to_act": [1], '
    '"scores": null, "winners": null}\n\n'
)
ACCOUNT_EVENTS = (
    f'event: game_start\nid: 1767225600000-0\ndata: {{"game_id": "{GAME}", "game": "opensky", "seat": 1, '
    f'"ticket_id": "{TICKET}", "token": null, "token_delivered": false}}\n\n'
    f'event: your_turn\nid: 1767225600120-0\ndata: {{"game_id": "{GAME}", "seat": 1, "version": 0, '
    f'"deadline": {MS + 360_000}}}\n\n'
)

#: (method, path) -> {"request": body example or absent, "response": example of the success answer, and
#: "stream": an example text/event-stream for the streaming operations}.
EXAMPLES: dict[tuple[str, str], dict[str, Any]] = {
    ("get", "/v1/catalog"): {"response": {"games": [
        {"name": "blueskies", "title": "Blue Skies", "min_players": 2, "max_players": 5, "options": {
            "first_player": {"default": "random", "choices": ["random", 0, 1, 2, 3, 4],
                             "description": "Who holds the first-player marker in round 1"}}}],
        "bot_levels": ["random", "greedy", "mcts-easy", "fast", "mcts-normal", "mcts-hard"]}},
    ("post", "/v1/games"): {
        "request": {"game": "blueskies", "players": 2, "bots": {"1": "random"}, "time_control": REALTIME},
        "response": {"game_id": GAME, "seats": [{"seat": 0, "token": TOKEN, "bot": None},
                                                {"seat": 1, "token": None, "bot": "random"}]}},
    ("get", "/v1/games"): {"response": {"games": [
        {"game_id": GAME, "game": "opensky", "players": 2, "status": "active", "version": 12, "to_act": [1],
         "bots": {"1": "random"}, "created_ms": MS, "updated_ms": MS + 95_000, "time_control": REALTIME}]}},
    ("get", "/v1/games/{game_id}"): {"response": {
        "game_id": GAME, "game": "blueskies", "version": 3, "status": "active", "to_act": [0], "seat": 0,
        "scores": None, "winners": None, "places": None, "players": 2, "bots": {"1": "random"}, "turn_seconds": 60.0,
        "deadlines": {"0": MS + 60_000}, "time_control": REALTIME, "reserves": {"0": 300_000, "1": 300_000},
        "seats": SEATS_OUT}},
    ("get", "/v1/games/{game_id}/actions"): {"response": {"version": 12, "seat": 0, "actions": [
        BID, {"type": "bid", "fare": 200, "itinerary": ["AMS", "CDG", "LHR"]}, {"type": "pass"}]}},
    ("post", "/v1/games/{game_id}/actions"): {
        "request": {"action": BID, "expected_version": 12},
        "response": {"version": 13, "events": [{"type": "bid_sealed", "seat": 0}], "status": "active",
                     "to_act": [1], "replayed": False}},
    ("post", "/v1/games/{game_id}/take-back"): {
        "request": {"expected_version": 13},
        "response": {"version": 14, "events": [{"type": "taken_back", "seat": 0, "restores": 12}], "status": "active",
                     "to_act": [0, 1], "replayed": False}},
    ("post", "/v1/games/{game_id}/resign"): {"response": {"version": 14}},
    ("post", "/v1/games/{game_id}/abort"): {"response": {"version": 1}},
    ("post", "/v1/games/{game_id}/token"): {"response": {"token": TOKEN}},
    ("get", "/v1/games/{game_id}/log"): {"response": {
        "game_id": GAME, "game": "opensky", "players": 2, "options": {"map": "europe", "callsigns": "random"},
        "seed": 7, "actions": [{"seat": 0, "action": {"type": "place_aircraft", "route": "AMS-CDG"}, "version": 1}],
        "version": 54, "final_digest": "9c1f0e4b7a2d", "status": "finished", "scores": [412, 380],
        "winners": [0]}},
    ("get", "/v1/games/{game_id}/events"): {"stream": GAME_EVENTS},
    ("post", "/v1/players"): {"request": {"name": "my-bot", "kind": "bot"},
                              "response": {"player_id": PLAYER, "api_key": KEY}},
    ("get", "/v1/players/me"): {"response": {"player_id": PLAYER, "name": "my-bot", "kind": "bot",
                                             "ratings": {"opensky": RATING}, "created_ms": MS}},
    ("post", "/v1/players/me/keys"): {"response": {"api_key": KEY, "previous_key_valid_s": 86400}},
    ("post", "/v1/players/me/keys/revoke-others"): {"response": {"revoked": 1}},
    ("post", "/v1/players/me/webhooks"): {
        "request": {"url": "https://bot.example.com/skyboard", "events": ["your_turn", "game_end"],
                    "description": "my correspondence bot"},
        "response": {**WEBHOOK, "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}},
    ("get", "/v1/players/me/webhooks"): {"response": {"webhooks": [WEBHOOK]}},
    ("get", "/v1/players/me/webhooks/{webhook_id}"): {"response": WEBHOOK},
    ("delete", "/v1/players/me/webhooks/{webhook_id}"): {"response": {"webhook_id": WEBHOOK_ID, "deleted": True}},
    ("post", "/v1/players/me/webhooks/{webhook_id}/rotate-secret"): {
        "response": {"secret": "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD", "previous_secret_valid_s": 3600}},
    ("post", "/v1/players/me/webhooks/{webhook_id}/enable"): {"response": WEBHOOK},
    ("get", "/v1/players/me/webhooks/{webhook_id}/deliveries"): {"response": {"deliveries": [
        {"delivery_id": DELIVERY, "type": "your_turn", "event": "1767225600000-0", "event_ms": MS,
         "attempt": 2, "outcome": "delivered", "status_code": 204, "latency_ms": 41.5, "at_ms": MS + 6_000,
         "next_attempt_ms": None, "error": None, "manual": False},
        {"delivery_id": DELIVERY, "type": "your_turn", "event": "1767225600000-0", "event_ms": MS,
         "attempt": 1, "outcome": "retry", "status_code": 503, "latency_ms": 12.0, "at_ms": MS + 20,
         "next_attempt_ms": MS + 4_100, "error": "HTTP 503", "manual": False}]}},
    ("post", "/v1/players/me/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver"): {
        "response": {"queued": True, "delivery_id": DELIVERY}},
    ("delete", "/v1/players/me"): {"request": {"confirm_name": "my-bot"},
                                   "response": {"player_id": PLAYER, "resigned": [{"game_id": GAME, "seat": 1}],
                                                "tickets_cancelled": 0, "challenges_closed": 1}},
    ("get", "/v1/players/me/games"): {"response": {"games": [
        {"game_id": GAME, "game": "opensky", "seat": 1, "seats": [1], "status": "active", "my_turn": True,
         "version": 12, "to_act": [1], "deadline": MS + 60_000, "since_ms": MS, "scores": None, "winners": None}],
        "next_cursor": None}},
    ("get", "/v1/players/me/events"): {"stream": ACCOUNT_EVENTS},
    ("get", "/v1/players/{player_id}"): {"response": {"player_id": PLAYER, "name": "my-bot", "kind": "bot",
                                                      "ratings": {"opensky": RATING}}},
    ("get", "/v1/players/{player_id}/games"): {"response": {"player_id": PLAYER, "games": [
        {"game_id": GAME, "game": "opensky", "status": "finished", "players": 2, "seats": [1], "owner": False,
         "version": 54, "scores": [412, 380], "winners": [0], "rated": True, "created_ms": MS,
         "finished_ms": MS + 900_000, "time_control": REALTIME}], "next_cursor": None}},
    ("post", "/v1/matchmaking/tickets"): {
        "request": {"game": "opensky", "players": 2, "time_control": REALTIME, "opponents": "any",
                    "bots_after_s": 30},
        "response": {"ticket_id": TICKET, "status": "queued"}},
    ("get", "/v1/matchmaking/tickets/{ticket_id}"): {"response": TICKET_OUT},
    ("delete", "/v1/matchmaking/tickets/{ticket_id}"): {"response": {
        **TICKET_OUT, "status": "cancelled", "game_id": None, "seat": None, "token": None, "token_delivered": False}},
    ("get", "/v1/leaderboard/{game}"): {"response": {"game": "opensky", "entries": [
        {"rank": 1, "player_id": PLAYER, "name": "my-bot", "kind": "bot", **RATING}]}},
    ("post", "/v1/challenges"): {
        "request": {"to": OTHER, "game": "opensky", "players": 2, "rated": True,
                    "time_control": {"kind": "correspondence", "days_per_decision": 2}},
        "response": {"challenge_id": CHALLENGE, "status": "pending", "expires_at": MS + 86_400_000}},
    ("get", "/v1/challenges"): {"response": {"challenges": [CHALLENGE_OUT]}},
    ("get", "/v1/challenges/{challenge_id}"): {"response": CHALLENGE_OUT},
    ("delete", "/v1/challenges/{challenge_id}"): {"response": {**CHALLENGE_OUT, "status": "cancelled"}},
    ("post", "/v1/tournaments"): {
        "request": {"name": "Sunday Swiss", "game": "blueskies", "players": 4, "rounds": 5, "byes": "bots",
                    "time_control": REALTIME, "rated": True, "bots_allowed": True, "max_players": 64,
                    "starts_at": MS + 3_600_000},
        "response": {"tournament_id": TOURNAMENT}},
    ("get", "/v1/tournaments"): {"response": {"tournaments": [TOURNAMENT_OUT]}},
    ("get", "/v1/tournaments/{tournament_id}"): {"response": TOURNAMENT_OUT},
    ("get", "/v1/tournaments/{tournament_id}/standings"): {"response": {
        "tournament_id": TOURNAMENT, "status": "running", "round": 1,
        "standings": [{"rank": 1, "player_id": PLAYER, "points": 3.0, "buchholz": 1.0, "game_score": 42, "games": 1,
                       "byes": 0, "withdrawn": False},
                      {"rank": 2, "player_id": OTHER, "points": 1.0, "buchholz": 3.0, "game_score": 30, "games": 1,
                       "byes": 1, "withdrawn": False}],
        "rounds": [{"round": 1, "byes": [], "tables": [
            {"number": 1, "players": [PLAYER, OTHER, None, None], "game_id": GAME, "places": [1, 3, 2, 4]}]}]}},
    ("get", "/v1/tournaments/{tournament_id}/events"): {"stream": (
        f'event: pairing\nid: 1767229200000-0\ndata: {{"tournament_id": "{TOURNAMENT}", "round": 1, "byes": [], '
        f'"tables": [{{"number": 1, "players": ["{PLAYER}", "{OTHER}", null, null], "game_id": "{GAME}"}}]}}\n\n'
        f'event: standings\nid: 1767229200000-1\ndata: {{"tournament_id": "{TOURNAMENT}", "round": 0, '
        f'"standings": []}}\n\n')},
    ("post", "/v1/tournaments/{tournament_id}/join"): {"response": {
        "tournament_id": TOURNAMENT, "player_id": PLAYER, "entered": True, "resigned": []}},
    ("post", "/v1/tournaments/{tournament_id}/withdraw"): {"response": {
        "tournament_id": TOURNAMENT, "player_id": PLAYER, "entered": True, "resigned": [GAME]}},
    ("post", "/v1/challenges/{challenge_id}/accept"): {"response": {"game_id": GAME, "seat": 0, "token": TOKEN}},
    ("post", "/v1/challenges/{challenge_id}/decline"): {"request": {"reason": "too_fast"}, "response": {
        **CHALLENGE_OUT, "status": "declined", "direction": "incoming", "reason": "too_fast"}},
    ("get", "/healthz"): {"response": {"status": "ok", "checks": {}}},
    ("get", "/readyz"): {"response": {"status": "ready", "checks": {"redis": True, "gamestate": True}}},
}

#: An error answer, shown on each operation's 409 / 422 / 429 where it documents one.
ERROR_EXAMPLES = {
    "409": {"error": {"code": "stale_version", "message": "expected version 11, the game is at 12", "rule": None,
                      "current_version": 12}},
    "422": {"error": {"code": "illegal_action", "message": "fare 600 is not a card in hand", "rule": "OS-10.2"}},
    "429": {"error": {"code": "rate_limited", "message": "too many requests; retry after 12 s", "rule": None}},
}


def attach(doc: dict[str, Any], view_examples: dict[str, Any]) -> None:
    """Put the examples into an OpenAPI document (in place): request bodies, success answers, streams, errors.
    `view_examples`: title -> a real view of it (`views.view_example`)."""
    for path, item in doc["paths"].items():
        for method, op in item.items():
            example = EXAMPLES.get((method, path))
            if example is None:
                continue
            if (method, path) == ("get", "/v1/games/{game_id}"):  # a real view of the title (its schema is strict)
                view = view_examples[example["response"]["game"]]
                example = {**example, "response": {**example["response"], "view": view}}
            if "request" in example and "requestBody" in op:
                op["requestBody"]["content"]["application/json"]["example"] = example["request"]
            ok = next(s for s in op["responses"] if s.startswith("2"))
            content = op["responses"][ok].setdefault("content", {})
            if "response" in example:
                content.setdefault("application/json", {})["example"] = example["response"]
            if "stream" in example:
                content.setdefault("text/event-stream", {})["example"] = example["stream"]
                content.pop("application/json", None)  # a stream answers text/event-stream only
            for status, body in ERROR_EXAMPLES.items():
                if status in op["responses"]:
                    op["responses"][status].get("content", {}).get("application/json", {}).setdefault("example", body)
