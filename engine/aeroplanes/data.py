"""Load and validate the reconstructed component data (AE-16) once, at import.

Everything the rules need from the printed components comes from the JSON files
in `data/`; this module checks every AE-16 constraint and turns the files into
compact index-based tables (destination ids become small ints) so the hot paths
never touch strings or dicts.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).with_name("data")

REGIONS = ("Europe", "Africa", "AsiaAustralasia", "Americas")
MARKETS = ("Europe", "Africa", "AsiaAustralasia")
START_CITIES = ("london", "amsterdam", "berlin", "paris", "zurich", "rome")
REQUIRED = {
    "Europe": ("london", "amsterdam", "berlin", "paris", "zurich", "rome",
               "stockholm", "copenhagen", "warsaw", "vienna", "frankfurt", "madrid"),
    "Africa": ("casablanca", "cairo", "dakar", "ethiopia", "kenya", "east_africa"),
    "AsiaAustralasia": ("middle_east", "persia", "india", "burma", "java", "australia"),
    "Americas": ("north_america", "south_america"),
}
SPECIAL_TARGETS = ("north_america", "casablanca", "cairo", "middle_east")
COLOURS = ("white", "red", "black")
STAGES = {"I": 1, "II": 2, "III": 3}
ADVANTAGE_TYPES = (2, 3, 4, 5, 6)


class DataError(ValueError):
    """A data file breaks an AE-16 constraint; the message names the file and the problem."""


@dataclass(frozen=True, slots=True)
class Destination:
    index: int
    id: str
    name: str
    region: str
    slots: int
    slots45: int
    start: bool
    income_modifier: int
    special: bool
    x: int
    y: int


@dataclass(frozen=True, slots=True)
class Connection:
    a: int
    b: int
    colour: str
    long_haul: bool
    special: bool
    dangerous: tuple[int, ...] | None

    def rolls(self) -> tuple[int, ...]:
        """This leg's own roll thresholds (AE-8.9/8.11): dangerous list, red 12, black 14, white none."""
        if self.dangerous is not None:
            return self.dangerous
        return {"white": (), "red": (12,), "black": (14,)}[self.colour]


@dataclass(frozen=True, slots=True)
class Card:
    number: int
    era: int
    name: str
    price: int
    tiles: int
    stage: int
    vp: int
    capacity: int
    long_haul: bool


@dataclass(frozen=True, slots=True)
class PassengerTile:
    id: int
    dest: int
    capacity: int
    vp: int
    not_era1: bool


@dataclass(frozen=True, slots=True)
class Data:
    destinations: tuple[Destination, ...]
    index: dict[str, int]
    #: out[d] = ((neighbour, Connection), ...) in the allowed direction, sorted by neighbour index.
    out: tuple[tuple[tuple[int, Connection], ...], ...]
    connections: tuple[Connection, ...]
    sections: tuple[int, ...]
    section_slots: int
    overflow_spaces: int
    cards: tuple[Card, ...]
    passengers: tuple[PassengerTile, ...]
    majority_vp: tuple[dict[str, tuple[int, int]], ...]
    profit_vp: tuple[tuple[int, int, int], ...]
    advantage_names: dict[int, str]
    advantage_from_era: dict[int, int]
    advantage_per_type: int
    board_json: dict[str, Any]


def _fail(file: str, message: str) -> DataError:
    return DataError(f"{file}: {message}")


def _need(cond: bool, file: str, message: str) -> None:
    if not cond:
        raise _fail(file, message)


def _get(obj: Any, key: str, kind: type | tuple[type, ...], file: str, where: str) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise _fail(file, f"{where} lacks field {key!r}")
    value = obj[key]
    if kind is int and isinstance(value, bool):
        raise _fail(file, f"{where}.{key} must be an integer")
    if not isinstance(value, kind):
        raise _fail(file, f"{where}.{key} has the wrong type ({type(value).__name__})")
    return value


