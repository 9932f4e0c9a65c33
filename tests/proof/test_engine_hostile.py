"""Hostile actions against every engine, beyond tests/conformance's random JSON: real legal actions of
live positions with one field replaced by a random JSON value (or a field dropped or added), decoded with
`action_from_json` and applied for every seat, including seats that need not act.

Decoding raises only ValueError; applying raises only IllegalAction, and a refused action leaves the
state exactly as it was (contract: validate fully before mutating)."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.core import Action, IllegalAction

GAMES = engine.games()

_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=6),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=6,
)


def _position(name: str, seed: int):
    """A live position some random steps into a game, with its players."""
    game = engine.get(name)
    rng = random.Random(seed)
    players = rng.randint(game.min_players, game.max_players)
    state = game.new(players, seed)
    for _ in range(rng.randrange(0, 60)):
        to_act = state.to_act()
        if not to_act:
            break
        seat = rng.choice(to_act)
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    return game, state, players


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**31), data=st.data())
def test_mutated_legal_actions_are_refused_cleanly(name, seed, data):
    game, state, players = _position(name, seed)
    to_act = state.to_act()
    if not to_act:
        return
    base = data.draw(st.sampled_from(state.legal_actions(to_act[0]))).to_json()
    mutated = dict(base)
    fields = [k for k in base if k != "type"]
    how = data.draw(st.sampled_from(["replace", "drop", "add", "type"]))
    if how == "replace" and fields:
        mutated[data.draw(st.sampled_from(fields))] = data.draw(_json)
    elif how == "drop" and fields:
        del mutated[data.draw(st.sampled_from(fields))]
    elif how == "add":
        mutated[data.draw(st.text(min_size=1, max_size=6))] = data.draw(_json)
    else:
        mutated["type"] = data.draw(st.sampled_from([*game.codec.types, "", "x"]))
    try:
        action = game.action_from_json(mutated)
    except ValueError:
        return
    assert isinstance(action, Action)
    before = state.digest()
    seat = data.draw(st.integers(0, players - 1))
    snapshot = state.clone()
    try:
        state.apply(seat, action)
    except IllegalAction:
        assert state.digest() == before, "a refused action changed the state"
        return
    assert action in snapshot.legal_actions(seat), "apply accepted an action legal_actions does not list"
