"""OpenSky rules, one test per numbered rule the engine implements (ids in the names)."""

from __future__ import annotations

import random

import pytest

from engine.core import IllegalAction, canonical_json
from engine.opensky.actions import (
    DECLINE_FLASH,
    KEEP_HUB,
    LEASE_NOTHING,
    PASS,
    AddAncillaries,
    Bid,
    Lease,
    PlaceAircraft,
)
from engine.opensky.constants import AIRCRAFT, PRICE_DIE
from engine.opensky.state import draft_order
from tests.opensky.helpers import FixedDie, airport, fresh, play, pricing_position, route

# ------------------------------------------------------------------ setup and draft


def test_OS_2_2_components_per_player():
    for players, s in ((2, 6), (3, 4), (4, 3)):
        state = fresh(players)
        assert state.S == s == AIRCRAFT[players]
        view = state.view(0)
        for p in view["players"]:
            assert p["hand"] == [200, 200, 250, 250, 300, 300, 400, 400, 500, 500]
            assert p["ancillary_unused"] == 3 and p["flash_deal"] is True
            assert p["aircraft_supply"] == s


def test_OS_4_2_callsigns_placed_in_order_by_rotating_seats():
    state = fresh(4)
    placed = []
    for i in range(6):
        assert state.to_act() == [i % 4]
        action = state.legal_actions(i % 4)[i]
        events = state.apply(i % 4, action)
        placed.append(action.airport)
        assert events[0].data["callsign"] == ("Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot")[i]
    assert len(set(placed)) == 6
    assert state.phase == "draft"
    assert list(state.view(None)["callsigns"].values()) == placed


def test_OS_4_2_each_callsign_on_a_different_airport():
    state = fresh(2)
    play(state, 0, {"type": "place_callsign", "airport": "LHR"})
    assert all(a.airport != "LHR" for a in state.legal_actions(1))
    before = state.digest()
    with pytest.raises(IllegalAction, match="already holds") as info:
        play(state, 1, {"type": "place_callsign", "airport": "LHR"})
    assert info.value.rule == "OS-4.2"
    assert state.digest() == before


def test_OS_4_2_random_callsigns_option_places_six_distinct_airports():
    state = fresh(3, callsigns="random", seed=5)
    assert len(set(state.callsigns)) == 6
    assert state.phase == "draft"
    assert fresh(3, callsigns="random", seed=5).callsigns == state.callsigns


