"""Property tests of game invariants over random games (hypothesis picks seeds and options)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.opensky.constants import FARES
from engine.playout import random_step
from tests.opensky.helpers import GAME


def _card_count(state, seat: int) -> int:
    offer = state.offers[seat]
    return sum(state.hand[seat]) + sum(state.table[seat]) + (offer is not None)


def _table_value(state, seat: int) -> int:
    return sum(v * n for v, n in zip(FARES, state.table[seat])) + state.credit[seat]


games = st.tuples(
    st.integers(2, 4),
    st.sampled_from(["europe", "north_america"]),
    st.integers(0, 2**31 - 1),
)


@settings(max_examples=40, deadline=None)
@given(config=games)
def test_OS_16_4_tokens_and_cards_are_conserved(config):
    """OS-16.4: supply + board = S always; OS-2.4: each player always owns exactly its 10
    fare cards (hand + table + standing offer) and 3 ancillary tokens (unused + used)."""
    players, map_name, seed = config
    state = GAME.new(players, seed, {"map": map_name, "callsigns": "random"})
    rng = random.Random(seed)
    flash_deals = 0
    while not state.is_over():
        for s in range(players):
            assert sum(state.tokens[s]) == state.on_board[s] <= state.S
            assert all(n >= 0 for n in state.tokens[s])
            assert _card_count(state, s) == 10
            assert state.anc[s] + state.anc_used[s] == 3
            assert len(state.xb[s]) <= 2 and len(state.hubs[s]) <= 2
        assert sum(state.cubes) + state.cube_owner.count(-1) == 6
        _, action, _ = random_step(state, rng)
        if action.TYPE == "flash_deal":
            flash_deals += 1
    assert flash_deals <= players  # OS-12.3: one Flash Deal token each


@settings(max_examples=40, deadline=None)
@given(config=games)
def test_OS_17_3_table_value_falls_by_exactly_200_per_leased_aircraft(config):
    players, map_name, seed = config
    state = GAME.new(players, seed, {"map": map_name, "callsigns": "random"})
    rng = random.Random(seed)
    while not state.is_over():
        before = [_table_value(state, s) for s in range(players)]
        seat, action, _ = random_step(state, rng)
        if action.TYPE == "lease":
            assert before[seat] - _table_value(state, seat) == 200 * action.aircraft
            assert state.credit[seat] >= 0
        elif action.TYPE not in ("bid", "pass", "flash_deal", "decline_flash", "add_ancillaries", "choose_market"):
            assert [_table_value(state, s) for s in range(players)] == before
