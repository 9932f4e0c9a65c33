"""Every view and every event of seeded games is what its engine declares (`Game.view_type`, `Game.event_types`).

The declarations are the source of the published JSON Schema (services/gateway/openapi/declared.py) and of the SDKs'
types; sampling games is the check, not the source. The check is stricter than what is published: an object may
carry no field its declaration does not name (published schemas stay open, so that a client ignores a field a
newer server adds), so a field added to a view or an event without its declaration fails here.
"""

from __future__ import annotations

import ast
import copy
import functools
import inspect
import random
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typing_extensions import is_typeddict

import engine
from services.gateway.openapi.declared import REF, camel, declared
from tests.conformance.test_contract import CONFIGS, IDS

GAMES = engine.games()
#: Every how many positions the views are checked (each position's events always are): views are large, and the
#: phases last many positions, so every phase is still seen in every configuration.
VIEW_EVERY = 3


def _closed(node: Any) -> Any:
    """`node` with every object that names its fields refusing any other field."""
    if isinstance(node, dict):
        out = {k: _closed(v) for k, v in node.items()}
        if "properties" in out and "additionalProperties" not in out:
            out["additionalProperties"] = False
        return out
    if isinstance(node, list):
        return [_closed(v) for v in node]
    return node


@functools.cache
def _validators(name: str) -> tuple[jsonschema.Draft202012Validator, dict[str, jsonschema.Draft202012Validator]]:
    """(the view's validator, event type -> its data's validator), over the derived schemas, closed."""
    views, (events, nested) = declared(name)
    schemas = _closed({**views, **nested, **{camel(name, t, "event"): s for t, s in events.items()}})

    def validator(component: str) -> jsonschema.Draft202012Validator:
        root = {"$ref": REF + component, "components": {"schemas": schemas}}
        return jsonschema.Draft202012Validator(root)

    return validator(camel(name, "view")), {t: validator(camel(name, t, "event")) for t in events}


def _errors(validator: jsonschema.Draft202012Validator, value: Any) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}"
            for e in validator.iter_errors(value)][:5]


@pytest.mark.parametrize("name", GAMES)
def test_every_game_declares_its_view_and_events_as_typed_dicts(name):
    game = engine.get(name)
    assert is_typeddict(game.view_type), "view_type must be a TypedDict"
    assert game.event_types, "event_types is empty"
    assert all(is_typeddict(t) for t in game.event_types.values())


def _emitted_in_source(game: engine.Game) -> set[str]:
    """The event types the game's package creates: every `Event("<type>", ...)` in its source."""
    found = set()
    for path in Path(inspect.getfile(type(game))).parent.glob("*.py"):
        for call in ast.walk(ast.parse(path.read_text())):
            if (isinstance(call, ast.Call) and getattr(call.func, "id", None) == "Event" and call.args
                    and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)):
                found.add(call.args[0].value)
    return found


def test_the_engines_declare_with_typing_only():
    """The declarations are read by the gateway's pydantic, but the engines import no framework."""
    root = Path(engine.__file__).parent
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not [n for n in names if n.split(".")[0] in ("pydantic", "fastapi")], path


@pytest.mark.parametrize("name", GAMES)
def test_the_declared_event_types_are_exactly_those_the_engine_creates(name):
    game = engine.get(name)
    assert set(game.event_types) == _emitted_in_source(game)


@pytest.mark.parametrize(("name", "players", "options"), CONFIGS, ids=IDS)
def test_every_sampled_view_and_event_matches_its_declaration(name, players, options):
    """A seeded random game per configuration: each seat's view and the spectator's (every few positions and at
    the end), and every event (its `type` declared, its data as declared)."""
    view_validator, event_validators = _validators(name)
    state = engine.get(name).new(players, 11, options)
    rng = random.Random(11)
    seen_events: set[str] = set()

    def check_views(where: str) -> None:
        for seat in [None, *range(players)]:
            errors = _errors(view_validator, state.view(seat))
            assert not errors, f"{where}, seat {seat}'s view: {errors}"

    step = 0
    while not state.is_over():
        if step % VIEW_EVERY == 0:
            check_views(f"position {step}")
        seat = rng.choice(state.to_act())
        legal = state.legal_actions(seat)
        for event in state.apply(seat, legal[rng.randrange(len(legal))]):
            assert event.type in event_validators, f"event type {event.type!r} is not declared"
            errors = _errors(event_validators[event.type], copy.deepcopy(dict(event.data)))
            assert not errors, f"position {step}, event {event.type}: {errors}"
            seen_events.add(event.type)
        step += 1
    check_views("the end")
    assert seen_events, "a game without events checked nothing"
