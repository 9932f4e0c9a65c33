"""AE-16: the reconstructed component data meets every constraint; broken data gives clear errors."""

from __future__ import annotations

import copy
import itertools
import json

import pytest

from engine.aeroplanes.data import DATA, DataError, build, read_files
from engine.aeroplanes.routes import DIRECT, HOPS

RAW = read_files()


def _conn(a: str, b: str):
    ia, ib = DATA.index[a], DATA.index[b]
    return DIRECT[ia].get(ib) or DIRECT[ib].get(ia)


def _broken(file: str, edit) -> dict:
    files = copy.deepcopy(RAW)
    edit(files[file])
    return files


def test_AE_16_1_every_named_destination_with_its_region_and_slots():
    table = {
        "Europe": (["london", "amsterdam", "berlin", "paris", "zurich", "rome"], 3),
        "EuropeOther": (["stockholm", "copenhagen", "warsaw", "vienna", "frankfurt", "madrid"], 2),
        "Africa": (["casablanca", "cairo", "dakar", "ethiopia", "kenya", "east_africa"], 2),
        "AsiaAustralasia": (["middle_east", "persia", "india", "burma", "java", "australia"], 2),
        "Americas": (["north_america", "south_america"], 2),
    }
    for region, (names, slots) in table.items():
        for name in names:
            d = DATA.destinations[DATA.index[name]]
            assert d.region == ("Europe" if region.startswith("Europe") else region)
            assert d.slots == slots
            assert d.slots45 == (1 if region == "Europe" else 0)
            assert d.start == (region == "Europe")
    assert {d.id for d in DATA.destinations if d.special} == {"north_america", "casablanca", "cairo", "middle_east"}


def test_AE_16_2_published_connection_facts():
    assert _conn("vienna", "warsaw").colour == "white"
    assert _conn("persia", "india").colour == "red"
    assert _conn("persia", "burma").colour == "black"
    assert _conn("ethiopia", "india").long_haul
    assert _conn("ethiopia", "kenya").colour == "red"
    assert _conn("kenya", "east_africa").colour == "red"
    assert _conn("ethiopia", "east_africa") is None
    assert _conn("frankfurt", "paris") is not None and _conn("paris", "madrid") is not None
    assert _conn("frankfurt", "madrid") is None
    ja = _conn("java", "australia")
    assert ja.dangerous == (12, 12) and not ja.long_haul
    ds = _conn("dakar", "south_america")
    assert ds.dangerous == (14, 14) and ds.long_haul


def test_AE_16_2_special_connections_from_every_european_destination_one_way():
    for d in DATA.destinations:
        for target in ("north_america", "casablanca", "cairo", "middle_east"):
            t = DATA.index[target]
            if d.region == "Europe":
                c = DIRECT[d.index][t]
                assert c.special
                if target == "north_america":
                    assert c.dangerous == (14, 14, 14) and c.long_haul
                assert d.index not in DIRECT[t], "special targets never lead back into Europe (AE-8.4)"


def test_AE_16_2_no_duplicates_no_self_loops_and_all_reachable():
    keys = [(c.a, c.b) if c.special else tuple(sorted((c.a, c.b))) for c in DATA.connections]
    assert len(keys) == len(set(keys))
    assert all(c.a != c.b for c in DATA.connections)
    for start in (d for d in DATA.destinations if d.start):
        seen, todo = {start.index}, [start.index]
        while todo:
            for n, _ in DATA.out[todo.pop()]:
                if n not in seen:
                    seen.add(n)
                    todo.append(n)
        assert len(seen) == len(DATA.destinations)


def test_AE_16_3_income_modifiers_known_and_small():
    mods = {d.id: d.income_modifier for d in DATA.destinations if d.start}
    assert mods["paris"] == -1 and mods["berlin"] == 2
    assert all(-2 <= m <= 2 for m in mods.values())


#: How much a link is worth to a start city: a white one costs no roll, a red one a 12+, a black one a 14+.
LINK_WORTH = {"white": 3, "red": 2, "black": 1}


def _connectivity(city: str) -> int:
    """A start city's connectivity as DATA.md defines it: its outgoing links (special ones included),
    weighted by colour."""
    return sum(LINK_WORTH[c.colour] for _, c in DATA.out[DATA.index[city]])


def test_AE_16_3_income_modifiers_compensate_connectivity():
    """AE-16.3 (DATA.md): the modifiers balance the start positions, so a better-connected start city never
    gets a larger modifier; Berlin (+2 by the rulebook) is the worst connected, Paris (-1) among the best."""
    starts = [d.id for d in DATA.destinations if d.start]
    modifier = {d.id: d.income_modifier for d in DATA.destinations if d.start}
    for a, b in itertools.permutations(starts, 2):
        if modifier[a] < modifier[b]:
            assert _connectivity(a) > _connectivity(b), (a, b)
    assert min(starts, key=_connectivity) == "berlin"
    assert _connectivity("paris") == max(map(_connectivity, starts))
    whites = {city: sum(c.colour == "white" for _, c in DATA.out[DATA.index[city]]) for city in starts}
    assert all(whites[city] >= 1 for city in starts), "every start city has a free (white) link"


def test_AE_16_4_vp_table_ordered_and_not_decreasing():
    assert DATA.profit_vp[0] == (5, 3, 1)
    for e in range(3):
        a, b, c = DATA.profit_vp[e]
        assert a > b > c >= 0
        for first, second in DATA.majority_vp[e].values():
            assert first > second
    for e in range(2):
        assert all(x <= y for x, y in zip(DATA.profit_vp[e], DATA.profit_vp[e + 1]))


