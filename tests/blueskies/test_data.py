"""BS-10: the board data file, its schema (BS-10.2) and constraints C1-C7 (BS-10.3)."""

from __future__ import annotations

import copy
import json

import pytest

from engine.blueskies.data import BOARD, DATA_FILE, DataError, load_board, parse_board

RAW = json.loads(DATA_FILE.read_text(encoding="utf-8"))


def _broken(mutate) -> dict:
    obj = copy.deepcopy(RAW)
    mutate(obj)
    return obj


def _airport(obj: dict, code: str) -> dict:
    return next(a for a in obj["airports"] if a["code"] == code)


def test_BS_10_2_data_file_has_the_schema_fields_and_constants():
    for key in ("airports", "regions", "bag", "gatesPerPlayer", "secondPlaceBonus", "unusedSpecialBonus",
                "governmentThreshold", "endScore", "budget", "setupMaxGates", "handSize", "setupLocalCards"):
        assert key in RAW
    assert RAW["bag"] == {"red": 100, "green": 25}
    assert (RAW["gatesPerPlayer"], RAW["secondPlaceBonus"], RAW["unusedSpecialBonus"]) == (20, 6, 3)
    assert (RAW["governmentThreshold"], RAW["endScore"], RAW["budget"]) == (30, 100, 6)
    assert (RAW["setupMaxGates"], RAW["handSize"], RAW["setupLocalCards"]) == (2, 3, 5)
    for airport in RAW["airports"]:
        assert {"code", "name", "col", "row", "cards", "value", "spaces", "buyout", "regions"} <= set(airport)


def test_BS_10_3_C1_thirty_unique_airports_one_per_city_with_the_named_ones():
    codes = [a.code for a in BOARD.airports]
    assert len(codes) == 30 == len(set(codes))
    assert len({a.name for a in BOARD.airports}) == 30
    assert {"ATL", "CVG", "CLE", "JFK", "ORD", "DFW", "LAX"} <= set(codes)


def test_BS_10_3_C2_grid_cells_cover_the_6x5_grid_roughly_geographically():
    cells = {(a.col, a.row) for a in BOARD.airports}
    assert cells == {(c, r) for c in range(1, 7) for r in range(1, 6)}
    by = {a.code: a for a in BOARD.airports}
    assert by["SEA"].col < by["ORD"].col < by["BOS"].col  # west to east
    assert by["SEA"].row < by["SAN"].row and by["BOS"].row < by["IAD"].row  # north to south


def test_BS_10_3_C3_card_counts_total_59_with_atl_5_and_cvg_1_and_follow_enplanements():
    by = {a.code: a for a in BOARD.airports}
    assert sum(a.cards for a in BOARD.airports) == 59
    assert by["ATL"].cards == 5 and by["CVG"].cards == 1
    for a in BOARD.airports:
        assert a.cards >= 1
        for b in BOARD.airports:
            if a.enplanements > b.enplanements:
                assert a.cards >= b.cards


def test_BS_10_3_C4_four_spaces_costs_1_to_5_nondecreasing_and_busier_is_dearer():
    for a in BOARD.airports:
        assert len(a.costs) == 4 and all(1 <= c <= 5 for c in a.costs)
        assert list(a.costs) == sorted(a.costs)
        assert a.min_players == (2, 2, 3, 4)
        for b in BOARD.airports:
            if a.cards > b.cards:
                assert all(x >= y for x, y in zip(a.costs, b.costs))


def test_BS_10_3_C5_buyouts_fit_one_budget_and_some_are_not_allowed():
    assert any(a.buyout is None for a in BOARD.airports)
    for a in BOARD.airports:
        if a.buyout is not None:
            assert a.costs[1] <= a.buyout <= 6


def test_BS_10_3_C6_values_are_positive_and_never_decrease_with_cards():
    for a in BOARD.airports:
        assert a.value >= 1
        for b in BOARD.airports:
            if a.cards > b.cards:
                assert a.value >= b.value


def test_BS_10_3_C7_seven_regions_multi_region_airports_and_bonuses_above_second_place():
    assert len(BOARD.regions) == 7
    for a in BOARD.airports:
        if a.code in ("JFK", "ORD", "DFW", "LAX"):
            assert len(a.regions) >= 2
        else:
            assert len(a.regions) == 1
    assert all(r.bonus > 6 for r in BOARD.regions)


