"""The engine contract's shared machinery: action codec, events, options, RNG."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from engine.core import (
    Action,
    ActionCodec,
    Event,
    IllegalAction,
    clone_rng,
    redact_events,
    rng_from_json,
    rng_to_json,
)


@dataclass(frozen=True, slots=True)
class Place(Action):
    TYPE = "place"
    route: tuple[str, str]
    count: int
    hub: str | None = None


@dataclass(frozen=True, slots=True)
class Pass(Action):
    TYPE = "pass"


CODEC = ActionCodec([Place, Pass])


def test_actions_round_trip_and_hash():
    action = Place(route=("FRA", "CDG"), count=2)
    assert action.to_json() == {"type": "place", "route": ["FRA", "CDG"], "count": 2, "hub": None}
    assert CODEC.decode(action.to_json()) == action
    assert hash(CODEC.decode(action.to_json())) == hash(action)
    assert CODEC.decode({"type": "pass"}) == Pass()


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ([], "JSON object"),
        ({"kind": "pass"}, "'type'"),
        ({"type": "fly"}, "unknown action type"),
        ({"type": "pass", "x": 1}, "unknown field"),
        ({"type": "place", "route": ["A", "B"], "hub": None}, "missing field"),
        ({"type": "place", "route": ["A", "B"], "count": True, "hub": None}, "integer"),
        ({"type": "place", "route": ["A", "B"], "count": 1.5, "hub": None}, "integer"),
        ({"type": "place", "route": ["A"], "count": 1, "hub": None}, "2 items"),
        ({"type": "place", "route": "AB", "count": 1, "hub": None}, "list"),
        ({"type": "place", "route": ["A", 3], "count": 1, "hub": None}, "string"),
        ({"type": "place", "route": ["A", "B"], "count": 1, "hub": 4}, "string"),
    ],
)
def test_malformed_action_json_raises_value_error_naming_the_problem(obj, message):
    with pytest.raises(ValueError, match=message):
        CODEC.decode(obj)


def test_codec_rejects_duplicate_types():
    with pytest.raises(TypeError):
        ActionCodec([Pass, Pass])


def test_events_are_redacted_per_seat():
    public = Event("roll", {"dice": [1, 2]})
    private = Event("drew", {"card": "ATL"}, visible_to=(1,))
    assert redact_events([public, private], None) == [{"type": "roll", "dice": [1, 2]}]
    assert redact_events([public, private], 0) == [{"type": "roll", "dice": [1, 2]}]
    assert redact_events([public, private], 1)[1] == {"type": "drew", "card": "ATL", "visible_to": [1]}


def test_rng_state_round_trips_through_json():
    rng = random.Random(42)
    rng.random()
    copy = rng_from_json(rng_to_json(rng))
    twin = clone_rng(rng)
    assert [rng.random() for _ in range(5)] == [copy.random() for _ in range(5)] == [
        twin.random() for _ in range(5)
    ]
    with pytest.raises(ValueError):
        rng_from_json("garbage")


def test_a_cloned_rng_is_an_independent_twin_down_to_the_cached_gauss():
    """clone_rng skips seeding (setstate overwrites it): the twin must still carry every part of the state."""
    rng = random.Random(7)
    rng.gauss(0, 1)  # leaves the second normal of the pair cached (gauss_next)
    twin = clone_rng(rng)
    assert type(twin) is random.Random and twin.getstate() == rng.getstate()
    assert [twin.gauss(0, 1), twin.random()] == [rng.gauss(0, 1), rng.random()]
    twin.random()
    assert twin.getstate() != rng.getstate()


def test_illegal_action_carries_its_rule():
    err = IllegalAction("not your turn", "OS-10.1")
    assert err.rule == "OS-10.1" and "OS-10.1" in str(err)
