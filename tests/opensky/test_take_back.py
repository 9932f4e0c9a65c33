"""Which OpenSky decisions a player may take back (engine/opensky/takeback.py): placements within a turn
(OS-6.5), a lease's payment before its placements (OS-17.8), a sealed bid before the reveal (OS-10.1), and
nothing that opened a sealed bid (OS-10.3), rolled a die (OS-15.2) or passed the decision on."""

from __future__ import annotations

from functools import partial

from engine.opensky.actions import AddAncillaries, Bid, ChooseMarket, Lease, Pass, PlaceAircraft, PlaceHub
from engine.opensky.constants import FARE_INDEX
from tests.take_back import take_back_verdict

from .helpers import GAME, fresh, pricing_position

decide = partial(take_back_verdict, GAME)  # None: the decision may be taken back; else the refusal


def test_OS_6_5_a_draft_placement_can_be_taken_back_while_the_player_places_on():
    state = fresh(2, callsigns="random")  # 2 players: 3 tokens per turn (OS-6.4)
    assert state.phase == "draft" and state.to_act() == [0]
    assert decide(state, 0, PlaceAircraft(state.board.route_codes[0])) is None
    assert decide(state, 0, PlaceAircraft(state.board.route_codes[1])) is None


def test_OS_6_4_the_placement_that_ends_the_turn_cannot_be_taken_back():
    state = fresh(3, callsigns="random")  # 3 players: 2 tokens per turn, then seat 1 places
    assert decide(state, 0, PlaceAircraft(state.board.route_codes[0])) is None
    refusal = decide(state, 0, PlaceAircraft(state.board.route_codes[1]))
    assert refusal is not None and refusal.rule == "OS-6.4"
    assert state.to_act() == [1]


def test_OS_20_3_a_hub_placement_passes_the_question_on():
    state = fresh(2, callsigns="random")
    codes = state.board.route_codes
    for turn in range(4):
        seat = state.to_act()[0]
        for _ in range(3):
            state.apply(seat, PlaceAircraft(codes[turn]))
    assert state.phase == "hubs"
    refusal = decide(state, 0, PlaceHub(state.board.codes[0]))
    assert refusal is not None and refusal.rule == "OS-20.3"


def _bidding():
    networks = {0: [("LHR", "CDG")], 1: [("LHR", "CDG")]}
    return pricing_position(2, networks, ("LHR", "CDG"))


def test_OS_10_1_a_sealed_bid_can_be_taken_back_while_others_still_bid():
    state = _bidding()
    assert state.phase == "bid" and state.to_act() == [0, 1]
    assert decide(state, 0, Bid(300, ("CDG", "LHR"))) is None
    assert state.to_act() == [1]


def test_OS_10_1_a_pass_can_be_taken_back_while_others_still_bid():
    state = _bidding()
    assert decide(state, 1, Pass()) is None


def test_OS_10_3_the_bid_that_reveals_every_bid_cannot_be_taken_back():
    state = _bidding()
    state.apply(1, Bid(250, ("CDG", "LHR")))
    refusal = decide(state, 0, Bid(300, ("CDG", "LHR")))
    assert refusal is not None and refusal.rule == "OS-10.3"
    assert state.phase != "bid"


def test_OS_9_5_the_market_choice_opens_the_bidding_and_cannot_be_taken_back():
    state = fresh(2)
    for s in range(2):
        state.tokens[s][state.board.route_index["CDG-LHR"]] += 1
        state.on_board[s] += 1
    state.callsigns = [state.board.airport_index[c] for c in ("LHR", "CDG", "AMS", "FCO", "MAD", "BCN")]
    state.cube_owner = [0] * 6
    state.dice = [0, 1, 2]
    state.phase = "market"
    roller = state.roller
    refusal = decide(state, roller, ChooseMarket("CDG", "LHR"))
    assert refusal is not None and refusal.rule == "OS-9.5"
    assert state.phase == "bid"


def test_OS_15_2_ancillaries_roll_the_price_die_and_cannot_be_taken_back():
    state = _bidding()
    state.apply(1, Pass())
    state.apply(0, Bid(300, ("CDG", "LHR")))
    while state.phase == "flash":
        seat = state.to_act()[0]
        state.apply(seat, state.legal_actions(seat)[0])  # decline
    assert state.phase == "ancillary"
    refusal = decide(state, 0, AddAncillaries(1))
    assert refusal is not None and refusal.rule == "OS-15.2"


def _leasing(aircraft_on_board: int = 0):
    state = fresh(2, callsigns="random")
    state.phase = "lease"
    state.lease_queue = [0, 1]
    state.table[0][FARE_INDEX[500]] = 1
    state.on_board = [aircraft_on_board, 0]
    return state


def test_OS_17_8_a_lease_payment_can_be_taken_back_before_its_aircraft_are_placed():
    state = _leasing()
    assert decide(state, 0, Lease(2, (500,))) is None
    assert state.phase == "lease_place" and state.to_act() == [0]
    assert decide(state, 0, PlaceAircraft(state.board.route_codes[0])) is None  # one of two placed


def test_OS_17_8_the_last_leased_aircraft_and_leasing_nothing_cannot_be_taken_back():
    state = _leasing()
    state.apply(0, Lease(1, (500,)))
    refusal = decide(state, 0, PlaceAircraft(state.board.route_codes[0]))
    assert refusal is not None and refusal.rule == "OS-17.8"
    state = _leasing()
    refusal = decide(state, 0, Lease(0, ()))
    assert refusal is not None and refusal.rule == "OS-17.8"
