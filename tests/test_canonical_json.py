"""canonical_json (orjson where byte-identical, else the stdlib) writes exactly the stdlib's text.

Digests hash this text and are stored with every game, so any difference would break replays.
"""

from __future__ import annotations

import enum
import json
import random
from collections import OrderedDict

from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.core import canonical_json


def reference(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=6), children, max_size=5),
    max_leaves=40,
)


@settings(max_examples=600, deadline=None)
@given(json_values)
def test_any_json_value_is_written_as_the_stdlib_writes_it(value) -> None:
    assert canonical_json(value) == reference(value)


class Colour(enum.IntEnum):
    RED = 3


def test_edge_cases_match_the_stdlib() -> None:
    cases = [
        {"b": 1, "a": [1, 2, {"d": None, "c": True}]},
        "\x7f", "\x00\x1f\n\t\b\f\r\"\\/", "é", "💥", "a\u2028b",
        1e-05, 1e16, 0.1, -0.0, 2**64, -(2**63) - 1, 2**63,
        {1: "int key"}, {"k": (1, 2)}, (1, [2]),
        OrderedDict([("z", 1), ("y", 2)]), Colour.RED, {"c": Colour.RED},
        "one-way e+1", ["1.5", "e-"],
    ]
    for value in cases:
        assert canonical_json(value) == reference(value), value


def test_real_game_states_match_the_stdlib() -> None:
    for name in engine.games():
        game = engine.get(name)
        state = game.new(3, 5, game.resolve_options({}))
        rng = random.Random(5)
        steps = 0
        while not state.is_over() and steps < 400:
            assert canonical_json(state.to_json()) == reference(state.to_json())
            seat = rng.choice(state.to_act())
            state.apply(seat, rng.choice(state.legal_actions(seat)))
            steps += 1
        assert canonical_json(state.to_json()) == reference(state.to_json())
