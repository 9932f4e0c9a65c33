"""AE-8: placing airport tiles, including the worked examples of AE-8.18."""

from __future__ import annotations

import pytest

from engine.aeroplanes import dice as D
from engine.aeroplanes import placement
from engine.aeroplanes.actions import (
    Abort,
    ChooseAction,
    ChooseRoute,
    DaringPilot,
    EndAction,
    KeepRoll,
    PayShortfall,
    PlaceTile,
    RadioBeacon,
    RollNext,
)
from engine.aeroplanes.data import DATA, Connection
from engine.aeroplanes.model import BLOCKED, EMPTY
from engine.aeroplanes.routes import route_rolls
from engine.core import IllegalAction

from .helpers import IDX, give_card, put, risk, script, started, touch, types

HOMES = {0: "london", 1: "paris", 2: "berlin", 3: "rome"}
NORMAL_I, LONG_I, NORMAL_II, NORMAL_III = 1, 8, 17, 31


def setup(money: int = 20):
    s = started(4, 1, HOMES)
    p = s.current
    s.money[p] = money
    touch(s)
    return s, p


def begin(s, p):
    s.apply(p, ChooseAction("place"))


def targets(s, p, card=None):
    return {(a.target, a.replace) for a in placement.place_options(s, p) if card is None or a.card == card}


def conn(colour="white", long_haul=False, dangerous=None):
    return Connection(0, 1, colour, long_haul, False, dangerous)


W, R, B = conn("white"), conn("red"), conn("black")


# ----------------------------------------------------------------- AE-8.9 / 8.11 risk table


def test_AE_8_9_white_direct_needs_no_roll():
    assert route_rolls(W, None, False, False) == ()


def test_AE_8_9_red_direct_needs_twelve():
    assert route_rolls(R, None, False, False) == ((12, 0),)


def test_AE_8_9_black_direct_needs_fourteen():
    assert route_rolls(B, None, False, False) == ((14, 0),)


def test_AE_8_9_white_white_needs_ten():
    assert route_rolls(W, W, False, False) == ((10, 0),)


def test_AE_8_9_white_red_needs_one_twelve():
    assert route_rolls(W, R, False, False) == ((12, 0),)


def test_AE_8_9_two_coloured_legs_need_two_rolls_in_route_order():
    assert [t for t, _ in route_rolls(R, R, False, False)] == [12, 12]
    assert [t for t, _ in route_rolls(R, B, False, False)] == [12, 14]
    assert [t for t, _ in route_rolls(B, B, False, False)] == [14, 14]
    assert [t for t, _ in route_rolls(B, R, False, False)] == [14, 12]


def test_AE_8_9_dangerous_routes_have_their_own_rolls():
    s = started(4, 1, HOMES)
    p = s.current
    java, australia, dakar, sa = (IDX[x] for x in ("java", "australia", "dakar", "south_america"))
    assert [t for t, _ in placement.required_rolls(s, p, java, None, australia)] == [12, 12]
    assert [t for t, _ in placement.required_rolls(s, p, dakar, None, sa)] == [14, 14]
    paris, na = IDX["paris"], IDX["north_america"]
    assert [t for t, _ in placement.required_rolls(s, p, paris, None, na)] == [14, 14, 14]


def test_AE_8_11_hops_not_in_the_table_are_built_leg_by_leg():
    assert route_rolls(R, W, False, False) == ((12, 0),)
    assert route_rolls(W, B, False, False) == ((14, 0),)
    assert route_rolls(B, W, False, False) == ((14, 0),)
    danger = conn("black", True, (14, 14))
    assert [t for t, _ in route_rolls(R, danger, False, False)] == [12, 14, 14]


def test_AE_8_10_colour_of_a_dangerous_route_is_ignored():
    assert route_rolls(conn("white", False, (12, 12)), None, False, False) == ((12, 0), (12, 0))


# ----------------------------------------------------------------- AE-8.12 rival modifier


def test_AE_8_12_rival_at_target_gives_plus_two_to_direct_and_leg_two():
    assert route_rolls(R, None, False, True) == ((12, 2),)
    assert route_rolls(R, R, False, True) == ((12, 0), (12, 2))


def test_AE_8_12_leg_one_needs_rivals_at_both_hop_and_target():
    assert route_rolls(R, R, True, False) == ((12, 0), (12, 0))
    assert route_rolls(R, R, True, True) == ((12, 2), (12, 2))


