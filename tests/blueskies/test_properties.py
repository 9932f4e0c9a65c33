"""Invariants under random play (hypothesis): cube, card and gate conservation, BS-4 distribution."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.blueskies.passengers import shares
from engine.blueskies.state import LOCAL, BlueSkiesState
from engine.playout import random_step
from tests.blueskies.helpers import GAME


def _check_invariants(state: BlueSkiesState) -> None:
    n = state.num_players
    # BS-3.1: passenger cubes only move from the bag to the board
    assert state.red + state.green + sum(state.pax) == 125
    assert 0 <= state.red <= 100 and 0 <= state.green <= 25
    # BS-1.2.2: the 59 cards are always somewhere
    assert len(state.deck) + len(state.discard) + sum(len(h) for h in state.hands) == 59
    # BS-1.2.4: each player's gates are in the supply or on the board
    on_board = [0] * n
    income = [0] * n
    for a, owners in enumerate(state.gates):
        assert LOCAL not in owners[1:]  # BS-5.7
        counts = shares(state.pax[a], len(owners))
        assert sum(counts) == (state.pax[a] if owners else 0)
        for owner, count in zip(owners, counts):
            if owner >= 0:
                on_board[owner] += 1
                income[owner] += count
    assert [s + b for s, b in zip(state.supply, on_board)] == [20] * n
    assert state.income == income  # BS-2.6
    assert all(len(h) <= 3 for h in state.hands)


@settings(max_examples=30, deadline=None)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32 - 1), choices=st.integers(0, 2**32 - 1))
def test_BS_3_1_BS_2_6_conservation_of_cubes_cards_and_gates_in_random_play(players, seed, choices):
    state = GAME.new(players, seed)
    rng = random.Random(choices)
    _check_invariants(state)
    while not state.is_over():
        random_step(state, rng)
        _check_invariants(state)


@given(passengers=st.integers(0, 200), gates=st.integers(1, 4))
def test_BS_4_1_distribution_is_even_and_ties_go_left(passengers, gates):
    counts = shares(passengers, gates)
    assert sum(counts) == passengers and len(counts) == gates
    assert max(counts) - min(counts) <= 1
    assert counts == sorted(counts, reverse=True)
