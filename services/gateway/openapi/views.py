"""Per-game view schemas in /openapi.json: what a seat sees and what a spectator sees, derived from the engines.

Why derived: a bot smarter than random reads the view; hand-written schemas would drift from the engines. Each
title's view schema lists every top-level field a seat's view had in seeded random games (`vocabulary.py`, the
same source as the documentation site's tables) with the JSON types seen and an example; fields that a
spectator's view never carries are marked "seat only" (where a title hides a seat's private information in
fields of its own; others hide it inside shared fields, e.g. a hand shown as a count). `GameOut.view` then
names the three schemas; the game's `game` field says which one applies.
"""

from __future__ import annotations

import functools
import random
from typing import Any

import engine
from services.gateway.openapi.vocabulary import json_type, option_sets, vocabulary

REF = "#/components/schemas/"
SPECTATOR_SEEDS = 3


def _name(game: str, suffix: str) -> str:
    return "".join(p.capitalize() for p in f"{game}_{suffix}".split("_"))


@functools.cache
def spectator_fields(name: str) -> tuple[dict[str, frozenset[str]], frozenset[str]]:
    """(top-level field -> JSON types seen in a spectator's view, the fields only a seat's view carries): a
    field is seat only if, at the same positions, a seat's view had it and the spectator's never did. Seeded
    random games of every player count and option set."""
    game = engine.get(name)
    seen: dict[str, set[str]] = {}
    seat_extra: set[str] = set()

    def compare(state: Any) -> None:
        public = state.view(None)
        for key, value in public.items():
            seen.setdefault(key, set()).add(json_type(value))
        for seat in range(len(state.scores())):
            seat_extra.update(set(state.view(seat)) - set(public))

    for seed in range(SPECTATOR_SEEDS):
        for players in range(game.min_players, game.max_players + 1):
            for options in option_sets(game):
                try:
                    state = game.new(players, seed, options)
                except ValueError:
                    continue
                rng = random.Random(seed)
                while not state.is_over():
                    compare(state)
                    seat = rng.choice(state.to_act())
                    legal = state.legal_actions(seat)
                    state.apply(seat, legal[rng.randrange(len(legal))])
                compare(state)
    return {k: frozenset(v) for k, v in seen.items()}, frozenset(seat_extra - set(seen))


def view_schema(name: str) -> dict[str, Any]:
    """The JSON schema of `name`'s views (a seat's; the spectator's is the same without the seat-only fields)."""
    game = engine.get(name)
    shape = vocabulary(name).view
    public, seat_only = spectator_fields(name)
    properties = {}
    for field, seat_types in sorted(shape.fields.items()):
        types = set(seat_types) | set(public.get(field, ()))
        prop: dict[str, Any] = {"type": sorted(types)[0] if len(types) == 1 else sorted(types)} if types else {}
        if field in seat_only:
            prop["description"] = "seat only: absent from a spectator's view"
        properties[field] = prop
    example = shape.example or {}
    return {"type": "object", "title": f"{game.title} view", "properties": properties,
            "description": f"What a seat of a {game.title} game sees (`view` of GET /v1/games/{{id}} with that seat's "
                           "token); a spectator's view has the fields not marked seat only.",
            "example": {k: example[k] for k in sorted(example)[:12]}}


def attach(doc: dict[str, Any]) -> None:
    """Publish one view schema per title and name them on GameOut.view (in place)."""
    schemas = doc.setdefault("components", {}).setdefault("schemas", {})
    refs = []
    for name in engine.games():
        schemas[_name(name, "view")] = view_schema(name)
        refs.append({"$ref": REF + _name(name, "view")})
    game_out = schemas.get("GameOut", {}).get("properties", {})
    if "view" in game_out:
        game_out["view"] = {"anyOf": refs, "description": "The view of the game's title (`game`): a seat's with "
                            "its token, else a spectator's"}


def view_fields(name: str) -> set[str]:
    """Every field the published schema of `name`'s view names (tests compare real views against it)."""
    return set(view_schema(name)["properties"])

