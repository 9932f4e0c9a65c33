"""Per-game view schemas in /openapi.json: what a seat sees and what a spectator sees, derived from the engines.

Why derived: a bot smarter than random reads the view; hand-written schemas would drift from the engines. Each
title's view schema lists every top-level field a seat's view had in seeded random games (`vocabulary.py`, the
same source as the documentation site's tables) with the JSON types seen and an example; fields that a
spectator's view never carries are marked "seat only" (where a title hides a seat's private information in
fields of its own; others hide it inside shared fields, e.g. a hand shown as a count). `GameOut.view` then
names the three schemas; the game's `game` field says which one applies.
"""

from __future__ import annotations

import copy
import functools
import random
from dataclasses import dataclass, field
from typing import Any

import engine
from services.gateway.openapi.infer import Sketch, kind_of
from services.gateway.openapi.vocabulary import json_type, option_sets, vocabulary

REF = "#/components/schemas/"
SPECTATOR_SEEDS = 3
#: Every how many positions a game's views are added to the nested shape (each position's top-level fields are)
SKETCH_EVERY = 10
RARE = 25


def _name(game: str, suffix: str) -> str:
    return "".join(p.capitalize() for p in f"{game}_{suffix}".split("_"))


@dataclass
class Samples:
    """What seeded random games of one title showed: per top-level view field the JSON types a spectator saw,
    the fields only a seat's view carries, the nested shape of every view and of every event type."""

    public: dict[str, frozenset[str]]
    seat_only: frozenset[str]
    view: Sketch
    always: frozenset[str]
    events: dict[str, Sketch] = field(default_factory=dict)


@functools.cache
def samples(name: str) -> Samples:
    """Seeded random games of every player count and option set: a field is seat only if, at the same
    positions, a seat's view had it and the spectator's never did."""
    game = engine.get(name)
    seen: dict[str, set[str]] = {}
    seat_extra: set[str] = set()
    view = Sketch()
    always: set[str] | None = None
    events: dict[str, Sketch] = {}

    def sketch(obj: dict[str, Any], step: int) -> None:
        nonlocal always
        always = set(obj) if always is None else always & set(obj)
        # the nested shapes of every few positions, and of every one with a field seen rarely so far or of a JSON
        # type not seen in it yet (a result that is null until the end): enough
        if step % SKETCH_EVERY == 0 or any(
                view.key_counts.get(k, 0) < RARE or kind_of(v) not in view.props[k].types for k, v in obj.items()):
            view.add(obj)

    def compare(state: Any, step: int) -> None:
        public = state.view(None)
        sketch(public, step)
        for key, value in public.items():
            seen.setdefault(key, set()).add(json_type(value))
        for seat in range(len(state.scores())):
            own = state.view(seat)
            sketch(own, step)
            seat_extra.update(set(own) - set(public))

    for seed in range(SPECTATOR_SEEDS):
        for players in range(game.min_players, game.max_players + 1):
            for options in option_sets(game):
                try:
                    state = game.new(players, seed, options)
                except ValueError:
                    continue
                rng = random.Random(seed)
                step = 0
                while not state.is_over():
                    compare(state, step)
                    step += 1
                    seat = rng.choice(state.to_act())
                    legal = state.legal_actions(seat)
                    for event in state.apply(seat, legal[rng.randrange(len(legal))]):
                        data = event.to_json()
                        events.setdefault(data.pop("type"), Sketch()).add(data)
                compare(state, step)
    return Samples({k: frozenset(v) for k, v in seen.items()}, frozenset(seat_extra - set(seen)), view,
                   frozenset(always or ()), events)


def view_schema(name: str) -> dict[str, Any]:
    """The JSON schema of `name`'s views (a seat's; the spectator's is the same without the seat-only fields)."""
    game = engine.get(name)
    shape = vocabulary(name).view
    seen = samples(name)
    properties = {}
    for key in sorted(shape.fields):
        sketch = seen.view.props.setdefault(key, Sketch())
        sketch.types |= shape.fields[key]  # a type only the vocabulary's games showed (an empty array: any items)
        prop = sketch.schema()
        if key in seen.seat_only:
            prop["description"] = "seat only: absent from a spectator's view"
        properties[key] = prop
    example = shape.example or {}
    always = sorted(k for k in properties if k not in seen.seat_only and k in seen.always)
    return {"type": "object", "title": _name(name, "view"), "properties": properties, "required": always,
            "description": f"What a seat of a {game.title} game sees (`view` of GET /v1/games/{{id}} with that seat's "
                           "token); a spectator's view has the fields not marked seat only.",
            "example": {k: example[k] for k in sorted(example)[:12]}}


def attach(doc: dict[str, Any], views: dict[str, dict[str, Any]]) -> None:
    """Publish one view schema per title (`views`: title -> `view_schema`, as `inferred.py` generated them ahead
    of time), and `GameOut` as one variant per title discriminated by `game`, each naming its title's view (in
    place): a generated client narrows `game.view` by checking `game.game`."""
    schemas = doc.setdefault("components", {}).setdefault("schemas", {})
    game_out = schemas.get("GameOut")
    mapping = {}
    for name in engine.games():
        schemas[_name(name, "view")] = views[name]
        if game_out is None:
            continue
        variant = copy.deepcopy(game_out)
        variant["title"] = _name(name, "game_out")
        variant["properties"]["game"] = {"type": "string", "const": name, "enum": [name]}
        variant["properties"]["view"] = {"$ref": REF + _name(name, "view"), "description": "A seat's view with "
                                         "its token, else a spectator's"}
        schemas[_name(name, "game_out")] = variant
        mapping[name] = REF + _name(name, "game_out")
    if game_out is not None:
        schemas["GameOut"] = {"title": "GameOut", "description": "A game; `game` (its title) says which view it has",
                              "oneOf": [{"$ref": r} for r in mapping.values()],
                              "discriminator": {"propertyName": "game", "mapping": mapping}}


def view_fields(name: str) -> set[str]:
    """Every field the published schema of `name`'s view names (tests compare real views against it)."""
    return set(view_schema(name)["properties"])

