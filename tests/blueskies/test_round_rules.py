"""BS-6 to BS-8: demand cards, setup and the eight steps of a round."""

from __future__ import annotations

import random

import pytest

from engine.blueskies import actions as act
from engine.blueskies.state import (
    BUY,
    HELP,
    HELP_DISCARD,
    LOCAL,
    OVER,
    PLAY,
    SETUP_BUY,
    SPECIAL_DISCARD,
    BlueSkiesState,
)
from engine.core import IllegalAction
from tests.blueskies.helpers import (
    GAME,
    clear_board,
    do,
    finish_setup,
    idx,
    new,
    play_first_cards,
    set_airport,
    set_hand,
    to_play,
    total_cards,
)


def _setup_events(players: int, seed: int, first: int = 0):
    state = BlueSkiesState(GAME, players, random.Random(seed))
    return state, state.setup(first)


def _in_play(players: int = 3, seed: int = 1) -> BlueSkiesState:
    state = new(players, seed)
    to_play(state)
    clear_board(state)
    return state


def _quiet(state: BlueSkiesState) -> None:
    """No more passengers: reveals and plays change nothing on the board."""
    state.red = state.green = 0


# ------------------------------------------------------------------ BS-6


def test_BS_6_1_hands_of_three_are_hidden_from_other_seats():
    state = new(3)
    assert [len(h) for h in state.hands] == [3, 3, 3]
    view = state.view(0)
    assert view["hand"] == [act.CODES[c] for c in state.hands[0]]
    assert "hands" not in view and view["hand_counts"] == [3, 3, 3]
    assert state.view(None)["hand"] is None


def test_BS_6_2_played_and_special_discarded_cards_go_face_up_to_the_discard_pile():
    state = _in_play()
    seat = state.actor
    set_hand(state, seat, ["PDX", "SEA", "SEA"])
    before = dict(state.view(None)["discard"])
    do(state, seat, {"type": "play_card", "airport": "SEA"})
    assert state.view(None)["discard"].get("SEA", 0) == before.get("SEA", 0) + 1
    seat = state.actor
    set_hand(state, seat, ["BOS", "BOS", "MIA"])
    do(state, seat, {"type": "special", "airport": "ATL"})
    events = do(state, seat, {"type": "discard", "cards": ["BOS"]})
    assert any(e.type == "discard" and e.visible_to is None and e.data["cards"] == ["BOS"] for e in events)
    assert "BOS" in state.view(None)["discard"]


def test_BS_6_3_empty_deck_reshuffles_the_discard_pile_or_skips_the_draw():
    state = _in_play()
    seat = state.actor
    state.discard += state.deck
    state.discard.sort()
    state.deck = []
    size = len(state.discard)
    events = state.apply(seat, act.PLAY[state.hands[seat][0]])
    assert any(e.type == "reshuffle" for e in events)
    assert len(state.hands[seat]) == 3 and len(state.deck) == size  # played card joined, one drawn
    state = _in_play()
    seat = state.actor
    state.deck, state.discard = [], []
    hand = list(state.hands[seat])
    events = state.apply(seat, act.PLAY[hand[0]])
    # the played card was discarded before the draw, so it comes back
    assert any(e.type == "reshuffle" for e in events) and len(state.hands[seat]) == 3
    state.deck, state.discard = [], []
    assert state._draw_card([]) is None
    pax, bag = list(state.pax), (state.red, state.green)
    assert state._reveal([]) is None  # a reveal from nothing adds no passengers
    assert state.pax == pax and (state.red, state.green) == bag
    state.hands[seat] = []
    state._refill(seat, [])  # a hand may then hold fewer than 3 cards
    assert state.hands[seat] == []


def test_BS_6_4_drawn_cards_join_the_hand_and_revealed_cards_are_resolved_then_discarded():
    state, events = _setup_events(3, 4)
    reveals = [e.data["card"] for e in events if e.type == "reveal"]
    assert len(reveals) == 5 + 9
    discard = sorted(state.discard)
    assert sorted(act.CODES[c] for c in discard) == sorted(reveals)
    private = [e for e in events if e.type == "draw_cards"]
    assert all(e.visible_to == (e.data["seat"],) for e in private)
    for seat in range(3):
        assert sorted(c for e in private if e.data["seat"] == seat for c in e.data["cards"]) == sorted(
            act.CODES[c] for c in state.hands[seat]
        )
    public = [e.data for e in events if e.type == "draw"]
    assert public == [{"seat": s, "count": 3} for s in range(3)]


