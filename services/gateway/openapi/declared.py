"""JSON Schema of the engines' declared public shapes: each title's view (`Game.view_type`) and the data of each of
its events (`Game.event_types`), as /openapi.json's components.

Why derived: the engines declare these shapes as `TypedDict`s next to the code that builds them
(`engine/<game>/shapes.py`), so the published schema, and the SDKs' types generated from it, is exactly the
declaration; the conformance suite checks every view and event of seeded games against the same schema
(tests/conformance/test_declared_shapes.py). pydantic's `TypeAdapter` writes the JSON Schema; this module only
names the parts: a title's view is `<Title>View`, an event `<Title><EventType>Event`, and every shape they nest
`<Title><ClassName>` (two titles may each declare a `Player`).
"""

from __future__ import annotations

import functools
from typing import Any

from pydantic import TypeAdapter

import engine
from engine.core import Game

REF = "#/components/schemas/"
_LOCAL = "#/$defs/"


def camel(*parts: str) -> str:
    """`camel("opensky", "bid_sealed", "event")` -> "OpenskyBidSealedEvent" (the components' naming)."""
    return "".join(p.capitalize() for p in "_".join(parts).split("_"))


def _renamed(node: Any, names: dict[str, str]) -> Any:
    """`node` with every local `$ref` pointing at the renamed component, and without the title pydantic gives each
    field (its name capitalised, which generated clients would repeat as a comment on every field)."""
    if isinstance(node, dict):
        out = {k: _renamed(v, names) for k, v in node.items()}
        ref = out.get("$ref")
        if isinstance(ref, str) and ref.startswith(_LOCAL):
            out["$ref"] = REF + names[ref.removeprefix(_LOCAL)]
        if isinstance(out.get("properties"), dict):
            out["properties"] = {k: {a: b for a, b in v.items() if a != "title"} for k, v in out["properties"].items()}
        if isinstance(out.get("anyOf"), list):  # a literal among other types as a one-value enum: openapi-python-client
            out["anyOf"] = [{**{k: v for k, v in o.items() if k != "const"}, "enum": [o["const"]]}  # drops the others
                            if isinstance(o, dict) and "const" in o else o for o in out["anyOf"]]  # beside a const
        return out
    if isinstance(node, list):
        return [_renamed(v, names) for v in node]
    return node


def _schema(game: Game, shape: type, title: str, into: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The JSON Schema of one declared shape, titled `title`; the shapes it nests are added to `into`."""
    doc = TypeAdapter(shape).json_schema(ref_template=_LOCAL + "{model}")
    defs = doc.pop("$defs", {})
    prefix = camel(game.name)
    names = {d: d if d.startswith(prefix) else prefix + d for d in defs}
    for name, schema in defs.items():
        into[names[name]] = {**_renamed(schema, names), "title": names[name]}
    return {**_renamed(doc, names), "title": title}


def view_schemas(game: Game) -> dict[str, dict[str, Any]]:
    """`<Title>View` and every shape it nests."""
    out: dict[str, dict[str, Any]] = {}
    out[camel(game.name, "view")] = _schema(game, game.view_type, camel(game.name, "view"), out)
    return out


def event_data_schemas(game: Game) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """(event type -> the schema of its data, every shape those nest by component name)."""
    nested: dict[str, dict[str, Any]] = {}
    data = {event_type: _schema(game, shape, camel(game.name, event_type, "event"), nested)
            for event_type, shape in game.event_types.items()}
    return data, nested


@functools.cache
def _all() -> dict[str, Any]:
    return {name: (view_schemas(engine.get(name)), event_data_schemas(engine.get(name))) for name in engine.games()}


def declared(name: str) -> tuple[dict[str, dict[str, Any]], tuple[dict[str, Any], dict[str, Any]]]:
    """`name`'s (view schemas, (event data schemas, their nested shapes)), built once per process (pure: the
    declarations do not change while it runs); callers copy what they change."""
    return _all()[name]
