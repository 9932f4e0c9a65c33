"""AE-13 (era scoring), AE-14 (end-of-era update), AE-15 (game end)."""

from __future__ import annotations

from engine.aeroplanes import era, scoring
from engine.aeroplanes.data import DATA
from engine.aeroplanes.model import EMPTY

from .helpers import IDX, give_card, put, started, take_marker, touch

HOMES = {0: "london", 1: "paris", 2: "berlin", 3: "rome"}


def test_AE_13_4_worked_profit_example_five_three_one():
    # Coleman 14 carried - 4 free = 10, Pete 10, Morgan 9, Larry 9, Ron 5.
    profits = [14 - 4, 10, 9, 9, 5]
    assert scoring.competition_ranks(profits) == [1, 1, 3, 3, 5]
    assert scoring.profit_awards(profits, DATA.profit_vp[0]) == [5, 5, 1, 1, 0]


def test_AE_13_3_profit_is_carried_minus_free_seats_over_in_service_cards():
    s = started(4, 1, HOMES)
    p = s.current
    a = give_card(s, p, 4)  # capacity 4
    b = give_card(s, p, 16, face_up=False, base=2)  # a face-down card from an earlier era
    give_card(s, p, 2)[1] = 0  # in the discard pile: does not count
    a[5] = [t.id for t in DATA.passengers if t.capacity == 3][:1]
    b[5] = [t.id for t in DATA.passengers if t.capacity == 1][:1]
    touch(s)
    assert era.profits(s)[p] == (3 + 1) - (1 + 1)


def test_AE_13_3_negative_profits_are_ranked_too():
    assert scoring.profit_awards([-3, -1, -5], (5, 3, 1)) == [3, 5, 1]


def test_AE_13_2_majority_tie_for_first_gives_no_second():
    assert scoring.majority_awards([3, 3, 1, 0], 4, 2) == [4, 4, 0, 0]


def test_AE_13_2_majority_tie_for_second_shares_second():
    assert scoring.majority_awards([5, 2, 2, 1], 4, 2) == [4, 2, 2, 0]


def test_AE_13_2_zero_tiles_never_place():
    assert scoring.majority_awards([2, 0, 0], 4, 2) == [4, 0, 0]
    assert scoring.majority_awards([0, 0, 0], 4, 2) == [0, 0, 0]


def test_AE_13_2_home_tiles_count_blocking_tiles_and_americas_do_not():
    s = started(3, 1, {0: "london", 1: "paris", 2: "berlin"})
    put(s, 0, "north_america", 1)
    put(s, 1, "cairo", 1)
    counts = era.market_counts(s)
    assert counts["Europe"] == [1, 1, 1]
    assert counts["Africa"] == [0, 1, 0]
    assert "Americas" not in counts


def test_AE_13_1_era_scoring_uses_the_table_of_the_current_era():
    s = started(4, 1, HOMES)
    p = s.current
    put(s, p, "vienna", 1)  # p leads Europe 2-1-1-1
    s.era = 2
    events = era.score_era(s)
    maj = DATA.majority_vp[1]["Europe"]
    assert events[0].data["awards"]["Europe"][p] == maj[0]
    assert all(events[0].data["awards"]["Europe"][q] == maj[1] for q in range(4) if q != p)
    # Nobody carries anything: every profit is 0 - 0, a four-way tie for first.
    assert events[0].data["awards"]["profit"] == [DATA.profit_vp[1][0]] * 4


def _update(s):
    return era.update_era(s)


def test_AE_14_1_two_lowest_display_cards_leave_and_two_are_drawn():
    s = started(4, 1, HOMES)
    s.display = [2, 5, 7, 13]
    s.deck = [20, 21, 22]
    _update(s)
    assert s.display == [7, 13, 20, 21] and s.deck == [22]


def test_AE_14_2_full_cards_are_discarded_and_their_tiles_return():
    s = started(4, 1, HOMES)
    p = 0
    card = give_card(s, p, 1, base=1, tiles=1)
    card[5] = [next(t.id for t in DATA.passengers if t.capacity == 1)]
    _update(s)
    assert card[1] == 0 and card[4] == 0 and s.supply[p][1] == 10


def test_AE_14_3_cards_with_room_turn_face_down_with_extra_passengers():
    s = started(4, 1, HOMES)
    card = give_card(s, 0, 4)  # capacity 4
    card[5] = [next(t.id for t in DATA.passengers if t.capacity == 3)]
    _update(s)
    assert card[1] == 1 and card[2] == 0 and card[3] == 1 and card[4] == 1  # tiles stay


def test_AE_14_4_passengers_leave_cards_vp_set_aside_zero_removed():
    s = started(4, 1, HOMES)
    card = give_card(s, 0, 4)
    zero = next(t.id for t in DATA.passengers if t.vp == 0 and t.capacity == 1)
    scoring_tile = next(t.id for t in DATA.passengers if t.vp > 0 and t.capacity == 1)
    for t in (zero, scoring_tile):
        if t in s.waiting:
            s.waiting[s.waiting.index(t)] = 0
        if t in s.bag:
            s.bag.remove(t)
    card[5] = [zero, scoring_tile]
    _update(s)
    assert card[5] == [] and s.set_aside[0] == [scoring_tile] and zero in s.removed


