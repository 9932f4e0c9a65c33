"""AE-1 to AE-6 and AE-12: players, components, setup, income, turn order, subsidies."""

from __future__ import annotations

import random

import pytest

from engine.aeroplanes import dice as D
from engine.aeroplanes.actions import ChooseAction, ChooseHome, EngineMaintenance
from engine.aeroplanes.data import DATA
from engine.aeroplanes.model import BLOCKED, EMPTY
from engine.core import IllegalAction
from engine.playout import play_random

from .helpers import GAME, IDX, give_card, script, started, take_marker, touch, types

HOMES = {0: "london", 1: "paris", 2: "berlin", 3: "rome"}


def test_AE_1_1_three_to_five_players():
    for n in (3, 4, 5):
        assert GAME.new(n, 1).num_players == n
    for n in (2, 6):
        with pytest.raises(ValueError):
            GAME.new(n, 1)


def test_AE_1_2_and_AE_6_1_go_around_runs_clockwise_from_the_first_player():
    s = started(4, 1, HOMES)
    order = []
    for _ in range(3):
        order.append(s.current)
        s.apply(s.current, ChooseAction("subsidy"))
    assert order == [s.first, (s.first + 1) % 4, (s.first + 2) % 4]


def test_AE_1_3_own_airports_include_the_home_tile():
    s = started(4, 1, HOMES)
    for p, city in HOMES.items():
        assert s.owned[p] == 1 << IDX[city]


def test_AE_1_4_a_player_can_never_pay_more_than_they_hold():
    s = started(4, 1, HOMES)
    p = s.current
    s.money[p] = 0
    touch(s)
    assert types(s.legal_actions(p)) == {"choose_action"}
    assert [a.kind for a in s.legal_actions(p)] == ["subsidy"]
    with pytest.raises(IllegalAction):
        s.apply(p, ChooseAction("buy"))


def test_AE_2_2_nine_tiles_per_stage_and_one_home_tile():
    s = started(5, 2)
    for p in range(5):
        assert s.supply[p][1:] == [9, 9, 9]
        homes = [v for row in s.slots for v in row if v >= 0 and v >> 2 == p]
        assert homes == [p * 4]


def test_AE_2_4_risk_dice_have_a_skull_instead_of_one():
    rng = random.Random(5)
    faces = {f for _ in range(500) for f in D.roll_risk(rng)}
    assert faces == {0, 2, 3, 4, 5, 6}


def test_AE_2_5_first_player_die_is_one_to_six():
    rng = random.Random(5)
    assert {D.roll_first_player_die(rng) for _ in range(300)} == {1, 2, 3, 4, 5, 6}


def test_AE_2_6_advantage_tiles_are_limited_to_six_per_type():
    s = started(4, 1, HOMES)
    assert s.adv_supply[2:] == [6, 6, 6, 6, 6]


def test_AE_3_1_waiting_area_filled_without_era1_marked_tiles_and_all_returned():
    for seed in range(5):
        s = GAME.new(4, seed)
        assert all(s.waiting) and len(s.waiting) == 24
        assert not any(DATA.passengers[t - 1].not_era1 for t in s.waiting)
        assert sorted(s.waiting + s.bag) == list(range(1, 97))
        assert s.overflow == []


def test_AE_3_3_homes_chosen_from_the_right_of_the_first_player_who_chooses_last():
    s = GAME.new(4, 3)
    first = s.first
    order = []
    while s.phase == "home":
        order.append(s.current)
        s.apply(s.current, s.legal_actions(s.current)[-1])
    assert order == [(first - 1) % 4, (first - 2) % 4, (first - 3) % 4, first]
    assert s.current == first


def test_AE_3_3_one_home_per_start_city_in_a_slot_not_marked_four_five():
    s = GAME.new(3, 3)
    seat = s.current
    s.apply(seat, ChooseHome("rome"))
    assert s.slots[IDX["rome"]] == [seat * 4, EMPTY, BLOCKED]
    with pytest.raises(IllegalAction):
        s.apply(s.current, ChooseHome("rome"))
    with pytest.raises(IllegalAction):
        s.apply(s.current, ChooseHome("cairo"))