def _load_board(raw: dict[str, Any]) -> tuple[tuple[Destination, ...], dict[str, int], tuple[Connection, ...],
                                              tuple[int, ...], int, int]:
    f = "board.json"
    dests_raw = _get(raw, "destinations", list, f, "board")
    dests: list[Destination] = []
    index: dict[str, int] = {}
    for i, e in enumerate(dests_raw):
        where = f"destination #{i}"
        did = _get(e, "id", str, f, where)
        _need(did not in index, f, f"duplicate destination id {did!r}")
        region = _get(e, "region", str, f, did)
        _need(region in REGIONS, f, f"{did}: unknown region {region!r}")
        start = _get(e, "isStartCity", bool, f, did)
        slots = _get(e, "slots", int, f, did)
        slots45 = _get(e, "slots45", int, f, did)
        modifier = _get(e, "incomeModifier", int, f, did) if start else 0
        dest = Destination(len(dests), did, _get(e, "name", str, f, did), region, slots, slots45, start, modifier,
                           _get(e, "isSpecialTarget", bool, f, did), _get(e, "x", int, f, did),
                           _get(e, "y", int, f, did))
        index[did] = dest.index
        dests.append(dest)
    for region, names in REQUIRED.items():
        for name in names:
            _need(name in index, f, f"destination {name!r} named by the rules is missing (AE-16.1)")
            _need(dests[index[name]].region == region, f, f"{name} must be in region {region} (AE-16.1)")
    for d in dests:
        is_start = d.id in START_CITIES
        _need(d.start == is_start, f, f"{d.id}: isStartCity must be {is_start} (AE-1.3)")
        _need(d.special == (d.id in SPECIAL_TARGETS), f, f"{d.id}: isSpecialTarget is wrong (AE-16.1)")
        if is_start:
            _need(d.slots == 3 and d.slots45 == 1, f, f"{d.id}: a start city has 3 slots, one marked 4/5 (AE-16.1)")
            _need(-2 <= d.income_modifier <= 2, f, f"{d.id}: income modifier must be a small integer (AE-16.3)")
        else:
            _need(d.slots == 2 and d.slots45 == 0, f, f"{d.id}: must have 2 slots and no 4/5 slot (AE-16.1)")
    _need(dests[index["paris"]].income_modifier == -1, f, "Paris income modifier must be -1 (AE-5.2)")
    _need(dests[index["berlin"]].income_modifier == 2, f, "Berlin income modifier must be +2 (AE-5.2)")

    conns: list[Connection] = []
    seen: set[tuple[int, int]] = set()
    for i, e in enumerate(_get(raw, "connections", list, f, "board")):
        where = f"connection #{i}"
        a, b = _get(e, "a", str, f, where), _get(e, "b", str, f, where)
        _need(a in index and b in index, f, f"{where} joins an unknown destination ({a}-{b})")
        _need(a != b, f, f"{where} is a self-loop at {a}")
        colour = _get(e, "colour", str, f, where)
        _need(colour in COLOURS, f, f"{where}: colour must be white, red or black")
        danger = e.get("dangerousRolls")
        if danger is not None:
            _need(isinstance(danger, list) and danger and all(isinstance(t, int) and not isinstance(t, bool)
                                                              and t > 0 for t in danger),
                  f, f"{where}: dangerousRolls must be a list of thresholds or null")
            danger = tuple(danger)
        special = _get(e, "special", bool, f, where)
        ia, ib = index[a], index[b]
        key = (ia, ib) if special else (min(ia, ib), max(ia, ib))
        _need(key not in seen and (ib, ia) not in seen, f, f"duplicate connection {a}-{b} (AE-16.2)")
        seen.add(key)
        if special:
            _need(dests[ia].region == "Europe" and dests[ib].special, f,
                  f"special connection {a}->{b} must run from Europe to a special target (AE-8.4)")
        else:
            for x, y in ((ia, ib), (ib, ia)):
                _need(not (dests[x].special and dests[y].region == "Europe"), f,
                      f"{a}-{b}: no non-special connection may join a special target to Europe (AE-16.2)")
        conns.append(Connection(ia, ib, colour, _get(e, "longHaul", bool, f, where), special, danger))

    def find(a: str, b: str) -> Connection | None:
        ia, ib = index[a], index[b]
        for c in conns:
            if {c.a, c.b} == {ia, ib}:
                return c
        return None

    def fact(a: str, b: str, message: str, check: Any) -> None:
        c = find(a, b)
        _need(c is not None and check(c), f, f"{a}-{b}: {message} (AE-16.2)")

    fact("vienna", "warsaw", "must be white", lambda c: c.colour == "white" and c.dangerous is None)
    fact("persia", "india", "must be red", lambda c: c.colour == "red" and c.dangerous is None)
    fact("persia", "burma", "must be black", lambda c: c.colour == "black" and c.dangerous is None)
    fact("ethiopia", "india", "must be long-haul", lambda c: c.long_haul)
    fact("ethiopia", "kenya", "must be red", lambda c: c.colour == "red" and c.dangerous is None)
    fact("kenya", "east_africa", "must be red", lambda c: c.colour == "red" and c.dangerous is None)
    fact("frankfurt", "paris", "must exist", lambda c: True)
    fact("paris", "madrid", "must exist", lambda c: True)
    fact("java", "australia", "must be dangerous [12, 12] and not long-haul",
         lambda c: c.dangerous == (12, 12) and not c.long_haul)
    fact("dakar", "south_america", "must be dangerous [14, 14] and long-haul",
         lambda c: c.dangerous == (14, 14) and c.long_haul)
    _need(find("ethiopia", "east_africa") is None, f, "ethiopia-east_africa must not be connected (AE-8.18)")
    _need(find("frankfurt", "madrid") is None, f, "frankfurt-madrid must not be connected (AE-8.6)")
    for d in dests:
        if d.region != "Europe":
            continue
        for target in SPECIAL_TARGETS:
            c = find(d.id, target)
            _need(c is not None and c.special and c.a == d.index, f,
                  f"{d.id} needs a special connection to {target} (AE-8.4)")
            if target == "north_america":
                _need(c.dangerous == (14, 14, 14) and c.long_haul, f,
                      f"{d.id}->north_america must be dangerous [14, 14, 14] and long-haul (AE-16.2)")
    for c in conns:
        if c.dangerous is not None:
            names = {dests[c.a].id, dests[c.b].id}
            _need(names in ({"java", "australia"}, {"dakar", "south_america"})
                  or (c.special and dests[c.b].id == "north_america"), f,
                  f"{dests[c.a].id}-{dests[c.b].id} is not one of the three dangerous routes (AE-8.10)")

    sections_raw = _get(raw, "waitingSections", list, f, "board")
    _need(sorted(sections_raw) == sorted(START_CITIES), f, "waitingSections must list the six start cities")
    _need(sections_raw[0] == "rome" and sections_raw[-1] == "berlin", f,
          "waitingSections must run from Rome to Berlin (AE-16.6)")
    per = _get(raw, "waitingSlotsPerSection", int, f, "board")
    _need(per == 4, f, "waitingSlotsPerSection must be 4 (AE-16.6)")
    overflow = _get(raw, "overflowSpaces", int, f, "board")
    _need(overflow == 8, f, "overflowSpaces must be 8 (AE-2.9)")
    return tuple(dests), index, tuple(conns), tuple(index[s] for s in sections_raw), per, overflow


