"""The typed parts of /openapi.json: per-game action schemas, Bearer security schemes.

Why generated: every engine declares its actions as dataclasses read by one `ActionCodec` (a `TYPE` and
typed fields), so the JSON Schema of each action is derived from that same declaration and no action type
can be missing or drift from what the service accepts. Per game the actions are a `oneOf` discriminated on
`type`; `SubmitAction.action` and `LegalActions.actions` take any game's action (the game id says which).
"""

from __future__ import annotations

import copy
import dataclasses
import types
import typing
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

import engine
from engine.core import Game
from services.gateway.http.errors import ERROR_RESPONSES, ErrorBody, ErrorDetail
from services.gateway.openapi import events as openapi_events
from services.gateway.openapi import examples as openapi_examples
from services.gateway.openapi import headers as openapi_headers
from services.gateway.openapi import request_defaults as openapi_request_defaults
from services.gateway.openapi import security as openapi_security
from services.gateway.openapi import tags as openapi_tags
from services.gateway.openapi import views as openapi_views

_PRIMITIVES: dict[Any, dict[str, Any]] = {bool: {"type": "boolean"}, int: {"type": "integer"}, str: {"type": "string"}}

SECURITY_SCHEMES = {
    "ApiKey": {"type": "http", "scheme": "bearer", "bearerFormat": "sbk_... (a player's API key)",
               "description": "A player's API key from POST /v1/players (`sbk_bot_...` for a bot account)."},
    "SeatToken": {"type": "http", "scheme": "bearer", "bearerFormat": "seat token",
                  "description": "A seat token: the seat's moves, legal actions and its redacted view."},
}


def field_schema(annotation: Any) -> dict[str, Any]:
    """The JSON Schema of one action field type (the types `engine.core._check_value` accepts)."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        schemas = [field_schema(a) for a in options]
        if type(None) in typing.get_args(annotation):
            schemas.append({"type": "null"})
        return schemas[0] if len(schemas) == 1 else {"anyOf": schemas}
    if origin is tuple:
        args = typing.get_args(annotation)
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": field_schema(args[0])}
        return {"type": "array", "prefixItems": [field_schema(a) for a in args], "minItems": len(args),
                "maxItems": len(args)}
    if annotation in _PRIMITIVES:
        return dict(_PRIMITIVES[annotation])
    raise TypeError(f"no JSON Schema for action field type {annotation!r}")


def _schema_name(game: str, action_type: str) -> str:
    return "".join(p.capitalize() for p in f"{game}_{action_type}_action".split("_"))


def game_action_schemas(game: Game) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """(component schemas of each action of `game`, the game's discriminated union referring to them)."""
    components: dict[str, dict[str, Any]] = {}
    mapping: dict[str, str] = {}
    for action_type in game.codec.types:
        cls = game.codec._classes[action_type]
        hints = typing.get_type_hints(cls)
        fields = [f.name for f in dataclasses.fields(cls)]
        name = _schema_name(game.name, action_type)
        components[name] = {
            "type": "object", "title": name, "description": f"{game.title}: {action_type}",
            "properties": {"type": {"type": "string", "const": action_type, "enum": [action_type]},
                           **{f: field_schema(hints[f]) for f in fields}},
            "required": ["type", *fields], "additionalProperties": False,
        }
        mapping[action_type] = f"#/components/schemas/{name}"
    union = {"title": _schema_name(game.name, "").removesuffix("Action") + "Action",
             "description": f"{game.title} action", "oneOf": [{"$ref": ref} for ref in mapping.values()],
             "discriminator": {"propertyName": "type", "mapping": mapping}}
    return components, union


def action_schemas() -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """(every component schema, the schema of "an action of any game")."""
    components: dict[str, dict[str, Any]] = {}
    per_game = []
    for name in engine.games():
        game = engine.get(name)
        actions, union = game_action_schemas(game)
        components |= actions
        union_name = _schema_name(name, "").removesuffix("Action") + "Action"
        components[union_name] = union
        per_game.append({"$ref": f"#/components/schemas/{union_name}"})
    return components, {"anyOf": per_game, "description": "An action of the game's title (its `type` picks it)"}


#: The documents built in this process, by what they are built from (`_signature`): the gateway builds its document
#: at start (app.py), and a process that makes many apps (the tests start dozens) builds it once, not per app
_BUILT: dict[tuple[Any, ...], dict[str, Any]] = {}


def _signature(app: FastAPI) -> tuple[Any, ...]:
    """Everything an app's document is built from: its title, version, description and routes (each route's path,
    methods, name and endpoint)."""
    routes = tuple((getattr(r, "path", ""), tuple(sorted(getattr(r, "methods", None) or ())), getattr(r, "name", ""),
                    getattr(getattr(r, "endpoint", None), "__module__", ""),
                    getattr(getattr(r, "endpoint", None), "__qualname__", "")) for r in app.routes)
    return app.title, app.version, app.description, routes


def install(app: FastAPI) -> None:
    """Typed actions and security schemes in /openapi.json."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        signature = _signature(app)
        if signature in _BUILT:
            app.openapi_schema = copy.deepcopy(_BUILT[signature])  # each app's own copy
            return app.openapi_schema
        doc = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
        schemas = doc.setdefault("components", {}).setdefault("schemas", {})
        components, any_action = action_schemas()
        schemas.update(components)
        if "SubmitAction" in schemas:
            schemas["SubmitAction"]["properties"]["action"] = any_action
        if "LegalActions" in schemas:
            schemas["LegalActions"]["properties"]["actions"] = {"type": "array", "items": any_action}
        doc["components"]["securitySchemes"] = SECURITY_SCHEMES
        schemas.setdefault("ErrorBody", ErrorBody.model_json_schema(ref_template="#/components/schemas/{model}"))
        schemas.setdefault("ErrorDetail", ErrorDetail.model_json_schema())
        for path in doc["paths"].values():
            for op in path.values():
                responses = op.setdefault("responses", {})
                for status, spec in ERROR_RESPONSES.items():  # every error answer has the error body
                    responses.setdefault(str(status), {"description": spec["description"], "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}})
        # the engines' declared shapes (engine/<game>/shapes.py) as JSON Schema: the event streams' payloads, what a
        # seat and a spectator of each title see; then an example on every operation, a real view in a game's
        openapi_events.attach(doc, openapi_events.game_event_schemas())
        openapi_views.attach(doc)
        openapi_examples.attach(doc, {name: openapi_views.view_example(name) for name in engine.games()})
        openapi_security.apply(doc)  # servers, operationIds, each call's credential; no internal routes
        # what generated clients need: one tag per operation, the headers the edge adds and the 503 any call may
        # get, request fields with a default optional under every generator's defaults
        openapi_tags.apply(doc)
        openapi_headers.apply(doc)
        openapi_request_defaults.apply(doc)
        _BUILT[signature] = copy.deepcopy(doc)
        app.openapi_schema = doc
        return doc

    app.openapi = openapi  # type: ignore[method-assign]