def test_AE_3_4_three_players_block_the_four_five_slots():
    s3, s4 = GAME.new(3, 1), GAME.new(4, 1)
    for d in DATA.destinations:
        if d.start:
            assert s3.slots[d.index].count(BLOCKED) == 1
            assert BLOCKED not in s4.slots[d.index]
        else:
            assert BLOCKED not in s3.slots[d.index]


def test_AE_3_8_display_is_cards_one_to_twelve_and_deck_in_order():
    s = GAME.new(4, 1)
    assert s.display == list(range(1, 13))
    assert s.deck == list(range(13, 47))


def test_AE_3_10_players_start_with_no_money_and_no_vp():
    s = GAME.new(4, 1)
    assert s.money == [0] * 4 and s.vp == [0] * 4


def test_AE_4_1_three_eras_and_AE_4_2_game_ends_without_a_third_update():
    s = GAME.new(4, 7)
    kinds = []
    rng = random.Random(7)
    from engine.playout import random_step

    while not s.is_over():
        _, _, events = random_step(s, rng)
        kinds += [e.type for e in events]
    assert kinds.count("era_scoring") == 3
    assert kinds.count("era_update") == 2
    assert kinds.count("final_scoring") == 1
    assert kinds.index("final_scoring") > max(i for i, k in enumerate(kinds) if k == "era_update")
    assert s.era == 3 and s.to_act() == []


def test_AE_5_1_notes_and_AE_5_2_income_with_home_modifiers():
    s = started(4, 1, HOMES)
    assert s.notes == 8
    assert s.money == [12 - 1, 12 - 1, 12 + 2, 12 + DATA.destinations[IDX["rome"]].income_modifier]


def _end_era(s, roll: int = 1):
    """Take the marker; the first-player die (rolled after the refill draws) shows `roll`."""
    s.notes = 0
    touch(s)
    return take_marker(s, roll)


def test_AE_5_3_carry_over_and_AE_5_4_AE_14_7_era_money_paid_once():
    s = started(4, 1, HOMES)
    before = s.money[:]
    _end_era(s)
    assert s.era == 2
    assert s.money == [m + 22 for m in before]
    assert s.notes == 8
    before = s.money[:]
    _end_era(s)
    assert s.era == 3 and s.money == [m + 32 for m in before]


def test_AE_6_2_new_first_player_four_players():
    assert D.new_first_player(2, 1, 4) == 3
    assert D.new_first_player(2, 4, 4) == 2


def test_AE_6_2_new_first_player_three_players():
    assert D.new_first_player(1, 3, 3) == 1
    assert D.new_first_player(1, 6, 3) == 1


def test_AE_6_2_die_rolled_after_each_go_around_can_give_two_turns_in_a_row():
    s = started(4, 1, HOMES)
    first = s.first
    for _ in range(3):
        s.apply(s.current, ChooseAction("subsidy"))
    last = s.current
    assert last == (first + 3) % 4
    script(s, [3])  # the die shows 4: back to the roller
    events = s.apply(last, ChooseAction("subsidy"))
    die = next(e for e in events if e.type == "first_player_die")
    assert die.data["roll"] == 4 and die.data["first"] == first
    assert s.current == first
    # A roll that lands on the player who just acted gives them two turns in a row.
    for _ in range(3):
        s.apply(s.current, ChooseAction("subsidy"))
    script(s, [2])  # 3 seats to the left of `first` is the player who acted last
    s.apply(s.current, ChooseAction("subsidy"))
    assert s.current == (first + 3) % 4


def test_AE_6_2_the_first_player_rolls_the_die_not_the_last_to_act():
    """AE-6.2: after a full go-around the first player rolls; the event names that roller."""
    s = started(4, 1, HOMES)
    first = s.first
    for _ in range(3):
        s.apply(s.current, ChooseAction("subsidy"))
    last = s.current
    assert last != first
    script(s, [0])  # the die shows 1: the left neighbour of the roller starts the next go-around
    events = s.apply(last, ChooseAction("subsidy"))
    die = next(e for e in events if e.type == "first_player_die")
    assert die.data == {"seat": first, "roll": 1, "first": (first + 1) % 4}
    assert s.first == s.current == (first + 1) % 4