# ------------------------------------------------------------------ BS-7


def test_BS_7_1_setup_prepares_scores_flags_bag_and_first_player():
    state = new(4, seed=9)
    assert state.points == [0, 0, 0, 0]
    assert state.special_used == [False] * 4 and state.help_used is False
    assert state.red + state.green + sum(state.pax) == 125


def test_BS_7_2_five_reveals_then_one_local_gate_per_named_airport():
    for seed in range(10):
        state, events = _setup_events(3, seed)
        reveals = [e.data["card"] for e in events if e.type == "reveal"]
        locals_ = sorted(e.data["airport"] for e in events if e.type == "local_gate")
        assert locals_ == sorted(set(reveals[:5]))
        for code in locals_:
            assert state.gates[idx(code)] == [LOCAL]
            assert state.pax[idx(code)] >= 1
        assert sum(1 for g in state.gates if g) == len(locals_) <= 5


def test_BS_7_3_further_reveals_add_passengers_without_local_gates():
    state, events = _setup_events(4, 3)
    reveals = [e.data["card"] for e in events if e.type == "reveal"]
    assert len(reveals) == 5 + 12
    for code in set(reveals[5:]) - set(reveals[:5]):
        assert state.gates[idx(code)] == [] and state.pax[idx(code)] >= 1


def test_BS_7_4_all_setup_reveals_go_to_the_discard_pile():
    for players in (2, 5):
        state = new(players)
        assert len(state.discard) == 5 + 3 * players


def test_BS_7_5_each_player_is_dealt_three_cards():
    for players in (2, 3, 4, 5):
        state = new(players)
        assert all(len(h) == 3 for h in state.hands)
        assert total_cards(state) == 59


def test_BS_7_6_setup_purchases_go_backwards_with_two_gates_and_six_points_lost():
    state = new(3, first=1)
    assert state.phase == SETUP_BUY and state.actor == 0 and state.budget == 6
    do(state, 0, {"type": "buy_gate", "airport": "PDX"})
    assert state.legal_actions(0)[-1] == act.DONE
    do(state, 0, {"type": "buy_gate", "airport": "SAN"})
    with pytest.raises(IllegalAction, match="at most 2 gates"):
        do(state, 0, {"type": "buy_gate", "airport": "SLC"})
    do(state, 0, {"type": "done"})
    assert state.points[0] == 0  # 4 unspent points are lost
    assert state.actor == 2
    do(state, 2, {"type": "done"})
    assert state.actor == 1
    do(state, 1, {"type": "done"})
    assert state.phase == BUY and state.actor == 1 and state.round == 1


def test_BS_7_6_setup_buyout_counts_as_one_of_the_two_gates():
    state = new(3, first=1)
    clear_board(state)
    set_airport(state, "SEA", 2, [LOCAL])
    do(state, 0, {"type": "buyout", "airport": "SEA"})
    do(state, 0, {"type": "buy_gate", "airport": "PDX"})
    assert state.legal_actions(0) == [act.DONE]
    assert state.income[0] == 2


def test_BS_7_7_no_points_in_setup_and_round_one_starts_at_step_one():
    state = new(3)
    do(state, state.actor, {"type": "buy_gate", "airport": "ATL"})
    finish_setup(state)
    assert state.points == [0, 0, 0]
    assert state.round == 1 and state.phase == BUY and state.actor == state.first
    view = state.view(None)
    assert view["income"] == state.income


# ------------------------------------------------------------------ BS-8.1


def test_BS_8_1_1_each_player_gets_six_points_and_may_buy_out_in_a_round():
    state = new(3)
    finish_setup(state)
    clear_board(state)
    set_airport(state, "PDX", 3, [LOCAL])
    assert state.budget == 6
    do(state, 0, {"type": "buyout", "airport": "PDX"})
    assert state.gates[idx("PDX")] == [0] and state.budget == 3