def test_AE_16_5_and_AE_2_7_aircraft_cards():
    cards = DATA.cards
    assert [c.number for c in cards] == list(range(1, 47))
    assert all(c.tiles in (1, 2) and c.vp in (0, 1) and c.capacity >= 1 for c in cards)
    assert all(a.era <= b.era for a, b in itertools.pairwise(cards))
    assert all(c.era == 1 for c in cards[:12])
    assert all(c.stage == c.era for c in cards)
    assert any(c.long_haul for c in cards if c.era == 1) and any(c.long_haul for c in cards if c.era == 2)
    # AE-16.5 economy: the cheapest era-1 card is affordable with the lowest era-1 income.
    assert min(c.price for c in cards if c.era == 1) <= 12 - 2
    assert all(c.price <= {1: 14, 2: 34, 3: 44}[c.era] for c in cards)


def test_AE_16_7_and_AE_2_8_passenger_tiles():
    tiles = DATA.passengers
    assert len(tiles) == 96
    assert sum(1 for t in tiles if not t.not_era1) > 24
    assert any(t.vp == 0 for t in tiles)
    regions = [DATA.destinations[t.dest].region for t in tiles]
    assert any(DATA.destinations[t.dest].start for t in tiles)
    assert regions.count("Americas") > 0 and any(t.dest == DATA.index["australia"] for t in tiles)
    distant = [t for t in tiles if t.not_era1]
    assert sum(1 for t in distant if DATA.destinations[t.dest].region != "Europe") == len(distant)
    assert all(t.capacity in (1, 2, 3) for t in tiles)


def test_AE_16_6_waiting_area_sections():
    assert next(DATA.destinations[s].id for s in DATA.sections) == "rome"
    assert [DATA.destinations[s].id for s in DATA.sections][-1] == "berlin"
    assert DATA.section_slots == 4 and DATA.overflow_spaces == 8


def test_AE_16_8_advantages_six_per_type():
    assert DATA.advantage_per_type == 6
    assert DATA.advantage_from_era == {2: 1, 3: 1, 4: 2, 5: 2, 6: 3}


def test_AE_8_6_hop_tables_follow_connections_only_outward():
    frankfurt, paris, madrid = (DATA.index[x] for x in ("frankfurt", "paris", "madrid"))
    assert paris in [x for x, _, _ in HOPS[frankfurt][madrid]]
    cairo = DATA.index["cairo"]
    for t, hops in HOPS[cairo].items():
        for x, _, _ in hops:
            assert DATA.destinations[x].region != "Europe" or DATA.destinations[t].special


@pytest.mark.parametrize(
    ("file", "edit", "message"),
    [
        ("board.json", lambda b: b["destinations"].pop(), "missing"),
        ("board.json", lambda b: b["connections"].append(dict(b["connections"][0])), "duplicate connection"),
        ("board.json", lambda b: next(c for c in b["connections"] if (c["a"], c["b"]) == ("rome", "cairo"))
         .update(special=False), "special target to Europe"),
        ("board.json", lambda b: next(c for c in b["connections"] if {c["a"], c["b"]} == {"vienna", "warsaw"})
         .update(colour="red"), "vienna-warsaw"),
        ("board.json", lambda b: next(d for d in b["destinations"] if d["id"] == "paris").update(incomeModifier=0),
         "Paris"),
        ("board.json", lambda b: next(d for d in b["destinations"] if d["id"] == "madrid").update(slots=3),
         "madrid"),
        ("aircraft.json", lambda a: a["cards"].pop(), "46"),
        ("aircraft.json", lambda a: a["cards"][0].update(vp=2), "vp"),
        ("aircraft.json", lambda a: a["cards"][0].update(era=2, stage="II"), "era"),
        ("aircraft.json", lambda a: a["cards"][3].update(price="five"), "price"),
        ("passengers.json", lambda p: p["tiles"].pop(), "96"),
        ("passengers.json", lambda p: p["tiles"][0].update(capacity=4), "capacity"),
        ("passengers.json", lambda p: p["tiles"][0].update(destination="atlantis"), "atlantis"),
        ("vp_table.json", lambda v: v["eras"][0].update(profit=[5, 3, 2]), "5/3/1"),
        ("vp_table.json", lambda v: v["eras"][1]["majority"].update(Europe=[1, 0]), "decrease"),
        ("advantages.json", lambda a: a.update(perType=5), "6"),
    ],
)
def test_AE_16_broken_data_gives_a_clear_error(file, edit, message):
    with pytest.raises(DataError, match=message) as info:
        build(_broken(file, edit))
    assert file in str(info.value)


def test_AE_16_unreadable_file_names_the_file(tmp_path):
    for name in ("board.json", "aircraft.json", "passengers.json", "vp_table.json", "advantages.json"):
        (tmp_path / name).write_text(json.dumps(RAW[name]))
    (tmp_path / "aircraft.json").write_text("{not json")
    with pytest.raises(DataError, match=r"aircraft.json: not valid JSON"):
        read_files(tmp_path)
    (tmp_path / "aircraft.json").unlink()
    with pytest.raises(DataError, match=r"aircraft.json: file not found"):
        read_files(tmp_path)


def test_AE_16_every_value_is_flagged_reconstructed_or_a_fact():
    assert RAW["aircraft.json"]["reconstructed"] is True
    assert RAW["passengers.json"]["reconstructed"] is True
    for d in RAW["board.json"]["destinations"]:
        assert "reconstructed" in d
    for c in RAW["board.json"]["connections"]:
        assert "reconstructed" in c
    facts = {tuple(sorted((c["a"], c["b"]))) for c in RAW["board.json"]["connections"] if not c["reconstructed"]}
    assert ("vienna", "warsaw") in facts and ("australia", "java") in facts
