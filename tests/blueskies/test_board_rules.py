"""BS-1 to BS-5: components, definitions, the bag, distribution and gates."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine.blueskies import actions as act
from engine.blueskies.data import BOARD
from engine.blueskies.passengers import draw_operation, shares
from engine.blueskies.state import BUY, LOCAL, PLAY, SETUP_BUY
from engine.core import IllegalAction
from tests.blueskies.helpers import (
    GAME,
    clear_board,
    do,
    finish_setup,
    gate_counts,
    idx,
    new,
    set_airport,
    set_hand,
    to_play,
    total_cards,
)


def _round_buyer(players: int = 3) -> object:
    """A game in round 1, step 1, seat 0 to buy, on an empty board."""
    state = new(players)
    finish_setup(state)
    clear_board(state)
    assert state.phase == BUY and state.actor == 0
    return state


# ------------------------------------------------------------------ BS-1


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_BS_1_1_two_to_five_players_are_accepted(players):
    assert GAME.new(players, 1).num_players == players


@pytest.mark.parametrize("players", [0, 1, 6])
def test_BS_1_1_other_player_counts_are_rejected(players):
    with pytest.raises(ValueError, match="2-5 players"):
        GAME.new(players, 1)


def test_BS_1_2_1_board_has_30_airports_with_4_spaces_numbered_left_to_right():
    view = GAME.describe()["board"]
    assert len(view["airports"]) == 30
    assert all(len(a["spaces"]) == 4 for a in view["airports"])
    state = new(4)
    assert all(a["usable_spaces"] == 4 for a in state.view(None)["airports"])


def test_BS_1_2_2_demand_deck_holds_59_cards_by_airport():
    state = new(3)
    assert total_cards(state) == 59
    counts = Counter(state.deck + state.discard + [c for h in state.hands for c in h])
    assert all(counts[a.index] == a.cards for a in BOARD.airports)


def test_BS_1_2_3_bag_starts_with_100_red_and_25_green():
    state = new(3)
    drawn = sum(state.pax)
    assert state.red + state.green + drawn == 125
    assert state.red <= 100 and state.green <= 25
    # setup ran 5 + 3*3 operations, each drawing exactly one red while reds remain
    assert 100 - state.red == 5 + 9


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_BS_1_2_4_every_player_has_20_gates(players):
    assert new(players).supply == [20] * players


def test_BS_1_2_5_local_gates_are_unlimited_neutral_supply():
    state = new(2)
    finish_setup(state)
    to_play(state)
    clear_board(state)
    state.pax = [1] * 30
    state.rebuild_derived()
    state.green = 0
    state.red = 0  # no more passengers, so step 3 changes nothing
    while state.phase != BUY:
        state.apply(state.actor, act.PLAY[state.hands[state.actor][0]])
    assert all(g == [LOCAL] for g in state.gates)


def test_BS_1_2_6_per_player_state_is_exposed():
    view = new(3).view(1)
    assert view["scores"] == [0, 0, 0]
    assert view["special_used"] == [False] * 3
    assert len(view["income"]) == 3
    assert len(view["hand"]) == 3 and view["hand_counts"] == [3, 3, 3]


def test_BS_1_2_7_game_state_has_marker_deck_discard_flag_and_round():
    view = new(3).view(None)
    assert view["first_player"] == 0
    assert view["deck_count"] == 59 - 5 - 9 - 9
    assert sum(view["discard"].values()) == 14
    assert view["government"]["used"] is False
    assert view["round"] == 0


# ------------------------------------------------------------------ BS-2


@pytest.mark.parametrize(("players", "usable"), [(2, 2), (3, 3), (4, 4), (5, 4)])
def test_BS_2_1_usable_spaces_depend_on_player_count(players, usable):
    state = new(players)
    finish_setup(state)
    clear_board(state)
    state.supply = [20] * players
    for _ in range(usable):
        state.budget = 6
        do(state, state.actor, {"type": "buy_gate", "airport": "PDX"})
    assert len(state.gates[idx("PDX")]) == usable
    state.budget = 6
    assert act.BuyGate("PDX") not in state.legal_actions(state.actor)
    with pytest.raises(IllegalAction, match="no empty usable gate space"):
        do(state, state.actor, {"type": "buy_gate", "airport": "PDX"})


def test_BS_2_2_a_space_holds_one_gate_owned_by_a_player_or_local():
    state = _round_buyer()
    set_airport(state, "SEA", 0, [LOCAL])
    do(state, 0, {"type": "buy_gate", "airport": "SEA"})
    gates = next(a for a in state.view(None)["airports"] if a["code"] == "SEA")["gates"]
    assert [(g["space"], g["owner"]) for g in gates] == [(1, "local"), (2, 0)]


def test_BS_2_3_local_and_player_gates_are_both_open_gates():
    state = _round_buyer()
    set_airport(state, "SEA", 5, [LOCAL])
    do(state, 0, {"type": "buy_gate", "airport": "SEA"})
    assert gate_counts(state, "SEA") == [3, 2]
    assert state.income[0] == 2


def test_BS_2_4_passengers_wait_at_an_airport_without_gates_and_never_leave():
    state = _round_buyer()
    set_airport(state, "PDX", 4, [])
    assert gate_counts(state, "PDX") == [] and state.income == [0, 0, 0]
    do(state, 0, {"type": "buy_gate", "airport": "PDX"})
    assert state.pax[idx("PDX")] == 4 and state.income[0] == 4


def test_BS_2_5_turn_order_setup_backwards_then_rounds_from_the_first_player():
    state = new(4, first=2)
    setup_order = []
    while state.phase == SETUP_BUY:
        setup_order.append(state.actor)
        state.apply(state.actor, act.DONE)
    assert setup_order == [1, 0, 3, 2]
    buy_order = []
    while state.phase == BUY:
        buy_order.append(state.actor)
        state.apply(state.actor, act.DONE)
    assert buy_order == [2, 3, 0, 1]


def test_BS_2_5_first_player_is_random_unless_fixed():
    firsts = {GAME.new(5, seed).first for seed in range(40)}
    assert firsts == {0, 1, 2, 3, 4}
    assert new(5, first=3).first == 3


def test_BS_2_5_first_player_is_a_documented_game_option():
    """BS-2.5: "chosen uniformly at random, unless the game configuration fixes it": the configuration is the
    game option `first_player` (default "random"), described in the catalog like every option."""
    spec = GAME.describe()["options"]["first_player"]
    assert spec["default"] == "random" and spec["choices"] == ["random", 0, 1, 2, 3, 4]
    assert "BS-2.5" in spec["description"]
    assert {GAME.new(4, seed, {"first_player": "random"}).first for seed in range(30)} == {0, 1, 2, 3}
    for seat in range(4):
        state = GAME.new(4, 7, {"first_player": seat})
        assert state.first == seat and state.view(None)["first_player"] == seat
    with pytest.raises(ValueError, match="first_player"):
        GAME.new(3, 1, {"first_player": 3})
    with pytest.raises(ValueError, match="first_player"):
        GAME.new(3, 1, {"first_player": "1"})


def test_BS_2_6_income_is_the_passengers_at_own_gates_after_every_change():
    state = _round_buyer()
    set_airport(state, "SEA", 3, [1])
    assert state.income == [0, 3, 0]
    do(state, 0, {"type": "buy_gate", "airport": "SEA"})
    assert state.income == [1, 2, 0]
    assert state.view(2)["income"] == [1, 2, 0]


def test_BS_2_7_leader_is_the_highest_score_ties_included():
    state = new(3)
    finish_setup(state)
    to_play(state)
    clear_board(state)
    state.points = [40, 40, 31]
    while state.phase == PLAY:
        state.apply(state.actor, act.PLAY[state.hands[state.actor][0]])
    assert state.help_entitlement == [0, 0, 3]


# ------------------------------------------------------------------ BS-3


def test_BS_3_1_draws_are_without_replacement_and_never_return():
    state = _round_buyer()
    before = state.red + state.green + sum(state.pax)
    for _ in range(20):
        state._add_passengers(idx("ATL"))
    assert state.red + state.green + sum(state.pax) == before
    assert state.red == 100 - 14 - 20


def test_BS_3_2_greens_mean_draw_again_and_every_drawn_cube_is_placed():
    class GreensFirst(random.Random):
        def random(self):  # the lowest draw is always a green while greens remain
            return 0.0

    assert draw_operation(GreensFirst(), 1, 3) == (1, 3, 0, 0)
    assert draw_operation(random.Random(1), 5, 0) == (1, 0, 4, 0)
    for seed in range(50):
        red, greens, red_left, green_left = draw_operation(random.Random(seed), 10, 10)
        assert red == 1 and red_left == 9 and greens + green_left == 10


def test_BS_3_2_one_cube_with_probability_100_in_125_on_a_full_bag():
    rng = random.Random(12345)
    trials = 20000
    single = sum(draw_operation(rng, 100, 25)[1] == 0 for _ in range(trials))
    assert abs(single / trials - 0.8) < 0.015


def test_BS_3_3_added_passengers_are_redistributed():
    state = _round_buyer()
    set_airport(state, "SEA", 2, [1, 2])
    state.green = 0
    assert state._add_passengers(idx("SEA")) == (1, 0)
    assert gate_counts(state, "SEA") == [2, 1]
    assert state.income == [0, 2, 1]


def test_BS_3_4_empty_bag_ends_the_operation_and_the_game_goes_on():
    assert draw_operation(random.Random(3), 0, 2) == (0, 2, 0, 0)
    assert draw_operation(random.Random(3), 0, 0) == (0, 0, 0, 0)
    state = _round_buyer()
    state.red = state.green = 0
    to_play(state)
    state.apply(state.actor, act.PLAY[state.hands[state.actor][0]])
    assert not state.is_over() and sum(state.pax) == 0


def test_BS_3_5_a_played_card_is_exactly_one_operation_on_one_airport():
    state = _round_buyer()
    to_play(state)
    seat = state.actor
    set_hand(state, seat, ["DEN", "DEN", "SEA"])
    events = do(state, seat, {"type": "play_card", "airport": "DEN"})
    ops = [e for e in events if "red" in e.data]
    assert len(ops) == 1 and ops[0].type == "play" and ops[0].data["card"] == "DEN"
    assert ops[0].data["red"] == 1
    assert state.pax[idx("DEN")] == ops[0].data["red"] + ops[0].data["green"]


# ------------------------------------------------------------------ BS-4


def test_BS_4_1_even_distribution_with_ties_left_to_right():
    assert shares(7, 3) == [3, 2, 2]
    assert shares(8, 3) == [3, 3, 2]
    assert shares(0, 2) == [0, 0]
    assert shares(5, 0) == []


def test_BS_4_2_opening_a_gate_redistributes_all_passengers_and_can_lower_income():
    state = _round_buyer()
    set_airport(state, "SEA", 6, [1])
    assert state.income[1] == 6
    do(state, 0, {"type": "buy_gate", "airport": "SEA"})
    assert gate_counts(state, "SEA") == [3, 3]
    assert state.income == [3, 3, 0]


def test_BS_4_3_examples():
    state = _round_buyer(4)
    set_airport(state, "SEA", 7, [1, 2, 3])
    assert gate_counts(state, "SEA") == [3, 2, 2]
    state.budget = 6
    do(state, 0, {"type": "buy_gate", "airport": "SEA"})
    assert gate_counts(state, "SEA") == [2, 2, 2, 1]
    set_airport(state, "PDX", 1, [1, 2])
    assert gate_counts(state, "PDX") == [1, 0]
    set_airport(state, "SAN", 3, [])
    state.budget = 6
    do(state, 0, {"type": "buy_gate", "airport": "SAN"})
    assert gate_counts(state, "SAN") == [3]


# ------------------------------------------------------------------ BS-5


def test_BS_5_1_a_gate_goes_to_the_leftmost_empty_space_at_its_printed_cost():
    state = _round_buyer(4)
    events = do(state, 0, {"type": "buy_gate", "airport": "SEA"})
    assert events[0].data == {"seat": 0, "airport": "SEA", "space": 1, "cost": 2}
    assert state.budget == 4 and state.supply[0] == 19
    events = do(state, 0, {"type": "buy_gate", "airport": "SEA"})
    assert events[0].data["space"] == 2 and events[0].data["cost"] == 3
    assert state.budget == 1


def test_BS_5_1_opening_is_illegal_over_budget_full_or_without_supply():
    state = _round_buyer(2)
    do(state, 0, {"type": "buy_gate", "airport": "ATL"})
    before = state.digest()
    with pytest.raises(IllegalAction, match="costs 5, budget left 1"):
        do(state, 0, {"type": "buy_gate", "airport": "ATL"})
    assert act.BuyGate("ATL") not in state.legal_actions(0)
    state.supply[0] = 0
    before = state.digest()
    with pytest.raises(IllegalAction, match="no gates left"):
        do(state, 0, {"type": "buy_gate", "airport": "PDX"})
    assert state.digest() == before
    assert state.legal_actions(0) == [act.DONE]
    with pytest.raises(IllegalAction, match="unknown airport"):
        do(state, 0, {"type": "buy_gate", "airport": "XXX"})


def test_BS_5_2_a_player_may_own_several_gates_at_one_airport():
    state = _round_buyer(3)
    do(state, 0, {"type": "buy_gate", "airport": "PDX"})
    do(state, 0, {"type": "buy_gate", "airport": "PDX"})
    do(state, 0, {"type": "buy_gate", "airport": "PDX"})
    assert state.gates[idx("PDX")] == [0, 0, 0]


def test_BS_5_3_gates_may_open_at_airports_without_passengers_and_never_move():
    state = _round_buyer()
    assert state.pax[idx("MCI")] == 0
    do(state, 0, {"type": "buy_gate", "airport": "MCI"})
    assert state.gates[idx("MCI")] == [0]
    state.apply(0, act.DONE)
    assert state.gates[idx("MCI")] == [0]


def test_BS_5_4_buyout_replaces_the_local_gate_and_keeps_the_passengers():
    state = _round_buyer(3)
    set_airport(state, "SEA", 5, [LOCAL, 1])
    assert act.Buyout("SEA") in state.legal_actions(0)
    events = do(state, 0, {"type": "buyout", "airport": "SEA"})
    assert events[0].data["cost"] == 4
    assert state.gates[idx("SEA")] == [0, 1]
    assert gate_counts(state, "SEA") == [3, 2]
    assert state.income == [3, 2, 0]
    assert state.budget == 2 and state.supply[0] == 19
    assert act.Buyout("SEA") not in state.legal_actions(0)


def test_BS_5_4_buyout_is_illegal_when_not_allowed_unaffordable_absent_or_without_supply():
    state = _round_buyer(3)
    set_airport(state, "ATL", 2, [LOCAL])
    set_airport(state, "SEA", 2, [LOCAL])
    set_airport(state, "PDX", 2, [1])
    before = state.digest()
    with pytest.raises(IllegalAction, match="N/A"):
        do(state, 0, {"type": "buyout", "airport": "ATL"})
    with pytest.raises(IllegalAction, match="no local-airline gate"):
        do(state, 0, {"type": "buyout", "airport": "PDX"})
    state.budget = 3
    before = state.digest()
    with pytest.raises(IllegalAction, match="costs 4, budget left 3"):
        do(state, 0, {"type": "buyout", "airport": "SEA"})
    state.budget = 6
    state.supply[0] = 0
    before = state.digest()
    with pytest.raises(IllegalAction, match="no gates left"):
        do(state, 0, {"type": "buyout", "airport": "SEA"})
    assert state.digest() == before
    assert all(not isinstance(a, act.Buyout) or a.airport != "ATL" for a in state.legal_actions(0))


def test_BS_5_4_buyout_without_a_local_gate_says_so_even_where_buyouts_are_na():
    """BS-5.4: the first thing a buyout needs is a local gate; an airport without one is refused for that,
    whether or not its printed buyout is N/A."""
    state = _round_buyer(3)
    assert BOARD.airports[idx("ATL")].buyout is None
    for owners in ([], [1]):
        set_airport(state, "ATL", 2, owners)
        with pytest.raises(IllegalAction, match="no local-airline gate") as info:
            do(state, 0, {"type": "buyout", "airport": "ATL"})
        assert info.value.rule == "BS-5.4"


def test_BS_5_5_costs_are_1_to_5_and_busier_airports_are_dearer():
    by = {a.code: a for a in BOARD.airports}
    assert min(min(a.costs) for a in BOARD.airports) == 1
    assert max(max(a.costs) for a in BOARD.airports) == 5
    assert by["ATL"].costs[0] > by["CVG"].costs[0]


def test_BS_5_6_budget_is_fresh_and_never_taken_from_the_score():
    state = _round_buyer()
    state.points[0] = 50
    do(state, 0, {"type": "buy_gate", "airport": "ATL"})
    assert state.points[0] == 50 and state.budget == 1
    state.apply(0, act.DONE)
    assert state.points[0] == 51
    assert state.actor == 1 and state.budget == 6


def test_BS_5_7_local_gates_only_on_space_1_of_airports_without_gates_and_earn_nothing():
    state = new(3)
    for owners in state.gates:
        assert owners.count(LOCAL) <= 1
        if LOCAL in owners:
            assert owners[0] == LOCAL
    assert state.income == [0, 0, 0]
    finish_setup(state)
    to_play(state)
    clear_board(state)
    set_airport(state, "SEA", 3, [1])
    set_airport(state, "PDX", 3, [])
    state.red = state.green = 0
    while state.phase == PLAY:
        state.apply(state.actor, act.PLAY[state.hands[state.actor][0]])
    assert state.gates[idx("SEA")] == [1] and state.gates[idx("PDX")] == [LOCAL]


def test_BS_5_8_done_is_always_legal_and_alone_once_nothing_can_be_bought():
    state = _round_buyer()
    assert state.legal_actions(0)[-1] == act.DONE
    state.budget = 0
    assert state.legal_actions(0) == [act.DONE]
    state.budget = 6
    do(state, 0, {"type": "done"})
    assert state.actor == 1
    state = new(3)
    seat = state.actor
    do(state, seat, {"type": "buy_gate", "airport": "PDX"})
    do(state, seat, {"type": "buy_gate", "airport": "CVG"})
    assert state.legal_actions(seat) == [act.DONE]