def test_AE_8_12_bonus_applies_to_every_roll_of_a_dangerous_leg():
    danger = conn("red", False, (12, 12))
    assert route_rolls(danger, None, False, True) == ((12, 2), (12, 2))


def test_AE_8_12_blocking_tiles_are_not_rivals():
    s = started(3, 1, {0: "london", 1: "paris", 2: "berlin"})
    p = s.current
    assert s.slots[IDX["rome"]][2] == BLOCKED
    assert not placement.has_rival(s, p, IDX["rome"])


# ----------------------------------------------------------------- worked examples AE-8.18


def _ethiopia_example(rival_in_kenya: bool):
    s, p = setup(money=10)
    rival = (p + 1) % 4
    put(s, p, "ethiopia", 1)
    put(s, rival, "east_africa", 1)
    if rival_in_kenya:
        put(s, (p + 2) % 4, "kenya", 1)
    give_card(s, p, LONG_I)
    begin(s, p)
    s.apply(p, PlaceTile(LONG_I, "east_africa", None))
    return s, p


def test_AE_8_18_example_1_ethiopia_kenya_east_africa_pay_one_then_three():
    s, p = _ethiopia_example(rival_in_kenya=False)
    script(s, risk(2, 5, 4))
    events = s.apply(p, ChooseRoute("ethiopia", "kenya"))
    assert s.pending["rolls"] == [[12, 0], [12, 2]]  # thresholds 12+ and 10+
    roll = next(e for e in events if e.type == "risk_roll")
    assert roll.data["dice"] == [2, 5, 4]
    assert placement.current_shortfall(s) == 1
    s.apply(p, PayShortfall())
    assert s.money[p] == 9
    assert s.legal_actions(p) == [RollNext(), Abort()]
    script(s, risk(3, 4, 0))
    s.apply(p, RollNext())
    assert s.failures[p] == 1
    assert placement.current_shortfall(s) == 3
    s.apply(p, PayShortfall())
    assert s.money[p] == 6
    assert s.owned[p] >> IDX["east_africa"] & 1


def test_AE_8_18_example_1_pilot_plus_money_instead():
    s, p = _ethiopia_example(rival_in_kenya=False)
    s.adv[p][2] = 1
    touch(s)
    script(s, risk(2, 5, 4))
    s.apply(p, ChooseRoute("ethiopia", "kenya"))
    s.apply(p, PayShortfall())
    script(s, risk(3, 4, 0))
    s.apply(p, RollNext())
    assert DaringPilot() in s.legal_actions(p)
    s.apply(p, DaringPilot())  # +3 covers the 3 missing points
    assert s.money[p] == 9 and s.adv[p][2] == 0
    assert s.owned[p] >> IDX["east_africa"] & 1


def test_AE_8_18_example_2_rival_in_kenya_too_first_roll_succeeds():
    s, p = _ethiopia_example(rival_in_kenya=True)
    script(s, risk(2, 5, 4))
    s.apply(p, ChooseRoute("ethiopia", "kenya"))
    assert s.pending["rolls"] == [[12, 2], [12, 2]]  # thresholds 10+ and 10+
    assert s.phase == "roll_next"  # roll 1 (11) succeeded
    script(s, risk(3, 4, 0))
    s.apply(p, RollNext())
    assert placement.current_shortfall(s) == 3
    s.apply(p, PayShortfall())
    assert s.money[p] == 7
    assert s.owned[p] >> IDX["east_africa"] & 1


def test_AE_8_18_three_five_skull_totals_eight_with_one_failure():
    assert D.skulls([3, 5, 0]) == 1
    assert D.shortfall([3, 5, 0], 8, 0) == 0
    assert D.shortfall([3, 5, 0], 9, 0) == 1


# ----------------------------------------------------------------- adjacency, special, long-haul, hop


def test_AE_8_3_a_target_must_be_one_connection_from_an_own_airport():
    s, p = setup()
    give_card(s, p, NORMAL_I)
    home = s.home[p]
    allowed = {DATA.destinations[t].id for t in placement.DIRECT[home] if not placement.DIRECT[home][t].long_haul}
    assert {t for t, _ in targets(s, p)} == allowed


