"""OS-11 winner algorithm, including every OS-11.5 test vector."""

from __future__ import annotations

import pytest

from engine.opensky.pricing import market_winners

# (seat, fare, stops)
VECTORS = [
    ("nonstop 400, one-stop 200", [(0, 400, 0), (1, 200, 1)], [1]),
    ("nonstop 400, one-stop 250", [(0, 400, 0), (1, 250, 1)], [0]),
    ("nonstop 300, one-stop 200", [(0, 300, 0), (1, 200, 1)], [0]),
    ("nonstop 500, nonstop 500, one-stop 250", [(0, 500, 0), (1, 500, 0), (2, 250, 1)], [2]),
    ("nonstop 500, one-stop 200, one-stop 200", [(0, 500, 0), (1, 200, 1), (2, 200, 1)], [1, 2]),
    ("one-stop 250, one-stop 300 (nonstop owner passed)", [(0, 250, 1), (1, 300, 1)], [0]),
    ("two-stop 300, two-stop 300", [(0, 300, 2), (1, 300, 2)], [0, 1]),
]


@pytest.mark.parametrize(("label", "offers", "winners"), VECTORS, ids=[v[0] for v in VECTORS])
def test_OS_11_5_worked_examples(label, offers, winners):
    assert market_winners(offers) == winners


def test_OS_11_3_a_no_offers_no_winner():
    assert market_winners([]) == []


def test_OS_11_3_b_OS_11_1_same_stops_lowest_fare_wins_and_ties_share():
    assert market_winners([(0, 300, 0), (1, 250, 0), (2, 400, 0)]) == [1]
    assert market_winners([(0, 250, 0), (1, 250, 0)]) == [0, 1]


def test_OS_11_3_c_one_stop_at_half_fare_beats_nonstop():
    assert market_winners([(0, 400, 0), (1, 200, 1)]) == [1]


def test_OS_11_4_exact_half_wins_outright_and_never_ties():
    assert market_winners([(0, 500, 0), (1, 250, 1)]) == [1]


def test_OS_11_4_non_qualifying_cheaper_one_stop_loses_to_nonstop():
    assert market_winners([(0, 500, 0), (1, 300, 1), (2, 400, 0)]) == [2]


def test_OS_11_4_lowest_qualifying_one_stop_wins():
    assert market_winners([(0, 500, 0), (1, 250, 1), (2, 200, 1)]) == [2]


def test_OS_11_2_half_fare_uses_lowest_competing_nonstop():
    # 250 is half of 500 but not of the lowest nonstop 400.
    assert market_winners([(0, 500, 0), (1, 400, 0), (2, 250, 1)]) == [1]


def test_OS_11_3_d_two_stop_offers_never_mix_with_shorter():
    with pytest.raises(ValueError, match=r"OS-9\.4"):
        market_winners([(0, 300, 0), (1, 200, 2)])
