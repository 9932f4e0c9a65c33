"""AE-7 (buy), AE-9 (claim), AE-10 and AE-11 (advantage tiles)."""

from __future__ import annotations

import pytest

from engine.aeroplanes.actions import (
    BuyAircraft,
    ChooseAction,
    ClaimPassenger,
    EndAction,
    EngineMaintenance,
    PickAdvantageDice,
    RollAdvantage,
    TakeAdvantage,
)
from engine.aeroplanes.claims import claim_options, free_capacity
from engine.aeroplanes.data import DATA
from engine.core import IllegalAction

from .helpers import IDX, give_card, put, risk, script, started, touch

HOMES = {0: "london", 1: "paris", 2: "berlin", 3: "rome"}
SECTION = {DATA.destinations[s].id: i for i, s in enumerate(DATA.sections)}


def setup(money: int = 30):
    s = started(4, 1, HOMES)
    p = s.current
    s.money[p] = money
    touch(s)
    return s, p


def tile_for(dest: str, capacity: int | None = None, plain: bool | None = None) -> int:
    for t in DATA.passengers:
        if t.dest == IDX[dest] and (capacity is None or t.capacity == capacity) and (
                plain is None or t.not_era1 != plain):
            return t.id
    raise LookupError(dest)


def seat_tile(s, section: str, tile_id: int, slot: int = 0) -> None:
    """Put passenger tile `tile_id` into `section`'s slot (moving whatever tile was there to the bag)."""
    if tile_id in s.waiting:
        s.waiting[s.waiting.index(tile_id)] = 0
    if tile_id in s.bag:
        s.bag.remove(tile_id)
    i = SECTION[section] * 4 + slot
    if s.waiting[i]:
        s.bag = sorted([*s.bag, s.waiting[i]])
    s.waiting[i] = tile_id
    touch(s)


# ----------------------------------------------------------------- AE-7 buy


def test_AE_7_1_cost_is_price_plus_position():
    s, p = setup()
    s.display = [3, 5, 9, 10]
    touch(s)
    s.apply(p, ChooseAction("buy"))
    events = s.apply(p, BuyAircraft(9, False))
    assert events[0].data["cost"] == DATA.cards[8].price + 2
    assert s.money[p] == 30 - DATA.cards[8].price - 2


def test_AE_7_1_must_afford_the_full_cost():
    s, p = setup(money=DATA.cards[2].price + 1)
    s.apply(p, ChooseAction("buy"))
    offered = {a.card for a in s.legal_actions(p)}
    assert 1 in offered and all(DATA.cards[n - 1].price + s.display.index(n) <= s.money[p] for n in offered)
    expensive = next(n for n in s.display if DATA.cards[n - 1].price + s.display.index(n) > s.money[p])
    before = s.digest()
    with pytest.raises(IllegalAction) as info:
        s.apply(p, BuyAircraft(expensive, False))
    assert info.value.rule == "AE-7.1" and s.digest() == before


def test_AE_7_2_tiles_of_the_card_stage_move_from_supply_and_fewer_if_short():
    s, p = setup()
    s.apply(p, ChooseAction("buy"))
    s.apply(p, BuyAircraft(3, False))  # Junkers F 13: 2 stage-I tiles
    assert s.supply[p][1] == 7 and s.cards[p][0][4] == 2
    q = s.current
    s.money[q] = 30
    s.supply[q][1] = 1
    touch(s)
    s.apply(q, ChooseAction("buy"))
    s.apply(q, BuyAircraft(5, False))  # 2 tiles printed, only 1 left
    assert s.supply[q][1] == 0 and s.cards[q][0][4] == 1
    assert s.supply[q][2] == 9


def test_AE_7_4_refill_from_the_deck_in_id_order_and_no_refill_when_empty():
    s, p = setup()
    s.apply(p, ChooseAction("buy"))
    s.apply(p, BuyAircraft(1, False))
    assert s.display == list(range(2, 14)) and s.deck[0] == 14
    q = s.current
    s.money[q] = 30
    s.deck = []
    touch(s)
    s.apply(q, ChooseAction("buy"))
    s.apply(q, BuyAircraft(2, False))
    assert len(s.display) == 11


def test_AE_7_5_new_card_is_face_up_in_service_with_full_capacity():
    s, p = setup()
    s.apply(p, ChooseAction("buy"))
    s.apply(p, BuyAircraft(4, False))
    card = s.cards[p][0]
    assert card[1] == 1 and card[2] == 1 and free_capacity(card) == DATA.cards[3].capacity


