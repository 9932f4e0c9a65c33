"""Per-title view schemas in /openapi.json: what a seat (and a spectator) of each title sees.

Why declared: a bot smarter than random reads the view, and a generated client needs it typed. Each engine
declares its view (`Game.view_type`, engine/<game>/shapes.py); `declared.py` turns the declaration into JSON
Schema, published as `<Title>View` with every shape it nests. `GameOut.view` then names the three views, one
variant of `GameOut` per title discriminated by its `game` field.
"""

from __future__ import annotations

import copy
from typing import Any

import engine
from services.gateway.openapi.declared import REF, camel, declared


def view_example(name: str) -> dict[str, Any]:
    """A real view of `name`: seat 0's at the start of a seeded game of the fewest players (a few milliseconds,
    no game played)."""
    game = engine.get(name)
    return game.new(game.min_players, 0).view(0)


def attach(doc: dict[str, Any]) -> None:
    """Publish each title's view schema (and the shapes it nests), and `GameOut` as one variant per title
    discriminated by `game`, each naming its title's view (in place): a generated client narrows `game.view` by
    checking `game.game`."""
    schemas = doc.setdefault("components", {}).setdefault("schemas", {})
    game_out = schemas.get("GameOut")
    mapping = {}
    for name in engine.games():
        views, _ = declared(name)
        schemas.update(copy.deepcopy(views))
        if game_out is None:
            continue
        variant = copy.deepcopy(game_out)
        variant["title"] = camel(name, "game_out")
        variant["properties"]["game"] = {"type": "string", "const": name, "enum": [name]}
        variant["properties"]["view"] = {"$ref": REF + camel(name, "view"), "description": "A seat's view with "
                                         "its token, else a spectator's"}
        schemas[camel(name, "game_out")] = variant
        mapping[name] = REF + camel(name, "game_out")
    if game_out is not None:
        schemas["GameOut"] = {"title": "GameOut", "description": "A game; `game` (its title) says which view it has",
                              "oneOf": [{"$ref": r} for r in mapping.values()],
                              "discriminator": {"propertyName": "game", "mapping": mapping}}
