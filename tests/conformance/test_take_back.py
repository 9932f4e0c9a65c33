"""Take-back conformance (`Game.check_take_back`), every title over random games: a decision the engine lets its
seat take back resolved no chance, revealed nothing and asked no other seat to decide; the check changes
nothing. The per-title rules, with their rule ids, are tested in tests/<title>/test_take_back.py."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.core import IllegalAction
from engine.playout import random_step

#: Events that show what was hidden (chance, a sealed bid, a card): an independent oracle, not the engines' rules.
REVEALS = {
    "aeroplanes": {"risk_roll", "advantage_roll", "first_player_die", "era_update"},  # AE-8.13, AE-10.1, AE-6.2
    "opensky": {"dice_rolled", "bids_revealed", "price_check"},  # OS-8.1, OS-10.3, OS-15.2
    "blueskies": {"draw", "draw_cards", "reveal", "reshuffle", "play", "special", "help"},  # BS-3.1, BS-6.4
}
#: Decisions per game looked at: enough for every title's turn structure, bounded for the suite's time.
STEPS = 400


@pytest.mark.parametrize("name", sorted(REVEALS))
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), extra=st.integers(0, 3))
def test_a_decision_that_can_be_taken_back_revealed_nothing_and_kept_the_turn(name, seed, extra):
    game = engine.get(name)
    players = min(game.min_players + extra, game.max_players)
    state = game.new(players, seed)
    rng = random.Random(seed)
    for _ in range(STEPS):
        if state.is_over():
            break
        before = state.clone()
        asked = set(before.to_act())
        seat, action, events = random_step(state, rng)
        digests = before.digest(), state.digest()
        try:
            game.check_take_back(before, seat, action, state)
        except IllegalAction as exc:
            assert exc.rule is None or exc.rule[:2] in ("AE", "OS", "BS")
            continue
        finally:
            assert (before.digest(), state.digest()) == digests  # a pure check
        assert before.to_json()["rng"] == state.to_json()["rng"], f"{action} resolved chance"
        assert not {e.type for e in events} & REVEALS[name], f"{action} revealed {[e.type for e in events]}"
        assert set(state.to_act()) - {seat} <= asked, f"{action} asked another seat to decide"


@pytest.mark.parametrize("name", sorted(REVEALS))
def test_each_title_lets_some_decisions_of_a_game_be_taken_back(name):
    """Seed 0's game at the fewest players: placements (OS-6.5), purchases (BS-5.8), the action chosen (AE-6.4)."""
    game = engine.get(name)
    state, rng, allowed = game.new(game.min_players, 0), random.Random(0), set()
    while not state.is_over() and len(allowed) < 2:
        before = state.clone()
        seat, action, _ = random_step(state, rng)
        try:
            game.check_take_back(before, seat, action, state)
            allowed.add(action.TYPE)
        except IllegalAction:
            pass
    assert allowed


def test_the_contract_default_allows_nothing():
    """A game that declares nothing keeps every decision final (engine/core.py)."""

    class Plain(engine.Game):
        title = "Plain"

        def new(self, players, seed, options=None):
            raise NotImplementedError

        def from_json(self, obj):
            raise NotImplementedError

    state = engine.get("blueskies").new(2, 1)
    with pytest.raises(IllegalAction):
        Plain().check_take_back(state, state.to_act()[0], state.legal_actions(state.to_act()[0])[0], state)