def test_AE_7_3_and_AE_11_4_increased_production_needs_the_tile_a_spare_supply_tile_and_era_two():
    s, p = setup()
    s.adv[p][4] = 1
    touch(s)
    s.apply(p, ChooseAction("buy"))
    assert BuyAircraft(3, True) not in s.legal_actions(p)  # era 1
    s2, p2 = setup()
    s2.era = 2
    s2.adv[p2][4] = 1
    s2.adv_supply[4] = 5
    s2.supply[p2][1] = 2
    touch(s2)
    s2.apply(p2, ChooseAction("buy"))
    assert BuyAircraft(3, True) not in s2.legal_actions(p2)  # 2 printed tiles, no spare
    assert BuyAircraft(1, True) in s2.legal_actions(p2)  # 1 printed tile, 1 spare
    s2.apply(p2, BuyAircraft(1, True))
    assert s2.cards[p2][0][4] == 2 and s2.supply[p2][1] == 0
    assert s2.adv[p2][4] == 0 and s2.adv_supply[4] == 6


# ----------------------------------------------------------------- AE-9 claim


def test_AE_9_1_and_AE_9_2_origin_section_destination_and_capacity_all_needed():
    s, p = setup()
    home = DATA.destinations[s.home[p]].id
    tile = tile_for("vienna", 1)
    seat_tile(s, home, tile)
    give_card(s, p, 1)
    assert ClaimPassenger(tile, 1) not in claim_options(s, p, s.owned[p])  # no airport in Vienna
    put(s, p, "vienna", 1)
    assert ClaimPassenger(tile, 1) in claim_options(s, p, s.owned[p])
    # The same tile in a section where p has no airport cannot be claimed.
    other = next(x for x in SECTION if x != home and not s.owned[p] >> IDX[x] & 1)
    seat_tile(s, other, tile)
    assert ClaimPassenger(tile, 1) not in claim_options(s, p, s.owned[p])


def test_AE_9_3_same_city_passenger_needs_one_airport():
    s, p = setup()
    home = DATA.destinations[s.home[p]].id
    tile = tile_for(home, 1)
    seat_tile(s, home, tile)
    give_card(s, p, 1)
    s.apply(p, ChooseAction("claim"))
    s.apply(p, ClaimPassenger(tile, 1))
    assert s.cards[p][0][5] == [tile]
    assert tile not in s.waiting


def test_AE_9_4_capacity_never_split_across_cards():
    s, p = setup()
    home = DATA.destinations[s.home[p]].id
    tile = tile_for(home, 3)
    seat_tile(s, home, tile)
    give_card(s, p, 1, base=2)
    give_card(s, p, 5, base=2)
    assert not [a for a in claim_options(s, p, s.owned[p]) if a.tile == tile]
    give_card(s, p, 4)  # capacity 4
    assert [a.card for a in claim_options(s, p, s.owned[p]) if a.tile == tile] == [4]


def test_AE_9_5_overflow_needs_only_the_destination_airport():
    s, p = setup()
    tile = tile_for("india")
    if tile in s.waiting:
        s.waiting[s.waiting.index(tile)] = 0
    if tile in s.bag:
        s.bag.remove(tile)
    s.overflow = [tile]
    give_card(s, p, 16)  # capacity 5
    assert not [a for a in claim_options(s, p, s.owned[p]) if a.tile == tile]
    put(s, p, "india", 1)
    assert [a for a in claim_options(s, p, s.owned[p]) if a.tile == tile]
    s.apply(p, ChooseAction("claim"))
    s.apply(p, ClaimPassenger(tile, 16))
    assert s.overflow == []


def test_AE_9_6_emptied_spaces_stay_empty_until_the_update():
    s, p = setup()
    home = DATA.destinations[s.home[p]].id
    tile = tile_for(home, 1)
    seat_tile(s, home, tile)
    give_card(s, p, 1)
    i = s.waiting.index(tile)
    bag = s.bag[:]
    s.apply(p, ChooseAction("claim"))
    s.apply(p, ClaimPassenger(tile, 1))
    assert s.waiting[i] == 0 and s.bag == bag


