"""What each engine says, read from the engines themselves: an example of every action type, every event type
with its fields (JSON types and an example) and the fields of a seat's view.

Why derived: the documentation site's game pages (`docs/hooks/skyboard.py`) show examples and the JSON types seen,
generated from this so they cannot drift from the engines. (The published schemas are not sampled: they are the
engines' declarations, `declared.py`.) Sources: seeded random games of every player count (with every option's
choices) and, for events no such game produced, the `Event("<type>", {...})` calls in the engine's source (their
field names, without types).
"""

from __future__ import annotations

import ast
import functools
import inspect
import itertools
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import engine

SEEDS = 4
MORE_SEEDS = 60
PLATFORM_EVENTS = ("game_created", "timeout", "seat_auto_played", "seat_resigned", "seat_abandoned", "game_forfeited",
                   "game_aborted", "taken_back")

#: Examples of action types that seeded random games rarely or never make legal (checked against each game's
#: action codec by the tests, so they cannot go stale either).
RARE_ACTIONS: dict[str, dict[str, dict[str, Any]]] = {
    "opensky": {"flash_deal": {"type": "flash_deal", "fare": 250}, "decline_flash": {"type": "decline_flash"}},
}


@dataclass
class Shape:
    """Field name -> the JSON types seen ("integer", "string", ...; empty: declared in source, never seen), plus
    the first example seen (None: only declared)."""

    fields: dict[str, set[str]] = field(default_factory=dict)
    example: dict[str, Any] | None = None
    seen: int = 0

    def add(self, obj: dict[str, Any], skip: tuple[str, ...] = ()) -> None:
        self.seen += 1
        if self.example is None:
            self.example = obj
        for k, v in obj.items():
            if k not in skip:
                self.fields.setdefault(k, set()).add(json_type(v))


@dataclass
class Vocabulary:
    actions: dict[str, Shape]
    events: dict[str, Shape]
    view: Shape
    phases: list[str]


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    return "object"


def option_sets(game: Any) -> list[dict[str, Any]]:
    """Every combination of the game's option choices (the defaults when it has none)."""
    names = sorted(game.options)
    choices = [list(game.options[n].get("choices") or [game.options[n]["default"]]) for n in names]
    return [dict(zip(names, combo)) for combo in itertools.product(*choices)] or [{}]


@functools.cache
def vocabulary(name: str) -> Vocabulary:
    game = engine.get(name)
    actions: dict[str, Shape] = {t: Shape() for t in game.codec.types}
    events: dict[str, Shape] = {}
    view = Shape()
    phases: list[str] = []
    counts = range(game.min_players, game.max_players + 1)
    runs = [(p, s, o) for s in range(SEEDS) for p in counts for o in option_sets(game)]
    extra = [(p, s, {}) for s in range(SEEDS, SEEDS + MORE_SEEDS) for p in counts]
    for players, seed, options in itertools.chain(runs, extra):
        if seed >= SEEDS and all(a.seen for a in actions.values()):
            break  # more games only while some action type was never legal
        try:
            state = game.new(players, seed, options)
        except ValueError:  # an option choice this player count does not take
            continue
        rng = random.Random(seed)
        while not state.is_over():
            v = state.view(0)
            view.add(v)
            phase = str(v.get("phase"))
            if phase not in phases:
                phases.append(phase)
            seats = state.to_act()
            seat = seats[rng.randrange(len(seats))]
            legal = state.legal_actions(seat)
            for action in legal:
                obj = action.to_json()
                if actions[obj["type"]].seen < 3:
                    actions[obj["type"]].add(obj)
            for event in state.apply(seat, legal[rng.randrange(len(legal))]):
                events.setdefault(event.type, Shape()).add(event.to_json(), skip=("type", "visible_to"))
        view.add(state.view(0))
    for action_type, example in RARE_ACTIONS.get(name, {}).items():
        if actions[action_type].example is None:
            actions[action_type].add(game.action_from_json(example).to_json())
    for path in sorted(Path(inspect.getfile(type(game))).parent.glob("*.py")):
        for call in ast.walk(ast.parse(path.read_text())):
            if (isinstance(call, ast.Call) and getattr(call.func, "id", None) == "Event" and call.args
                    and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)):
                shape = events.setdefault(call.args[0].value, Shape())
                if len(call.args) > 1 and isinstance(call.args[1], ast.Dict):
                    for key in call.args[1].keys:
                        if isinstance(key, ast.Constant) and isinstance(key.value, str):
                            shape.fields.setdefault(key.value, set())
    return Vocabulary(actions=actions, events=dict(sorted(events.items())), view=view, phases=phases)


def compact(value: Any, limit: int = 100) -> str:
    """JSON of `value` on one line, cut at `limit` characters."""
    text = json.dumps(value, separators=(", ", ": "))
    return text if len(text) <= limit else text[: limit - 1] + "…"
