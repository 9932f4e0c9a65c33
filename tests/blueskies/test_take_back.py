"""Which Blue Skies decisions a player may take back (engine/blueskies/takeback.py): purchases until "done"
(BS-5.8), never a card play, the special action or government help, which draw from the bag (BS-3.1) or the
deck (BS-6.4)."""

from __future__ import annotations

from functools import partial

from engine.blueskies import actions as act
from engine.blueskies.state import BUY, PLAY, SETUP_BUY
from tests.take_back import take_back_verdict

from .helpers import GAME, finish_setup, new, set_airport, to_play

decide = partial(take_back_verdict, GAME)  # None: the decision may be taken back; else the refusal


def _cheapest(state) -> act.BuyGate:
    return next(a for a in state.legal_actions(state.actor) if isinstance(a, act.BuyGate))


def test_BS_5_8_a_gate_bought_in_setup_can_be_taken_back_until_done():
    state = new(3)
    assert state.phase == SETUP_BUY
    seat = state.actor
    assert decide(state, seat, _cheapest(state)) is None
    assert state.actor == seat


def test_BS_5_8_gates_bought_in_a_round_can_be_taken_back_one_by_one():
    state = new(3)
    finish_setup(state)
    assert state.phase == BUY
    seat = state.actor
    assert decide(state, seat, _cheapest(state)) is None
    assert decide(state, seat, _cheapest(state)) is None


def test_BS_5_4_a_buyout_can_be_taken_back_until_done():
    state = new(3)
    finish_setup(state)
    set_airport(state, "CVG", 2, [-1])
    buyable = [a for a in state.legal_actions(state.actor) if isinstance(a, act.Buyout)]
    assert buyable
    assert decide(state, state.actor, buyable[0]) is None


def test_BS_5_8_done_ends_the_purchase_turn_and_cannot_be_taken_back():
    state = new(3)
    finish_setup(state)
    seat = state.actor
    refusal = decide(state, seat, act.DONE)
    assert refusal is not None and refusal.rule == "BS-5.8"
    assert state.actor != seat


def test_BS_8_2_1_a_card_played_draws_from_the_bag_and_the_deck_and_cannot_be_taken_back():
    state = new(3)
    to_play(state)
    assert state.phase == PLAY
    seat = state.actor
    refusal = decide(state, seat, act.PLAY[state.hands[seat][0]])
    assert refusal is not None and refusal.rule == "BS-8.2.1"


def test_BS_3_2_the_special_action_draws_from_the_bag_and_cannot_be_taken_back():
    state = new(3)
    to_play(state)
    seat = state.actor
    refusal = decide(state, seat, act.SPECIAL[0])
    assert refusal is not None and refusal.rule == "BS-3.2"
    assert state.actor == seat  # the discard follows, but the passengers are out of the bag