def test_AE_11_5_night_flights_extra_claims_only_to_european_destinations():
    s, p = setup()
    s.era = 2
    s.adv[p][5] = 2
    s.adv_supply[5] = 4
    home = DATA.destinations[s.home[p]].id
    first = tile_for(home, 1)
    euro = tile_for("vienna", 1)
    far = tile_for("india", 1)
    seat_tile(s, home, first, 0)
    seat_tile(s, home, euro, 1)
    seat_tile(s, home, far, 2)
    put(s, p, "vienna", 1)
    put(s, p, "india", 1)
    give_card(s, p, 16)  # capacity 5
    s.apply(p, ChooseAction("claim"))
    s.apply(p, ClaimPassenger(far, 16))  # the normal claim may go anywhere
    assert s.phase == "claim_more"
    extras = s.legal_actions(p)
    assert ClaimPassenger(euro, 16) in extras and ClaimPassenger(first, 16) in extras and EndAction() in extras
    assert all(DATA.destinations[DATA.passengers[a.tile - 1].dest].region == "Europe"
               for a in extras if isinstance(a, ClaimPassenger))
    s.apply(p, ClaimPassenger(euro, 16))
    assert s.adv[p][5] == 1 and s.adv_supply[5] == 5
    s.apply(p, ClaimPassenger(first, 16))
    assert s.adv[p][5] == 0 and s.current != p


# ----------------------------------------------------------------- AE-10 advantage tiles


def test_AE_10_1_a_take_one_tile_for_one_pound():
    s, p = setup(money=5)
    s.apply(p, ChooseAction("advantage"))
    assert {a.kind for a in s.legal_actions(p) if isinstance(a, TakeAdvantage)} == {2, 3}
    s.apply(p, TakeAdvantage(2))
    assert s.money[p] == 4 and s.adv[p][2] == 1 and s.adv_supply[2] == 5


def test_AE_10_1_b_roll_three_use_two_with_skull_wild():
    s, p = setup(money=5)
    s.apply(p, ChooseAction("advantage"))
    script(s, risk(0, 3, 6))
    s.apply(p, RollAdvantage())
    assert s.money[p] == 4
    pairs = {(a.first, a.second) for a in s.legal_actions(p)}
    assert pairs == {(2, 3), (3, 3), (3, 6), (2, 6)}
    s.apply(p, PickAdvantageDice(3, 3))
    assert s.adv[p][3] == 2 and s.failures[p] == 0  # AE-10.2 no engine failures from these skulls


def test_AE_10_2_unavailable_results_give_nothing_and_the_pound_is_spent():
    s, p = setup(money=5)
    s.apply(p, ChooseAction("advantage"))
    script(s, risk(5, 6, 4))
    s.apply(p, RollAdvantage())
    s.apply(p, PickAdvantageDice(5, 6))  # era 1: types 5 and 6 unavailable
    assert s.money[p] == 4 and sum(s.adv[p]) == 0


def test_AE_10_3_no_hand_limit():
    s, p = setup(money=5)
    s.adv[p][2] = 5
    s.adv_supply[2] = 1
    touch(s)
    s.apply(p, ChooseAction("advantage"))
    s.apply(p, TakeAdvantage(2))
    assert s.adv[p][2] == 6


def test_AE_10_4_availability_by_era_and_supply():
    s, p = setup(money=5)
    s.adv_supply[2] = 0
    touch(s)
    s.apply(p, ChooseAction("advantage"))
    assert {a.kind for a in s.legal_actions(p) if isinstance(a, TakeAdvantage)} == {3}
    s2, p2 = setup(money=5)
    s2.era = 3
    touch(s2)
    s2.apply(p2, ChooseAction("advantage"))
    assert {a.kind for a in s2.legal_actions(p2) if isinstance(a, TakeAdvantage)} == {2, 3, 4, 5, 6}
    s3, p3 = setup(money=5)
    s3.adv_supply = [0] * 7
    touch(s3)
    assert "advantage" not in [a.kind for a in s3.legal_actions(p3)]


def test_AE_11_1_used_tiles_return_to_the_general_supply():
    s, p = setup()
    s.adv[p][3] = 1
    s.adv_supply[3] = 5
    touch(s)
    s.apply(p, EngineMaintenance())
    assert s.adv_supply[3] == 6


def test_AE_11_6_radio_beacons_only_in_era_three():
    s, p = setup(money=5)
    s.era = 2
    touch(s)
    s.apply(p, ChooseAction("advantage"))
    assert TakeAdvantage(6) not in s.legal_actions(p)
