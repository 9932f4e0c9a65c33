"""The schemas of what the two event streams send, published in /openapi.json's `components`.

Server-Sent Events have no place for a schema in OpenAPI 3.1, so the streaming operations name theirs in a
vendor extension, `x-sse-events` (SSE event name -> schema), and the schemas themselves are ordinary components:

- game streams: `message` data is one engine event plus `version`: per title a `oneOf` discriminated on `type`
  (`OpenskyEvent`, ...), every event type the engine declares (`Game.event_types`, engine/<game>/shapes.py, turned
  into JSON Schema by `declared.py`), plus the platform's own events (`timeout`, `seat_resigned`, ...); `state`
  and `end` data is `GameStreamState`; `error` data the error body.
- the account stream: one schema per event (`AccountYourTurnEvent`, ...).

An engine event's schema requires the fields its declaration requires and, like every declared shape, does not
forbid others: a field a newer engine adds does not break a client.
"""

from __future__ import annotations

import copy
from typing import Any, get_args

import engine
from services.gamestate.updates import STREAM_KINDS
from services.gateway.models.accounts import DeclineReason
from services.gateway.openapi.declared import camel, declared
from services.gateway.openapi.vocabulary import PLATFORM_EVENTS

REF = "#/components/schemas/"
SEAT = {"type": "integer", "minimum": 0}
NULLABLE_SEAT = {"anyOf": [SEAT, {"type": "null"}]}

PLATFORM_SCHEMAS: dict[str, dict[str, Any]] = {
    "game_created": {"game": {"type": "string"}, "players": {"type": "integer", "minimum": 1},
                     "options": {"type": "object", "additionalProperties": True}},
    "timeout": {"seat": SEAT},
    "seat_auto_played": {"seat": SEAT},
    "seat_resigned": {"seat": SEAT, "bot": {"type": ["string", "null"]}},
    "seat_abandoned": {"seat": SEAT, "bot": {"type": ["string", "null"]},
                       "reason": {"type": "string", "enum": ["timeouts", "inactive"]}, "timeouts": {"type": "integer"}},
    "game_forfeited": {"seat": SEAT, "reason": {"type": "string", "enum": ["resigned", "abandoned"]}},
    "game_aborted": {"seat": NULLABLE_SEAT, "reason": {"type": "string", "enum": ["requested", "inactive"]}},
    "taken_back": {"seat": SEAT, "restores": {"type": "integer", "minimum": 0,
                                              "description": "The version whose state is back"}},
}
assert set(PLATFORM_SCHEMAS) == set(PLATFORM_EVENTS)

COMMON = {"version": {"type": "integer", "minimum": 0, "description": "The version the event belongs to (streams)"},
          "visible_to": {"type": "array", "items": SEAT, "description": "Only these seats see this event"}}


_name = camel


def _event_schema(name: str, event_type: str, data: dict[str, Any]) -> dict[str, Any]:
    """One event as a stream sends it: its `type`, its data's fields (`data`: their JSON Schema), `version` and,
    for an event only some seats see, `visible_to`."""
    out = {k: copy.deepcopy(v) for k, v in data.items() if k not in ("properties", "required", "title", "type")}
    return {**out, "type": "object", "title": name,
            "properties": {"type": {"type": "string", "const": event_type, "enum": [event_type]},
                           **copy.deepcopy(data.get("properties", {})), **COMMON},
            "required": ["type", *data.get("required", [])]}


def game_event_schemas() -> dict[str, dict[str, Any]]:
    """Component schemas: the platform's events, each engine's events and one union per title."""
    out: dict[str, dict[str, Any]] = {}
    platform: dict[str, str] = {}
    for event_type, fields in PLATFORM_SCHEMAS.items():
        name = _name("platform", event_type, "event")
        out[name] = _event_schema(name, event_type, {"properties": fields, "required": list(fields)})
        platform[event_type] = REF + name
    for game_name in engine.games():
        game = engine.get(game_name)
        mapping = dict(platform)
        _, (data, nested) = declared(game_name)
        out.update(copy.deepcopy(nested))
        for event_type, fields in data.items():
            name = _name(game_name, event_type, "event")
            assert name not in nested, f"{name}: a shape an event nests is named as an event"
            out[name] = _event_schema(name, event_type, fields)
            mapping[event_type] = REF + name
        out[_name(game_name, "event")] = {
            "title": _name(game_name, "event"), "description": f"An event of a {game.title} game",
            "oneOf": [{"$ref": r} for r in mapping.values()],
            "discriminator": {"propertyName": "type", "mapping": mapping}}
    out["GameEvent"] = {"title": "GameEvent",
                        "description": "An event of any title's game (the game id says which title)",
                        "anyOf": [{"$ref": REF + _name(g, "event")} for g in engine.games()]}
    return out