def test_BS_8_1_2_no_gate_limit_in_a_round():
    state = new(3)
    finish_setup(state)
    clear_board(state)
    for code in ("PDX", "SAN", "SLC", "AUS", "MCI", "STL"):
        do(state, 0, {"type": "buy_gate", "airport": code})
    assert state.supply[0] == 14 and state.budget == 0


def test_BS_8_1_3_unspent_points_are_scored_when_done():
    state = new(3)
    finish_setup(state)
    do(state, 0, {"type": "buy_gate", "airport": "PDX"})
    do(state, 0, {"type": "done"})
    assert state.points[0] == 5
    do(state, 1, {"type": "done"})
    assert state.points[1] == 6


# ------------------------------------------------------------------ BS-8.2


def test_BS_8_2_1_play_a_card_then_discard_and_draw_one():
    state = _in_play()
    seat = state.actor
    set_hand(state, seat, ["DEN", "SEA", "SEA"])
    deck = len(state.deck)
    events = do(state, seat, {"type": "play_card", "airport": "SEA"})
    assert events[0].type == "play" and events[0].data["card"] == "SEA"
    assert events[0].data["red"] + events[0].data["green"] == state.pax[idx("SEA")]
    assert state.pax[idx("SEA")] >= 1
    assert len(state.hands[seat]) == 3 and len(state.deck) == deck - 1
    assert act.CODES.index("SEA") in state.hands[seat]
    assert state.actor == (seat + 1) % 3
    with pytest.raises(IllegalAction, match="you hold no"):
        missing = next(c for c in range(30) if c not in state.hands[state.actor])
        state.apply(state.actor, act.PlayCard(act.CODES[missing]))


def test_BS_8_2_1_special_action_any_airport_discard_any_then_draw_to_three():
    state = _in_play()
    seat = state.actor
    set_hand(state, seat, ["DEN", "SEA", "SEA"])
    assert act.Special("MCI") in state.legal_actions(seat)
    do(state, seat, {"type": "special", "airport": "MCI"})
    assert state.pax[idx("MCI")] >= 1 and state.special_used[seat]
    assert state.phase == SPECIAL_DISCARD and state.actor == seat
    options = state.legal_actions(seat)
    assert act.Discard(()) in options and act.Discard(("SEA", "SEA")) in options
    assert len(options) == 6  # {}, D, S, DS, SS, DSS
    with pytest.raises(IllegalAction, match="that many"):
        do(state, seat, {"type": "discard", "cards": ["DEN", "DEN"]})
    do(state, seat, {"type": "discard", "cards": ["SEA", "DEN"]})
    assert len(state.hands[seat]) == 3 and state.actor == (seat + 1) % 3


def test_BS_8_2_1_a_discard_may_list_its_cards_in_any_order():
    """BS-8.2.1: the special action discards "any number of cards", a set: listed in any order it is the same
    discard, kept in board order (the canonical form legal_actions lists and logs record)."""
    state = _in_play()
    seat = state.actor
    set_hand(state, seat, ["DEN", "SEA", "SEA"])
    do(state, seat, {"type": "special", "airport": "MCI"})
    action = GAME.action_from_json({"type": "discard", "cards": ["DEN", "SEA"]})
    assert action == act.Discard(("SEA", "DEN")) and action in state.legal_actions(seat)
    assert action.to_json() == {"type": "discard", "cards": ["SEA", "DEN"]}
    events = state.apply(seat, action)
    assert events[0].data["cards"] == ["SEA", "DEN"] and state.hands[seat].count(idx("SEA")) >= 1


def test_BS_8_2_2_special_action_draws_back_up_to_three_cards():
    state = _in_play()
    seat = state.actor
    set_hand(state, seat, ["DEN", "SEA", "SEA"])
    do(state, seat, {"type": "special", "airport": "ATL"})
    events = do(state, seat, {"type": "discard", "cards": ["SEA", "DEN"]})
    assert sum(e.data["count"] for e in events if e.type == "draw") == 2 and len(state.hands[seat]) == 3
    state = _in_play()
    seat = state.actor
    do(state, seat, {"type": "special", "airport": "ATL"})
    events = do(state, seat, {"type": "discard", "cards": []})
    assert not any(e.type == "draw" for e in events) and len(state.hands[seat]) == 3


