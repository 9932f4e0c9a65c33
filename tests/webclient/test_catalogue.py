"""The web client's message catalogue (services/webclient/static/i18n/en.json) has words for everything the
engines say: every action type and every event type of every game, derived from the engines themselves, has a
template, and each template's named parameters exist in the objects of that type.

The vocabulary is collected three ways, so a new action or event cannot slip by:
- seeded random games of every title and player count (every option of OpenSky's board and callsigns), with
  every legal action offered on the way, every event applied, and the `phase` of every view;
- the engines' Action classes (their `TYPE`), for actions no random game offered;
- the `Event("<type>", {...})` calls in the engines' source (AST), for events no random game produced.
"""

from __future__ import annotations

import ast
import functools
import inspect
import json
import random
import re
from collections import defaultdict
from pathlib import Path

import pytest

import engine
from engine.core import Action
from tests.webclient.icu import arguments

STATIC = Path(__file__).resolve().parents[2] / "services" / "webclient" / "static"
CATALOGUE = STATIC / "i18n" / "en.json"


def params(template: str) -> list[tuple[str, str]]:
    """(parameter, formatter or "") of every argument of an ICU template, plural and select branches included."""
    return [(a.name, a.formatter or "") for a in arguments(template)]

SEEDS = 6


def options_for(name: str, seed: int) -> dict | None:
    if name == "opensky":
        return {"map": ("europe", "north_america")[seed % 2], "callsigns": ("random", "choose")[seed // 2 % 2]}
    return None


@functools.cache
def vocabulary(name: str) -> dict[str, dict]:
    """{"action": {type: fields}, "event": {type: fields}, "phase": {phase: set()}} of one engine."""
    game = engine.get(name)
    found: dict[str, dict[str, set[str]]] = {kind: defaultdict(set) for kind in ("action", "event", "phase")}
    for players in range(game.min_players, game.max_players + 1):
        for seed in range(SEEDS):
            state = game.new(players, seed, options_for(name, seed))
            rng = random.Random(seed)
            while not state.is_over():
                found["phase"][str(state.view(None).get("phase"))]
                seats = state.to_act()
                for seat in seats:
                    for action in state.legal_actions(seat):
                        obj = action.to_json()
                        found["action"][obj["type"]] |= set(obj) - {"type"}
                seat = seats[rng.randrange(len(seats))]
                actions = state.legal_actions(seat)
                for event in state.apply(seat, actions[rng.randrange(len(actions))]):
                    obj = event.to_json()
                    found["event"][obj["type"]] |= set(obj) - {"type", "visible_to"}
    package = ".".join(type(game).__module__.split(".")[:2])
    for cls in _subclasses(Action):
        if cls.__module__.startswith(package + ".") and isinstance(getattr(cls, "TYPE", None), str):
            found["action"][cls.TYPE] |= {f for f in getattr(cls, "__dataclass_fields__", {})}
    for path in Path(inspect.getfile(type(game))).parent.glob("*.py"):
        for call in ast.walk(ast.parse(path.read_text())):
            if (isinstance(call, ast.Call) and getattr(call.func, "id", None) == "Event" and call.args
                    and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)):
                fields = found["event"][call.args[0].value]
                if len(call.args) > 1 and isinstance(call.args[1], ast.Dict):
                    fields |= {k.value for k in call.args[1].keys if isinstance(k, ast.Constant)}
    return found


def _subclasses(cls: type) -> list[type]:
    out = []
    for sub in cls.__subclasses__():
        out += [sub, *_subclasses(sub)]
    return out


@functools.cache
def catalogue() -> dict:
    return json.loads(CATALOGUE.read_text())


def formatters(name: str) -> set[str]:
    """Formatter names defined in the game's presentation module and the common i18n module (`name(` keys)."""
    text = (STATIC / "js" / "games" / f"{name}.js").read_text() + (STATIC / "js" / "i18n.js").read_text()
    return set(re.findall(r"^\s+([a-z_]+)(?:\(|: )", text, re.M))


def missing_templates(name: str, cat: dict) -> list[str]:
    """Every problem of the catalogue `cat` for engine `name` (empty when complete)."""
    problems = []
    section = cat.get(name, {})
    known_formatters = formatters(name)
    for kind in ("action", "event"):
        templates = section.get(kind, {})
        for type_, fields in sorted(vocabulary(name)[kind].items()):
            if type_ not in templates:
                problems.append(f"{name}.{kind}.{type_}: no template")
                continue
            for key in [k for k in templates if k == type_ or k.startswith(type_ + ".")]:
                for param, fmt in params(templates[key]):
                    if param not in fields:
                        problems.append(f"{name}.{kind}.{key}: parameter {param!r} is not a field of {sorted(fields)}")
                    if fmt and fmt not in known_formatters:
                        problems.append(f"{name}.{kind}.{key}: formatter {fmt!r} is defined nowhere")
    for phase in vocabulary(name)["phase"]:
        if phase not in section.get("phase", {}):
            problems.append(f"{name}.phase.{phase}: no explanation")
    return problems


@pytest.mark.parametrize("name", engine.games())
def test_every_action_and_event_of_the_engine_has_a_template(name):
    assert missing_templates(name, catalogue()) == []


@pytest.mark.parametrize("name", engine.games())
def test_the_check_fails_when_a_template_is_removed(name):
    """Proof the test above bites: drop one action and one event template, and their absence is reported."""
    cat = json.loads(CATALOGUE.read_text())
    action = sorted(vocabulary(name)["action"])[0]
    event = sorted(vocabulary(name)["event"])[-1]
    del cat[name]["action"][action]
    del cat[name]["event"][event]
    problems = missing_templates(name, cat)
    assert f"{name}.action.{action}: no template" in problems
    assert f"{name}.event.{event}: no template" in problems


def test_a_parameter_that_the_objects_lack_is_reported():
    cat = json.loads(CATALOGUE.read_text())
    cat["opensky"]["action"]["bid"] = "Bid {fare} on {route}"
    assert any("'route' is not a field" in p for p in missing_templates("opensky", cat))


def test_the_vocabulary_covers_the_documented_actions():
    """Sanity of the derivation: the action types of the games pages' tables (docs/games/) are all found in the
    engines."""
    seen = {t for name in engine.games() for t in vocabulary(name)["action"]}
    assert {"bid", "flash_deal", "decline_flash", "pass", "lease", "choose_route", "pick_advantage_dice",
            "help_done", "discard"} <= seen


def platform_events() -> dict[str, set[str]]:
    """The events the game-state service itself adds to game logs (turn clock, resignations, abort): the
    `Event("<type>", {...})` calls in services/gamestate/, with the keys of their literal data dicts."""
    found: dict[str, set[str]] = defaultdict(set)
    for path in (Path(__file__).resolve().parents[2] / "services" / "gamestate").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Event" and node.args
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                keys = set()
                if len(node.args) > 1 and isinstance(node.args[1], ast.Dict):
                    keys = {k.value for k in node.args[1].keys if isinstance(k, ast.Constant)}
                found[node.args[0].value] |= keys
    return found


def test_the_platforms_own_events_have_templates_too():
    """A resignation, a timeout or an abort reads in words in every game's log, not as an engine field name."""
    events = platform_events()
    assert {"timeout", "seat_resigned", "seat_abandoned", "game_aborted"} <= set(events)
    templates = catalogue()["platform"]["event"]
    for type_, fields in events.items():
        assert type_ in templates, type_
        for param, _fmt in params(templates[type_]):
            assert param in fields, (type_, param, fields)


# ---------------------------------------------------------------- the boards' and presentation modules' words
# They come from the catalogue's <game>.board (js/boards/<game>.js), <game>.text and <game>.state (js/games/<game>.js)
# and ui, through `const word = wordsOf(game, part)`, `const label = wordsOf(game, "state")` and ui(). Which words
# reach the page is checked in a browser (test_board_words.py); here, that every key the code names exists and that
# every key of those parts is used.

WORD_CALL = re.compile(r"(?<![\w.$])(word|label|ui)\(((?:[^(),]|\([^()]*\))*)")
PARTS = {"board": "boards", "text": "games"}


def keys_named(path: Path) -> dict[str, set[str]]:
    """{helper: keys} of the word()/label()/ui() calls of one module: every string literal of the first argument
    (so both keys of `word(n === 1 ? "seat_one" : "seat_other")`); a template literal `colour_${...}` as "colour_*"."""
    found: dict[str, set[str]] = defaultdict(set)
    for call in WORD_CALL.finditer(path.read_text()):
        found[call.group(1)] |= set(re.findall(r'"([a-z_0-9]+)"', call.group(2)))
        found[call.group(1)] |= {f"{p}*" for p in re.findall(r"`([a-z_0-9]+)\$\{", call.group(2))}
    return found


def word_problems(cat: dict) -> list[str]:
    problems = []
    for name in engine.games():
        for part, folder in PARTS.items():
            used = keys_named(STATIC / "js" / folder / f"{name}.js")
            have = set(cat.get(name, {}).get(part, {}))
            families = [u[:-1] for u in used["word"] if u.endswith("*")]  # colour_* : colour_red, colour_white...
            for key in sorted(used["word"]):
                if not (any(k.startswith(key[:-1]) for k in have) if key.endswith("*") else key in have):
                    problems.append(f"{name}.{part}.{key}: named by js/{folder}/{name}.js, not in the catalogue")
            for key in sorted(have):
                if key not in used["word"] and not any(key.startswith(f) for f in families):
                    problems.append(f"{name}.{part}.{key}: in the catalogue, used by no code")
            for key in sorted(used["label"] - set(cat.get(name, {}).get("state", {}))):
                problems.append(f"{name}.state.{key}: named by js/{folder}/{name}.js, not in the catalogue")
            for key in sorted(used["ui"] - set(cat["ui"])):
                problems.append(f"ui.{key}: named by js/{folder}/{name}.js, not in the catalogue")
    return problems


def test_every_word_the_boards_and_presentation_modules_name_is_in_the_catalogue():
    assert word_problems(catalogue()) == []


def test_a_missing_or_unused_board_word_is_reported():
    cat = json.loads(CATALOGUE.read_text())
    del cat["aeroplanes"]["board"]["waiting_area"]
    cat["opensky"]["text"]["no_such_words"] = "Nobody says this"
    problems = word_problems(cat)
    assert "aeroplanes.board.waiting_area: named by js/boards/aeroplanes.js, not in the catalogue" in problems
    assert "opensky.text.no_such_words: in the catalogue, used by no code" in problems


def test_the_names_the_engines_give_in_words_have_the_catalogues_words():
    """What an engine says in English itself (OpenSky's months and its reasons a market does not travel) is shown
    through the catalogue's mappings (opensky.months, opensky.reasons), and the boards' connection colours
    (Aeroplanes' data) through aeroplanes.board.colour_<colour>."""
    from engine.opensky.constants import MONTHS

    cat = catalogue()
    assert set(MONTHS) <= set(cat["opensky"]["months"])
    reasons = set()
    for path in (Path(engine.__file__).parent / "opensky").glob("*.py"):
        for call in ast.walk(ast.parse(path.read_text())):
            if (isinstance(call, ast.Call) and getattr(call.func, "id", None) == "Event" and len(call.args) > 1
                    and isinstance(call.args[1], ast.Dict)):
                reasons |= {v.value for k, v in zip(call.args[1].keys, call.args[1].values)
                            if isinstance(k, ast.Constant) and k.value == "reason" and isinstance(v, ast.Constant)}
    assert reasons and reasons <= set(cat["opensky"]["reasons"])
    assert "{reason|reason}" in cat["opensky"]["event"]["market_not_travelled"]
    board = json.loads((Path(engine.__file__).parent / "aeroplanes" / "data" / "board.json").read_text())
    for colour in {c["colour"] for c in board["connections"]}:
        assert f"colour_{colour}" in cat["aeroplanes"]["board"], colour
