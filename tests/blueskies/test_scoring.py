"""BS-9: final scoring (region majorities, unused special action) and the winner."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.blueskies.data import BOARD
from engine.blueskies.scoring import end_gains, final_scoring, region_awards, region_values
from engine.blueskies.state import LOCAL, OVER
from tests.blueskies.helpers import clear_board, idx, new, play_first_cards, set_airport, to_play

REGION = {r.id: r.index for r in BOARD.regions}


def _gates(**owners: list[int]) -> list[list[int]]:
    gates: list[list[int]] = [[] for _ in BOARD.airports]
    for code, who in owners.items():
        gates[idx(code)] = list(who)
    return gates


def _award(awards, region_id):
    return next(a for a in awards if a["region"] == region_id)


def test_BS_9_1_final_scoring_happens_once_and_income_is_not_scored_again():
    state = new(3)
    to_play(state)
    clear_board(state)
    state.red = state.green = 0
    set_airport(state, "BOS", 5, [0])
    state.points = [95, 0, 0]
    play_first_cards(state)
    assert state.phase == OVER
    # 95 + income 5 once, + NE first (10), + MA? no; + unused special 3
    assert state.points[0] == 95 + 5 + 10 + 3
    assert state.final["gains"][0] == 13
    before = list(state.points)
    assert state.scores() == before and state.scores() == before


def test_BS_9_2_1_region_value_sums_airport_values_of_own_gates():
    values = region_values(BOARD, 3, _gates(BOS=[0, 1], PHL=[0]))
    assert values[REGION["NE"]] == [2 + 2, 2, 0]


def test_BS_9_2_2_every_gate_counts_multi_region_airports_count_twice_locals_for_no_one():
    values = region_values(BOARD, 2, _gates(JFK=[LOCAL, 1, 1], ORD=[0]))
    assert values[REGION["NE"]] == [0, 6] and values[REGION["MA"]] == [0, 6]
    assert values[REGION["GL"]] == [4, 0] and values[REGION["CE"]] == [4, 0]


def test_BS_9_2_3_majority_is_by_value_not_by_gate_count():
    awards = region_awards(BOARD, 3, _gates(ATL=[0], MSY=[1, 1], BNA=[1]))
    se = _award(awards, "SE")
    assert se["values"] == [5, 3, 0] and se["first"] == [0]


def test_BS_9_2_4_highest_region_value_gains_the_first_place_bonus():
    gains, _ = final_scoring(BOARD, 3, _gates(SEA=[2]), [True, True, True])
    assert gains == [0, 0, 14]


def test_BS_9_2_5_second_place_gains_6_except_with_two_players():
    gains, _ = final_scoring(BOARD, 3, _gates(SEA=[2], PDX=[1]), [True] * 3)
    assert gains == [0, 6, 14]
    gains, _ = final_scoring(BOARD, 2, _gates(SEA=[1], PDX=[0]), [True] * 2)
    assert gains == [0, 14]


def test_BS_9_2_6_zero_value_never_places_and_ties_share():
    awards = region_awards(BOARD, 3, _gates(SEA=[0]))
    we = _award(awards, "WE")
    assert we["first"] == [0] and we["second"] == []
    awards = region_awards(BOARD, 3, _gates())
    assert all(a["first"] == [] and a["second"] == [] for a in awards)
    awards = region_awards(BOARD, 4, _gates(SEA=[0, 1], PDX=[2, 3]))
    we = _award(awards, "WE")
    assert we["first"] == [0, 1] and we["second"] == []
    awards = region_awards(BOARD, 4, _gates(DEN=[0], SEA=[1], LAS=[2], PDX=[3]))
    assert _award(awards, "WE")["second"] == [1]


def test_BS_9_2_7_examples_of_the_spec():
    # 12-point region SE, 3 players: values A 7, B 7, C 3 -> A and B 12 each, C nothing
    gates = _gates(ATL=[0, 1], MCO=[0, 1, 2], BNA=[2])
    se = _award(region_awards(BOARD, 3, gates), "SE")
    assert se["values"] == [7, 7, 3] and se["first"] == [0, 1] and se["second"] == []
    # values A 7, B 5, C 5 -> A 12, B and C 6 each
    gates = _gates(ATL=[0, 1, 2], MCO=[0])
    se = _award(region_awards(BOARD, 3, gates), "SE")
    assert se["values"] == [7, 5, 5] and se["first"] == [0] and se["second"] == [1, 2]
    gains, _ = final_scoring(BOARD, 3, gates, [True] * 3)
    assert gains == [12, 6, 6]


def test_BS_9_3_unused_special_action_gains_3():
    gains, breakdown = final_scoring(BOARD, 3, _gates(), [True, False, True])
    assert gains == [0, 3, 0] and breakdown["unused_special"] == [0, 3, 0]


def test_BS_9_4_highest_score_wins_ties_broken_by_income_then_shared():
    state = new(3)
    assert state.winners() == []  # only once the game is over
    state.phase = OVER
    for points, income, won in (([10, 12, 12], [9, 1, 3], [2]), ([10, 12, 12], [9, 3, 3], [1, 2]),
                                ([20, 12, 12], [0, 3, 3], [0])):
        state.points, state.income = points, income
        assert state.rank_keys() == list(zip(points, income)) and state.winners() == won


@given(
    players=st.integers(2, 5),
    data=st.data(),
)
def test_BS_9_2_end_gains_are_the_gains_final_scoring_awards(players, data):
    """The lean end-of-game gains (BS-9.2, BS-9.3) that `final_scoring` and the search use add up its
    breakdown on any board: each region's places and bonuses, then the unused-special bonus."""
    owner = st.sampled_from([LOCAL, *range(players)])
    gates = [data.draw(st.lists(owner, max_size=4)) for _ in BOARD.airports]
    used = data.draw(st.lists(st.booleans(), min_size=players, max_size=players))
    gains, breakdown = final_scoring(BOARD, players, gates, used)
    assert end_gains(BOARD, players, gates, used) == gains
    expected = list(breakdown["unused_special"])
    for award in breakdown["regions"]:
        for s in award["first"]:
            expected[s] += award["first_bonus"]
        for s in award["second"]:
            expected[s] += award["second_bonus"]
    assert gains == expected