def _out_edges(dests: tuple[Destination, ...], conns: tuple[Connection, ...]) -> tuple[tuple[tuple[int, Connection],
                                                                                              ...], ...]:
    out: list[list[tuple[int, Connection]]] = [[] for _ in dests]
    for c in conns:
        out[c.a].append((c.b, c))
        if not c.special:
            out[c.b].append((c.a, c))
    return tuple(tuple(sorted(edges, key=lambda e: e[0])) for edges in out)


def _check_reachable(dests: tuple[Destination, ...], out: Any) -> None:
    for d in dests:
        if not d.start:
            continue
        seen = {d.index}
        todo = [d.index]
        while todo:
            for n, _ in out[todo.pop()]:
                if n not in seen:
                    seen.add(n)
                    todo.append(n)
        missing = sorted(x.id for x in dests if x.index not in seen)
        _need(not missing, "board.json", f"from {d.id} these are unreachable: {', '.join(missing)} (AE-16.2)")


def _load_cards(raw: dict[str, Any]) -> tuple[Card, ...]:
    f = "aircraft.json"
    cards: list[Card] = []
    for i, e in enumerate(_get(raw, "cards", list, f, "aircraft")):
        where = f"card #{i + 1}"
        stage_name = _get(e, "stage", str, f, where)
        _need(stage_name in STAGES, f, f"{where}: stage must be I, II or III")
        card = Card(_get(e, "number", int, f, where), _get(e, "era", int, f, where), _get(e, "name", str, f, where),
                    _get(e, "price", int, f, where), _get(e, "airportTiles", int, f, where), STAGES[stage_name],
                    _get(e, "vp", int, f, where), _get(e, "capacity", int, f, where),
                    _get(e, "longHaul", bool, f, where))
        cards.append(card)
    _need(len(cards) == 46, f, f"there must be exactly 46 aircraft cards, not {len(cards)} (AE-2.1)")
    _need([c.number for c in cards] == list(range(1, 47)), f, "cards must be numbered 1-46 in order (AE-16.5)")
    for c in cards:
        w = f"card {c.number}"
        _need(c.era in (1, 2, 3), f, f"{w}: era must be 1-3")
        _need(c.tiles in (1, 2), f, f"{w}: airportTiles must be 1 or 2 (AE-16.5)")
        _need(c.vp in (0, 1), f, f"{w}: vp must be 0 or 1 (AE-16.5)")
        _need(c.capacity >= 1, f, f"{w}: capacity must be at least 1")
        _need(c.stage == c.era, f, f"{w}: stage must rise with era (AE-16.5)")
        limit = {1: 12 + 2, 2: 12 + 22, 3: 12 + 32}[c.era]
        _need(1 <= c.price <= limit, f, f"{w}: price {c.price} does not fit the era's income (AE-16.5)")
    for a, b in itertools.pairwise(cards):
        _need(a.era <= b.era, f, f"card {b.number}: era must not decrease with the number (AE-16.5)")
    _need(all(c.era == 1 for c in cards[:12]), f, "cards 1-12 must be era 1 (AE-16.5)")
    _need(any(c.long_haul for c in cards if c.era == 1) and any(c.long_haul for c in cards if c.era == 2), f,
          "eras 1 and 2 need long-haul cards (AE-16.5)")
    return tuple(cards)