def test_BS_8_2_3_special_used_means_a_card_must_be_played():
    state = _in_play()
    seat = state.actor
    state.special_used[seat] = True
    assert all(isinstance(a, act.PlayCard) for a in state.legal_actions(seat))
    before = state.digest()
    with pytest.raises(IllegalAction, match="special action is used"):
        do(state, seat, {"type": "special", "airport": "ATL"})
    assert state.digest() == before


# ------------------------------------------------------------------ BS-8.3 to 8.5


def test_BS_8_3_one_card_per_player_is_revealed_and_discarded():
    state = _in_play(4)
    discard = len(state.discard)
    events = play_first_cards(state)
    reveals = [e for e in events if e.type == "reveal"]
    assert len(reveals) == 4
    assert len(state.discard) == discard + 4 + 4  # four played, four revealed


def test_BS_8_4_income_is_scored_from_one_board_state():
    state = _in_play(3)
    set_airport(state, "SEA", 4, [0, 1])
    set_airport(state, "PDX", 3, [2])
    _quiet(state)
    points = list(state.points)
    play_first_cards(state)
    assert state.points == [points[0] + 2, points[1] + 2, points[2] + 3]


def test_BS_8_5_1_game_ends_at_100_points_skipping_steps_6_to_8():
    state = _in_play(3)
    _quiet(state)
    state.points = [99, 0, 0]
    set_airport(state, "SEA", 1, [0])
    events = play_first_cards(state)
    assert state.phase == OVER and state.is_over() and state.to_act() == []
    assert not any(e.type in ("government_help", "local_gate", "round") for e in events)
    assert state.first == 0  # step 8 skipped


def test_BS_8_5_2_game_ends_when_a_player_is_out_of_gates():
    state = _in_play(3)
    _quiet(state)
    state.supply[1] = 0
    play_first_cards(state)
    assert state.is_over()


def test_BS_8_5_3_the_last_gate_in_step_1_still_plays_steps_2_to_4():
    state = new(3)
    finish_setup(state)
    clear_board(state)
    state.supply[0] = 1
    set_airport(state, "PDX", 4, [])
    do(state, 0, {"type": "buy_gate", "airport": "PDX"})
    assert state.supply[0] == 0 and not state.is_over()
    do(state, 0, {"type": "done"})
    to_play(state)
    _quiet(state)
    play_first_cards(state)
    assert state.is_over()
    assert state.points[0] >= 5 + 4  # unspent 5 plus income of 4 from step 4


def test_BS_8_5_4_the_game_always_terminates_even_if_nobody_buys():
    state = new(5)
    steps = 0
    while not state.is_over():
        seat = state.actor
        state.apply(seat, state.default_action(seat))
        steps += 1
    assert steps < GAME.max_game_length and max(state.points) >= 100


# ------------------------------------------------------------------ BS-8.6


def _to_help(players: int, points: list[int], seed: int = 1) -> BlueSkiesState:
    state = _in_play(players, seed)
    _quiet(state)
    state.points = list(points)
    play_first_cards(state)
    return state


def test_BS_8_6_1_government_help_triggers_once_at_30_points():
    state = _to_help(3, [29, 0, 0])
    assert not state.help_used and state.phase == BUY
    state = _to_help(3, [30, 0, 0])
    assert state.help_used and state.phase == HELP
    while state.phase in (HELP, HELP_DISCARD):
        state.apply(state.actor, state.default_action(state.actor))
    to_play(state)
    _quiet(state)
    play_first_cards(state)
    assert state.phase == BUY  # not a second time


def test_BS_8_6_2_entitlement_is_one_airport_per_three_points_behind_rounded_up():
    state = _to_help(4, [33, 29, 30, 32])
    assert state.help_entitlement == [0, 2, 1, 1]
    state = _to_help(3, [40, 40, 10])
    assert state.help_entitlement == [0, 0, 10]