def test_AE_8_4_special_connections_are_one_way_out_of_europe():
    s, p = setup()
    put(s, p, "cairo", 1)
    give_card(s, p, LONG_I)
    routes = placement.routes_to(s, p, IDX["rome"], True)
    assert all(r.source != "cairo" and r.via != "cairo" for r in routes)
    # Paris -> Cairo -> Ethiopia may use the special leg in its allowed direction.
    put(s, p, "frankfurt", 1)
    hops = placement.routes_to(s, p, IDX["ethiopia"], True)
    assert ChooseRoute("frankfurt", "cairo") in hops


def test_AE_8_5_long_haul_connections_need_a_long_haul_card():
    s, p = setup()
    put(s, p, "ethiopia", 1)
    give_card(s, p, NORMAL_I)
    give_card(s, p, LONG_I)
    assert ("india", None) not in targets(s, p, NORMAL_I)
    assert ("india", None) in targets(s, p, LONG_I)


def test_AE_8_6_hop_frankfurt_over_paris_to_madrid_only_with_long_haul():
    s, p = setup()
    put(s, p, "frankfurt", 1)
    give_card(s, p, NORMAL_I)
    give_card(s, p, LONG_I)
    assert ChooseRoute("frankfurt", "paris") in placement.routes_to(s, p, IDX["madrid"], True)
    assert ChooseRoute("frankfurt", "paris") not in placement.routes_to(s, p, IDX["madrid"], False)


def test_AE_8_10_java_australia_needs_no_long_haul_but_dakar_south_america_does():
    s, p = setup()
    put(s, p, "java", 1)
    put(s, p, "dakar", 1)
    give_card(s, p, NORMAL_I)
    t = targets(s, p, NORMAL_I)
    assert ("australia", None) in t
    assert ("south_america", None) not in t


# ----------------------------------------------------------------- slot rules and upgrades


def test_AE_8_8_empty_slot_must_be_used_and_full_destination_needs_a_lower_rival():
    s, p = setup()
    rival = (p + 1) % 4
    put(s, p, "copenhagen", 1)  # Copenhagen 1 slot of 2 taken by p
    put(s, rival, "stockholm", 1)  # Stockholm has an empty slot
    give_card(s, p, NORMAL_II)
    assert ("stockholm", None) in targets(s, p)
    assert ("stockholm", rival) not in targets(s, p)
    # Copenhagen full with p's own tile: only an upgrade, never a second own tile.
    put(s, rival, "copenhagen", 1)
    t = targets(s, p)
    assert ("copenhagen", p) in t and ("copenhagen", rival) not in t and ("copenhagen", None) not in t


def test_AE_8_8_replacement_only_by_strictly_higher_stage():
    s, p = setup()
    a, b = (p + 1) % 4, (p + 2) % 4
    put(s, p, "frankfurt", 1)
    put(s, a, "zurich", 2)
    put(s, b, "zurich", 1)
    s.slots[IDX["zurich"]][2] = ((p + 3) % 4) * 4 + 2  # Zurich full: II, I, II
    touch(s)
    give_card(s, p, NORMAL_II)
    t = targets(s, p)
    assert ("zurich", b) in t and ("zurich", a) not in t and ("zurich", None) not in t


def test_AE_8_8_home_and_blocking_tiles_are_never_replaced():
    s = started(3, 1, {0: "london", 1: "paris", 2: "berlin"})
    p = s.current
    s.money[p] = 20
    other = (p + 1) % 3
    put(s, p, "zurich", 1)
    put(s, other, "rome", 1)
    put(s, (p + 2) % 3, "rome", 0)  # a home tile (stage 0)
    assert EMPTY not in s.slots[IDX["rome"]]
    give_card(s, p, NORMAL_III)
    t = targets(s, p)
    assert ("rome", other) in t
    assert all(r == other for d, r in t if d == "rome")


def test_AE_8_7_upgrade_needs_no_roll_and_returns_the_old_tile():
    s, p = setup()
    rival = (p + 1) % 4
    put(s, p, "warsaw", 1)
    put(s, rival, "warsaw", 1)
    give_card(s, p, NORMAL_II)
    supply_before = s.supply[p][1]
    begin(s, p)
    state_rng = s.rng.getstate()
    events = s.apply(p, PlaceTile(NORMAL_II, "warsaw", p))
    assert "risk_roll" not in {e.type for e in events}
    assert s.rng.getstate() == state_rng
    assert s.supply[p][1] == supply_before + 1
    assert sorted(s.slots[IDX["warsaw"]]) == sorted([p * 4 + 2, rival * 4 + 1])


