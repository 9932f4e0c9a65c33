"""Which Aeroplanes decisions a player may take back (engine/aeroplanes/takeback.py): within the turn
(AE-6.1) until a die is rolled (AE-8.13, AE-10.1, AE-6.2)."""

from __future__ import annotations

from functools import partial

import pytest

from engine.aeroplanes import placement
from engine.aeroplanes.actions import (
    ChooseAction,
    ChooseRoute,
    EndAction,
    EngineMaintenance,
    PayShortfall,
    PlaceTile,
    RollAdvantage,
    RollNext,
    TakeAdvantage,
)
from engine.aeroplanes.data import DATA
from tests.take_back import take_back_verdict

from .helpers import GAME, give_card, risk, script, started, touch

HOMES = {0: "london", 1: "paris", 2: "berlin", 3: "rome"}
NORMAL_I = 1


def position(money: int = 20):
    s = started(4, 1, HOMES)
    p = s.current
    s.money[p] = money
    touch(s)
    return s, p


decide = partial(take_back_verdict, GAME)  # None: the decision may be taken back; else the refusal


def neighbour(s, p, colour: str) -> str:
    """A destination one `colour` connection from p's home, with an empty slot, reachable without long-haul."""
    home = s.home[p]
    return next(DATA.destinations[t].id for t, c in placement.DIRECT[home].items()
                if c.colour == colour and c.dangerous is None and not c.long_haul and -1 in s.slots[t])


def test_AE_6_4_the_action_chosen_before_its_details_can_be_taken_back():
    s, p = position()
    give_card(s, p, NORMAL_I)
    assert decide(s, p, ChooseAction("place")) is None


def test_AE_6_6_engine_maintenance_at_the_turn_start_can_be_taken_back():
    s, p = position()
    s.adv[p][3] = 1
    s.failures[p] = 2
    touch(s)
    assert decide(s, p, EngineMaintenance()) is None


def test_AE_8_2_a_declared_placement_can_be_taken_back_before_its_route():
    s, p = position()
    give_card(s, p, NORMAL_I)
    s.apply(p, ChooseAction("place"))
    assert decide(s, p, PlaceTile(NORMAL_I, neighbour(s, p, "white"), None)) is None


def test_AE_8_16_a_tile_placed_by_a_white_route_can_be_taken_back_while_the_action_goes_on():
    s, p = position()
    give_card(s, p, NORMAL_I, tiles=2)
    s.apply(p, ChooseAction("place"))
    s.apply(p, PlaceTile(NORMAL_I, neighbour(s, p, "white"), None))
    assert decide(s, p, ChooseRoute(DATA.destinations[s.home[p]].id, None)) is None
    assert s.phase == "place_more" and s.current == p  # AE-8.1: the player may start another attempt


def test_AE_8_13_a_risk_roll_cannot_be_taken_back():
    s, p = position()
    give_card(s, p, NORMAL_I)
    s.apply(p, ChooseAction("place"))
    s.apply(p, PlaceTile(NORMAL_I, neighbour(s, p, "red"), None))
    refusal = decide(s, p, ChooseRoute(DATA.destinations[s.home[p]].id, None))
    assert refusal is not None and refusal.rule == "AE-8.13"


def test_AE_8_13_paying_a_shortfall_after_the_roll_can_be_taken_back_the_roll_stays_thrown():
    """The roll was the decision before (final); paying for it rolls nothing, so taking the payment back
    returns to the same thrown dice."""
    s, p = position()
    give_card(s, p, NORMAL_I, tiles=2)
    s.apply(p, ChooseAction("place"))
    s.apply(p, PlaceTile(NORMAL_I, neighbour(s, p, "red"), None))
    script(s, risk(2, 5, 4))  # 11 against 12: £1 short
    s.apply(p, ChooseRoute(DATA.destinations[s.home[p]].id, None))
    assert s.phase == "shortfall"
    assert decide(s, p, PayShortfall()) is None
    assert s.phase == "place_more" and s.current == p


def test_AE_10_1_the_advantage_dice_cannot_be_taken_back():
    s, p = position()
    s.apply(p, ChooseAction("advantage"))
    refusal = decide(s, p, RollAdvantage())
    assert refusal is not None and refusal.rule == "AE-10.1"


@pytest.mark.parametrize("ending", ["subsidy", "take_advantage", "end_action"])
def test_AE_6_1_a_decision_that_ends_the_turn_cannot_be_taken_back(ending):
    s, p = position()
    if ending == "subsidy":
        refusal = decide(s, p, ChooseAction("subsidy"))
    elif ending == "take_advantage":
        s.apply(p, ChooseAction("advantage"))
        refusal = decide(s, p, TakeAdvantage(2))
    else:
        give_card(s, p, NORMAL_I, tiles=2)
        s.apply(p, ChooseAction("place"))
        s.apply(p, PlaceTile(NORMAL_I, neighbour(s, p, "white"), None))
        s.apply(p, ChooseRoute(DATA.destinations[s.home[p]].id, None))
        refusal = decide(s, p, EndAction())
    assert refusal is not None and refusal.rule == "AE-6.1"
    assert s.current != p


def test_AE_8_15_going_on_to_the_next_roll_cannot_be_taken_back():
    s, p = position()
    long_i = next(c.number for c in DATA.cards if c.long_haul and c.stage == 1)
    give_card(s, p, long_i)
    s.apply(p, ChooseAction("place"))
    home = s.home[p]
    # a hop of two red legs: two rolls (AE-8.9), so the first success asks for the next (AE-8.15)
    hop = next(((x, t) for x, c1 in placement.DIRECT[home].items() if c1.colour == "red" and c1.dangerous is None
                for t, c2 in placement.DIRECT[x].items()
                if c2.colour == "red" and c2.dangerous is None and t != home and -1 in s.slots[t]
                and PlaceTile(long_i, DATA.destinations[t].id, None) in placement.place_options(s, p)), None)
    assert hop is not None
    via, target = (DATA.destinations[i].id for i in hop)
    s.apply(p, PlaceTile(long_i, target, None))
    assert ChooseRoute(DATA.destinations[home].id, via) in s.legal_actions(p)
    script(s, risk(6, 6, 6))
    assert decide(s, p, ChooseRoute(DATA.destinations[home].id, via)) is not None  # the first roll
    assert s.phase == "roll_next"
    script(s, risk(6, 6, 6))
    refusal = decide(s, p, RollNext())
    assert refusal is not None and refusal.rule in ("AE-8.13", "AE-6.1")
