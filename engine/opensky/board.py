"""Board data: loading, validating (OS-23.3) and precomputing one side of the map.

The maps live in `data/<side>.json`; nothing about them is hard-coded. A board is
loaded once per process and shared by every state (it is immutable), so the
adjacency and the prebuilt placement actions cost nothing per game.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).with_name("data")
COUNTRIES = ("USA", "CAN", "MEX")


class BoardError(ValueError):
    """Map data that breaks an OS-23.3 validity check."""


@dataclass(frozen=True)
class Board:
    """One side of the board: airports (indexed 0..A-1 in file order) and routes.

    Routes are sorted by their codes and named "AAA-BBB" with the two codes in
    alphabetical order; a route index is a position in `routes`.
    """

    name: str
    title: str
    codes: tuple[str, ...]
    names: tuple[str, ...]
    lat: tuple[float, ...]
    lon: tuple[float, ...]
    country: tuple[str, ...] | None
    routes: tuple[tuple[int, int], ...]
    route_codes: tuple[str, ...]
    cross_border: tuple[bool, ...]
    airport_index: dict[str, int]
    route_index: dict[str, int]
    #: per airport: ((neighbour, route index), ...)
    adj: tuple[tuple[tuple[int, int], ...], ...]

    @property
    def north_america(self) -> bool:
        return self.country is not None

    def route_between(self, a: int, b: int) -> int | None:
        for n, r in self.adj[a]:
            if n == b:
                return r
        return None

    def describe(self) -> dict[str, Any]:
        """Static, client-friendly description for drawing the board."""
        airports = []
        for i, code in enumerate(self.codes):
            item: dict[str, Any] = {"code": code, "name": self.names[i], "lat": self.lat[i], "lon": self.lon[i]}
            if self.country is not None:
                item["country"] = self.country[i]
            airports.append(item)
        return {
            "name": self.name,
            "title": self.title,
            "airports": airports,
            "routes": [
                {"route": self.route_codes[r], "cross_border": self.cross_border[r]} for r in range(len(self.routes))
            ],
        }


def _fail(source: str, message: str) -> BoardError:
    return BoardError(f"map {source}: {message}")


def parse_board(obj: Any, source: str, *, north_america: bool) -> Board:
    """Validate raw map JSON against OS-23.2/OS-23.3 and build a Board.

    Raises BoardError with the offending item named.
    """
    if not isinstance(obj, dict):
        raise _fail(source, "top level must be an object with 'airports' and 'routes'")
    for key in ("name", "title", "airports", "routes"):
        if key not in obj:
            raise _fail(source, f"missing key {key!r}")
    airports, routes = obj["airports"], obj["routes"]
    if not isinstance(airports, list) or not airports:
        raise _fail(source, "'airports' must be a non-empty list")
    if not isinstance(routes, list):
        raise _fail(source, "'routes' must be a list")
    codes: list[str] = []
    names: list[str] = []
    lat: list[float] = []
    lon: list[float] = []
    country: list[str] = []
    index: dict[str, int] = {}
    for i, ap in enumerate(airports):
        if not isinstance(ap, dict):
            raise _fail(source, f"airport #{i} must be an object")
        code = ap.get("code")
        if not isinstance(code, str) or len(code) != 3 or not code.isalpha() or not code.isupper():
            raise _fail(source, f"airport #{i} has a bad code {code!r} (three capital letters, IATA style)")
        if code in index:
            raise _fail(source, f"duplicate airport code {code!r}")
        name = ap.get("name")
        if not isinstance(name, str) or not name:
            raise _fail(source, f"airport {code} needs a non-empty 'name'")
        la, lo = ap.get("lat"), ap.get("lon")
        if not isinstance(la, int | float) or isinstance(la, bool) or not -90 <= la <= 90:
            raise _fail(source, f"airport {code} has a bad latitude {la!r}")
        if not isinstance(lo, int | float) or isinstance(lo, bool) or not -180 <= lo <= 180:
            raise _fail(source, f"airport {code} has a bad longitude {lo!r}")
        if north_america:
            c = ap.get("country")
            if c not in COUNTRIES:
                raise _fail(source, f"airport {code} has country {c!r}; it must be one of {', '.join(COUNTRIES)}")
            country.append(c)
        index[code] = i
        codes.append(code)
        names.append(name)
        lat.append(float(la))
        lon.append(float(lo))
    pairs: dict[tuple[int, int], None] = {}
    for i, route in enumerate(routes):
        if not isinstance(route, list) or len(route) != 2 or not all(isinstance(c, str) for c in route):
            raise _fail(source, f"route #{i} must be a pair of airport codes, not {route!r}")
        a, b = route
        for c in (a, b):
            if c not in index:
                raise _fail(source, f"route {a}-{b} references unknown airport {c!r}")
        if a == b:
            raise _fail(source, f"route {a}-{b} joins an airport to itself")
        key = (index[a], index[b]) if a < b else (index[b], index[a])
        if key in pairs:
            raise _fail(source, f"duplicate route {a}-{b} (A-B and B-A are the same route)")
        pairs[key] = None
    degree = [0] * len(codes)
    for a, b in pairs:
        degree[a] += 1
        degree[b] += 1
    for i, d in enumerate(degree):
        if d < 2:
            raise _fail(source, f"airport {codes[i]} has {d} route(s); every airport needs at least 2")
    ordered = sorted(pairs, key=lambda p: (codes[p[0]], codes[p[1]]))
    route_codes = tuple(f"{codes[a]}-{codes[b]}" for a, b in ordered)
    adj: list[list[tuple[int, int]]] = [[] for _ in codes]
    for r, (a, b) in enumerate(ordered):
        adj[a].append((b, r))
        adj[b].append((a, r))
    seen = {0}
    todo = [0]
    while todo:
        x = todo.pop()
        for y, _ in adj[x]:
            if y not in seen:
                seen.add(y)
                todo.append(y)
    if len(seen) != len(codes):
        cut = sorted(codes[i] for i in range(len(codes)) if i not in seen)
        raise _fail(source, f"the route graph is not connected; unreachable from {codes[0]}: {', '.join(cut)}")
    xb = tuple(bool(north_america and country[a] != country[b]) for a, b in ordered)
    return Board(
        name=str(obj["name"]),
        title=str(obj["title"]),
        codes=tuple(codes),
        names=tuple(names),
        lat=tuple(lat),
        lon=tuple(lon),
        country=tuple(country) if north_america else None,
        routes=tuple(ordered),
        route_codes=route_codes,
        cross_border=xb,
        airport_index=index,
        route_index={code: r for r, code in enumerate(route_codes)},
        adj=tuple(tuple(sorted(row)) for row in adj),
    )


def load_board(name: str) -> Board:
    """Load and validate `data/<name>.json`."""
    path = DATA_DIR / f"{name}.json"
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise BoardError(f"map {path.name}: not valid JSON ({exc})") from exc
    return parse_board(obj, path.name, north_america=(name == "north_america"))


BOARDS: dict[str, Board] = {name: load_board(name) for name in ("europe", "north_america")}