def test_AE_8_7_upgrade_only_when_destination_full():
    s, p = setup()
    put(s, p, "warsaw", 1)
    give_card(s, p, NORMAL_II)
    assert ("warsaw", p) not in targets(s, p)


# ----------------------------------------------------------------- roll procedure


def test_AE_8_2_illegal_declaration_is_rejected_before_any_die():
    s, p = setup()
    give_card(s, p, NORMAL_I)
    begin(s, p)
    before = s.digest()
    with pytest.raises(IllegalAction):
        s.apply(p, PlaceTile(NORMAL_I, "australia", None))
    assert s.digest() == before


def test_AE_8_13_four_failures_checked_before_the_total():
    s, p = setup()
    s.failures[p] = 3
    home = DATA.destinations[s.home[p]].id
    red = next(DATA.destinations[t].id for t, c in placement.DIRECT[s.home[p]].items()
               if c.colour == "red" and c.dangerous is None and not c.long_haul)
    give_card(s, p, NORMAL_I)
    begin(s, p)
    s.apply(p, PlaceTile(NORMAL_I, red, None))
    script(s, risk(6, 6, 0))  # 12 would succeed, but the skull is the 4th failure
    supply = s.supply[p][1]
    events = s.apply(p, ChooseRoute(home, None))
    assert "attempt_crashed" in {e.type for e in events}
    assert s.failures[p] == 0  # AE-8.14 all discarded
    assert s.supply[p][1] == supply + 1  # the tile went to the supply
    assert s.cards[p][0][4] == DATA.cards[NORMAL_I - 1].tiles - 1
    assert s.phase == "turn" and s.current != p  # the whole action ended


def test_AE_8_14_failures_persist_across_actions():
    s, p = setup()
    red = next(DATA.destinations[t].id for t, c in placement.DIRECT[s.home[p]].items()
               if c.colour == "red" and c.dangerous is None and not c.long_haul)
    give_card(s, p, NORMAL_I)
    begin(s, p)
    s.apply(p, PlaceTile(NORMAL_I, red, None))
    script(s, risk(0, 0, 6))
    s.apply(p, ChooseRoute(DATA.destinations[s.home[p]].id, None))
    assert s.failures[p] == 2
    s.apply(p, Abort())
    assert s.failures[p] == 2


def test_AE_8_15_abort_returns_the_tile_and_ends_the_action():
    s, p = setup(money=0)
    red = next(DATA.destinations[t].id for t, c in placement.DIRECT[s.home[p]].items()
               if c.colour == "red" and c.dangerous is None and not c.long_haul)
    give_card(s, p, NORMAL_I)
    begin(s, p)
    s.apply(p, PlaceTile(NORMAL_I, red, None))
    script(s, risk(2, 2, 2))
    s.apply(p, ChooseRoute(DATA.destinations[s.home[p]].id, None))
    assert s.legal_actions(p) == [Abort()]  # cannot pay 6 with £0, no pilots
    s.apply(p, Abort())
    assert s.cards[p][0][4] == DATA.cards[NORMAL_I - 1].tiles
    assert not s.owned[p] >> IDX[red] & 1
    assert s.current != p


def test_AE_8_16_and_AE_8_1_success_allows_further_tiles_from_the_new_airport():
    s, p = setup()
    home = DATA.destinations[s.home[p]].id
    white = next(DATA.destinations[t].id for t, c in placement.DIRECT[s.home[p]].items()
                 if c.colour == "white" and not c.special)
    give_card(s, p, 3)  # Junkers F 13: 2 tiles
    begin(s, p)
    s.apply(p, PlaceTile(3, white, None))
    events = s.apply(p, ChooseRoute(home, None))
    assert [e.type for e in events][-1] == "tile_placed"
    assert s.phase == "place_more" and EndAction() in s.legal_actions(p)
    onward = {a.target for a in s.legal_actions(p) if isinstance(a, PlaceTile)}
    new_reach = {DATA.destinations[t].id for t in placement.DIRECT[IDX[white]]} - {home, white}
    assert onward & new_reach
    s.apply(p, EndAction())
    assert s.current != p