def test_BS_8_6_3_turn_order_distinct_airports_fewer_allowed_entitlement_fixed():
    state = _to_help(3, [35, 29, 29])
    assert state.help_entitlement == [0, 2, 2]
    state.red, state.green = 50, 0
    assert state.actor == 1
    do(state, 1, {"type": "help", "airport": "MCI"})
    assert act.Help("MCI") not in state.legal_actions(1)
    with pytest.raises(IllegalAction, match="already chose"):
        do(state, 1, {"type": "help", "airport": "MCI"})
    do(state, 1, {"type": "help", "airport": "SEA"})
    assert state.actor == 2  # entitlement used up
    do(state, 2, {"type": "help", "airport": "MCI"})  # another player may pick the same airport
    do(state, 2, {"type": "help_done"})  # fewer than entitled
    assert state.pax[idx("MCI")] == 2 and state.pax[idx("SEA")] == 1
    assert state.phase == HELP_DISCARD and state.help_entitlement == [0, 2, 2]


def test_BS_8_6_4_everyone_discards_into_the_deck_then_draws_to_three():
    state = _to_help(3, [35, 29, 29])
    state.apply(1, act.HELP_DONE)
    state.apply(2, act.HELP_DONE)
    assert state.phase == HELP_DISCARD and state.actor == 0  # leaders discard too, in turn order
    set_hand(state, 0, ["ATL", "ATL", "SEA"])
    pile = list(state.discard)
    deck = len(state.deck)
    events = do(state, 0, {"type": "discard", "cards": ["SEA", "ATL"]})
    assert len(state.deck) == deck + 2 and state.discard == pile
    public = [e for e in events if e.visible_to is None]
    assert public[0].data == {"seat": 0, "count": 2} and "cards" not in public[0].data
    assert [e.visible_to for e in events if e.type == "help_discard_cards"] == [(0,)]
    assert len(state.hands[0]) == 1  # nobody draws until everyone discarded
    do(state, 1, {"type": "discard", "cards": []})
    do(state, 2, {"type": "discard", "cards": []})
    assert [len(h) for h in state.hands] == [3, 3, 3]
    assert state.phase == BUY


def test_BS_8_6_4_a_help_discard_may_list_its_cards_in_any_order():
    state = _to_help(3, [35, 29, 29])
    state.apply(1, act.HELP_DONE)
    state.apply(2, act.HELP_DONE)
    set_hand(state, 0, ["ATL", "ATL", "SEA"])
    events = do(state, 0, {"type": "discard", "cards": ["ATL", "SEA", "ATL"]})
    assert events[1].data["cards"] == ["SEA", "ATL", "ATL"] and state.hands[0] == []


# ------------------------------------------------------------------ BS-8.7 and 8.8


def test_BS_8_7_1_airports_with_passengers_and_no_gate_get_a_local_gate():
    state = _in_play(3)
    _quiet(state)
    set_airport(state, "PDX", 2, [])
    set_airport(state, "SEA", 0, [])
    events = play_first_cards(state)
    assert state.gates[idx("PDX")] == [LOCAL] and state.gates[idx("SEA")] == []
    assert [e.data["airport"] for e in events if e.type == "local_gate"] == ["PDX"]


def test_BS_8_7_2_airports_with_player_gates_get_no_local_gate():
    state = _in_play(3)
    _quiet(state)
    set_airport(state, "PDX", 2, [1])
    play_first_cards(state)
    assert state.gates[idx("PDX")] == [1]


def test_BS_8_7_3_an_airport_with_only_a_local_gate_gets_no_second_one():
    state = _in_play(3)
    _quiet(state)
    set_airport(state, "PDX", 2, [LOCAL])
    play_first_cards(state)
    assert state.gates[idx("PDX")] == [LOCAL]


def test_BS_8_8_first_player_marker_passes_to_the_next_seat():
    state = new(3, first=2)
    to_play(state)
    _quiet(state)
    play_first_cards(state)
    assert state.first == 0 and state.round == 2 and state.phase == BUY and state.actor == 0
    assert state.phase != PLAY