def test_AE_6_3_taking_the_marker_ends_the_round_at_once():
    s = started(4, 1, HOMES)
    s.apply(s.current, ChooseAction("subsidy"))  # one player acted in this go-around
    p, events = _end_era(s, roll=2)
    kinds = [e.type for e in events]
    assert kinds[:3] == ["action_chosen", "subsidy_marker", "era_scoring"]
    assert s.era == 2
    assert s.first == (p + 2) % 4 and s.current == s.first and s.acted == 0


def test_AE_6_4_exactly_one_of_five_actions_and_no_pass():
    s = started(4, 1, HOMES)
    p = s.current
    kinds = [a.kind for a in s.legal_actions(p)]
    assert set(kinds) <= {"buy", "place", "claim", "advantage", "subsidy"}
    assert "pass" not in types(s.legal_actions(p))


def test_AE_6_5_only_actions_that_can_be_carried_out_are_offered():
    s = started(4, 1, HOMES)
    p = s.current
    kinds = [a.kind for a in s.legal_actions(p)]
    assert kinds == ["buy", "advantage", "subsidy"]  # no cards: nothing to place or to carry passengers
    give_card(s, p, 3)
    kinds = [a.kind for a in s.legal_actions(p)]
    assert "place" in kinds
    with pytest.raises(IllegalAction):
        s.apply(p, ChooseAction("fly"))


def test_AE_6_6_and_AE_11_3_engine_maintenance_is_free_and_only_at_the_start_of_a_turn():
    s = started(4, 1, HOMES)
    p = s.current
    s.adv[p][3] = 1
    s.adv_supply[3] = 5
    s.failures[p] = 2
    touch(s)
    assert EngineMaintenance() in s.legal_actions(p)
    s.apply(p, EngineMaintenance())
    assert s.failures[p] == 0 and s.adv[p][3] == 0 and s.adv_supply[3] == 6
    assert s.current == p and s.phase == "turn"  # not the action
    s.adv[p][3] = 1
    touch(s)
    s.apply(p, ChooseAction("advantage"))
    assert EngineMaintenance() not in s.legal_actions(p)


def test_AE_11_3_engine_maintenance_is_offered_once_per_turn_start():
    """AE-11.3 / AE-6.6: one free Engine Maintenance at the start of a turn; a second tile is not offered."""
    s = started(4, 1, HOMES)
    p = s.current
    s.adv[p][3] = 2
    s.adv_supply[3] = 4
    s.failures[p] = 1
    touch(s)
    s.apply(p, EngineMaintenance())
    assert s.adv[p][3] == 1 and s.phase == "turn" and s.current == p
    assert EngineMaintenance() not in s.legal_actions(p)
    with pytest.raises(IllegalAction) as info:
        s.apply(p, EngineMaintenance())
    assert info.value.rule == "AE-11.3" and s.adv[p][3] == 1
    copy = GAME.from_json(s.to_json())  # the use survives a save and restore
    assert EngineMaintenance() not in copy.legal_actions(p)
    s.apply(p, ChooseAction("subsidy"))
    # At the player's next turn start the remaining tile is offered again.
    while s.current != p:
        s.apply(s.current, ChooseAction("subsidy"))
    assert EngineMaintenance() in s.legal_actions(p)


def test_AE_12_1_and_AE_12_2_eight_notes_then_the_marker():
    s = started(4, 1, HOMES)
    total = sum(s.money)
    for _ in range(8):
        s.apply(s.current, ChooseAction("subsidy"))
    assert sum(s.money) == total + 8 and s.notes == 0 and s.era == 1
    taker = s.current
    money = s.money[taker]
    s.apply(taker, ChooseAction("subsidy"))
    assert s.era == 2 and s.money[taker] == money + 22  # nothing for the marker itself