def test_AE_8_17_america_bonus_for_an_empty_slot_only():
    s, p = setup(money=50)
    give_card(s, p, LONG_I)
    begin(s, p)
    s.apply(p, PlaceTile(LONG_I, "north_america", None))
    script(s, risk(6, 6, 6) * 3)
    vp = s.vp[p]
    s.apply(p, ChooseRoute(DATA.destinations[s.home[p]].id, None))
    s.apply(p, RollNext())
    s.apply(p, RollNext())
    assert s.money[p] == 53 and s.vp[p] == vp + 1
    # A replacement there earns nothing.
    q = (p + 1) % 4
    s.slots[IDX["north_america"]] = [p * 4 + 1, ((p + 2) % 4) * 4 + 1]
    s.phase, s.current = "place", q
    s.money[q] = 50
    give_card(s, q, NORMAL_II)
    s.cards[q][0] = [18, 1, 1, 5, 2, []]  # a long-haul stage-II card
    touch(s)
    s.apply(q, PlaceTile(18, "north_america", p))
    script(s, risk(6, 6, 6) * 3)
    s.apply(q, ChooseRoute(DATA.destinations[s.home[q]].id, None))
    s.apply(q, RollNext())
    s.apply(q, RollNext())
    assert s.money[q] == 50 and s.vp[q] == 0
    assert s.supply[p][1] == 9 + 1  # the replaced tile went back to its owner's supply


def test_AE_8_13_radio_beacon_rerolls_and_ignores_previous_skulls():
    s, p = setup()
    s.era = 3
    s.adv[p][6] = 1
    red = next(DATA.destinations[t].id for t, c in placement.DIRECT[s.home[p]].items()
               if c.colour == "red" and c.dangerous is None and not c.long_haul)
    give_card(s, p, NORMAL_I)
    begin(s, p)
    s.apply(p, PlaceTile(NORMAL_I, red, None))
    script(s, risk(0, 0, 2))
    s.apply(p, ChooseRoute(DATA.destinations[s.home[p]].id, None))
    assert set(s.legal_actions(p)) == {KeepRoll(), RadioBeacon()}
    script(s, risk(6, 5, 4))
    s.apply(p, RadioBeacon())
    assert s.failures[p] == 0 and s.adv[p][6] == 0 and s.adv_supply[6] == 7
    assert s.owned[p] >> IDX[red] & 1


def test_AE_11_2_daring_pilot_only_outside_europe():
    s, p = setup(money=0)
    s.adv[p][2] = 2
    red = next(DATA.destinations[t].id for t, c in placement.DIRECT[s.home[p]].items()
               if c.colour == "red" and c.dangerous is None and not c.long_haul
               and DATA.destinations[t].region == "Europe")
    give_card(s, p, NORMAL_I)
    begin(s, p)
    s.apply(p, PlaceTile(NORMAL_I, red, None))
    script(s, risk(2, 2, 2))
    s.apply(p, ChooseRoute(DATA.destinations[s.home[p]].id, None))
    assert DaringPilot() not in s.legal_actions(p)
    assert "daring_pilot" not in types(s.legal_actions(p))


def test_AE_8_4_printed_examples_paris_to_cairo_yes_cairo_to_paris_no():
    paris, cairo, stockholm, me = (IDX[x] for x in ("paris", "cairo", "stockholm", "middle_east"))
    assert cairo in placement.DIRECT[paris] and me in placement.DIRECT[stockholm]
    assert paris not in placement.DIRECT[cairo] and stockholm not in placement.DIRECT[me]


def test_AE_11_2_several_pilots_on_one_roll():
    s, p = setup(money=0)
    s.adv[p][2] = 3
    put(s, p, "java", 1)
    give_card(s, p, NORMAL_I)
    begin(s, p)
    s.apply(p, PlaceTile(NORMAL_I, "australia", None))
    script(s, risk(2, 2, 2))  # 6 of 12: six missing
    s.apply(p, ChooseRoute("java", None))
    s.apply(p, DaringPilot())
    assert s.phase == "shortfall" and placement.current_shortfall(s) == 3
    s.apply(p, DaringPilot())
    assert s.phase == "roll_next" and s.adv[p][2] == 1
