"""More OpenSky rules: setup, flow and regional details (rule ids in the names)."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.opensky.constants import AIRCRAFT, FARES, LEASE_COST, PRICE_DIE
from engine.opensky.state import OpenSkyState
from tests.opensky.helpers import GAME, FixedDie, fresh, play, pricing_position, route


def _bid(fare: int, *itinerary: str) -> dict:
    return {"type": "bid", "fare": fare, "itinerary": list(itinerary or ("LHR", "CDG"))}


def test_OS_1_1_two_to_four_players():
    assert (GAME.min_players, GAME.max_players) == (2, 4)
    for bad in (1, 5):
        with pytest.raises(ValueError, match="2-4 players"):
            GAME.new(bad, 1)


def test_OS_1_3_seat_zero_starts_setup_draft_and_rolling():
    state = fresh(3)
    assert state.to_act() == [0]
    state = fresh(3, callsigns="random")
    assert state.to_act() == [0] and state.month == 1 and state.roller == 0


def test_OS_1_4_flash_deals_are_asked_in_month_order_from_the_roller():
    networks = {0: [("LHR", "CDG")], 1: [("LHR", "CDG")], 2: [("LHR", "CDG")]}
    state = pricing_position(3, networks, ("LHR", "CDG"), month=2)  # roller: seat 1
    play(state, 0, _bid(500))
    play(state, 1, _bid(400))
    play(state, 2, _bid(200))
    assert state.to_act() == [1]  # the roller first, then clockwise
    play(state, 1, {"type": "decline_flash"})
    assert state.to_act() == [0]  # seat 2 is the sole provisional winner: skipped
    play(state, 0, {"type": "decline_flash"})
    assert state.phase == "ancillary" and state.sole == 2


def test_OS_2_1_six_callsigns_and_three_distinct_passenger_dice():
    state = fresh(2, callsigns="random", seed=9)
    assert len(state.callsigns) == 6
    events = []
    while state.phase != "market":
        (seat,) = state.to_act()
        events += state.apply(seat, state.legal_actions(seat)[0])
    dice = next(e for e in events if e.type == "dice_rolled").data
    assert len(set(dice["callsigns"])) == 3 and len(set(dice["airports"])) == 3


def test_OS_3_1_board_side_is_a_fixed_option():
    assert GAME.options["map"]["choices"] == ["europe", "north_america"]
    state = fresh(2, "north_america")
    assert state.view(None)["map"] == "north_america"
    assert GAME.from_json(state.to_json()).board.name == "north_america"
    with pytest.raises(ValueError, match="map"):
        GAME.new(2, 1, {"map": "asia"})


def test_OS_3_4_OS_17_7_leased_aircraft_go_on_any_legal_route_and_collect_subsidies():
    state = pricing_position(2, {0: [("LHR", "CDG")]}, ("LHR", "CDG"))
    state.cube_owner[5] = -1  # the Foxtrot cube is still on its airport
    foxtrot = state.board.codes[state.callsigns[5]]
    play(state, 0, _bid(300))
    play(state, 0, {"type": "add_ancillaries", "tokens": 0})
    play(state, 0, {"type": "lease", "aircraft": 1, "cards": [300]})
    assert state.phase == "lease_place"
    assert len(state.legal_actions(0)) == len(state.board.routes)
    r = state.board.adj[state.callsigns[5]][0][1]
    events = play(state, 0, {"type": "place_aircraft", "route": state.board.route_codes[r]})
    assert [e.data["airport"] for e in events if e.type == "subsidy_taken"] == [foxtrot]


def test_OS_4_1_setup_gives_every_player_its_components_and_starts_in_april():
    state = fresh(4, callsigns="random", seed=3)
    view = state.view(None)
    assert view["month_name"] == "April" and view["phase"] == "draft"
    for p in view["players"]:
        assert p["aircraft_supply"] == AIRCRAFT[4] and len(p["hand"]) == 10
        assert (p["ancillary_unused"], p["flash_deal"], p["hubs"]) == (3, True, [])


def test_OS_4_3_subsidy_cubes_sit_only_on_callsign_airports():
    state = fresh(2, callsigns="random", seed=6)
    view = state.view(None)
    assert sorted(view["subsidy_cubes"]) == sorted(view["callsigns"].values())
    assert set(view["subsidy_cubes"].values()) == {-1}


def test_OS_7_5_winning_a_market_never_returns_a_cube():
    state = pricing_position(2, {0: [("LHR", "CDG")]}, ("LHR", "CDG"))
    cubes = list(state.cubes)
    play(state, 0, _bid(300))
    play(state, 0, {"type": "add_ancillaries", "tokens": 0})
    assert state.on_board[0] == 0 and state.cubes == cubes


def test_OS_8_3_the_dice_give_a_uniform_set_of_three_distinct_callsigns():
    counts: Counter = Counter()
    for seed in range(400):
        state = fresh(2, callsigns="random", seed=seed)
        state._start_month([])
        counts[tuple(state.dice)] += 1
    assert len(counts) == 20  # every set of 3 callsigns out of 6 occurs
    assert max(counts.values()) < 3 * min(counts.values())


def test_OS_8_5_OS_9_1_od_is_unordered_and_stops_are_flights_minus_one():
    networks = {0: [("LHR", "AMS"), ("AMS", "CDG")]}
    forward = pricing_position(2, networks, ("LHR", "CDG"), hubs={0: ["AMS", "FRA"]})
    backward = pricing_position(2, networks, ("CDG", "LHR"), hubs={0: ["AMS", "FRA"]})
    assert [tuple(reversed(p)) for p in forward.valid[0]] == backward.valid[0]
    events = play(forward, 0, _bid(300, "LHR", "AMS", "CDG"))
    offer = next(e for e in events if e.type == "bids_revealed").data["offers"][0]
    assert offer["stops"] == 1


def test_OS_17_5_value_taken_off_the_table_is_lost():
    state = pricing_position(2, {0: [("LHR", "CDG")]}, ("LHR", "CDG"))
    play(state, 0, _bid(500))
    play(state, 0, {"type": "add_ancillaries", "tokens": 0})
    play(state, 0, {"type": "lease", "aircraft": 1, "cards": [500]})
    assert state.scores()[0] == 500 - LEASE_COST


def test_OS_20_6_hubless_connection_does_not_count_for_the_table():
    networks = {0: [("LHR", "CDG"), ("CDG", "FCO")], 1: [("LHR", "MAD"), ("MAD", "BCN"), ("BCN", "FCO")]}
    state = pricing_position(2, networks, ("LHR", "FCO"), hubs={0: ["AMS", "FRA"], 1: ["MAD", "BCN"]})
    assert state.valid[0] == []  # one-stop through CDG without a hub: unavailable
    assert [len(p) for p in state.valid[1]] == [4]  # so the two-stop is the shortest and valid


def test_OS_20_1_OS_21_1_regional_tokens_are_cross_border_tokens_in_north_america_and_hubs_in_europe():
    na = fresh(2, "north_america", callsigns="random", seed=1)
    while na.phase == "draft":
        (seat,) = na.to_act()
        na.apply(seat, na.legal_actions(seat)[0])
    assert na.phase == "market"  # no hub placement in North America
    eu = fresh(2, "europe", callsigns="random", seed=1)
    while eu.phase == "draft":
        (seat,) = eu.to_act()
        eu.apply(seat, eu.legal_actions(seat)[0])
    assert eu.phase == "hubs"
    while eu.phase == "hubs":  # OS-20.1: both regional tokens of each player become hubs
        (seat,) = eu.to_act()
        eu.apply(seat, eu.legal_actions(seat)[0])
    assert [len(p["hubs"]) for p in eu.view(None)["players"]] == [2, 2]


def test_OS_23_1_constants():
    assert AIRCRAFT == {2: 6, 3: 4, 4: 3}
    assert FARES == (200, 250, 300, 400, 500)
    assert PRICE_DIE == (200, 300, 400, 500, 600, 700)
    assert LEASE_COST == 200


def test_state_json_round_trip_and_bad_json_raise_value_error():
    state = pricing_position(2, {0: [("LHR", "CDG")], 1: [("LHR", "CDG")]}, ("LHR", "CDG"))
    play(state, 0, _bid(300))
    copy = GAME.from_json(state.to_json())
    assert isinstance(copy, OpenSkyState) and copy.digest() == state.digest()
    with pytest.raises(ValueError):
        GAME.from_json({"game": "opensky", "players": 2})
    with pytest.raises(ValueError):
        GAME.from_json({"game": "blueskies"})


def test_OS_15_3_a_roll_equal_to_the_final_price_is_accepted():
    state = pricing_position(2, {0: [("LHR", "CDG")], 1: [("LHR", "CDG")]}, ("LHR", "CDG"))
    play(state, 0, _bid(200))
    play(state, 1, _bid(500))
    play(state, 1, {"type": "decline_flash"})
    state.rng = FixedDie(400)
    events = play(state, 0, {"type": "add_ancillaries", "tokens": 2})  # 200 + 200 = 400 = roll
    assert next(e for e in events if e.type == "price_check").data["accepted"] is True
    assert state.tokens[0][route(state, "LHR", "CDG")] == 0 and state.anc_used[0] == 2


# ------------------------------------------------------------------ either direction, canonical form


def _market_position():
    state = fresh(2, callsigns="random", seed=3)
    while state.phase != "market":
        (seat,) = state.to_act()
        state.apply(seat, state.legal_actions(seat)[0])
    return state


def test_OS_8_5_choose_market_accepts_the_pair_written_destination_first():
    """OS-8.5: the O&D is unordered, so either spelling of a rolled pair is the same choice; the action the
    engine keeps (and the service logs) is the canonical one, codes in alphabetical order."""
    state = _market_position()
    (roller,) = state.to_act()
    legal = state.legal_actions(roller)
    assert all(a.origin < a.destination for a in legal)
    first = legal[0]
    backwards = GAME.action_from_json({"type": "choose_market", "origin": first.destination,
                                       "destination": first.origin})
    assert backwards == first
    assert backwards.to_json() == {"type": "choose_market", "origin": first.origin, "destination": first.destination}
    twin = state.clone()
    events = state.apply(roller, backwards)
    assert [e.to_json() for e in events] == [e.to_json() for e in twin.apply(roller, first)]
    assert events[0].data["origin"] == first.origin and state.digest() == twin.digest()


def test_OS_10_2_OS_3_2_bid_accepts_an_itinerary_written_destination_first():
    """OS-10.2 / OS-3.2: a flight goes either way, so an itinerary may be written from either end; it is
    kept in canonical form (starting at the alphabetically first airport of the O&D)."""
    networks = {0: [("LHR", "AMS"), ("AMS", "CDG")], 1: [("LHR", "CDG")]}
    state = pricing_position(2, networks, ("LHR", "CDG"), hubs={0: ["AMS", "FRA"]})
    assert state.view(0)["pricing"]["valid_itineraries"] == {"0": [["CDG", "AMS", "LHR"]], "1": [["CDG", "LHR"]]}
    assert [a.itinerary for a in state.legal_actions(0) if a.TYPE == "bid"][:1] == [("CDG", "AMS", "LHR")]
    for seat, path in ((0, ["LHR", "AMS", "CDG"]), (1, ["CDG", "LHR"])):
        action = GAME.action_from_json({"type": "bid", "fare": 300, "itinerary": path})
        assert action.to_json()["itinerary"] == (path if path[0] < path[-1] else path[::-1])
        events = state.apply(seat, action)
    offers = next(e for e in events if e.type == "bids_revealed").data["offers"]
    assert [o["itinerary"] for o in offers] == [["CDG", "AMS", "LHR"], ["CDG", "LHR"]]


def test_OS_3_2_place_aircraft_accepts_a_route_written_either_way():
    state = fresh(2, callsigns="random", seed=1)
    action = GAME.action_from_json({"type": "place_aircraft", "route": "LHR-AMS"})
    assert action.route == "AMS-LHR"
    events = state.apply(0, action)
    assert events[0].data["route"] == "AMS-LHR" and state.view(None)["players"][0]["aircraft"] == {"AMS-LHR": 1}


def test_OS_17_3_lease_cards_in_any_order():
    """OS-17.3: a payment is a set of cards; listed in any order it is the same lease, kept high to low."""
    state = pricing_position(2, {0: [("LHR", "CDG")], 1: [("LHR", "CDG")]}, ("LHR", "CDG"))
    state.table[0] = [1, 0, 1, 0, 0]  # 200 and 300 won earlier
    state.on_board[0] = state.S - 2
    state.phase, state.lease_queue = "lease", [0]
    action = GAME.action_from_json({"type": "lease", "aircraft": 2, "cards": [200, 300]})
    assert action.cards == (300, 200) and action in state.legal_actions(0)
    events = state.apply(0, action)
    assert events[0].data["cards"] == [300, 200] and state.phase == "lease_place"


def test_OS_17_1_OS_17_8_lease_view_shows_the_next_month_and_only_seats_that_can_lease():
    """OS-17.1: End of Month first moves the month marker, so the leasing view names the next month;
    OS-17.8: leasing follows the order of the month that ended, and a seat that cannot lease is skipped, so
    the view's queue lists only the seats that will actually be asked."""
    networks = {0: [("LHR", "CDG")], 1: [("LHR", "CDG")]}
    state = pricing_position(3, networks, ("LHR", "CDG"), month=2)  # May: seat 1 rolls, month order 1, 2, 0
    play(state, 0, _bid(300))
    play(state, 1, _bid(300))
    while state.phase == "flash":
        (seat,) = state.to_act()
        play(state, seat, {"type": "decline_flash"})
    assert state.phase == "lease" and state.to_act() == [1]
    view = state.view(None)
    assert (view["month"], view["month_name"], view["roller"]) == (3, "June", 2)
    assert view["lease"] == {"month": 2, "month_name": "May", "queue": [1, 0], "aircraft_to_place": 0}
    play(state, 1, {"type": "lease", "aircraft": 1, "cards": [300]})
    assert state.view(None)["lease"]["queue"] == [1, 0]  # seat 1 still places its aircraft
    play(state, 1, {"type": "place_aircraft", "route": "CDG-LHR"})
    view = state.view(0)
    assert view["lease"]["queue"] == [0] and view["month_name"] == "June"
    play(state, 0, {"type": "lease", "aircraft": 0, "cards": []})
    assert state.phase == "market" and state.view(None)["month_name"] == "June" and "lease" not in state.view(None)