def test_BS_10_4_the_data_file_matches_the_reference_reconstruction():
    for a in BOARD.airports:
        assert a.value == a.cards
        assert a.costs == tuple(min(5, a.cards + i) for i in range(4))
        if a.code in ("ATL", "ORD", "DFW"):
            assert a.buyout is None
        else:
            assert a.buyout == a.cards + 2
    bonuses = {r.id: r.bonus for r in BOARD.regions}
    assert bonuses == {"NE": 10, "MA": 10, "SE": 12, "GL": 10, "CE": 12, "SW": 14, "WE": 14}
    members = {r.id: sorted(BOARD.airports[i].code for i in r.airports) for r in BOARD.regions}
    assert members["SW"] == sorted(["DFW", "IAH", "AUS", "PHX", "LAS", "LAX"])
    assert members["GL"] == sorted(["ORD", "DTW", "CLE", "CVG"])


def test_BS_10_1_published_values_hold():
    assert (BOARD.red, BOARD.green, BOARD.gates_per_player) == (100, 25, 20)
    assert BOARD.second_place_bonus == 6


def test_BS_10_3_the_shipped_file_parses_and_equals_the_loaded_board():
    assert parse_board(copy.deepcopy(RAW)).airports == BOARD.airports


BROKEN = [
    ("C1 count", lambda o: o["airports"].pop(), "exactly 30 airports"),
    ("C1 duplicate code", lambda o: _airport(o, "SEA").update(code="PDX"), "PDX appears twice"),
    ("C1 duplicate city", lambda o: _airport(o, "SEA").update(name="Portland"), "Portland"),
    ("C1 required", lambda o: _airport(o, "CLE").update(code="CMH"), "CLE is missing"),
    ("C2 cell", lambda o: _airport(o, "SEA").update(row=2), "col 1, row 2 holds two"),
    ("C2 range", lambda o: _airport(o, "SEA").update(col=7), "col"),
    ("C3 total", lambda o: _airport(o, "SEA").update(cards=3), "total 60"),
    ("C3 atl", lambda o: (_airport(o, "ATL").update(cards=4), _airport(o, "SEA").update(cards=3)), "ATL"),
    ("C3 zero", lambda o: _airport(o, "SEA").update(cards=0), "cards"),
    ("C3 enplanements", lambda o: _airport(o, "SEA").update(enplanements=5.0), "enplanements"),
    ("C4 spaces", lambda o: _airport(o, "SEA")["spaces"].pop(), "exactly 4"),
    ("C4 cost range", lambda o: _airport(o, "SEA")["spaces"][3].update(cost=6), "cost"),
    ("C4 decreasing", lambda o: _airport(o, "SEA")["spaces"][0].update(cost=4), "decrease"),
    ("C4 busier dearer", lambda o: _airport(o, "ATL")["spaces"][0].update(cost=1), "cheaper"),
    ("C4 minPlayers", lambda o: _airport(o, "SEA")["spaces"][1].update(minPlayers=3), "minPlayers"),
    ("C5 buyout high", lambda o: _airport(o, "SEA").update(buyout=7), "buyout"),
    ("C5 buyout low", lambda o: _airport(o, "SEA").update(buyout=1), "buyout"),
    ("C5 no N/A", lambda o: [a.update(buyout=5) for a in o["airports"] if a["buyout"] is None], "N/A"),
    ("C6 value", lambda o: _airport(o, "ATL").update(value=1), "lower value"),
    ("C6 positive", lambda o: _airport(o, "SEA").update(value=0), "value"),
    ("C7 regions", lambda o: o["regions"].pop(), "exactly 7 regions"),
    ("C7 unknown", lambda o: _airport(o, "SEA").update(regions=["XX"]), "unknown region"),
    ("C7 multi", lambda o: _airport(o, "JFK").update(regions=["NE"]), "at least 2"),
    ("C7 single", lambda o: _airport(o, "SEA").update(regions=["WE", "SW"]), "exactly 1"),
    ("C7 bonus", lambda o: o["regions"][0].update(bonus=6), "bonus"),
    ("schema", lambda o: o.pop("budget"), "missing 'budget'"),
    ("schema airport", lambda o: _airport(o, "SEA").pop("value"), "missing 'value'"),
    ("schema type", lambda o: _airport(o, "SEA").update(cards="2"), "must be an integer"),
]


@pytest.mark.parametrize(("label", "mutate", "message"), BROKEN, ids=[b[0] for b in BROKEN])
def test_BS_10_3_a_broken_data_file_gives_a_clear_error(label, mutate, message):
    with pytest.raises(DataError, match=message):
        parse_board(_broken(mutate))


def test_BS_10_3_unreadable_or_invalid_json_file_names_the_path(tmp_path):
    with pytest.raises(DataError, match="cannot read"):
        load_board(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(DataError, match=r"bad\.json is not valid JSON"):
        load_board(bad)
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(_broken(lambda o: o["airports"].pop())), encoding="utf-8")
    with pytest.raises(DataError, match=r"broken.json: there must be exactly 30 airports, not 29 \(C1\)"):
        load_board(broken)
