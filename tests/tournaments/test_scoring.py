"""Match points from a table's finishing order: N-1 for first down to 0, shared on ties, configurable."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.common.standings import places
from services.tournaments.scoring import UNIT, check_points, default_points, shown, table_points


def test_default_points_run_from_n_minus_one_to_zero() -> None:
    assert default_points(2) == (1, 0)
    assert default_points(5) == (4, 3, 2, 1, 0)


def test_a_tie_shares_the_points_of_the_places_it_covers() -> None:
    by_place = default_points(4)
    assert table_points([1, 2, 3, 4], by_place) == [3 * UNIT, 2 * UNIT, 1 * UNIT, 0]
    assert table_points([1, 1, 3, 4], by_place) == [UNIT * 5 // 2, UNIT * 5 // 2, UNIT, 0]
    assert table_points([2, 1, 2, 2], by_place) == [UNIT, 3 * UNIT, UNIT, UNIT]   # (2+1+0)/3
    assert shown(table_points([1, 1, 1], default_points(3))[0]) == 1.0


def test_forfeited_seats_share_the_last_places() -> None:
    # seats 0 and 2 resigned: standings.places puts them last, tied
    placed = places([(10,), (5,), (7,), (1,)], {0, 2})
    assert table_points(placed, default_points(4)) == [UNIT // 2, 3 * UNIT, UNIT // 2, 2 * UNIT]


def test_organiser_points_are_checked() -> None:
    assert check_points(3, [5, 2, 0]) == (5, 2, 0)
    for bad in ([1, 2, 0], [3, 1], [3, -1, -2], [2.5, 1, 0], [1000, 0, 0]):
        with pytest.raises(ValueError):
            check_points(3, bad)
    with pytest.raises(ValueError):
        check_points(6, [5, 4, 3, 2, 1, 0])
    with pytest.raises(ValueError):
        table_points([1, 3, 3], default_points(3))   # not a finishing order: 3 covers places 3 and 4


@given(st.integers(2, 5).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 4), min_size=n, max_size=n),
    st.lists(st.integers(0, 20), min_size=n, max_size=n).map(lambda p: sorted(p, reverse=True)),
    st.sets(st.integers(0, n - 1), max_size=n))))
def test_a_table_hands_out_its_points_whatever_the_ties(case: tuple[list[int], list[int], set[int]]) -> None:
    scores, by_place, forfeited = case
    placed = places([(s,) for s in scores], forfeited)
    got = table_points(placed, by_place)
    assert sum(got) == sum(by_place) * UNIT
    for a in range(len(scores)):
        for b in range(len(scores)):
            if placed[a] == placed[b]:
                assert got[a] == got[b]
            elif placed[a] < placed[b]:
                assert got[a] >= got[b]