@pytest.mark.parametrize(
    ("players", "seats"),
    [
        (2, [0, 1, 1, 0]),
        (3, [0, 1, 2, 2, 1, 0]),
        (4, [0, 1, 2, 3, 3, 2, 1, 0, 0, 1, 2, 3]),
    ],
)
def test_OS_6_4_snake_draft_sequences(players, seats):
    order = draft_order(players)
    assert [s for s, _ in order] == seats
    assert {n for _, n in order} == {AIRCRAFT[players] // 2}  # OS-6.2 batch size


def test_OS_6_1_OS_6_3_OS_6_5_draft_places_every_token_one_per_decision_in_snake_order():
    state = fresh(2, callsigns="random", seed=1)
    actors = []
    while state.phase == "draft":
        (seat,) = state.to_act()
        actors.append(seat)
        state.apply(seat, state.legal_actions(seat)[0])
    assert actors == [0] * 3 + [1] * 6 + [0] * 3
    assert state.on_board == [6, 6]
    assert state.phase == "hubs"


def test_OS_6_6_a_player_may_fly_the_same_route_several_times():
    """OS-3.3 too: each token is one flight of one player, so three tokens are three flights."""
    state = fresh(2, callsigns="random", seed=1)
    for _ in range(3):
        play(state, 0, {"type": "place_aircraft", "route": "AMS-LHR"})
    r = route(state, "LHR", "AMS")
    assert state.tokens[0][r] == 3
    assert state.view(None)["players"][0]["aircraft"] == {"AMS-LHR": 3}


def test_OS_3_2_only_listed_routes_take_aircraft():
    state = fresh(2, callsigns="random", seed=1)
    with pytest.raises(IllegalAction, match="not a route") as info:
        play(state, 0, {"type": "place_aircraft", "route": "ATH-LHR"})
    assert info.value.rule == "OS-3.2"


# ------------------------------------------------------------------ subsidies


def _with_callsigns(codes: list[str], players: int = 2, map_name: str = "europe"):
    state = fresh(players, map_name)
    for i, code in enumerate(codes):
        play(state, i % players, {"type": "place_callsign", "airport": code})
    return state


def test_OS_7_1_first_operator_takes_the_cube():
    state = _with_callsigns(["LHR", "FCO", "ATH", "OSL", "LIS", "WAW"])
    events = play(state, 0, {"type": "place_aircraft", "route": "AMS-LHR"})
    assert [e.data["airport"] for e in events if e.type == "subsidy_taken"] == ["LHR"]
    assert state.cubes[0] == 1
    # OS-7.4: a collected cube is never replaced; later operators get nothing.
    play(state, 0, {"type": "place_aircraft", "route": "CDG-LHR"})
    play(state, 0, {"type": "place_aircraft", "route": "AMS-EDI"})
    events = play(state, 1, {"type": "place_aircraft", "route": "DUB-LHR"})
    assert not [e for e in events if e.type == "subsidy_taken"]
    assert state.cubes == [1, 0]


def test_OS_7_2_route_touching_two_subsidised_airports_takes_both():
    state = _with_callsigns(["LHR", "CDG", "ATH", "OSL", "LIS", "WAW"])
    events = play(state, 0, {"type": "place_aircraft", "route": "CDG-LHR"})
    assert sorted(e.data["airport"] for e in events if e.type == "subsidy_taken") == ["CDG", "LHR"]
    assert state.view(None)["subsidy_cubes"]["LHR"] == 0


def test_OS_7_3_touching_means_an_endpoint_not_a_path():
    state = _with_callsigns(["AMS", "FCO", "ATH", "OSL", "LIS", "WAW"])
    events = play(state, 0, {"type": "place_aircraft", "route": "CDG-LHR"})
    assert not [e for e in events if e.type == "subsidy_taken"]


# ------------------------------------------------------------------ marketing


def test_OS_8_1_roller_rotates_clockwise_by_month():
    state = fresh(3)
    for month in range(1, 13):
        state.month = month
        assert state.roller == (month - 1) % 3
    assert sum(1 for m in range(1, 13) if (m - 1) % 2 == 0) == 6  # 2 players roll 6 times each


def test_OS_8_2_dice_show_three_different_callsigns_and_OS_8_4_three_pairs():
    state = fresh(2, callsigns="random", seed=3)
    while state.phase != "market":
        (seat,) = state.to_act()
        state.apply(seat, state.legal_actions(seat)[0])
    assert len(set(state.dice)) == 3
    assert state.to_act() == [0]
    pairs = state.legal_actions(0)
    assert len(pairs) == 3 and len({(a.origin, a.destination) for a in pairs}) == 3


# ------------------------------------------------------------------ itineraries

EU = "europe"


def _valid(state, seat):
    return [tuple(state.board.codes[a] for a in p) for p in state.valid[seat]]


def test_OS_9_4_nonstop_and_one_stop_are_both_valid():
    state = pricing_position(2, {0: [("LHR", "CDG")], 1: [("LHR", "AMS"), ("AMS", "CDG")]}, ("LHR", "CDG"),
                             hubs={1: ["AMS", "FRA"]})
    assert state.phase == "bid" and state.to_act() == [0, 1]
    assert _valid(state, 0) == [("LHR", "CDG")]
    assert _valid(state, 1) == [("LHR", "AMS", "CDG")]


def test_OS_9_4_c_two_stop_invalid_when_a_one_stop_exists_at_the_table():
    networks = {0: [("LHR", "MAD"), ("MAD", "BCN"), ("BCN", "FCO")], 1: [("LHR", "CDG"), ("CDG", "FCO")]}
    state = pricing_position(2, networks, ("LHR", "FCO"), hubs={0: ["MAD", "BCN"], 1: ["CDG", "AMS"]})
    assert state.eligible == [1]
    assert _valid(state, 0) == []


def test_OS_9_4_c_two_stop_valid_when_it_is_the_shortest_at_the_table():
    networks = {0: [("LHR", "MAD"), ("MAD", "BCN"), ("BCN", "FCO")], 1: [("LHR", "CDG")]}
    state = pricing_position(2, networks, ("LHR", "FCO"), hubs={0: ["MAD", "BCN"], 1: ["CDG", "AMS"]})
    assert _valid(state, 0) == [("LHR", "MAD", "BCN", "FCO")]
    assert state.eligible == [0]


def test_OS_9_5_itineraries_of_a_player_without_cards_do_not_count():
    networks = {0: [("LHR", "MAD"), ("MAD", "BCN"), ("BCN", "FCO")], 1: [("LHR", "CDG"), ("CDG", "FCO")]}
    pos = pricing_position(2, networks, ("LHR", "FCO"), hubs={0: ["MAD", "BCN"], 1: ["CDG", "AMS"]})
    pos.hand[1] = [0] * 5
    pos.phase = "market"
    pos.dice = [0, 1, 2]
    pos.apply(0, pos.legal_actions(0)[0])
    assert pos.eligible == [0]
    assert _valid(pos, 0) == [("LHR", "MAD", "BCN", "FCO")]


def test_OS_9_2_several_tokens_on_a_route_give_one_itinerary():
    state = pricing_position(2, {0: [("LHR", "CDG"), ("LHR", "CDG")], 1: []}, ("LHR", "CDG"))
    assert _valid(state, 0) == [("LHR", "CDG")]
    assert state.eligible == [0]


def test_OS_20_4_connection_needs_the_players_own_hub():
    networks = {0: [("LHR", "AMS"), ("AMS", "CDG")], 1: [("LHR", "AMS"), ("AMS", "CDG")]}
    state = pricing_position(2, networks, ("LHR", "CDG"), hubs={0: ["AMS", "FRA"], 1: ["FRA", "MUC"]})
    assert state.eligible == [0]
    assert _valid(state, 1) == []


def test_OS_20_5_origin_and_destination_need_no_hub_and_at_most_two_stops():
    networks = {0: [("DUB", "LHR"), ("LHR", "CDG"), ("CDG", "FCO"), ("FCO", "ATH")]}
    state = pricing_position(2, networks, ("DUB", "ATH"), hubs={0: ["LHR", "CDG"]})
    assert state.eligible == []  # a three-stop path would need three hubs
    state = pricing_position(2, {0: networks[0][:3]}, ("DUB", "FCO"), hubs={0: ["LHR", "CDG"]})
    assert _valid(state, 0) == [("DUB", "LHR", "CDG", "FCO")]


def test_OS_9_3_OS_21_10_north_america_has_no_connection_condition():
    networks = {0: [("JFK", "ORD"), ("ORD", "DEN"), ("DEN", "PHX"), ("PHX", "LAX")]}
    state = pricing_position(2, networks, ("JFK", "LAX"), map_name="north_america")
    assert _valid(state, 0) == [("JFK", "ORD", "DEN", "PHX", "LAX")]


def test_OS_9_6_OS_9_7_nobody_eligible_market_does_not_travel():
    state = pricing_position(2, {0: [("LHR", "AMS")]}, ("LHR", "CDG"))
    assert state.phase != "bid"
    assert state.table == [[0] * 5, [0] * 5]


# ------------------------------------------------------------------ sealed bids


def _ab_position(players: int = 2, month: int = 1):
    networks = {0: [("LHR", "CDG")], 1: [("LHR", "CDG")]}
    if players == 3:
        networks[2] = [("LHR", "AMS"), ("AMS", "CDG")]
    hubs = {2: ["AMS", "FRA"]} if players == 3 else {}
    return pricing_position(players, networks, ("LHR", "CDG"), hubs=hubs, month=month)


def _bid(fare: int, *itinerary: str) -> dict:
    return {"type": "bid", "fare": fare, "itinerary": list(itinerary or ("LHR", "CDG"))}


def test_OS_10_1_bids_are_simultaneous_and_hidden_until_all_are_in():
    state = _ab_position()
    assert state.to_act() == [0, 1]
    events = play(state, 0, _bid(300))
    public = [e for e in events if e.visible_to is None]
    assert [e.type for e in public] == ["bid_sealed"] and "fare" not in public[0].data
    assert [e.visible_to for e in events if e.type == "my_bid"] == [(0,)]
    assert state.to_act() == [1]
    assert "300" not in canonical_json(state.view(1)["pricing"])
    assert "my_bid" not in state.view(None)["pricing"]
    assert state.view(0)["pricing"]["my_bid"] == {"fare": 300, "itinerary": ["CDG", "LHR"]}  # canonical (OS-8.5)
    assert state.view(1)["players"][0]["hand"] == state.view(0)["players"][0]["hand"]  # hands are public (OS-1.5)


def test_OS_10_2_bid_needs_a_card_in_hand_and_a_valid_itinerary():
    state = _ab_position()
    before = state.digest()
    with pytest.raises(IllegalAction, match="no 350 fare card"):
        play(state, 0, _bid(350))
    with pytest.raises(IllegalAction, match="not one of seat 0's valid itineraries") as info:
        play(state, 0, _bid(300, "LHR", "AMS", "CDG"))
    assert info.value.rule == "OS-10.2"
    assert state.digest() == before


def test_OS_10_3_reveal_makes_standing_offers():
    state = _ab_position()
    play(state, 1, _bid(400))
    events = play(state, 0, _bid(300))
    revealed = next(e for e in events if e.type == "bids_revealed")
    assert [(o["seat"], o["fare"], o["stops"]) for o in revealed.data["offers"]] == [(0, 300, 0), (1, 400, 0)]
    assert revealed.data["provisional_winners"] == [0]


def test_OS_9_7_every_eligible_player_passes_market_does_not_travel():
    state = _ab_position()
    play(state, 0, {"type": "pass"})
    events = play(state, 1, {"type": "pass"})
    assert any(e.type == "market_not_travelled" for e in events)
    assert state.table == [[0] * 5, [0] * 5] and state.on_board == [1, 1]


def test_OS_10_4_player_without_cards_is_not_asked():
    state = _ab_position()
    state.hand[1] = [0] * 5
    state.phase = "market"
    state.apply(0, state.legal_actions(0)[0])
    assert state.to_act() == [0]


# ------------------------------------------------------------------ flash deals, ties, ancillaries


def test_OS_12_1_OS_12_4_OS_12_5_OS_11_6_losing_player_may_flash_deal_and_sole_winner_is_not_asked():
    state = _ab_position()
    play(state, 0, _bid(400))
    play(state, 1, _bid(300))
    assert state.phase == "flash" and state.to_act() == [0]  # seat 1 is the sole provisional winner
    assert state.legal_actions(0) == [DECLINE_FLASH] + [
        a for a in state.legal_actions(0)[1:] if a.fare < 400
    ]
    assert {a.fare for a in state.legal_actions(0)[1:]} == {200, 250, 300}
    with pytest.raises(IllegalAction) as info:
        play(state, 0, {"type": "flash_deal", "fare": 400})
    assert info.value.rule == "OS-12.2"
    play(state, 0, {"type": "flash_deal", "fare": 250})
    assert state.hand[0] == [2, 1, 2, 2, 2]  # the 400 came back, the 250 went out (OS-12.6)
    assert not state.flash_token[0]
    assert state.to_act() == [1]  # now losing: asked
    play(state, 1, {"type": "flash_deal", "fare": 200})
    # OS-12.3: seat 0 has no token left; the round ends; seat 1 is the sole winner.
    assert state.phase == "ancillary" and state.to_act() == [1]


def test_OS_12_2_a_flash_deal_may_still_lose():
    state = _ab_position()
    play(state, 0, _bid(500))
    play(state, 1, _bid(200))
    play(state, 0, {"type": "flash_deal", "fare": 400})
    assert state.phase == "ancillary" and state.sole == 1


def test_OS_12_7_OS_13_1_OS_13_3_OS_14_1_OS_8_6_flash_to_a_tie_then_tied_player_may_flash():
    state = _ab_position()
    play(state, 0, _bid(400))
    play(state, 1, _bid(300))
    play(state, 0, {"type": "flash_deal", "fare": 300})
    assert state.to_act() == [1]  # tied: eligible
    events = play(state, 1, {"type": "decline_flash"})
    won = next(e for e in events if e.type == "market_won")
    assert won.data["tie"] is True
    assert sorted(w["seat"] for w in won.data["winners"]) == [0, 1]
    assert state.phase != "ancillary"  # OS-13.2: no ancillaries in a tie


def test_OS_12_6_passed_player_cannot_flash():
    state = _ab_position()
    play(state, 0, {"type": "pass"})
    play(state, 1, _bid(500))
    assert state.phase == "ancillary" and state.sole == 1


def test_OS_13_4_winner_removes_one_token_per_flight_and_OS_16_3_losers_keep_theirs():
    networks = {0: [("LHR", "CDG"), ("LHR", "CDG")], 1: [("LHR", "AMS"), ("AMS", "CDG"), ("LHR", "AMS")]}
    state = pricing_position(2, networks, ("LHR", "CDG"), hubs={1: ["AMS", "FRA"]})
    play(state, 0, _bid(400))
    play(state, 1, _bid(200, "LHR", "AMS", "CDG"))
    assert state.to_act() == [0]  # seat 0 is losing and holds lower cards: asked for a Flash Deal
    play(state, 0, {"type": "decline_flash"})
    # seat 1 one-stop 200 <= 400/2 wins alone; decline ancillaries
    assert state.sole == 1
    play(state, 1, {"type": "add_ancillaries", "tokens": 0})
    assert state.table[1][0] == 1
    assert state.tokens[1][route(state, "LHR", "AMS")] == 1 and state.tokens[1][route(state, "AMS", "CDG")] == 0
    assert state.on_board == [2, 1]
    assert state.hand[0][3] == 2  # OS-16.2: the losing 400 came back


def test_OS_14_2_sole_winner_may_attach_zero_to_three_tokens():
    state = _ab_position()
    play(state, 0, _bid(300))
    play(state, 1, _bid(500))
    play(state, 1, {"type": "decline_flash"})
    assert state.legal_actions(0) == [AddAncillaries(n) for n in range(4)]
    with pytest.raises(IllegalAction) as info:
        play(state, 0, {"type": "add_ancillaries", "tokens": 4})
    assert info.value.rule == "OS-14.2"


def test_OS_15_1_OS_14_4_OS_16_1_no_ancillary_wins_without_rolling():
    state = _ab_position()
    play(state, 0, _bid(300))
    play(state, 1, _bid(500))
    play(state, 1, {"type": "decline_flash"})
    rng_before = state.rng.getstate()
    events = play(state, 0, {"type": "add_ancillaries", "tokens": 0})
    assert not any(e.type == "price_check" for e in events)
    assert state.rng.getstate() == rng_before
    assert state.scores()[0] == 300


def test_OS_15_3_OS_14_3_OS_14_5_OS_14_6_market_accepts_final_price():
    state = _ab_position()
    play(state, 0, _bid(300))
    play(state, 1, _bid(500))
    play(state, 1, {"type": "decline_flash"})
    state.rng = FixedDie(500)
    events = play(state, 0, {"type": "add_ancillaries", "tokens": 2})
    check = next(e for e in events if e.type == "price_check")
    assert check.data["final_price"] == 500 and check.data["accepted"] is True  # OS-14.3, roll >= price
    assert state.anc[0] == 1 and state.anc_used[0] == 2
    assert state.scores()[0] == 300 + 200
    assert state.hand[1][4] == 2


def test_OS_15_4_failed_check_goes_to_the_next_best_fare():
    state = _ab_position()
    play(state, 0, _bid(300))
    play(state, 1, _bid(500))
    play(state, 1, {"type": "decline_flash"})
    state.rng = FixedDie(300)
    events = play(state, 0, {"type": "add_ancillaries", "tokens": 1})
    assert next(e for e in events if e.type == "price_check").data["accepted"] is False
    won = next(e for e in events if e.type == "market_won")
    assert won.data["winners"][0]["seat"] == 1 and won.data["winners"][0]["ancillaries"] == 0
    assert state.hand[0] == [2, 2, 2, 2, 2] and state.anc[0] == 3  # card and token back unused
    assert state.on_board[0] == 1  # OS-15.4: its aircraft stay
    assert state.scores() == [0, 500]


def test_OS_15_5_OS_15_6_worked_example_one_stop_qualifies_after_the_failed_nonstop():
    networks = {0: [("LHR", "CDG")], 1: [("LHR", "AMS"), ("AMS", "CDG")], 2: [("LHR", "CDG")]}
    state = pricing_position(3, networks, ("LHR", "CDG"), hubs={1: ["AMS", "FRA"]})
    play(state, 0, _bid(300))
    play(state, 1, _bid(200, "LHR", "AMS", "CDG"))
    play(state, 2, _bid(500))
    while state.phase == "flash":
        (seat,) = state.to_act()
        play(state, seat, {"type": "decline_flash"})
    assert state.sole == 0
    state.rng = FixedDie(300)
    events = play(state, 0, {"type": "add_ancillaries", "tokens": 1})
    won = next(e for e in events if e.type == "market_won")
    assert [w["seat"] for w in won.data["winners"]] == [1]
    assert state.scores() == [0, 200, 0]


def test_OS_15_7_no_alternative_nobody_scores_and_cards_return():
    state = _ab_position()
    play(state, 0, _bid(300))
    play(state, 1, {"type": "pass"})
    state.rng = FixedDie(200)
    events = play(state, 0, {"type": "add_ancillaries", "tokens": 3})
    assert any(e.type == "market_not_travelled" for e in events)
    assert state.scores() == [0, 0] and state.hand[0] == [2] * 5 and state.on_board == [1, 1]


def test_OS_15_8_acceptance_probabilities_of_the_price_die():
    accepted = {price: sum(roll >= price for roll in PRICE_DIE) for price in range(300, 900, 100)}
    assert accepted == {300: 5, 400: 4, 500: 3, 600: 2, 700: 1, 800: 0}
    assert PRICE_DIE == (200, 300, 400, 500, 600, 700)  # OS-2.3


def test_OS_15_2_price_die_is_rolled_from_the_state_rng_and_replays():
    rolls = set()
    for seed in range(12):
        state = _ab_position()
        state.rng = random.Random(seed)
        play(state, 0, _bid(200))
        play(state, 1, _bid(500))
        play(state, 1, {"type": "decline_flash"})
        events = play(state, 0, {"type": "add_ancillaries", "tokens": 1})
        rolls.add(next(e for e in events if e.type == "price_check").data["roll"])
    assert rolls <= set(PRICE_DIE) and len(rolls) > 2


# ------------------------------------------------------------------ end of month, leasing, reset, scoring


def _tie_then_lease(month: int = 1):
    state = _ab_position(month=month)
    play(state, 0, _bid(300))
    play(state, 1, _bid(300))
    while state.phase == "flash":
        (seat,) = state.to_act()
        play(state, seat, {"type": "decline_flash"})
    return state


def test_OS_17_8_OS_1_4_OS_17_1_leasing_in_month_order_with_payment_then_placement():
    state = _tie_then_lease(month=2)  # roller is seat 1
    assert state.phase == "lease" and state.to_act() == [1]
    assert state.legal_actions(1) == [LEASE_NOTHING, Lease(1, (300,))]
    events = play(state, 1, {"type": "lease", "aircraft": 1, "cards": [300]})
    assert events[0].data["credit"] == 100
    assert state.hand[1][2] == 2 and state.table[1][2] == 0  # OS-17.2: card back to hand
    assert state.phase == "lease_place" and state.to_act() == [1]
    play(state, 1, {"type": "place_aircraft", "route": "CDG-LHR"})
    assert state.to_act() == [0] and state.phase == "lease"
    play(state, 0, {"type": "lease", "aircraft": 0, "cards": []})
    assert state.phase == "market" and state.month == 3
    assert state.scores() == [300, 100]  # OS-19.3: credit counts as fare revenue


def test_OS_17_3_illegal_payment_is_refused_and_changes_nothing():
    state = _tie_then_lease()
    before = state.digest()
    with pytest.raises(IllegalAction, match="not a legal payment") as info:
        play(state, 0, {"type": "lease", "aircraft": 2, "cards": [300]})
    assert info.value.rule == "OS-17.3"
    assert state.digest() == before


def test_OS_17_10_OS_19_1_no_leasing_after_march_game_ends():
    state = _tie_then_lease(month=12)
    assert state.is_over() and state.to_act() == []
    assert state.winners() == [0, 1]  # OS-19.4: ties share the victory


def test_OS_18_1_OS_5_2_OS_17_9_season_reset_after_october_clears_board_and_redrafts():
    state = _tie_then_lease(month=7)
    while state.phase == "lease":
        (seat,) = state.to_act()
        play(state, seat, {"type": "lease", "aircraft": 0, "cards": []})
    assert state.phase == "draft" and state.to_act() == [0]  # OS-18.2
    assert state.on_board == [0, 0] and state.month == 8 and state.season == 2
    assert state.table[0][2] == 1  # OS-18.1(e): tables stay
    assert state.roller == 1  # OS-18.3: November is month 8


def test_OS_20_7_hubs_may_be_kept_or_moved_at_the_reset():
    state = _tie_then_lease(month=7)
    state.hubs = [[airport(state, "AMS"), airport(state, "FRA")], [airport(state, "CDG"), airport(state, "MUC")]]
    while state.phase != "hubs":
        (seat,) = state.to_act()
        state.apply(seat, state.legal_actions(seat)[0])
    assert state.to_act() == [0]
    assert state.legal_actions(0)[0] == KEEP_HUB
    assert state.default_action(0) == KEEP_HUB
    with pytest.raises(IllegalAction, match="already has a hub at FRA"):
        play(state, 0, {"type": "place_hub", "airport": "FRA"})
    play(state, 0, {"type": "place_hub", "airport": "LHR"})
    play(state, 1, {"type": "keep_hub"})
    play(state, 0, {"type": "keep_hub"})
    play(state, 1, {"type": "place_hub", "airport": "LHR"})  # other players' hubs may share an airport
    assert state.view(None)["players"][0]["hubs"] == ["LHR", "FRA"]
    assert state.view(None)["players"][1]["hubs"] == ["CDG", "LHR"]
    assert state.phase == "market"


def test_OS_20_3_OS_20_7_the_view_says_whose_hub_decision_it_is_and_which_hub():
    """A hub prompt can say which hub it is about: the first or the second of the seat's, and at the season reset the
    airport it stands on (kept there, or moved from there)."""
    state = fresh(2, callsigns="random", seed=2)
    while state.phase == "draft":
        (seat,) = state.to_act()
        state.apply(seat, state.legal_actions(seat)[0])
    turns = []
    for seat, airport_code in ((0, "AMS"), (1, "AMS"), (0, "FRA"), (1, "CDG")):
        turns.append(state.view(seat)["hub_turn"])
        play(state, seat, {"type": "place_hub", "airport": airport_code})
    assert turns == [{"seat": 0, "hub": 1, "airport": None}, {"seat": 1, "hub": 1, "airport": None},
                     {"seat": 0, "hub": 2, "airport": None}, {"seat": 1, "hub": 2, "airport": None}]
    assert "hub_turn" not in state.view(None)  # the market: no hub decision
    state = _tie_then_lease(month=7)
    state.hubs = [[airport(state, "AMS"), airport(state, "FRA")], [airport(state, "CDG"), airport(state, "MUC")]]
    while state.phase != "hubs":
        (seat,) = state.to_act()
        state.apply(seat, state.legal_actions(seat)[0])
    turns = []
    keep = {"type": "keep_hub"}
    for seat, action in ((0, {"type": "place_hub", "airport": "LHR"}), (1, keep), (0, keep),
                         (1, {"type": "place_hub", "airport": "LHR"})):
        turns.append(state.view(None)["hub_turn"])
        play(state, seat, action)
    assert turns == [{"seat": 0, "hub": 1, "airport": "AMS"}, {"seat": 1, "hub": 1, "airport": "CDG"},
                     {"seat": 0, "hub": 2, "airport": "FRA"}, {"seat": 1, "hub": 2, "airport": "MUC"}]


def test_OS_20_3_OS_20_2_two_hubs_each_on_different_airports_one_at_a_time_after_planning():
    state = fresh(2, callsigns="random", seed=2)
    while state.phase == "draft":
        (seat,) = state.to_act()
        state.apply(seat, state.legal_actions(seat)[0])
    assert [state.to_act() for _ in range(1)] == [[0]]
    play(state, 0, {"type": "place_hub", "airport": "AMS"})
    assert state.to_act() == [1]
    play(state, 1, {"type": "place_hub", "airport": "AMS"})
    with pytest.raises(IllegalAction) as info:
        play(state, 0, {"type": "place_hub", "airport": "AMS"})
    assert info.value.rule == "OS-20.3"
    with pytest.raises(IllegalAction):
        play(state, 0, {"type": "keep_hub"})
    play(state, 0, {"type": "place_hub", "airport": "FRA"})
    play(state, 1, {"type": "place_hub", "airport": "CDG"})
    assert state.phase == "market"


def test_OS_19_2_OS_19_5_final_score_is_fares_plus_subsidies_plus_ancillaries():
    state = fresh(2)
    state.table[0] = [1, 0, 1, 0, 1]
    state.credit[0] = 50
    state.cubes[0] = 2
    state.anc_used[0] = 2
    assert state.scores()[0] == 200 + 300 + 500 + 50 + 100 + 200
    assert state.score_breakdown(0) == {"fares": 1050, "subsidies": 100, "ancillaries": 200, "total": 1350}
    assert state.winners() == []  # only once the game is over


# ------------------------------------------------------------------ North America


def test_OS_21_4_cross_border_route_needs_a_token_placed_with_the_aircraft():
    state = fresh(2, "north_america", callsigns="random", seed=4)
    events = play(state, 0, {"type": "place_aircraft", "route": "JFK-YYZ"})
    assert events[0].data["cross_border_token"] is True
    events = play(state, 0, {"type": "place_aircraft", "route": "JFK-YYZ"})  # OS-21.9: no second token
    assert events[0].data["cross_border_token"] is False
    play(state, 0, {"type": "place_aircraft", "route": "BOS-YUL"})
    assert state.view(None)["players"][0]["cross_border_routes"] == ["JFK-YYZ", "BOS-YUL"]
    # OS-21.6: both tokens used; only domestic or authorised routes remain.
    legal = {a.route for a in state.legal_actions(1)}
    assert "SEA-YVR" in legal  # seat 1 has its own tokens (OS-21.5)
    play(state, 1, {"type": "place_aircraft", "route": "ATL-JFK"})
    play(state, 1, {"type": "place_aircraft", "route": "ATL-JFK"})
    play(state, 1, {"type": "place_aircraft", "route": "ATL-JFK"})
    play(state, 1, {"type": "place_aircraft", "route": "ATL-JFK"})
    play(state, 1, {"type": "place_aircraft", "route": "ATL-JFK"})
    play(state, 1, {"type": "place_aircraft", "route": "ATL-JFK"})
    legal = {a.route for a in state.legal_actions(0)}
    assert "SEA-YVR" not in legal and "JFK-YYZ" in legal and "ATL-JFK" in legal  # OS-21.7
    before = state.digest()
    with pytest.raises(IllegalAction) as info:
        play(state, 0, {"type": "place_aircraft", "route": "SEA-YVR"})
    assert info.value.rule == "OS-21.4"
    assert state.digest() == before


def test_OS_21_8_cross_border_tokens_return_at_the_reset():
    state = _tie_then_lease(month=7)
    state.xb = [[0], [1]]
    while state.phase == "lease":
        (seat,) = state.to_act()
        play(state, seat, {"type": "lease", "aircraft": 0, "cards": []})
    assert state.xb == [[], []]


# ------------------------------------------------------------------ hidden information, defaults


def test_OS_1_5_determinize_resamples_only_the_sealed_bid():
    state = _ab_position()
    play(state, 0, _bid(300))
    seen = set()
    for k in range(30):
        sample = state.determinize(1, random.Random(k))
        assert canonical_json(sample.view(1)) == canonical_json(state.view(1))
        seen.add(None if sample.sealed[0] is None else tuple(sample.sealed[0]))
        assert sample.hand == state.hand and sample.tokens == state.tokens
    assert len(seen) > 2
    own = state.determinize(0, random.Random(1))
    assert own.sealed[0] == [300, 0]


def test_default_actions_are_the_passive_choices():
    state = _ab_position()
    assert state.default_action(0) == PASS
    play(state, 0, _bid(400))
    play(state, 1, _bid(300))
    assert state.default_action(0) == DECLINE_FLASH
    play(state, 0, {"type": "decline_flash"})
    assert state.default_action(1) == AddAncillaries(0)


def test_wrong_seat_and_wrong_phase_actions_are_refused():
    state = _ab_position()
    with pytest.raises(IllegalAction, match="not a decision of the bid phase"):
        state.apply(0, PlaceAircraft("CDG-LHR"))
    play(state, 0, _bid(300))
    with pytest.raises(IllegalAction, match="not seat 0's turn"):
        play(state, 0, _bid(300))
    assert isinstance(state.legal_actions(1)[1], Bid)


# ------------------------------------------------------------------ whole-game structure


def _events_of_game(players: int, map_name: str, seed: int) -> list:
    state = fresh(players, map_name, seed=seed, callsigns="random")
    rng = random.Random(seed)
    events = []
    while not state.is_over():
        seat = rng.choice(state.to_act())
        actions = state.legal_actions(seat)
        events += state.apply(seat, actions[rng.randrange(len(actions))])
    return events


@pytest.mark.parametrize("players", [2, 3, 4])
def test_OS_5_1_OS_1_2_OS_5_3_OS_5_4_twelve_months_one_reset_and_OS_8_1_each_player_rolls_equally(players):
    events = _events_of_game(players, "europe", seed=players)
    rolls = [e.data for e in events if e.type == "dice_rolled"]
    assert [r["month"] for r in rolls] == ["April", "May", "June", "July", "August", "September", "October",
                                          "November", "December", "January", "February", "March"]
    assert [r["roller"] for r in rolls] == [(m - 1) % players for m in range(1, 13)]
    assert [e.type for e in events].count("season_reset") == 1
    assert events[-1].type == "game_over"


def test_OS_17_4_ancillary_tokens_stay_on_the_table_when_their_card_is_leased_back():
    state = _ab_position()
    play(state, 0, _bid(300))
    play(state, 1, _bid(500))
    play(state, 1, {"type": "decline_flash"})
    state.rng = FixedDie(700)
    play(state, 0, {"type": "add_ancillaries", "tokens": 1})
    assert state.scores()[0] == 400
    play(state, 0, {"type": "lease", "aircraft": 1, "cards": [300]})
    assert state.anc_used[0] == 1 and state.credit[0] == 100
    assert state.scores()[0] == 100 + 100  # change credit + the used ancillary token


def test_OS_21_9_cross_border_token_stays_when_no_aircraft_remain():
    state = pricing_position(2, {0: [("JFK", "YYZ")]}, ("JFK", "YYZ"), map_name="north_america")
    state.xb[0] = [route(state, "JFK", "YYZ")]
    play(state, 0, _bid(300, "JFK", "YYZ"))
    play(state, 0, {"type": "add_ancillaries", "tokens": 0})
    assert state.on_board[0] == 0
    assert state.xb[0] == [route(state, "JFK", "YYZ")]
    # the lease re-uses the authorised route without another token (OS-21.9)
    play(state, 0, {"type": "lease", "aircraft": 1, "cards": [300]})
    events = play(state, 0, {"type": "place_aircraft", "route": "JFK-YYZ"})
    assert events[0].data["cross_border_token"] is False


def test_OS_18_1_e_callsigns_and_collected_subsidies_survive_the_reset():
    state = _tie_then_lease(month=7)
    callsigns, owners, cubes = list(state.callsigns), list(state.cube_owner), list(state.cubes)
    while state.phase == "lease":
        (seat,) = state.to_act()
        play(state, seat, {"type": "lease", "aircraft": 0, "cards": []})
    assert (state.callsigns, state.cube_owner, state.cubes) == (callsigns, owners, cubes)


def test_OS_20_8_hubs_do_not_restrict_placement():
    state = fresh(2, callsigns="random", seed=2)
    assert len(state.legal_actions(0)) == len(state.board.routes)
