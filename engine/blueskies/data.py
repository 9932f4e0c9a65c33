"""Blue Skies component data: load `data/blueskies.json` and validate it (BS-10.2, BS-10.3).

The engine trusts only a `Board` built by `parse_board`, so every shape error or
broken design constraint surfaces here, at import, with a message naming the
airport and the rule, instead of as a strange game later.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DATA_FILE = Path(__file__).with_name("data") / "blueskies.json"

GRID_COLS = 6
GRID_ROWS = 5
NUM_AIRPORTS = GRID_COLS * GRID_ROWS
NUM_SPACES = 4
NUM_REGIONS = 7
TOTAL_CARDS = 59
REQUIRED_CODES = ("ATL", "CVG", "CLE", "JFK", "ORD", "DFW", "LAX")
MULTI_REGION_CODES = ("JFK", "ORD", "DFW", "LAX")
FIXED_CARDS = {"ATL": 5, "CVG": 1}
SCALARS = (
    "gatesPerPlayer",
    "secondPlaceBonus",
    "unusedSpecialBonus",
    "governmentThreshold",
    "endScore",
    "budget",
    "setupMaxGates",
    "handSize",
    "setupLocalCards",
)


class DataError(ValueError):
    """The data file breaks the schema (BS-10.2) or a constraint (BS-10.3)."""


@dataclass(frozen=True, slots=True)
class Airport:
    index: int
    code: str
    name: str
    col: int
    row: int
    cards: int
    value: int
    costs: tuple[int, ...]
    min_players: tuple[int, ...]
    buyout: int | None
    regions: tuple[int, ...]
    enplanements: float | None


@dataclass(frozen=True, slots=True)
class Region:
    index: int
    id: str
    name: str
    bonus: int
    airports: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Board:
    airports: tuple[Airport, ...]
    regions: tuple[Region, ...]
    red: int
    green: int
    gates_per_player: int
    second_place_bonus: int
    unused_special_bonus: int
    government_threshold: int
    end_score: int
    budget: int
    setup_max_gates: int
    hand_size: int
    setup_local_cards: int
    raw: dict[str, Any]


def _int(obj: Any, where: str, low: int | None = None, high: int | None = None) -> int:
    if isinstance(obj, bool) or not isinstance(obj, int):
        raise DataError(f"{where} must be an integer, not {obj!r}")
    if low is not None and obj < low:
        raise DataError(f"{where} must be >= {low}, not {obj}")
    if high is not None and obj > high:
        raise DataError(f"{where} must be <= {high}, not {obj}")
    return obj


def _str(obj: Any, where: str) -> str:
    if not isinstance(obj, str) or not obj:
        raise DataError(f"{where} must be a non-empty string, not {obj!r}")
    return obj


def _parse_airport(i: int, obj: Any, region_ids: dict[str, int]) -> Airport:
    where = f"airports[{i}]"
    if not isinstance(obj, dict):
        raise DataError(f"{where} must be an object")
    for key in ("code", "name", "col", "row", "cards", "value", "spaces", "buyout", "regions"):
        if key not in obj:
            raise DataError(f"{where} is missing {key!r} (BS-10.2)")
    code = _str(obj["code"], f"{where}.code")
    where = f"airport {code}"
    spaces = obj["spaces"]
    if not isinstance(spaces, list) or len(spaces) != NUM_SPACES:
        raise DataError(f"{where}: spaces must be a list of exactly {NUM_SPACES} (C4)")
    costs, mins = [], []
    for s, space in enumerate(spaces, start=1):
        if not isinstance(space, dict) or set(space) != {"cost", "minPlayers"}:
            raise DataError(f"{where}: space {s} must be {{cost, minPlayers}} (BS-10.2)")
        costs.append(_int(space["cost"], f"{where} space {s} cost (C4)", 1, 5))
        mins.append(_int(space["minPlayers"], f"{where} space {s} minPlayers (BS-2.1)", 2, 5))
    if any(a > b for a, b in itertools.pairwise(costs)):
        raise DataError(f"{where}: space costs {costs} decrease from left to right (C4)")
    if mins[0] != 2 or mins[1] != 2 or any(a > b for a, b in itertools.pairwise(mins)):
        raise DataError(f"{where}: minPlayers {mins} must start 2, 2 and never decrease (BS-2.1)")
    buyout = obj["buyout"]
    if buyout is not None:
        buyout = _int(buyout, f"{where} buyout (C5)", costs[1], 6)
    regions = obj["regions"]
    if not isinstance(regions, list) or not regions:
        raise DataError(f"{where}: regions must be a non-empty list (C7)")
    region_idx = []
    for rid in regions:
        if rid not in region_ids:
            raise DataError(f"{where}: unknown region {rid!r} (C7)")
        region_idx.append(region_ids[rid])
    if len(set(region_idx)) != len(region_idx):
        raise DataError(f"{where}: region listed twice (C7)")
    enplanements = obj.get("enplanements")
    if enplanements is not None and (isinstance(enplanements, bool) or not isinstance(enplanements, int | float)):
        raise DataError(f"{where}: enplanements must be a number (C3)")
    return Airport(
        index=i,
        code=code,
        name=_str(obj["name"], f"{where}.name"),
        col=_int(obj["col"], f"{where} col (C2)", 1, GRID_COLS),
        row=_int(obj["row"], f"{where} row (C2)", 1, GRID_ROWS),
        cards=_int(obj["cards"], f"{where} cards (C3)", 1),
        value=_int(obj["value"], f"{where} value (C6)", 1),
        costs=tuple(costs),
        min_players=tuple(mins),
        buyout=buyout,
        regions=tuple(region_idx),
        enplanements=float(enplanements) if enplanements is not None else None,
    )


def _check_airports(airports: list[Airport]) -> None:
    """Cross-airport constraints C1-C7."""
    if len(airports) != NUM_AIRPORTS:
        raise DataError(f"there must be exactly {NUM_AIRPORTS} airports, not {len(airports)} (C1)")
    codes = [a.code for a in airports]
    for dup in sorted({c for c in codes if codes.count(c) > 1}):
        raise DataError(f"airport code {dup} appears twice (C1)")
    names = [a.name for a in airports]
    for dup in sorted({n for n in names if names.count(n) > 1}):
        raise DataError(f"city {dup!r} has two airports (C1)")
    for code in REQUIRED_CODES:
        if code not in codes:
            raise DataError(f"airport {code} is missing (C1)")
    cells = [(a.col, a.row) for a in airports]
    for dup in sorted({c for c in cells if cells.count(c) > 1}):
        raise DataError(f"grid cell col {dup[0]}, row {dup[1]} holds two airports (C2)")
    total = sum(a.cards for a in airports)
    if total != TOTAL_CARDS:
        raise DataError(f"the demand cards total {total}, not {TOTAL_CARDS} (C3)")
    by_code = {a.code: a for a in airports}
    for code, count in FIXED_CARDS.items():
        if by_code[code].cards != count:
            raise DataError(f"airport {code} must have {count} cards, not {by_code[code].cards} (C3)")
    if all(a.buyout is not None for a in airports):
        raise DataError("at least one airport must have buyout N/A (null) (C5)")
    for a in airports:
        for b in airports:
            if a.cards > b.cards:
                if any(x < y for x, y in zip(a.costs, b.costs)):
                    raise DataError(f"busier airport {a.code} has a cheaper space than {b.code} (C4)")
                if a.value < b.value:
                    raise DataError(f"airport {a.code} has more cards but a lower value than {b.code} (C6)")
            if (
                a.enplanements is not None
                and b.enplanements is not None
                and a.enplanements > b.enplanements
                and a.cards < b.cards
            ):
                raise DataError(f"airport {a.code} has more enplanements but fewer cards than {b.code} (C3)")
        if a.enplanements is not None and a.code not in FIXED_CARDS:
            expected = max(1, int(a.enplanements / 10 + 0.5))
            if a.cards != expected:
                raise DataError(
                    f"airport {a.code}: {a.enplanements}M enplanements give {expected} cards, not {a.cards} (C3)"
                )
        if a.code in MULTI_REGION_CODES:
            if len(a.regions) < 2:
                raise DataError(f"airport {a.code} must belong to at least 2 regions (C7)")
        elif len(a.regions) != 1:
            raise DataError(f"airport {a.code} must belong to exactly 1 region (C7)")


def parse_board(obj: Any) -> Board:
    """Build a validated Board from the decoded JSON; DataError naming the first problem."""
    if not isinstance(obj, dict):
        raise DataError("the data file must hold a JSON object")
    for key in ("airports", "regions", "bag", *SCALARS):
        if key not in obj:
            raise DataError(f"the data file is missing {key!r} (BS-10.2)")
    regions_raw = obj["regions"]
    if not isinstance(regions_raw, list) or len(regions_raw) != NUM_REGIONS:
        raise DataError(f"there must be exactly {NUM_REGIONS} regions (C7)")
    region_ids: dict[str, int] = {}
    for r, region in enumerate(regions_raw):
        if not isinstance(region, dict) or not {"id", "name", "bonus"} <= set(region):
            raise DataError(f"regions[{r}] must be {{id, name, bonus}} (BS-10.2)")
        rid = _str(region["id"], f"regions[{r}].id")
        if rid in region_ids:
            raise DataError(f"region id {rid} appears twice (C7)")
        region_ids[rid] = r
    second = _int(obj["secondPlaceBonus"], "secondPlaceBonus", 0)
    airports_raw = obj["airports"]
    if not isinstance(airports_raw, list):
        raise DataError("airports must be a list (BS-10.2)")
    airports = [_parse_airport(i, a, region_ids) for i, a in enumerate(airports_raw)]
    _check_airports(airports)
    regions = []
    for r, region in enumerate(regions_raw):
        members = tuple(a.index for a in airports if r in a.regions)
        if not members:
            raise DataError(f"region {region['id']} has no airport (C7)")
        regions.append(
            Region(
                index=r,
                id=region["id"],
                name=_str(region["name"], f"region {region['id']} name"),
                bonus=_int(region["bonus"], f"region {region['id']} bonus (C7)", second + 1),
                airports=members,
            )
        )
    bag = obj["bag"]
    if not isinstance(bag, dict) or set(bag) != {"red", "green"}:
        raise DataError("bag must be {red, green} (BS-10.2)")
    scalars = {key: _int(obj[key], key, 0) for key in SCALARS}
    for key in ("gatesPerPlayer", "budget", "handSize", "endScore"):
        if scalars[key] < 1:
            raise DataError(f"{key} must be >= 1")
    return Board(
        airports=tuple(airports),
        regions=tuple(regions),
        red=_int(bag["red"], "bag.red", 1),
        green=_int(bag["green"], "bag.green", 0),
        gates_per_player=scalars["gatesPerPlayer"],
        second_place_bonus=second,
        unused_special_bonus=scalars["unusedSpecialBonus"],
        government_threshold=scalars["governmentThreshold"],
        end_score=scalars["endScore"],
        budget=scalars["budget"],
        setup_max_gates=scalars["setupMaxGates"],
        hand_size=scalars["handSize"],
        setup_local_cards=scalars["setupLocalCards"],
        raw=obj,
    )


def load_board(path: Path = DATA_FILE) -> Board:
    """Read and validate a data file; DataError (with the path) if it is unreadable or invalid."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise DataError(f"cannot read Blue Skies data file {path}: {exc}") from exc
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(f"{path} is not valid JSON: {exc}") from exc
    try:
        return parse_board(obj)
    except DataError as exc:
        raise DataError(f"{path}: {exc}") from exc


BOARD = load_board()