def _load_passengers(raw: dict[str, Any], index: dict[str, int], dests: tuple[Destination, ...]
                     ) -> tuple[PassengerTile, ...]:
    f = "passengers.json"
    tiles: list[PassengerTile] = []
    for i, e in enumerate(_get(raw, "tiles", list, f, "passengers")):
        where = f"tile #{i + 1}"
        dest = _get(e, "destination", str, f, where)
        _need(dest in index, f, f"{where}: unknown destination {dest!r}")
        tile = PassengerTile(_get(e, "id", int, f, where), index[dest], _get(e, "capacity", int, f, where),
                             _get(e, "vp", int, f, where), _get(e, "notEra1", bool, f, where))
        _need(tile.capacity in (1, 2, 3), f, f"{where}: capacity must be 1-3 (AE-2.8)")
        _need(tile.vp >= 0, f, f"{where}: vp must be >= 0 (AE-2.8)")
        tiles.append(tile)
    _need(len(tiles) == 96, f, f"there must be exactly 96 passenger tiles, not {len(tiles)} (AE-16.7)")
    _need([t.id for t in tiles] == list(range(1, 97)), f, "tile ids must be 1-96 in order")
    plain = sum(1 for t in tiles if not t.not_era1)
    _need(plain >= 24, f, "at least 24 tiles must lack the era-1 mark (AE-16.7)")
    _need(any(t.vp == 0 for t in tiles), f, "some tiles must have 0 VP (AE-16.7)")
    _need(any(dests[t.dest].start for t in tiles), f, "some tiles must go to start cities (AE-16.7)")
    for name in ("north_america", "south_america", "australia"):
        _need(any(t.dest == index[name] for t in tiles), f, f"some tiles must go to {name} (AE-16.7)")
    return tuple(tiles)


def _load_vp(raw: dict[str, Any]) -> tuple[tuple[dict[str, tuple[int, int]], ...], tuple[tuple[int, int, int], ...]]:
    f = "vp_table.json"
    eras = _get(raw, "eras", list, f, "vp table")
    _need(len(eras) == 3 and [e.get("era") for e in eras] == [1, 2, 3], f, "the table needs eras 1, 2, 3 in order")
    majority: list[dict[str, tuple[int, int]]] = []
    profit: list[tuple[int, int, int]] = []
    for e in eras:
        maj = _get(e, "majority", dict, f, f"era {e['era']}")
        row: dict[str, tuple[int, int]] = {}
        for market in MARKETS:
            pair = maj.get(market)
            _need(isinstance(pair, list) and len(pair) == 2 and all(isinstance(v, int) for v in pair), f,
                  f"era {e['era']}: majority {market} needs [1st, 2nd]")
            _need(pair[0] > pair[1] >= 0, f, f"era {e['era']} {market}: 1st must beat 2nd (AE-16.4)")
            row[market] = (pair[0], pair[1])
        pr = _get(e, "profit", list, f, f"era {e['era']}")
        _need(len(pr) == 3 and all(isinstance(v, int) for v in pr), f, f"era {e['era']}: profit needs 3 values")
        _need(pr[0] > pr[1] > pr[2] >= 0, f, f"era {e['era']}: profit must be 1st > 2nd > 3rd >= 0 (AE-16.4)")
        majority.append(row)
        profit.append((pr[0], pr[1], pr[2]))
    _need(profit[0] == (5, 3, 1), f, "era-1 profit must be 5/3/1 (AE-13.4)")
    for a, b in zip(range(2), range(1, 3)):
        _need(all(x <= y for x, y in zip(profit[a], profit[b])), f, "profit VP must not decrease by era (AE-16.4)")
        for m in MARKETS:
            _need(all(x <= y for x, y in zip(majority[a][m], majority[b][m])), f,
                  f"{m} VP must not decrease by era (AE-16.4)")
    return tuple(majority), tuple(profit)