def test_AE_14_5_one_distant_tile_per_section_to_overflow_up_to_eight():
    s = started(4, 1, HOMES)
    far = [t.id for t in DATA.passengers if DATA.destinations[t.dest].region != "Europe"]
    near = [t.id for t in DATA.passengers if DATA.destinations[t.dest].region == "Europe"]
    s.waiting = [near[0], far[0], far[1], near[1]] + [near[2 + i] for i in range(20)]
    s.bag = sorted(set(range(1, 97)) - set(s.waiting) - {far[2], far[3], far[4], far[5], far[6], far[7], far[8]})
    s.overflow = [far[2], far[3], far[4], far[5], far[6], far[7]]
    _update(s)
    assert s.overflow[-1] == far[0] and len(s.overflow) == 7  # lowest slot first; no other section had one
    s.overflow.append(far[8])
    s.waiting[5] = far[1]
    _update(s)
    assert len(s.overflow) == 8 and far[1] in s.waiting  # already full: nothing moves


def test_AE_14_6_refill_rome_to_berlin_with_any_tile_and_stop_when_bag_empty():
    s = started(4, 1, HOMES)
    s.waiting[0] = 0  # Rome slot 1
    s.waiting[10] = 0
    s.waiting[23] = 0  # Berlin slot 4
    spare = [t for t in range(1, 97) if t not in s.waiting]
    s.overflow = spare[:8]  # full: nothing moves to overflow
    starred = next(t for t in spare[8:] if DATA.passengers[t - 1].not_era1)
    s.bag = sorted([starred, next(t for t in spare[8:] if t != starred)])
    _update(s)
    assert s.waiting[0] and s.waiting[10] and not s.waiting[23] and s.bag == []
    assert starred in s.waiting  # '¤' tiles are ordinary from era 2 on


def test_AE_14_8_and_AE_14_9_era_marker_moves_and_failures_advantages_money_kept():
    s = started(4, 1, HOMES)
    p = s.current
    s.failures[p] = 2
    s.adv[p][2] = 1
    s.notes = 0
    money = s.money[:]
    touch(s)
    take_marker(s, 6)
    assert s.era == 2 and s.failures[p] == 2 and s.adv[p][2] == 1
    assert s.money == [m + 22 for m in money]


def test_AE_14_10_taker_passes_the_die_and_income_follows():
    s = started(5, 1)
    p = s.current
    s.notes = 0
    touch(s)
    _, events = take_marker(s, 2)
    kinds = [e.type for e in events]
    assert kinds.index("first_player_die") < kinds.index("income")
    assert s.first == (p + 2) % 5 == s.current


def test_AE_15_1_final_scoring_adds_card_and_passenger_vp():
    s = started(4, 1, HOMES)
    card = give_card(s, 0, 8)  # VP 1
    discarded = give_card(s, 0, 10)  # VP 1, discarded
    discarded[1] = 0
    on_card = next(t for t in DATA.passengers if t.vp == 3)
    aside = next(t for t in DATA.passengers if t.vp == 2)
    card[5] = [on_card.id]
    s.set_aside[0] = [aside.id]
    vp = s.vp[0]
    era.final_scoring(s)
    assert s.vp[0] == vp + 1 + 1 + 3 + 2


def test_AE_15_2_most_vp_then_most_money_then_shared():
    s = started(3)
    assert s.winners() == []  # only once the game is over
    s.phase = "over"
    for vp, money, won in (([10, 12, 12], [5, 3, 4], [2]), ([10, 12, 12], [5, 4, 4], [1, 2]),
                           ([13, 12, 12], [0, 9, 9], [0])):
        s.vp, s.money = vp, money
        assert s.rank_keys() == list(zip(vp, money)) and s.winners() == won


def test_AE_15_3_vp_come_only_from_america_bonus_era_scoring_and_final_scoring():
    import random

    from engine.playout import random_step

    from .helpers import GAME

    for seed in range(4):
        s = GAME.new(4, seed)
        rng = random.Random(seed)
        expected = [0] * 4
        while not s.is_over():
            _, _, events = random_step(s, rng)
            for e in events:
                if e.type == "america_bonus":
                    expected[e.data["seat"]] += e.data["vp"]
                elif e.type == "era_scoring":
                    for awards in e.data["awards"].values():
                        expected = [x + a for x, a in zip(expected, awards)]
                elif e.type == "final_scoring":
                    expected = [x + a for x, a in zip(expected, e.data["added"])]
        assert s.scores() == expected


def test_AE_3_4_blocked_slots_count_as_filled():
    s = started(3, 1, {0: "london", 1: "paris", 2: "berlin"})
    put(s, 0, "rome", 1)
    put(s, 1, "rome", 1)
    assert EMPTY not in s.slots[IDX["rome"]]
