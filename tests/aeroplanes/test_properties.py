"""Invariants over random games (hypothesis): money, tile, passenger and advantage conservation."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.aeroplanes.data import DATA
from engine.playout import random_step

from .helpers import GAME


def check_invariants(s) -> None:
    n = s.num_players
    assert all(m >= 0 for m in s.money), "AE-1.4 money never negative"
    for p in range(n):
        for stage in (1, 2, 3):
            on_cards = sum(c[4] for c in s.cards[p] if DATA.cards[c[0] - 1].stage == stage)
            on_board = sum(1 for row in s.slots for v in row if v >= 0 and v >> 2 == p and v & 3 == stage)
            assert s.supply[p][stage] + on_cards + on_board == 9, "AE-2.2 nine tiles per stage"
        mine = [d for d, row in enumerate(s.slots) if sum(1 for v in row if v >= 0 and v >> 2 == p) > 1]
        assert not mine, "AE-8.8 one own tile per destination"
        if s.home[p] >= 0:
            assert p * 4 in s.slots[s.home[p]], "AE-2.3 home tile never replaced"
    passengers = [t for t in s.waiting if t] + s.overflow + s.bag + s.removed
    for p in range(n):
        passengers += s.set_aside[p] + [t for c in s.cards[p] for t in c[5]]
    assert sorted(passengers) == list(range(1, 97)), "passenger tiles are conserved"
    assert len(s.overflow) <= 8
    for t in (2, 3, 4, 5, 6):
        assert s.adv_supply[t] + sum(s.adv[p][t] for p in range(n)) == 6, "AE-2.6 six advantage tiles per type"
    for p in range(n):
        for c in s.cards[p]:
            free = c[3] - sum(DATA.passengers[t - 1].capacity for t in c[5])
            assert free >= 0, "AE-9.4 a card never carries more than its capacity"


@settings(max_examples=12, deadline=None)
@given(players=st.integers(3, 5), seed=st.integers(0, 2**31), choices=st.integers(0, 2**31))
def test_invariants_hold_through_random_games(players, seed, choices):
    s = GAME.new(players, seed)
    rng = random.Random(choices)
    check_invariants(s)
    while not s.is_over():
        random_step(s, rng)
        check_invariants(s)


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**31))
def test_views_are_json_and_never_show_the_rng(seed):
    s = GAME.new(4, seed)
    rng = random.Random(seed)
    while not s.is_over():
        for seat in (None, 0, 1, 2, 3):
            view = s.view(seat)
            json.dumps(view)
            assert "rng" not in view
            assert view["phase"] == s.phase and view["to_act"] == s.to_act()
        random_step(s, rng)


def test_determinize_only_reseeds_because_nothing_is_hidden():
    """Aeroplanes has no per-seat hidden information (docs/games): a determinization differs only in its RNG."""
    s = GAME.new(4, 3)
    rng = random.Random(3)
    for _ in range(60):
        random_step(s, rng)
    truth = {k: v for k, v in s.to_json().items() if k != "rng"}
    for seat in range(4):
        sample = s.determinize(seat, random.Random(seat))
        assert {k: v for k, v in sample.to_json().items() if k != "rng"} == truth
        assert sample.to_json()["rng"] != s.to_json()["rng"]
        assert sample.view(seat) == s.view(seat)
    assert GAME.has_hidden_information is False
    static = GAME.static_board()
    json.dumps(static)
    assert len(static["cards"]) == 46 and len(static["passengers"]) == 96