def _load_advantages(raw: dict[str, Any]) -> tuple[dict[int, str], dict[int, int], int]:
    f = "advantages.json"
    per = _get(raw, "perType", int, f, "advantages")
    _need(per == 6, f, "there are exactly 6 tiles of each type (AE-2.1)")
    names: dict[int, str] = {}
    from_era: dict[int, int] = {}
    for e in _get(raw, "types", list, f, "advantages"):
        t = _get(e, "type", int, f, "type")
        names[t] = _get(e, "id", str, f, f"type {t}")
        from_era[t] = _get(e, "fromEra", int, f, f"type {t}")
    _need(sorted(names) == list(ADVANTAGE_TYPES), f, "advantage types must be 2-6")
    _need(from_era == {2: 1, 3: 1, 4: 2, 5: 2, 6: 3}, f, "advantage eras must be 2,3: era 1; 4,5: era 2; 6: era 3")
    return names, from_era, per


def build(files: dict[str, Any]) -> Data:
    """Validate raw file contents (parsed JSON by file name) into `Data`; DataError on any breach."""
    for name in ("board.json", "aircraft.json", "passengers.json", "vp_table.json", "advantages.json"):
        if not isinstance(files.get(name), dict):
            raise DataError(f"{name}: missing or not a JSON object")
    dests, index, conns, sections, per, overflow = _load_board(files["board.json"])
    out = _out_edges(dests, conns)
    _check_reachable(dests, out)
    cards = _load_cards(files["aircraft.json"])
    passengers = _load_passengers(files["passengers.json"], index, dests)
    majority, profit = _load_vp(files["vp_table.json"])
    names, from_era, per_type = _load_advantages(files["advantages.json"])
    board_json: dict[str, Any] = {
        "destinations": [{"id": d.id, "name": d.name, "region": d.region, "slots": d.slots, "slots45": d.slots45,
                          "isStartCity": d.start, "isSpecialTarget": d.special, "x": d.x, "y": d.y,
                          **({"incomeModifier": d.income_modifier} if d.start else {})} for d in dests],
        "connections": [{"a": dests[c.a].id, "b": dests[c.b].id, "colour": c.colour, "longHaul": c.long_haul,
                         "special": c.special, "dangerousRolls": list(c.dangerous) if c.dangerous else None}
                        for c in conns],
        "waitingSections": [dests[s].id for s in sections],
        "cards": [{"number": c.number, "era": c.era, "name": c.name, "price": c.price, "airportTiles": c.tiles,
                   "stage": c.stage, "vp": c.vp, "capacity": c.capacity, "longHaul": c.long_haul} for c in cards],
        "passengers": [{"id": t.id, "destination": dests[t.dest].id, "capacity": t.capacity, "vp": t.vp,
                        "notEra1": t.not_era1} for t in passengers],
        "vpTable": [{"era": e + 1, "majority": {m: list(v) for m, v in majority[e].items()},
                     "profit": list(profit[e])} for e in range(3)],
    }
    return Data(dests, index, out, conns, sections, per, overflow, cards, passengers, majority, profit, names,
                from_era, per_type, board_json)


def read_files(directory: Path = DATA_DIR) -> dict[str, Any]:
    """Parse the data files; DataError naming a file that is missing or not JSON."""
    files: dict[str, Any] = {}
    for name in ("board.json", "aircraft.json", "passengers.json", "vp_table.json", "advantages.json"):
        path = directory / name
        try:
            files[name] = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise DataError(f"{name}: file not found in {directory}") from None
        except json.JSONDecodeError as exc:
            raise DataError(f"{name}: not valid JSON ({exc})") from None
    return files


DATA = build(read_files())