def test_AE_12_3_marker_taker_rolls_and_counts_from_their_own_seat():
    s = started(3, 1, {0: "london", 1: "paris", 2: "berlin"})
    p, events = _end_era(s, roll=3)
    assert s.first == p
    die = next(e for e in events if e.type == "first_player_die")
    assert die.data["seat"] == p and die.data["roll"] == 3


def test_AE_6_random_games_always_terminate():
    for seed in range(3):
        s = GAME.new(5, seed)
        steps = play_random(s, random.Random(seed))
        assert s.is_over() and steps < GAME.max_game_length


def test_AE_2_1_component_counts():
    assert len(DATA.cards) == 46 and len(DATA.passengers) == 96
    assert DATA.advantage_per_type * len(DATA.advantage_names) == 30
    assert len(D.roll_risk(random.Random(1))) == 3


def test_AE_2_3_home_tile_is_an_ordinary_own_airport_that_is_never_replaced():
    s = started(4, 1, HOMES)
    p = s.current
    home = DATA.destinations[s.home[p]].id
    assert s.owned[p] >> IDX[home] & 1
    from engine.aeroplanes import era
    from engine.aeroplanes.placement import place_options, replace_options

    assert era.market_counts(s)["Europe"][p] == 1
    assert replace_options([p * 4, (p + 1) % 4 * 4, (p + 2) % 4 * 4], 3) == []
    give_card(s, p, 31)
    assert all(a.target != home for a in place_options(s, p))


def test_AE_2_9_view_shows_every_board_area():
    s = started(4, 1, HOMES)
    v = s.view(None)
    assert list(v["waiting"]) == ["rome", "zurich", "paris", "london", "amsterdam", "berlin"]
    assert all(len(slots) == 4 for slots in v["waiting"].values())
    assert v["overflow"] == [] and v["subsidy_notes"] == 8 and v["era"] == 1
    assert [p["vp"] for p in v["players"]] == [0, 0, 0, 0]
    assert len(v["display"]) == 12 and v["display"][3] == {"card": 4, "cost": DATA.cards[3].price + 3}
    assert set(v["slots"]) == {d.id for d in DATA.destinations}
    assert GAME.static_board()["destinations"][0]["x"] == DATA.destinations[0].x


def test_AE_3_2_AE_3_5_AE_3_6_AE_3_7_AE_3_9_rest_of_setup():
    """AE-3.2 (no rules effect), AE-3.5 bank and counters, AE-3.6 advantage stacks, AE-3.7 markers, AE-3.9 VP."""
    s = GAME.new(4, 1)
    assert s.phase == "home" and s.era == 1
    assert s.failures == [0] * 4 and all(sum(a) == 0 for a in s.adv)
    assert s.adv_supply[2:] == [6] * 5
    assert s.marker_taker == -1 and s.vp == [0] * 4


def test_AE_12_2_marker_cannot_be_taken_while_notes_remain():
    s = started(4, 1, HOMES)
    s.notes = 1
    touch(s)
    p = s.current
    s.apply(p, ChooseAction("subsidy"))
    assert s.era == 1 and s.notes == 0 and s.marker_taker == -1


def test_AE_6_1_illegal_actions_name_the_rule_and_change_nothing():
    s = started(4, 1, HOMES)
    p = s.current
    before = s.digest()
    with pytest.raises(IllegalAction) as info:
        s.apply((p + 1) % 4, ChooseAction("subsidy"))
    assert info.value.rule == "AE-6.1"
    with pytest.raises(IllegalAction) as info:
        s.apply(p, ChooseHome("rome"))
    assert "not a decision now" in info.value.message and info.value.rule == "AE-3.3"
    with pytest.raises(IllegalAction):
        s.apply(p, "subsidy")  # type: ignore[arg-type]
    assert s.digest() == before


def test_AE_6_5_default_action_for_an_expired_clock_is_a_subsidy():
    s = started(4, 1, HOMES)
    assert s.default_action(s.current) == ChooseAction("subsidy")