GAME_STREAM_STATE = {
    "type": "object", "title": "GameStreamState", "additionalProperties": False,
    "description": "`state` (closes each version) and `end` (the game is over) data of a game's event stream",
    "properties": {
        "version": {"type": "integer", "minimum": 0}, "kind": {"enum": list(STREAM_KINDS)},
        "actor": NULLABLE_SEAT, "status": {"enum": ["active", "finished", "aborted"]},
        "to_act": {"type": "array", "items": SEAT},
        "scores": {"anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "null"}]},
        "winners": {"anyOf": [{"type": "array", "items": SEAT}, {"type": "null"}]},
    },
    "required": ["version", "kind", "actor", "status", "to_act", "scores", "winners"],
}

_GAME_ID = {"type": "string", "minLength": 1}
_SCORES = {"anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "null"}]}
_WINNERS = {"anyOf": [{"type": "array", "items": SEAT}, {"type": "null"}]}
ACCOUNT_EVENTS: dict[str, dict[str, Any]] = {
    "challenge": {"type": "object", "required": ["challenge"],
                  "properties": {"challenge": {"$ref": REF + "ChallengeOut"}}},
    "challenge_closed": {"type": "object", "additionalProperties": False, "required": ["challenge_id", "status"],
                         "properties": {"challenge_id": {"type": "string"},
                                        "status": {"enum": ["accepted", "declined", "cancelled", "expired"]},
                                        "reason": {"anyOf": [{"enum": list(get_args(DeclineReason))},
                                                             {"type": "null"}]}}},
    "game_start": {"type": "object", "required": ["game_id", "game", "seat", "token", "token_delivered"],
                   "properties": {"game_id": _GAME_ID, "game": {"type": "string"}, "seat": SEAT,
                                  "token": {"type": ["string", "null"]}, "token_delivered": {"type": "boolean"},
                                  "challenge_id": {"type": "string"}, "ticket_id": {"type": "string"},
                                  "note": {"type": "string"}, "ongoing": {"type": "boolean"},
                                  "tournament_id": {"type": "string"}, "round": {"type": "integer", "minimum": 1},
                                  "table": {"type": "integer", "minimum": 1}}},
    "your_turn": {"type": "object", "additionalProperties": False,
                  "required": ["game_id", "seat", "version", "deadline"],
                  "properties": {"game_id": _GAME_ID, "seat": SEAT, "version": {"type": "integer", "minimum": 0},
                                 "deadline": {"type": ["integer", "null"]}}},
    "game_end": {"type": "object", "additionalProperties": False,
                 "required": ["game_id", "seat", "status", "scores", "winners"],
                 "properties": {"game_id": _GAME_ID, "seat": SEAT, "status": {"enum": ["finished", "aborted"]},
                                "scores": _SCORES, "winners": _WINNERS}},
    "webhook_disabled": {"type": "object", "additionalProperties": False,
                         "required": ["webhook_id", "url", "reason", "failing_since_ms"],
                         "properties": {"webhook_id": {"type": "string"}, "url": {"type": "string"},
                                        "reason": {"type": "string"}, "failing_since_ms": {"type": "integer"}}},
}


_STANDINGS = {"type": "array", "items": {"$ref": REF + "StandingOut"}}
#: The tournament feed's events (services/tournaments/feed.py): what the director writes, as a client reads it.
TOURNAMENT_EVENTS: dict[str, dict[str, Any]] = {
    "pairing": {"type": "object", "required": ["tournament_id", "round", "byes", "tables"],
                "properties": {"tournament_id": {"type": "string"}, "round": {"type": "integer", "minimum": 1},
                               "byes": {"type": "array", "items": {"type": "string"}},
                               "tables": {"type": "array", "items": {
                                   "type": "object", "required": ["number", "players", "game_id"],
                                   "properties": {"number": {"type": "integer", "minimum": 1},
                                                  "players": {"type": "array",
                                                              "items": {"type": ["string", "null"]}},
                                                  "game_id": {"type": ["string", "null"]}}}}}},
    "standings": {"type": "object", "required": ["tournament_id", "round", "standings"],
                  "properties": {"tournament_id": {"type": "string"}, "round": {"type": "integer", "minimum": 0},
                                 "standings": _STANDINGS}},
    "end": {"type": "object", "required": ["tournament_id", "rounds", "standings"],
            "properties": {"tournament_id": {"type": "string"}, "rounds": {"type": "integer", "minimum": 0},
                           "standings": _STANDINGS}},
}


def _frame(name: str, event: str, data: dict[str, Any]) -> dict[str, Any]:
    """One Server-Sent Event as a client reads it: its name, its id, its data parsed from JSON."""
    return {"type": "object", "title": name, "required": ["event", "id", "data"],
            "properties": {"event": {"type": "string", "const": event, "enum": [event]},
                           "id": {"anyOf": [{"type": "string"}, {"type": "null"}]}, "data": data}}


def _stream(schemas: dict[str, Any], union: str, events: dict[str, dict[str, Any]], prefix: str) -> dict[str, Any]:
    """Publish one frame schema per SSE event name and their union (discriminated by `event`); the union's $ref."""
    mapping = {}
    for event, data in events.items():
        name = "ErrorFrame" if event == "error" else _name(prefix, event, "frame")
        schemas[name] = _frame(name, event, data)
        mapping[event] = REF + name
    schemas[union] = {"title": union, "oneOf": [{"$ref": r} for r in mapping.values()],
                      "discriminator": {"propertyName": "event", "mapping": mapping},
                      "description": "One event of the stream: `event` is the SSE event name, `data` its JSON data"}
    return {"$ref": REF + union}


def attach(doc: dict[str, Any], game_events: dict[str, dict[str, Any]]) -> None:
    """Publish the stream schemas (`game_events`: `game_event_schemas()`) and name them on the two streaming
    operations (in place): per SSE event name in `x-sse-events`, and as the `text/event-stream` answer's schema (a
    union of frames, which generators turn into types)."""
    schemas = doc["components"]["schemas"]
    schemas.update(game_events)
    schemas["GameStreamState"] = GAME_STREAM_STATE
    for kind, schema in ACCOUNT_EVENTS.items():
        schemas[_name("account", kind, "event")] = {"title": _name("account", kind, "event"), **schema}
    for kind, schema in TOURNAMENT_EVENTS.items():
        schemas[_name("tournament", kind, "event")] = {"title": _name("tournament", kind, "event"), **schema}
    streams = {
        ("/v1/games/{game_id}/events", "get", "GameStreamFrame", "game"): {
            "message": {"$ref": REF + "GameEvent"}, "state": {"$ref": REF + "GameStreamState"},
            "end": {"$ref": REF + "GameStreamState"}, "error": {"$ref": REF + "ErrorBody"}},
        ("/v1/players/me/events", "get", "AccountStreamFrame", "account"): {
            **{k: {"$ref": REF + _name("account", k, "event")} for k in ACCOUNT_EVENTS},
            "error": {"$ref": REF + "ErrorBody"}},
        ("/v1/tournaments/{tournament_id}/events", "get", "TournamentStreamFrame", "tournament"): {
            **{k: {"$ref": REF + _name("tournament", k, "event")} for k in TOURNAMENT_EVENTS},
            "error": {"$ref": REF + "ErrorBody"}},
    }
    for (path, method, union, prefix), events in streams.items():
        frame = _stream(schemas, union, events, prefix)
        op = doc["paths"].get(path, {}).get(method)
        if op is not None:
            op["x-sse-events"] = events
            ok = next(s for s in op["responses"] if s.startswith("2"))
            content = op["responses"][ok].setdefault("content", {})
            content.pop("application/json", None)
            content["text/event-stream"] = {"schema": frame}
    if "Submitted" in schemas:  # a submission's events are the game's too
        schemas["Submitted"]["properties"]["events"] = {"type": "array", "items": {"$ref": REF + "GameEvent"}}
